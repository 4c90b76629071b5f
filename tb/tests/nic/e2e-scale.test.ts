// End to end at a medium scale (issue 15, "Scale"): nic_pair with 16 QPs and 256 MRs per NIC
// (the READ responder's contexts are a pool, so any numQp elaborates), WRITEs spread over all
// 16 QPs (QP indices above 3 exercise the wider QP fields), the MR
// table in block RAM (gen/nic/mr-table.ts), each host's MRs registered in random slots across
// the whole table, random RDMA WRITEs both ways checked byte-exact by the scoreboard. A slot
// index that lost a bit on its way to the RAM (or an entry read from the wrong word) answers
// BAD_KEY / BAD_TAG, and the WRITE completes in error instead. Few WRITEs: the large
// configurations run in `make regress` (nic_pair/write_scale_mr4096 in tb/benches/nic/write.ts).

import { describe, expect, it } from 'vitest';
import { envSeed, randomSeed, runTest } from '../../core/index.ts';
import { PACED, pairDesign } from '../../benches/nic/write.ts';
import { PairEnv, type PairParams } from '../../nic/env.ts';
import { runWriteScenario } from '../../nic/write-scenario.ts';

const BUILD_TIMEOUT = 900_000;
/** The medium configuration of `make test` (64 QPs: `make regress`, nic_pair/write_scale_qp64). */
const SCALE_MEDIUM: PairParams = { numQp: 16, numMr: 256 };
const WRITES = Number(process.env['NICGEN_SCALE_WRITES'] ?? 8);

describe(`nic_pair with ${SCALE_MEDIUM.numQp} QPs and ${SCALE_MEDIUM.numMr} MRs`, () => {
  it('random RDMA WRITEs both ways through MRs in random slots of the whole table arrive byte-exact', async () => {
    const params: PairParams = { numQp: Number(process.env['NICGEN_SCALE_QP'] ?? SCALE_MEDIUM.numQp), numMr: Number(process.env['NICGEN_SCALE_MR'] ?? SCALE_MEDIUM.numMr) };
    const seed = envSeed() ?? randomSeed();
    console.log(`e2e scale ${params.numQp} QPs / ${params.numMr} MRs: seed ${seed} (NICGEN_SEED=${seed} replays)`);
    await runTest(pairDesign(params), async (dut, tb) => {
      const env = await PairEnv.create(dut, tb, { ...PACED, params, mrSlots: 'random' });
      const r = await runWriteScenario(env, tb, { writes: WRITES, qps: params.numQp, maxLen: 16384, bothDirections: true });
      expect(r.writes).toBe(WRITES);
      const slots = [env.a, env.b].flatMap(h => h.drv.mrs.flatMap((m, i) => (m ? [i] : [])));
      console.log(`MR slots used: ${slots.join(', ')}`);
      // The run must have used the table beyond the default 16 entries (else it tests nothing new).
      expect(Math.max(...slots), `highest MR slot used (seed ${seed})`).toBeGreaterThanOrEqual(16);
    }, { seed, maxCycles: 5_000_000 });
  }, BUILD_TIMEOUT);
});
