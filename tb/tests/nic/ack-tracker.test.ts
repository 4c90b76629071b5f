// nic_ack_tracker against its TS model (tb/model/ack-tracker.ts): random posting on 4 QPs
// (PSNs starting just below 2^24, so ranges wrap), random coalesced ACKs (full and partial,
// credit-form syndromes), ghost ACKs (PSNs never sent), stale ACKs, ignored syndromes (0x60,
// RNR, reserved), error-status entries, a NAK 0x62 in the middle of a QP's traffic, and
// random back-pressure on m_cqe. Checked: each QP's CQE requests, in order, field by field;
// qp_error events; s_req back-pressure when a QP's FIFO is full.

import { describe, expect, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { nicAckTracker } from '../../../gen/nic/ack-tracker.ts';
import { QpCtx } from '../../../gen/nic/ctx.ts';
import { AETH } from '../../../gen/nic/flow-types.ts';
import { CQE_STATUS, QP_STATE, WQE_OPCODE } from '../../../gen/nic/regmap.ts';
import { watchChannel } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { AckTrackerModel, type AckEv, type CqeV } from '../../model/ack-tracker.ts';
import { psnAdd, psnCompare } from '../../model/psn.ts';
import type { ReqEntryV } from '../../model/req-tx.ts';
import { cycle } from './support/handshake.ts';

const NUM_QP = 4;
const DEPTH = 16;
type Dut = Parameters<Parameters<typeof runTest<NonNullable<typeof nicAckTracker['__io']>>>[1]>[0];

interface Scenario {
  entries: number;
  /** Probability per cycle of an ACK/NAK. */
  pAck: number;
  pCqeReady: number;
  /** QP that gets one NAK with this syndrome after `nakAfter` of its entries were posted. */
  nak?: { qp: number; syndrome: number; after: number };
  /** Probability of an error-status entry (never LOCAL_PROTECTION_ERROR on the NAK QP). */
  pErrEntry: number;
}

type Ev = { cycle: number; order: number } & ({ kind: 'push'; e: ReqEntryV } | { kind: 'ack'; a: AckEv });

const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `0x${x.toString(16)}` : x));

async function runTracker(dut: Dut, tb: TestBench, sc: Scenario): Promise<{ model: AckTrackerModel; got: { cycle: number; v: CqeV }[][]; errs: number[]; stalls: number; acks: number }> {
  const r = tb.rng;
  const state: number[] = Array.from({ length: NUM_QP }, () => QP_STATE.RTS);
  const publish = (): void => {
    dut.qp_ctx.value = state.map(s => ({ ...Object.fromEntries(QpCtx.fields.map(f => [f.name, 0])), state: s })) as never;
  };
  publish();
  dut.s_req.valid.value = 0;
  dut.s_ack.valid.value = 0;
  dut.m_cqe.ready.value = 0;
  await tb.reset(2);
  watchChannel(tb, { valid: dut.m_cqe.valid, ready: dut.m_cqe.ready, payload: { data: dut.m_cqe.data } }, 'nic_ack_tracker.m_cqe', { reset: dut.rst });

  const events: Ev[] = [];
  let order = 0;
  const got: { cycle: number; v: CqeV }[][] = Array.from({ length: NUM_QP }, () => []);
  const errs = Array.from({ length: NUM_QP }, () => 0);

  // nic_regs: qp_error valid in cycle t shows as STATE = ERROR from cycle t + 1.
  tb.fork(async () => {
    let pending: number | null = null;
    for (;;) {
      await tb.rising();
      if (pending !== null) { state[pending] = QP_STATE.ERROR; publish(); }
      const e = dut.qp_error.value as { valid: number; qp: number };
      pending = e.valid ? Number(e.qp) : null;
      if (e.valid) errs[Number(e.qp)]!++;
    }
  }, 'regs');

  tb.fork(async () => {
    for (;;) {
      dut.m_cqe.ready.value = r.bool(sc.pCqeReady) ? 1 : 0;
      const v = await cycle(tb, () => (dut.m_cqe.valid.value === 1 && dut.m_cqe.ready.value === 1 ? dut.m_cqe.data.value as Record<string, number | bigint> : null));
      if (v) {
        const c: CqeV = { qp: Number(v['qp']), wrId: BigInt(v['wrId']!), byteLen: Number(v['byteLen']), opcode: Number(v['opcode']), status: Number(v['status']), syndrome: Number(v['syndrome']) };
        got[c.qp]!.push({ cycle: tb.cycle, v: c });
      }
    }
  }, 'cqe');

  // What the ACK generator knows: entries posted (handshake done) per QP.
  const posted: ReqEntryV[][] = Array.from({ length: NUM_QP }, () => []);
  const ackView = Array.from({ length: NUM_QP }, () => -1);
  const nextPsn = Array.from({ length: NUM_QP }, () => 0xff_ffff - r.int(0, 400));
  let nakSent = false;
  let postingDone = false;
  let acks = 0;

  const sendAck = async (a: AckEv): Promise<void> => {
    dut.s_ack.data.value = { ...a, msn: r.int(0, 0xff_ffff) } as never;
    dut.s_ack.valid.value = 1;
    const ok = await cycle(tb, () => dut.s_ack.ready.value === 1);
    dut.s_ack.valid.value = 0;
    if (!ok) throw new Error(`s_ack not ready at cycle ${tb.cycle}`);
    events.push({ cycle: tb.cycle, order: order++, kind: 'ack', a });
    acks++;
  };
  const ackTask = tb.fork(async () => {
    for (;;) {
      if (postingDone) return;
      if (!r.bool(sc.pAck)) { await tb.clockCycles(1); continue; }
      const qp = r.int(0, NUM_QP - 1);
      const sent = posted[qp]!.filter(e => e.status === CQE_STATUS.SUCCESS);
      if (sent.length === 0) { await tb.clockCycles(1); continue; }
      const last = sent[sent.length - 1]!.lastPsn;
      const open = sent.filter(e => ackView[qp]! < 0 || psnCompare(e.lastPsn, ackView[qp]!) > 0);
      const n = sc.nak;
      if (n && !nakSent && qp === n.qp && posted[qp]!.length >= n.after && open.length > 0) {
        const e = r.pick(open);
        nakSent = true;
        await sendAck({ qp, psn: psnAdd(e.firstPsn, r.int(0, psnAdd(e.lastPsn, -e.firstPsn))), syndrome: n.syndrome });
        continue;
      }
      const kind = r.float();
      if (kind < 0.7 && open.length > 0) {
        // Coalesced: some later entry's last PSN, or a PSN inside it (a partial ACK).
        const e = open[Math.min(open.length - 1, r.int(0, 3))]!;
        const psn = r.bool(0.7) ? e.lastPsn : psnAdd(e.firstPsn, r.int(0, psnAdd(e.lastPsn, -e.firstPsn)));
        await sendAck({ qp, psn, syndrome: r.bool(0.8) ? AETH.ACK : r.int(0, 0x1f) });
        if (psnCompare(psn, e.lastPsn) === 0) ackView[qp] = psn;
      } else if (kind < 0.8) {
        await sendAck({ qp, psn: psnAdd(last, r.int(1, 5000)), syndrome: AETH.ACK }); // ghost
      } else if (kind < 0.9) {
        await sendAck({ qp, psn: psnAdd(ackView[qp]! < 0 ? sent[0]!.firstPsn : ackView[qp]!, -r.int(0, 50)), syndrome: AETH.ACK }); // stale
      } else {
        await sendAck({ qp, psn: psnAdd(last, -r.int(0, 20)), syndrome: r.pick([AETH.NAK_PSN_SEQ, 0x20 | r.int(0, 31), 0x41, 0x7f, 0xff]) });
      }
    }
  }, 'acks');

  // Posting, in order, with random gaps; counts cycles s_req waited on a full FIFO.
  let stalls = 0;
  for (let k = 0; k < sc.entries; k++) {
    const qp = r.int(0, NUM_QP - 1);
    const err = r.bool(sc.pErrEntry);
    const errStatuses: number[] = [CQE_STATUS.BAD_OPCODE, CQE_STATUS.LOCAL_LENGTH_ERROR, CQE_STATUS.LOCAL_QP_ERROR, CQE_STATUS.FLUSH_ERROR];
    if (qp !== sc.nak?.qp) errStatuses.push(CQE_STATUS.LOCAL_PROTECTION_ERROR);
    const npk = r.bool(0.5) ? 1 : r.int(1, 300);
    const e: ReqEntryV = {
      qp, wrId: r.bigint(64), opcode: WQE_OPCODE.RDMA_WRITE, length: r.u32(), signaled: r.int(0, 1),
      firstPsn: err ? 0 : nextPsn[qp]!, lastPsn: err ? 0 : psnAdd(nextPsn[qp]!, npk - 1), status: err ? r.pick(errStatuses) : CQE_STATUS.SUCCESS,
    };
    if (!err) nextPsn[qp] = psnAdd(nextPsn[qp]!, npk);
    await tb.clockCycles(r.bool(0.5) ? r.int(0, 6) : 0);
    dut.s_req.data.value = e as never;
    dut.s_req.valid.value = 1;
    for (;;) {
      const ready = await cycle(tb, () => dut.s_req.ready.value === 1);
      if (ready) break;
      stalls++;
    }
    dut.s_req.valid.value = 0;
    events.push({ cycle: tb.cycle, order: order++, kind: 'push', e });
    posted[qp]!.push(e);
  }
  postingDone = true;
  await ackTask.join();
  // Final ACKs: everything sent is acknowledged (a NAKed QP ignores them), except on the
  // last QP, whose open entries must stay open (no CQE without an ACK).
  for (let qp = 0; qp < NUM_QP - 1; qp++) {
    const sent = posted[qp]!.filter(e => e.status === CQE_STATUS.SUCCESS);
    if (sent.length) await sendAck({ qp, psn: sent[sent.length - 1]!.lastPsn, syndrome: AETH.ACK });
  }

  // The model, in acceptance order: in one cycle the DUT sees an ACK against the entries
  // posted before that cycle, so ACKs go before posts of the same cycle.
  const model = new AckTrackerModel(NUM_QP);
  events.sort((a, b) => a.cycle - b.cycle || (a.kind === b.kind ? a.order - b.order : a.kind === 'ack' ? -1 : 1));
  for (const ev of events) { if (ev.kind === 'push') model.push(ev.e, ev.cycle); else model.ack(ev.a, ev.cycle); }
  const total = model.cqes.reduce((s, l) => s + l.length, 0);
  await tb.until(() => got.reduce((s, l) => s + l.length, 0) >= total, { timeout: 50_000, what: `${total} CQE requests` });
  await tb.clockCycles(100);
  return { model, got, errs, stalls, acks };
}

function check(tb: TestBench, o: Awaited<ReturnType<typeof runTracker>>): void {
  for (let qp = 0; qp < NUM_QP; qp++) {
    const want = o.model.cqes[qp]!, got = o.got[qp]!;
    for (let i = 0; i < Math.max(want.length, got.length); i++) {
      const g = got[i] ? show(got[i]!.v) : 'nothing', w = want[i] ? show(want[i]) : 'nothing';
      if (g !== w) throw new Error(`QP ${qp} CQE #${i}${got[i] ? ` at cycle ${got[i]!.cycle}` : ''} (seed ${tb.seed}):\n  got  ${g}\n  want ${w}`);
      const at = o.model.decidedAt[qp]![i]!;
      if (got[i]!.cycle <= at) throw new Error(`QP ${qp} CQE #${i} left at cycle ${got[i]!.cycle}, but only the ACK/post of cycle ${at} decided it (seed ${tb.seed}): ${g}`);
    }
  }
  expect(o.errs, `qp_error events per QP (seed ${tb.seed})`).toEqual(o.model.qpErrors);
  for (const [qp, q] of o.model.qps.entries()) if (qp < NUM_QP - 1) expect(q.fifo.length, `QP ${qp}: model entries left (seed ${tb.seed})`).toBe(0);
}

const statuses = (o: Awaited<ReturnType<typeof runTracker>>): Map<number, number> => {
  const m = new Map<number, number>();
  for (const l of o.model.cqes) for (const c of l) m.set(c.status, (m.get(c.status) ?? 0) + 1);
  return m;
};

describe('nic_ack_tracker', () => {
  it('passes verilator -Wall, iverilog and yosys (4 QPs x 16, 3 QPs x 4, 1 QP)', () => {
    for (const params of [{}, { numQp: 3, depth: 4 }, { numQp: 1 }]) {
      const e = emitToDir(nicAckTracker, params);
      verilatorLint(e); iverilogCompile(e); yosysSynth(e);
    }
  });

  it('completes by coalesced ACKs across the PSN wrap; ghost and stale ACKs ignored; unsignaled successes silent', async () => {
    await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
      const o = await runTracker(dut, tb, { entries: 300, pAck: 0.3, pCqeReady: 0.7, pErrEntry: 0.05 });
      check(tb, o);
      const s = statuses(o);
      const ignored = o.model.log.filter(l => l.endsWith('ignored')).length;
      expect(s.get(CQE_STATUS.SUCCESS) ?? 0, 'signaled successes').toBeGreaterThan(20);
      expect(ignored, 'ghost/stale/other ACKs ignored').toBeGreaterThan(10);
      console.log(`ack_tracker ACKs: seed ${tb.seed}, ${o.acks} ACK/NAKs (${ignored} ignored), CQEs by status ${show([...s])}, ${o.stalls} s_req stall cycles`);
    });
  });

  it('NAK 0x62 in the middle: REMOTE_ACCESS_ERROR with syndrome, QP to ERROR, the rest flushed; FIFO back-pressure', async () => {
    await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
      const o = await runTracker(dut, tb, { entries: 250, pAck: 0.08, pCqeReady: 0.5, pErrEntry: 0.03, nak: { qp: 2, syndrome: AETH.NAK_REMOTE_ACCESS, after: 20 } });
      check(tb, o);
      const q2 = o.model.cqes[2]!;
      const at = q2.findIndex(c => c.status === CQE_STATUS.REMOTE_ACCESS_ERROR);
      expect(at, `a REMOTE_ACCESS_ERROR CQE on QP 2 (seed ${tb.seed})`).toBeGreaterThanOrEqual(0);
      expect(q2[at]!.syndrome).toBe(AETH.NAK_REMOTE_ACCESS);
      expect(q2.slice(at + 1).every(c => c.status === CQE_STATUS.FLUSH_ERROR), 'everything after the NAK is flushed').toBe(true);
      expect(q2.length - at - 1, 'flushed entries after the NAK').toBeGreaterThan(0);
      expect(o.errs[2]).toBe(1);
      expect(o.stalls, 's_req waited on a full per-QP FIFO').toBeGreaterThan(0);
      console.log(`ack_tracker NAK: seed ${tb.seed}, QP 2: ${at} CQEs before the NAK, ${q2.length - at - 1} flushed; ${o.stalls} stall cycles`);
    });
  });
});
