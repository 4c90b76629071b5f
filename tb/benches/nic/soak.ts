// `nicgen sim nic_pair --test soak`: the fault soak (tb/nic/soak-scenario.ts) with the fault mix
// of the seed (SOAK_MIXES, cycled by seed: uniform, burst, heavy, dup-reorder, burst+random;
// NICGEN_SOAK_MIX=<name> picks one; the fault flags, when given, replace it). The capture as
// sent is checked after the run (--pcap FILE keeps it; else a temporary file, removed when the
// run passes). NICGEN_SOAK_WQES sets the WQEs (default 11 000 of at most 8 KiB: ~50 000 frames,
// so make regress's 20 seeds put more than 10^6 frames through the faults).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PairEnv } from '../../nic/env.ts';
import { LINK_DIRS } from '../../nic/link-faults.ts';
import { bothWays, runSoak, soakMix, soakSummary } from '../../nic/soak-scenario.ts';
import { defineBench } from '../bench.ts';
import { reportProgress } from '../progress.ts';
import { withPairLink } from './pair-link.ts';
import { pairDesign } from './write.ts';

export const SOAK_WQES = Number(process.env['NICGEN_SOAK_WQES'] ?? 11000);
const SOAK_MAX_LEN = 8 * 1024;
/** Host memory with mild back-pressure, the link at the NICs' line rate. */
const SOAK_ENV = { backpressure: 0.1, stall: 0.05, link: { bytesPerCycle: 8 } } as const;

export const soakBench = defineBench({
  about: `fault soak: ${SOAK_WQES} WRITEs/READs both ways on 4 QPs (NICGEN_SOAK_WQES) through the seed's fault mix on both directions; exact, all SUCCESS, all RTS, capture checked (docs/link-faults.md)`,
  design: pairDesign,
  maxCycles: 400_000_000,
  link: true,
  test: async (dut, tb, { link }) => {
    const given = link.faults !== undefined && LINK_DIRS.some(d => link.faults![d] !== undefined);
    const mix = given ? { name: 'command line', faults: {} } : soakMix(tb.seed, process.env['NICGEN_SOAK_MIX'] || undefined);
    const tmp = link.pcap === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-soak-')) : undefined;
    const pcapPath = link.pcap ?? path.join(tmp!, 'soak.pcap');
    const args = { ...link, pcap: pcapPath, ...(given ? {} : { faults: bothWays(mix.faults) }) };
    console.log(`soak: mix ${mix.name}${given ? '' : ` ${JSON.stringify(mix.faults)} both ways`}, ${SOAK_WQES} WQEs`);
    await withPairLink(args, SOAK_ENV, async l => {
      const env = await PairEnv.create(dut, tb, l.env);
      reportProgress(tb, () => ({ done: env.sb.retired, total: SOAK_WQES, unit: 'WQEs' }));
      const r = await runSoak(env, tb, { wqes: SOAK_WQES, maxLen: SOAK_MAX_LEN, pcapPath, closePcap: () => l.env.pcap?.close() });
      if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
      for (const line of soakSummary(mix.name, r, env)) console.log(line);
    });
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  },
});
