// nic_pair with nic_top's MAC in its own clock domain (macClock 'separate', gen/nic/mac-clock.ts):
// the host side on clk, both NICs' Ethernet ports and the link on mac_clk, the clocks unrelated
// (periods near 4 ns core / 3.1 ns CMAC, and the reverse ratio; mac_clk's phase from the seed).
// A random WRITE/READ mix both ways on 2 QP pairs, checked by the scoreboard (bytes, CQEs in
// order, nothing else changed); nic_top's simulation assertion fails the run if a TX frame
// underruns on m_axis_tx (the MAC faster than the core is the case the TX frame FIFO exists for).
// More seeds and random ratios: `nicgen regress --top nic_pair --test mac_clock`.

import { describe, expect, it } from 'vitest';
import { envSeed, runTest } from '../../core/index.ts';
import { pairMacClockDesign, runMacClock, type ClockRatio } from '../../benches/nic/mac-clock.ts';
import type { PairDut } from '../../nic/env.ts';

const BUILD_TIMEOUT = 1_800_000;
const SEED = envSeed() ?? 1;

describe('nic_pair with the MAC on its own clock', () => {
  for (const [ratio, what] of [['mac', 'mac_clk faster than clk (3.1 vs 4)'], ['core', 'clk faster than mac_clk (the reverse ratio)']] as [ClockRatio, string][]) {
    it(`${what}: WRITEs and READs both ways arrive byte-exact, CQEs in order, no TX underrun`, async () => {
      console.log(`e2e-mac-clock ${ratio}: seed ${SEED} (NICGEN_SEED=${SEED} replays)`);
      await runTest(pairMacClockDesign(), async (dut, tb) => {
        const r = await runMacClock(dut as unknown as PairDut, tb, ratio, { wqes: 14 });
        console.log(`e2e-mac-clock ${ratio}: ${r.reads} READs, ${r.writes} WRITEs, ${r.bytes} bytes, ${r.frames} frames in ${r.cycles} ticks`);
        expect(r.reads).toBeGreaterThan(0);
        expect(r.writes).toBeGreaterThan(0);
      }, { seed: SEED, maxCycles: 100_000_000 });
    }, BUILD_TIMEOUT);
  }
});
