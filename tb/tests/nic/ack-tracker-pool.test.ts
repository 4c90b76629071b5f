// nic_ack_tracker with an entry pool smaller than numQp x depth (4 QPs x 4 entries over 6
// slots): the QPs compete for slots while random ACKs retire entries, NAK 0x60s start rewinds
// (each drops every entry of its QP) and RESETs drop a QP's entries, m_cqe and m_rewind with
// random back-pressure. Checked from outside, against a count of what each QP holds:
//   - s_req is never taken for a QP holding `depth` entries, nor while the QPs hold every slot;
//   - SQ_CI follows the retirements of each QP in posting order, every CQE a SUCCESS in order;
//   - the pool is whole at the end: with everything acknowledged, QP 0 takes `depth` entries
//     and is then refused, the next QPs take the rest of the slots, and then nothing more.
// Inside, the tracker asserts every cycle that no slot is lost (free + held = entries).
// Seeds are printed; NICGEN_SEED=<n> replays.

import { describe, expect, it } from 'vitest';
import { nicAckTracker } from '../../../gen/nic/ack-tracker.ts';
import { CQE_STATUS, QP_STATE, WQE_OPCODE, retryReg } from '../../../gen/nic/regmap.ts';
import { ClockPhases } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { psnAdd } from '../../model/psn.ts';
import type { ReqEntryV } from '../../model/req-tx.ts';
import { StructSource } from './stage-streams.ts';
import { emptyQpCtx } from './qp-ctx.ts';

const NUM_QP = 4;
const DEPTH = 4;
const ENTRIES = 6;
type Dut = Parameters<Parameters<typeof runTest<NonNullable<typeof nicAckTracker['__io']>>>[1]>[0];
type Held = { seq: number; psn: number };

async function poolRun(dut: Dut, tb: TestBench, cycles: number): Promise<{ posts: number; rewinds: number; resets: number; retired: number; refusedFull: number; refusedPool: number; fill: number[] }> {
  const r = tb.rng;
  const retry = retryReg({ retryCnt: 7, timeoutLog2: 0 });
  const state: number[] = Array.from({ length: NUM_QP }, () => QP_STATE.RTR);
  const publish = (): void => { dut.qp_ctx.value = state.map(s => ({ ...emptyQpCtx(), state: s, retry })) as never; };
  publish();
  dut.s_req.valid.value = 0; dut.s_ack.valid.value = 0; dut.s_read_done.valid.value = 0; dut.m_cqe.ready.value = 0; dut.m_rewind.ready.value = 0;
  dut.s_park.value = { valid: 0, qp: 0, ringIdx: 0, reason: 0 };
  dut.ctx_room.value = (1 << NUM_QP) - 1;
  dut.tp_qp.value = 0;
  await tb.reset(2);
  await tb.clockCycles(2);
  for (let q = 0; q < NUM_QP; q++) state[q] = QP_STATE.RTS;
  publish();

  const held: Held[][] = Array.from({ length: NUM_QP }, () => []);
  const seq = Array.from({ length: NUM_QP }, () => 0);
  const psn = Array.from({ length: NUM_QP }, () => 0xfffff0 + r.int(0, 12));
  const lastCqe = Array.from({ length: NUM_QP }, () => -1);
  const st = { posts: 0, rewinds: 0, resets: 0, retired: 0, refusedFull: 0, refusedPool: 0, fill: [] as number[] };
  const why = (s: string): string => `${s} at cycle ${tb.cycle} (seed ${tb.seed})`;
  const total = (): number => held.reduce((n, l) => n + l.length, 0);
  let offer: ReqEntryV | null = null;
  let offerAge = 0;
  let random = true;
  let pRewindReady = 0.5;
  const resetLeft = Array.from({ length: NUM_QP }, () => 0);
  const resetNow = Array.from({ length: NUM_QP }, () => false);
  const ackSrc = new StructSource<{ qp: number; psn: number; syndrome: number; rdMiss: number; rdExp: number; msn: number }>(tb, dut.s_ack as never, 's_ack');
  const phases = ClockPhases.of(tb);

  phases.onSample(() => {
    // Retirements of the cycle before (SQ_CI is registered), then this cycle's drops.
    const u = dut.sq_ci_upd.value as { valid: number; qp: number; value: number };
    if (u.valid === 1) {
      const q = Number(u.qp), h = held[q]!.shift();
      expect(h, why(`SQ_CI of QP ${q} with no entry held`)).toBeDefined();
      expect(Number(u.value), why(`SQ_CI of QP ${q}: ring index + 1 of its oldest entry`)).toBe((h!.seq + 1) & 0xffff);
      st.retired++;
    }
    if (dut.m_cqe.valid.value === 1 && dut.m_cqe.ready.value === 1) {
      const c = dut.m_cqe.data.value as { qp: number; wrId: bigint; status: number };
      const q = Number(c.qp), k = Number(BigInt(c.wrId) & 0xffffffffn);
      expect(Number(c.status), why(`CQE of QP ${q}`)).toBe(CQE_STATUS.SUCCESS);
      expect(k, why(`CQE of QP ${q}: after ${lastCqe[q]}`)).toBeGreaterThan(lastCqe[q]!);
      lastCqe[q] = k;
    }
    if (dut.s_req.valid.value === 1 && dut.s_req.ready.value === 1) {
      const e = offer!;
      expect(held[e.qp]!.length, why(`s_req taken for QP ${e.qp} holding depth entries`)).toBeLessThan(DEPTH);
      expect(total(), why('s_req taken with every slot held')).toBeLessThan(ENTRIES);
      held[e.qp]!.push({ seq: e.ringIndex, psn: e.lastPsn });
      st.posts++;
      offer = null;
    } else if (dut.s_req.valid.value === 1) {
      if (held[offer!.qp]!.length === DEPTH) st.refusedFull++;
      else if (total() === ENTRIES) st.refusedPool++;
    }
    // A RESET published in this cycle's drive phase: the tracker drops the QP's entries now.
    for (let q = 0; q < NUM_QP; q++) if (resetNow[q]) { held[q]!.length = 0; resetNow[q] = false; }
    if (dut.m_rewind.valid.value === 1 && dut.m_rewind.ready.value === 1) {
      held[Number((dut.m_rewind.data.value as { qp: number }).qp)]!.length = 0;
      st.rewinds++;
    }
  });

  const entry = (q: number): ReqEntryV => {
    const p = psn[q]!;
    psn[q] = psnAdd(p, 1);
    const k = seq[q]!;
    seq[q] = k + 1;
    return { qp: q, wrId: (BigInt(q) << 32n) | BigInt(k), opcode: WQE_OPCODE.RDMA_WRITE, length: 64, firstPsn: p, lastPsn: p, msgFirstPsn: p, ringIndex: k & 0xffff, signaled: 1, status: CQE_STATUS.SUCCESS };
  };

  phases.onDrive(() => {
    // RESET runs: a few cycles of RESET, two of RTR, then RTS again.
    for (let q = 0; q < NUM_QP; q++) {
      if (resetLeft[q]! > 0 && --resetLeft[q]! === 0) { state[q] = QP_STATE.RTS; publish(); }
      else if (resetLeft[q] === 2) { state[q] = QP_STATE.RTR; publish(); }
    }
    // Like nic_req_tx, which parks a WQE the tracker has no room for: an offer not taken in 8
    // cycles is withdrawn (it may hold up its QP's rewind meanwhile).
    if (offer !== null && ++offerAge > 8) offer = null;
    if (random) {
      if (offer === null && r.bool(0.5)) {
        offerAge = 0;
        const qs = [0, 1, 2, 3].filter(q => state[q] === QP_STATE.RTS);
        if (qs.length) offer = entry(r.pick(qs));
      }
      if (ackSrc.idle && r.bool(0.25)) {
        const qs = [0, 1, 2, 3].filter(q => held[q]!.length > 0 && state[q] === QP_STATE.RTS);
        if (qs.length) {
          const q = r.pick(qs), h = r.pick(held[q]!);
          ackSrc.push({ qp: q, psn: h.psn, syndrome: r.bool(0.15) ? 0x60 : 0x1f, rdMiss: 0, rdExp: 0, msn: 0 });
        }
      }
      if (r.bool(0.004)) {
        const qs = [0, 1, 2, 3].filter(q => state[q] === QP_STATE.RTS && offer?.qp !== q && held[q]!.length > 0);
        if (qs.length) {
          const q = r.pick(qs);
          state[q] = QP_STATE.RESET; publish();
          resetLeft[q] = 3 + r.int(0, 4);
          resetNow[q] = true;
          st.resets++;
        }
      }
    }
    dut.s_req.valid.value = offer ? 1 : 0;
    if (offer) dut.s_req.data.value = offer as never;
    dut.m_cqe.ready.value = r.bool(0.7) ? 1 : 0;
    // Like nic_req_tx: a rewind only between the QP's WQEs (never with a post of its QP).
    const rwQp = Number((dut.m_rewind.data.value as { qp: number }).qp);
    dut.m_rewind.ready.value = r.bool(pRewindReady) && offer?.qp !== rwQp ? 1 : 0;
  });

  await tb.clockCycles(cycles);
  // Wind down: no new posts; acknowledge everything held, until nothing is.
  random = false;
  pRewindReady = 1;
  for (let round = 0; offer !== null || total() > 0 || !ackSrc.idle; round++) {
    expect(round, why('entries still held after 50 rounds of ACKs')).toBeLessThan(50);
    for (let q = 0; q < NUM_QP; q++) if (held[q]!.length) ackSrc.push({ qp: q, psn: held[q]![held[q]!.length - 1]!.psn, syndrome: 0x1f, rdMiss: 0, rdExp: 0, msn: 0 });
    await tb.clockCycles(40);
  }
  // Spare slots go back to the pool one per cycle: ENTRIES cycles are plenty.
  await tb.clockCycles(4 * ENTRIES);
  // The pool is whole: QP 0 takes DEPTH, QP 1 the rest of the slots, then nothing more.
  for (let q = 0; q < NUM_QP; q++) {
    let n = 0;
    for (;;) {
      offer = entry(q); offerAge = -20;
      for (let c = 0; c < 20 && offer !== null; c++) await tb.clockCycles(1);
      if (offer !== null) { offer = null; await tb.clockCycles(1); break; }
      n++;
    }
    st.fill.push(n);
  }
  return st;
}

describe('nic_ack_tracker with a pooled entry memory', () => {
  it(`${NUM_QP} QPs x ${DEPTH} over ${ENTRIES} slots: QPs compete, rewinds and RESETs drop entries; the depth and pool limits hold, SQ_CI and CQEs in order, the pool whole at the end`, async () => {
    await runTest(design(nicAckTracker, { numQp: NUM_QP, depth: DEPTH, entries: ENTRIES }), async (dut, tb) => {
      const st = await poolRun(dut, tb, 20_000);
      console.log(`pool: seed ${tb.seed}: ${st.posts} posts, ${st.retired} retired, ${st.rewinds} rewinds, ${st.resets} RESETs, refused ${st.refusedFull} cycles (QP at depth) and ${st.refusedPool} (pool empty); fill ${st.fill.join('/')}`);
      expect(st.rewinds, 'rewinds').toBeGreaterThan(20);
      expect(st.resets, 'RESETs').toBeGreaterThan(5);
      expect(st.refusedPool, 'cycles a post waited for the pool').toBeGreaterThan(100);
      expect(st.refusedFull, 'cycles a post waited at the QP\'s depth').toBeGreaterThan(0);
      expect(st.fill, 'posts taken per QP with the pool whole').toEqual([DEPTH, ENTRIES - DEPTH, 0, 0]);
    }, { maxCycles: 200_000 });
  });
});
