// nic_pair with the MAC in its own clock domain (nic_top macClock 'separate'): host memory and
// registers on clk, both NICs' Ethernet ports and the link model on mac_clk, the two clocks
// unrelated (periods in ticks and the phase of mac_clk drawn from the seed). The random
// WRITE/READ mix both ways (mixed-scenario.ts) runs over it, checked by the scoreboard; nic_top
// asserts in simulation that no TX frame underruns on m_axis_tx (tvalid held from the first
// beat to tlast), which is what the TX frame FIFO guarantees when mac_clk outruns clk.

import type { IOOf } from '../../../gen/hdl/index.ts';
import { nicPair } from '../../../gen/nic/nic-top.ts';
import type { Rng, TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { PairEnv, PAIR_PARAMS, type PairDut } from '../../nic/env.ts';
import { runMixedScenario, type MixedScenarioResult } from '../../nic/mixed-scenario.ts';
import { defineBench, type BenchGroup } from '../bench.ts';

export const pairMacClockDesign = () => design(nicPair, { ...PAIR_PARAMS, macClock: 'separate' }, { diskCache: true });

interface Sched { readonly period: number; readonly high: number; readonly phase: number }
export interface MacClocks { readonly clk: Sched; readonly mac_clk: Sched }

/** Which clock is faster: 'mac' (about 4 ns core vs 3.1 ns CMAC), 'core' (the reverse ratio),
 *  or 'random' (each period 5..16 ticks). */
export type ClockRatio = 'mac' | 'core' | 'random';

/** Core period 8..13 ticks; the MAC's at 3.1/4 of it (or 4/3.1), +-1 tick; any MAC phase. */
export function macClocks(rng: Rng, ratio: ClockRatio): MacClocks {
  const half = (period: number, phase: number): Sched => ({ period, high: Math.floor(period / 2), phase });
  const core = ratio === 'random' ? rng.int(5, 16) : rng.int(8, 13);
  const factor = ratio === 'mac' ? 3.1 / 4 : 4 / 3.1;
  const mac = ratio === 'random' ? rng.int(5, 16) : Math.max(2, Math.round(core * factor) + rng.int(-1, 1));
  return { clk: half(core, 0), mac_clk: half(mac, rng.int(0, mac - 1)) };
}

export const describeMacClocks = (c: MacClocks): string =>
  `clk period ${c.clk.period}, mac_clk period ${c.mac_clk.period} phase ${c.mac_clk.phase} (ticks; mac/core ${(c.clk.period / c.mac_clk.period).toFixed(3)} in frequency)`;

export interface MacClockRun extends MixedScenarioResult {
  readonly clocks: MacClocks;
  /** Frames that crossed each way. */
  readonly frames: number;
}

/** The mixed scenario over a two-clock pair. The link carries ~6 bytes per mac_clk cycle. */
export async function runMacClock(dut: PairDut, tb: TestBench, ratio: ClockRatio, o: { wqes: number; maxLen?: number }): Promise<MacClockRun> {
  const clocks = macClocks(tb.rng.fork(), ratio);
  tb.setClocks({ clk: clocks.clk, mac_clk: clocks.mac_clk });
  console.log(`mac clock: ${describeMacClocks(clocks)}`);
  const env = await PairEnv.create(dut, tb, {
    backpressure: 0.1, stall: 0.05, link: { bytesPerCycle: 6 / clocks.mac_clk.period },
  });
  const r = await runMixedScenario(env, env.tb, { wqes: o.wqes, qps: 2, bothDirections: true, maxLen: o.maxLen ?? 16384 });
  return { ...r, clocks, frames: env.link.frames.length };
}

type MacPairDut = PairDut & NonNullable<IOOf<typeof nicPair>>;

export const nicPairMacClockBenches: BenchGroup = {
  mac_clock: defineBench({
    about: 'macClock separate: the WRITE/READ mix both ways with mac_clk and clk unrelated (ratio and phase from the seed), no TX underrun',
    design: pairMacClockDesign,
    maxCycles: 400_000_000,
    test: async (dut, tb) => {
      const ratio = (['mac', 'core', 'random'] as const)[tb.rng.int(0, 2)]!;
      const r = await runMacClock(dut as MacPairDut, tb, ratio, { wqes: 40, maxLen: 65536 });
      console.log(`mac_clock (${ratio} faster): ${r.reads} READs, ${r.writes} WRITEs, ${r.bytes} bytes, ${r.frames} frames in ${r.cycles} ticks`);
    },
  }),
};
