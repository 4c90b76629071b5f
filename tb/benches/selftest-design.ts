// The selftest benches' design: the 16-bit skid buffer behind a thin wrapper that adds cover
// points (m.cover), so the tooling's own benches exercise user coverage end to end (counted
// per run, merged by make regress and `nicgen regress merge`). The stream logic is the skid
// buffer's, unchanged.

import { UInt, defineModule } from '../../gen/hdl/index.ts';
import { connect, stream } from '../../gen/lib/interfaces.ts';
import { skidBuffer } from '../../gen/lib/skid.ts';
import { design } from '../design.ts';

export const selftestSkid = defineModule('selftest_skid', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const bus = stream(UInt(16 as number));   // the skid buffer's width is a plain number parameter
  const s = bus.sink(m, 's');
  const o = bus.source(m, 'm');
  const u = m.instance('u_skid', skidBuffer, { width: 16 });
  connect(bus, s, u.s);
  connect(bus, u.m, o);
  m.cover(s.valid.land(s.ready).land(o.valid).land(o.ready), 'streaming');
  m.cover(o.valid.land(o.ready.lnot()), 'sink_stalls');
  m.cover(s.valid.land(s.ready.lnot()), 'source_waits');
  return { clk, rst, s, m: o };
}, { doc: 'selftest benches: skid_buffer (16 bits) with cover points' });

export const selftestDesign = () => design(selftestSkid);
