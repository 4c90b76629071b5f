// TLB hit rate on a sequential 1 MiB transfer: A WRITEs a 1 MiB source MR to a 1 MiB target MR
// on B as 16 back-to-back 64 KiB WRITEs (path MTU 4096, one QP, memory latency 0 as in the goodput
// bench, no back-pressure), each SGE and target following the previous one. Both MRs start on a page
// boundary: 256 pages each side. A translates the source (lkey), B the target (rkey); the
// rate is TLB_HITS / (TLB_HITS + TLB_MISSES) over the transfer, per NIC (counter deltas).
// The scoreboard checks every target byte, so a wrong translation fails the bench.

import { ACCESS, CQE_STATUS } from '../gen/nic/regmap.ts';
import { qpReg } from '../tb/model/nic-regs.ts';
import { PairEnv, type Host } from '../tb/nic/env.ts';
import { describeQps, setupHosts, startPoller } from '../tb/nic/write-scenario.ts';
import { onPair } from './nic-pair.ts';

export const TLB_GOAL = 0.98;
const TOTAL = 1 << 20;
const LEN = 65536;

export interface TlbCounts { readonly hits: number; readonly misses: number }
export interface TlbResult { readonly dataWidth: number; readonly a: TlbCounts; readonly b: TlbCounts; readonly bytes: number }

export const hitRate = (c: TlbCounts): number => c.hits / Math.max(1, c.hits + c.misses);

async function counts(h: Host): Promise<TlbCounts> {
  return { hits: await h.drv.counter('TLB_HITS'), misses: await h.drv.counter('TLB_MISSES') };
}

const delta = (after: TlbCounts, before: TlbCounts): TlbCounts => ({ hits: after.hits - before.hits, misses: after.misses - before.misses });

export async function measureTlb(dataWidth: number, ramLatency = 0): Promise<TlbResult> {
  return onPair(dataWidth, 40 * TOTAL / (dataWidth / 8) + 200_000, async (dut, tb) => {
    const env = await PairEnv.create(dut, tb, { ramLatency, backpressure: 0, stall: 0 });
    const setup = await setupHosts(env, tb, 1);
    const A = env.a, B = env.b, qp = setup.get(A)!.qps[0]!;
    const src = await A.drv.registerMr({ len: TOTAL, access: 0, pd: qp.opts.pd, pageOffset: 0 });
    const dst = await B.drv.registerMr({ len: TOTAL, access: ACCESS.REMOTE_WRITE | ACCESS.LOCAL_WRITE, pd: setup.get(B)!.qps[0]!.opts.pd, pageOffset: 0 });
    src.write(0, tb.rng.bytes(TOTAL));
    for (const h of [A, B]) await h.drv.regs.write(qpReg(0, 'PMTU'), 12);
    env.sb.start();
    for (const h of [A, B]) for (const q of setup.get(h)!.qps) env.sb.allow(h.name, q.ringRanges);
    const before = { a: await counts(A), b: await counts(B) };
    const poll = startPoller(env, setup, tb);
    for (let off = 0; off < TOTAL; off += LEN) {
      const wr = A.drv.writeRequest(BigInt(off), [{ mr: src, offset: off, len: LEN }], dst.va + BigInt(off), dst.key, true);
      env.sb.expectWrite('A', 0, wr, CQE_STATUS.SUCCESS, { host: 'B', mr: dst, offset: off });
      while (await A.drv.sqFree(qp) === 0) await tb.clockCycles(16);
      A.drv.post(qp, wr);
      await A.drv.ring(qp);
    }
    const deadline = tb.cycle + 40 * TOTAL / (dataWidth / 8);
    while (env.sb.totalOwed > 0) {
      poll.check();
      if (tb.cycle > deadline) throw new Error(`1 MiB sequential WRITE stuck\n${await describeQps(env, setup)}`);
      await tb.clockCycles(16);
    }
    poll.stop();
    env.sb.finish();
    return { dataWidth, a: delta(await counts(A), before.a), b: delta(await counts(B), before.b), bytes: TOTAL };
  });
}
