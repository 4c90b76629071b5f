// Compile-time checks of bundle field typing (`tsc -p tsconfig.json` fails when one breaks;
// never executed): an AXI-Stream bundle's optional fields are present in the type exactly when
// its parameters say so, so a configured tkeep/tlast/tuser needs no `!`.

import { Bool, defineModule } from '../hdl/index.ts';
import { axiStream, type AxisParams } from './interfaces.ts';

export const fieldTypeChecks = defineModule('ifc_checks', {}, m => {
  const full = axiStream({ dataWidth: 64, userWidth: 1 }).sink(m, 's_full');
  // Present: default keep and last, and a literal userWidth.
  const k = full.tkeep.bits(0, 0), l = full.tlast.land(1), u = full.tuser.bit(0);
  const bare = axiStream({ dataWidth: 32, keep: false, last: false }).source(m, 'm_bare');
  // @ts-expect-error keep: false leaves tkeep out
  bare.tkeep.set(0);
  // @ts-expect-error last: false leaves tlast out
  bare.tlast.set(0);
  // @ts-expect-error no userWidth: no tuser
  bare.tuser.set(0);
  bare.tdata.set(full.tdata.bits(31, 0));
  bare.tvalid.set(full.tvalid);
  full.tready.set(bare.tready);
  // Only known at elaboration: optional, so the design must decide.
  const p: AxisParams = { dataWidth: 8, keep: Math.random() < 2 };
  const maybe = axiStream(p).sink(m, 's_maybe');
  // @ts-expect-error possibly absent
  maybe.tkeep.bit(0);
  const y = m.output('y', Bool);
  y.set(k.land(l).land(u));
  return { s_full: full, m_bare: bare, s_maybe: maybe, y };
});
