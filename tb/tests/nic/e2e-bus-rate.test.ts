// End to end at bus rate both ways: the demo's traffic (160 random WRITEs and READs, A->B and
// B->A, 4 QPs, up to 32 KiB, 1-4 SGEs) with the link unpaced (one bus beat per cycle each way)
// and host memory without back-pressure. The receiver cannot stall the link, so its frame
// buffer must absorb whatever its translations wait for; a dropped frame is never resent yet
// and hangs the run.
//
// Before nic_axi_rd_mux served page-table reads ahead of payload reads (and capped the payload
// bytes outstanding), a page-table read waited behind up to 12 KiB of payload bursts (~2,000
// cycles), the TLB blocked every client meanwhile, and seeds 7 and 8 dropped frames
// (RX_DROP_OTHER 13 on B, 15 on A). With that fixed, seeds 13 and 17 (path-MTU-256 QPs) still
// dropped (4 on A, 10 on B): the RX buffer's 64 frame descriptors ran out before its bytes; it
// has 128 now. Seeds 25 and 45 still dropped (10 on B for 25) while nic_tlb blocked every
// client on a miss and a next-line prefetch could hold its one fill slot; with hit under miss
// and two fill engines (gen/nic/tlb.ts) seeds 1..100 pass. Checked per seed: the run completes, both NICs count zero RX drops, every QP is
// still RTS (runMixedScenario), and no page-table read took longer than the payload cap allows
// (AR -> RLAST on m_axi).

import { describe, expect, it } from 'vitest';
import { pairDesign } from '../../benches/nic/write.ts';
import { runTest } from '../../core/index.ts';
import { PairEnv } from '../../nic/env.ts';
import { runMixedScenario } from '../../nic/mixed-scenario.ts';
import { PtReadWatch } from '../../nic/pt-read-watch.ts';

const BUILD_TIMEOUT = 1_800_000;
/** Seeds that dropped frames before the fixes (`NICGEN_LINK_RATE=0 nicgen sim nic_pair --test demo`). */
const SEEDS = [7, 8, 13, 17, 25, 45];
/** nic_top's payload read cap (nic-top-build.ts BULK_READ_CAP_BYTES) in 64-bit beats, plus the
 *  slave's latency (2..12 cycles) and the mux's and slave's pipelining. */
const PT_WAIT_BOUND = 4096 / 8 + 64;

describe('nic_pair at bus rate both ways (demo traffic, link unpaced)', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: no RX drop, every message completes, page-table reads wait <= ${PT_WAIT_BOUND} cycles`, async () => {
      await runTest(pairDesign(), async (dut, tb) => {
        const env = await PairEnv.create(dut, tb, { backpressure: 0, stall: 0, link: {} });
        const watch = { A: new PtReadWatch(tb, dut.a_m_axi), B: new PtReadWatch(tb, dut.b_m_axi) };
        const r = await runMixedScenario(env, tb, { wqes: 160, qps: 4, maxLen: 32 * 1024, bothDirections: true, stallCycles: 100_000 });
        console.log(`e2e bus rate seed ${seed}: ${r.writes} WRITEs + ${r.reads} READs, ${r.bytes} bytes in ${r.cycles} cycles; page-table reads `
          + Object.entries(watch).map(([h, w]) => `${h}: ${w.stats.reads}, max ${w.stats.maxWait} cycles, mean ${w.stats.meanWait.toFixed(0)}, <= ${w.stats.maxBeatsAhead} beats ahead`).join('; '));
        for (const h of [env.a, env.b]) {
          expect(await h.drv.counter('RX_DROP_OTHER'), `${h.name}: RX_DROP_OTHER (seed ${seed})`).toBe(0);
          expect(await h.drv.counter('RX_DROP_ICRC'), `${h.name}: RX_DROP_ICRC (seed ${seed})`).toBe(0);
        }
        for (const [h, w] of Object.entries(watch)) {
          const s = w.stats;
          expect(s.reads, `${h}: page-table reads seen`).toBeGreaterThan(0);
          expect(s.maxWait, `${h}: a page-table read took ${s.maxWait} cycles from AR to RLAST (RLAST at cycle ${s.maxWaitAt}; `
            + `${s.maxBeatsAhead} payload beats ahead at most; replay NICGEN_LINK_RATE=0 ./bin/nicgen sim nic_pair --test demo --seed ${seed})`).toBeLessThanOrEqual(PT_WAIT_BOUND);
        }
      }, { seed, maxCycles: 3_000_000 });
    }, BUILD_TIMEOUT);
  }
});
