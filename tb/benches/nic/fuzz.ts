// `nicgen sim nic_pair --test fuzz`: hostile frames into B of a nic_pair while real traffic
// runs, then alone (tb/nic/fuzz-scenario.ts, docs/fuzz.md), with a summary: frames by kind,
// what B's receive path did with them, B's NAKs, target QPs reset after an error, READ
// responses audited. NICGEN_FUZZ_FRAMES sets the number of hostile frames (default 5000);
// `make regress` runs it over its seeds. The link flags (--pcap, --pcap-rx, faults) apply.

import { PairEnv, PAIR_PARAMS, type PairDut } from '../../nic/env.ts';
import { FuzzProbe } from '../../nic/fuzz-probe.ts';
import { runFuzzScenario, type FuzzOptions, type FuzzResult } from '../../nic/fuzz-scenario.ts';
import type { TestBench } from '../../core/index.ts';
import { defineBench, type LinkArgs } from '../bench.ts';
import { reportProgress } from '../progress.ts';
import { withPairLink } from './pair-link.ts';
import { pairDesign } from './write.ts';

/** Host memory without back-pressure and the link at the NICs' line rate (8 B/cycle + 24 per
 *  frame), as in the demo: at that rate the receive buffer must never overflow, so every
 *  frame's fate is known. */
const FUZZ_ENV = { backpressure: 0, stall: 0, link: { bytesPerCycle: 8 } } as const;

export const FUZZ_FRAMES = Number(process.env['NICGEN_FUZZ_FRAMES'] ?? 5000);

/** Runs the fuzz scenario on a fresh pair whose link has the fuzzer's probe on it. */
export async function fuzzBench(dut: PairDut, tb: TestBench, link: LinkArgs, o: FuzzOptions): Promise<FuzzResult> {
  const probe = new FuzzProbe(PAIR_PARAMS.numQp);
  return withPairLink(link, FUZZ_ENV, async l => {
    const env = await PairEnv.create(dut, tb, { ...l.env, link: { ...l.env.link, ...probe.linkHooks() } });
    return runFuzzScenario(env, tb, probe, o);
  });
}

const hex2 = (n: number): string => `0x${n.toString(16).padStart(2, '0')}`;

/** The run in a few lines. */
export function fuzzSummary(r: FuzzResult): string[] {
  const x = r.rxB;
  const real = r.real ? `${r.real.writes} WRITEs + ${r.real.reads} READs, ${r.real.bytes} bytes, all exact` : 'none';
  return [
    `fuzz: ${r.frames} hostile frames in ${r.cycles} cycles, ${r.interleaved} of them while real traffic ran (${[...r.byKind].sort().map(([k, n]) => `${k} ${n}`).join(', ')})`,
    `fuzz: B received ${x.delivered} frames: ${x.parsed} parsed (${x.unknownQp} to unknown QPs), ${x.icrc} bad ICRC, ${x.malformed} malformed; counters agree`,
    `fuzz: B sent NAKs ${[...r.naks].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${hex2(s)} x${n}`).join(', ') || 'none'}; target QPs reset after ERROR ${r.revived} times`,
    `fuzz: ${r.readResponses} READ response packets audited (${r.readBytesCompared} bytes compared with their MR), ${r.grantedBytes} bytes of B opened by valid WRITE rkeys`,
    `fuzz: real traffic alongside: ${real}`,
  ];
}

export const fuzzBenchDef = defineBench({
  about: `hostile frames (${FUZZ_FRAMES}, NICGEN_FUZZ_FRAMES) into B while 150 real WRITEs/READs run both ways, then alone: nothing hangs, counters account, memory only where rkeys allow (docs/fuzz.md)`,
  design: pairDesign,
  maxCycles: 50_000_000,
  link: true,
  test: async (dut, tb, { link }) => {
    let sent = 0;
    reportProgress(tb, () => ({ done: sent, total: FUZZ_FRAMES, unit: 'hostile frames' }));
    const log = process.env['NICGEN_VERBOSE'] ? (line: string) => console.log(line) : undefined;
    const r = await fuzzBench(dut, tb, link, { frames: FUZZ_FRAMES, realWqes: 150, progress: n => { sent = n; }, ...(log ? { log } : {}) });
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    for (const line of fuzzSummary(r)) console.log(line);
  },
});
