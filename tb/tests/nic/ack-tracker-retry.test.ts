// nic_ack_tracker's retry engine in a closed loop (support/retry-loop.ts): a sender standing in
// for nic_req_tx (posts ReqEntries, restarts at the tracker's rewinds from the PSN its send
// pointer gives), a lossy link both ways, a responder model and nic_read_resp_rx's event
// annotation. Checked from what the tracker does:
//   - every message completes exactly once, in posting order, with the right status;
//   - every rewind names the oldest uncompleted entry (SQ_CI as published), the message's first
//     PSN, and a resume PSN inside the message that the responder (for a READ: the requester's
//     receiver) already has everything before: nothing is skipped;
//   - ACK timeouts come no sooner than 2^L cycles after the last event that restarts the timer;
//   - a QP that loses everything: retry_cnt + 1 timeouts, retry_cnt rewinds, RETRY_EXCEEDED for
//     its oldest message, the rest flushed, one qp_error; the other QPs carry on;
//   - RNR NAKs: a rewind no sooner than the RNR timer's time, no retry used; rnr_retry 7 never
//     runs out, 1 runs out at the second;
//   - parks: fetch_rewind at once, tx_hold until the fence, READ limit or entry room clears.
// Seeds are printed; NICGEN_SEED=<n> replays.

import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../../sim/errors.ts';
import { nicAckTracker } from '../../../gen/nic/ack-tracker.ts';
import { PARK, rnrTimerCycles } from '../../../gen/nic/qp-transport.ts';
import { CQE_STATUS, QP_STATE, WQE_OPCODE, retryReg } from '../../../gen/nic/regmap.ts';
import { ClockPhases } from '../../bfm/index.ts';
import { runTest, TestFailure, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { psnAdd, psnCompare } from '../../model/psn.ts';
import type { ReqEntryV } from '../../model/req-tx.ts';
import { Line, ResponderModel, RespRxModel, type AckEvent, type LoopMsg, type ReqPkt, type RespPkt } from './support/retry-loop.ts';
import { PulseMonitor, StructSink, StructSource } from './stage-streams.ts';
import { emptyQpCtx } from './qp-ctx.ts';

const NUM_QP = 4;
const DEPTH = 16;
type Dut = Parameters<Parameters<typeof runTest<NonNullable<typeof nicAckTracker['__io']>>>[1]>[0];

interface LoopOptions {
  msgsPerQp: number;
  pLoss: number;
  timeoutLog2: number;
  retryCnt: number;
  rnrRetry?: number;
  pRead: number;
  /** QP whose request packets are all lost. */
  blackHole?: number;
  /** QP whose responder answers its first `times` packets at EXP_PSN with RNR NAK (code). */
  rnr?: { qp: number; code: number; times: number };
  /** Per cycle: a ghost ACK, NAK 0x60 or RNR NAK (a PSN never sent) for a random QP. */
  pGhost?: number;
}

interface LoopResult {
  cqes: { qp: number; wrId: bigint; status: number; cycle: number }[][];
  msgs: LoopMsg[][];
  rewinds: { qp: number; cycle: number; ringIdx: number; resume: number }[];
  timeouts: { qp: number; cycle: number }[];
  errors: number[];
  implied: number;
  acksPastRead: number;
  ghosts: number;
  rnrAt: { qp: number; cycle: number }[];
  retryExc: number;
}

async function runLoop(dut: Dut, tb: TestBench, o: LoopOptions): Promise<LoopResult> {
  const r = tb.rng;
  const T = 2 ** o.timeoutLog2;
  const retry = retryReg({ retryCnt: o.retryCnt, rnrRetry: o.rnrRetry ?? 7, timeoutLog2: o.timeoutLog2 });
  const state: number[] = Array.from({ length: NUM_QP }, () => QP_STATE.RTR);
  const publish = (): void => {
    dut.qp_ctx.value = state.map(s => ({ ...emptyQpCtx(), state: s, retry })) as never;
  };
  publish();
  dut.s_req.valid.value = 0; dut.s_ack.valid.value = 0; dut.s_read_done.valid.value = 0; dut.m_cqe.ready.value = 0; dut.m_rewind.ready.value = 0;
  dut.s_park.value = { valid: 0, qp: 0, ringIdx: 0, reason: 0 };
  dut.ctx_room.value = (1 << NUM_QP) - 1;
  dut.tp_qp.value = 0;
  await tb.reset(2);
  // RTR loads the retry counters from RETRY; then RTS.
  await tb.clockCycles(2);
  for (let q = 0; q < NUM_QP; q++) state[q] = QP_STATE.RTS;
  publish();

  // The messages of each QP: PSNs from just below 2^24, ring indices from a random start.
  const msgs: LoopMsg[][] = [];
  for (let q = 0; q < NUM_QP; q++) {
    let psn = 0xffffff - r.int(0, 30), ring = r.int(0, 0xffff);
    const l: LoopMsg[] = [];
    for (let k = 0; k < o.msgsPerQp; k++) {
      const read = r.bool(o.pRead);
      const n = read ? r.int(1, 6) : r.int(1, 8);
      l.push({ ring, read, first: psn, last: psnAdd(psn, n - 1), wrId: (BigInt(q) << 56n) | BigInt(k) });
      psn = psnAdd(psn, n); ring = (ring + 1) & 0xffff;
    }
    msgs.push(l);
  }
  const msgAt = (q: number, ring: number): LoopMsg => msgs[q]!.find(m => m.ring === ring)!;

  const reqLine = new Line<ReqPkt>(r.fork(), [4, 24], o.pLoss);
  const respLine = new Line<RespPkt>(r.fork(), [4, 24], o.pLoss);
  const responders = msgs.map(l => new ResponderModel(l[0]!.first));
  const rx = msgs.map(() => new RespRxModel());
  const respQ: RespPkt[] = [];
  const reqSrc = new StructSource<ReqEntryV>(tb, dut.s_req as never, 's_req');
  const ackSrc = new StructSource<AckEvent & { msn: number }>(tb, dut.s_ack as never, 's_ack');
  const doneSrc = new StructSource<Record<string, number | bigint>>(tb, dut.s_read_done as never, 's_read_done');
  ClockPhases.of(tb).onSample(() => {
    if (dut.s_ack.valid.value === 1 && dut.s_ack.ready.value !== 1) throw new Error(`s_ack not ready at cycle ${tb.cycle} (seed ${tb.seed})`);
  });

  // ---- what the bench watches ----------------------------------------------------------------
  const res: LoopResult = { cqes: msgs.map(() => []), msgs, rewinds: [], timeouts: [], errors: msgs.map(() => 0), implied: 0, acksPastRead: 0, ghosts: 0, rnrAt: [], retryExc: 0 };
  new StructSink<Record<string, number | bigint>>(tb, dut.m_cqe as never, 'm_cqe', {
    pause: 0.3,
    onItem: (v, at) => {
      const q = Number(v['qp']), wrId = BigInt(v['wrId']!), status = Number(v['status']);
      res.cqes[q]!.push({ qp: q, wrId, status, cycle: at });
      // A WRITE completes only once the responder has all of it (a ghost ACK must not do it).
      const m = msgs[q]!.find(x => x.wrId === wrId);
      if (m && !m.read && status === CQE_STATUS.SUCCESS) {
        expect(psnCompare(m.last, responders[q]!.exp) < 0, `QP ${q} WRITE ${m.first}..${m.last} completed at cycle ${at}, the responder expects ${responders[q]!.exp} (seed ${tb.seed})`).toBe(true);
      }
    },
  });
  const ciSeen = msgs.map(l => l[0]!.ring);
  const timeoutMon = new PulseMonitor(tb, { get value() { return (dut.ack_timeout.value as { valid: number }).valid; } } as never, { get value() { return (dut.ack_timeout.value as { qp: number }).qp; } } as never);
  const excMon = new PulseMonitor(tb, dut.cnt_retry_exc as never, null);
  ClockPhases.of(tb).onSample(() => {
    const u = dut.sq_ci_upd.value as { valid: number; qp: number; value: number };
    if (u.valid) ciSeen[Number(u.qp)] = Number(u.value);
    const e = dut.qp_error.value as { valid: number; qp: number };
    if (e.valid) res.errors[Number(e.qp)]!++;
  });

  // Sender state per QP: the next message to post, the resume PSN after a rewind, what went out.
  const next = msgs.map(() => 0);
  const resumeAt: (number | null)[] = msgs.map(() => null);
  const posted: { e: ReqEntryV; msg: LoopMsg }[] = [];
  let handled = 0;
  // When the timer may have been (re)started last, per QP: progress, or a post with nothing in flight.
  const restart = msgs.map(() => 0);
  const maxAcked = msgs.map(l => psnAdd(l[0]!.first, -1));
  const lastPosted = msgs.map(l => psnAdd(l[0]!.first, -1));
  const inFlight = msgs.map(() => false);
  let readTpFor: { q: number; ringIdx: number; sqPsn: number; cycle: number } | null = null;
  const rnrLeft = o.rnr ? { ...o.rnr } : null;

  // What the tracker has been told, bookkept in the cycle it takes each event (before a rewind
  // taken in the same cycle, as in the tracker): an event counts when its PSN is in the window
  // (newer than what was acknowledged, not newer than what was posted). An ACK says the other
  // side has its PSN, a NAK everything before its PSN, a missing READ response everything
  // before the expected one; any event that moves the window restarts the timer.
  let acksSeen = 0;
  ClockPhases.of(tb).onSample(() => {
    for (; acksSeen < ackSrc.sent.length; acksSeen++) {
      const { value: a, cycle } = ackSrc.sent[acksSeen]!;
      const ackSyn = (a.syndrome >> 5) === 0;
      const has = a.rdMiss ? psnAdd(a.rdExp, -1) : ackSyn ? a.psn : a.syndrome === 0x60 || (a.syndrome >> 5) === 1 ? psnAdd(a.psn, -1) : null;
      const inWindow = psnCompare(a.psn, maxAcked[a.qp]!) > 0 && psnCompare(a.psn, lastPosted[a.qp]!) <= 0;
      if (inWindow && has !== null && psnCompare(has, maxAcked[a.qp]!) > 0) {
        maxAcked[a.qp] = has;
        restart[a.qp] = cycle;
      }
    }
  });

  // Like nic_req_tx, the sender takes a rewind only between entries (none of its on the bus).
  new StructSink<{ qp: number; ringIdx: number; sqPsn: number }>(tb, dut.m_rewind as never, 'm_rewind', {
    pause: 0.5,
    room: () => reqSrc.idle,
    onItem: (v, at) => {
      const q = Number(v.qp), ringIdx = Number(v.ringIdx), sqPsn = Number(v.sqPsn);
      const why = `rewind of QP ${q} at cycle ${at} (seed ${tb.seed})`;
      expect(ringIdx, `${why}: ring index = SQ_CI (the oldest uncompleted entry)`).toBe(ciSeen[q]);
      expect(sqPsn, `${why}: the message's first PSN`).toBe(msgAt(q, ringIdx).first);
      next[q] = msgs[q]!.findIndex(m => m.ring === ringIdx);
      rx[q]!.drop();
      inFlight[q] = false;
      // The tracker empties the window (lastSent := acked): later events about the dropped
      // entries are stale until they are posted again.
      lastPosted[q] = maxAcked[q]!;
      readTpFor = { q, ringIdx, sqPsn, cycle: at };
      dut.tp_qp.value = q;
    },
  });

  const post = (q: number): void => {
    const m = msgs[q]![next[q]!]!;
    const first = resumeAt[q] ?? m.first;
    resumeAt[q] = null;
    const e: ReqEntryV = {
      qp: q, wrId: m.wrId, opcode: m.read ? WQE_OPCODE.RDMA_READ : WQE_OPCODE.RDMA_WRITE, length: 100, firstPsn: first, lastPsn: m.last,
      msgFirstPsn: m.first, ringIndex: m.ring, signaled: 1, status: state[q] === QP_STATE.ERROR ? CQE_STATUS.FLUSH_ERROR : CQE_STATUS.SUCCESS,
    };
    next[q]!++;
    // nic_req_tx hands the read_ctx to nic_read_resp_rx before the ReqEntry to the tracker.
    if (m.read && e.status === CQE_STATUS.SUCCESS) rx[q]!.push(e.firstPsn, e.lastPsn);
    reqSrc.push(e);
    posted.push({ e, msg: m });
  };

  let timeoutsSeen = 0;
  const lastTimeout = msgs.map(() => -1);
  const step = (): void => {
    const now = tb.cycle;
    // ACK timeouts: never sooner than 2^L cycles after the last event that restarts the timer
    // (progress, or a post with nothing in flight, e.g. the first after a rewind).
    for (; timeoutsSeen < timeoutMon.events.length; timeoutsSeen++) {
      const ev = timeoutMon.events[timeoutsSeen]!;
      const q = ev.value;
      expect(ev.cycle - restart[q]!, `QP ${q} ACK timeout at cycle ${ev.cycle}: ${ev.cycle - restart[q]!} cycles after the timer's last restart (cycle ${restart[q]}), the timeout is ${T} (seed ${tb.seed})`).toBeGreaterThanOrEqual(T - 2);
      if (o.blackHole === q && lastTimeout[q]! >= 0) {
        expect(ev.cycle - lastTimeout[q]!, `QP ${q} (everything lost): timeouts ${ev.cycle - lastTimeout[q]!} cycles apart, the timeout is ${T} plus the rewind and the re-post (seed ${tb.seed})`).toBeLessThanOrEqual(T + 200);
      }
      lastTimeout[q] = ev.cycle;
    }
    // The send pointer, read the cycle after a rewind: the resume PSN must be inside the
    // message, and nothing before it may be missing at the responder (or the requester's READ receiver).
    if (readTpFor && now > readTpFor.cycle + 1) {
      const t = dut.tp.value as { expIdx: number; resumeValid: number; resumePsn: number };
      const { q, ringIdx, sqPsn } = readTpFor;
      const m = msgAt(q, ringIdx);
      const resume = t.resumeValid ? Number(t.resumePsn) : sqPsn;
      const why = `QP ${q} resume after the rewind at cycle ${readTpFor.cycle} (seed ${tb.seed})`;
      expect(Number(t.expIdx), `${why}: send pointer`).toBe(ringIdx);
      expect(psnCompare(resume, m.first) >= 0 && psnCompare(resume, m.last) <= 0, `${why}: PSN ${resume} inside ${m.first}..${m.last}`).toBe(true);
      expect(psnCompare(resume, psnAdd(maxAcked[q]!, 1)) <= 0, `${why}: PSN ${resume} past the newest PSN acknowledged to the tracker (${maxAcked[q]})`).toBe(true);
      expect(psnCompare(resume, responders[q]!.exp) <= 0, `${why}: PSN ${resume} past the responder's expected PSN ${responders[q]!.exp} (a packet would be skipped)`).toBe(true);
      resumeAt[q] = resume;
      res.rewinds.push({ qp: q, cycle: readTpFor.cycle, ringIdx, resume });
      readTpFor = null;
    }
    // Posted entries go out on the link once the tracker took them.
    for (; handled < reqSrc.sent.length; handled++) {
      const { e, msg } = posted[handled]!;
      if (e.status !== CQE_STATUS.SUCCESS) continue;
      const q = e.qp;
      if (!inFlight[q] || psnCompare(maxAcked[q]!, lastPosted[q]!) >= 0) restart[q] = reqSrc.sent[handled]!.cycle;
      inFlight[q] = true;
      lastPosted[q] = e.lastPsn;
      const lose = o.blackHole === q ? true : undefined;
      if (msg.read) reqLine.send(now, { qp: q, kind: 'read', psn: e.firstPsn, lastPsn: e.lastPsn }, lose);
      else for (let psn = e.firstPsn; ; psn = psnAdd(psn, 1)) { reqLine.send(now, { qp: q, kind: 'write', psn, last: psn === e.lastPsn }, lose); if (psn === e.lastPsn) break; }
    }
    // The responder answers what arrives.
    for (const p of reqLine.take(now)) {
      if (rnrLeft && p.qp === rnrLeft.qp && rnrLeft.times > 0 && p.psn === responders[p.qp]!.exp) {
        rnrLeft.times--;
        respLine.send(now, { qp: p.qp, kind: 'ack', psn: p.psn, syndrome: 0x20 | rnrLeft.code }, false);
        continue;
      }
      for (const x of responders[p.qp]!.onRequest(p)) respLine.send(now, x);
    }
    // The requester's RX: READ responses and ACKs, annotated, to the tracker in order.
    // nic_read_resp_rx annotates a packet in the cycle before the tracker sees its event (one
    // register): arriving packets wait here and are annotated one per cycle as s_ack frees.
    respQ.push(...respLine.take(now));
    for (const p of ackSrc.idle && respQ.length > 0 ? [respQ.shift()!] : []) {
      const { acks, done } = rx[p.qp]!.onResponse(p.qp, p);
      for (const a of acks) {
        if (a.rdMiss && p.kind === 'resp') res.implied++;
        if (a.rdMiss && p.kind === 'ack') res.acksPastRead++;
        if (p.kind === 'ack' && (a.syndrome >> 5) === 1) res.rnrAt.push({ qp: a.qp, cycle: now });
        ackSrc.push({ ...a, msn: 0 });
      }
      if (done !== null) doneSrc.push({ qp: p.qp, wrId: 0n, lastPsn: done, status: 0, syndrome: 0, ok: 1 }, now + r.int(0, 10));
    }
    // Ghosts: PSNs beyond anything sent (ahead of the window); the tracker must ignore them.
    if (o.pGhost && r.bool(o.pGhost) && ackSrc.idle) {
      const q = r.int(0, NUM_QP - 1);
      ackSrc.push({ qp: q, psn: psnAdd(lastPosted[q]!, r.int(1, 1 << 20)), syndrome: r.pick([0x1f, 0x60, 0x20 | r.int(0, 31)]), rdMiss: 0, rdExp: 0, msn: 0 });
      res.ghosts++;
    }
    // Post the next message of a QP with room (fewer than DEPTH uncompleted), one at a time.
    if (reqSrc.idle && !readTpFor) {
      const ready = msgs.map((_, q) => q).filter(q => next[q]! < o.msgsPerQp
        && ((msgs[q]![next[q]!]!.ring - ciSeen[q]!) & 0xffff) < DEPTH - 1);
      if (ready.length) post(r.pick(ready));
    }
  };
  tb.fork(async () => { for (;;) { await tb.rising(); step(); } }, 'loop');
  ClockPhases.of(tb).onSample(() => {
    const e = dut.qp_error.value as { valid: number; qp: number };
    if (e.valid) { state[Number(e.qp)] = QP_STATE.ERROR; publish(); }
  });

  const total = o.msgsPerQp * NUM_QP;
  await tb.until(() => res.cqes.reduce((s, l) => s + l.length, 0) >= total, { timeout: 3_000_000, what: `${total} CQEs` });
  await tb.clockCycles(200);
  res.timeouts = timeoutMon.events.map(e => ({ qp: e.value, cycle: e.cycle }));
  res.retryExc = excMon.events.length;
  return res;
}

/** No request, event, park or read_done offered; m_cqe always ready; every READ context free. */
function quietInputs(dut: Dut, o: { rewindReady: 0 | 1; tpQp: number }): void {
  dut.s_req.valid.value = 0; dut.s_ack.valid.value = 0; dut.s_read_done.valid.value = 0; dut.m_cqe.ready.value = 1; dut.m_rewind.ready.value = o.rewindReady;
  dut.s_park.value = { valid: 0, qp: 0, ringIdx: 0, reason: 0 };
  dut.ctx_room.value = (1 << NUM_QP) - 1;
  dut.tp_qp.value = o.tpQp;
}

function checkCompletions(tb: TestBench, res: LoopResult, expect0: (q: number) => number[]): void {
  for (let q = 0; q < NUM_QP; q++) {
    const got = res.cqes[q]!.map(c => `${c.wrId.toString(16)}:${c.status}`);
    const want = res.msgs[q]!.map((m, k) => `${m.wrId.toString(16)}:${expect0(q)[k]}`);
    expect(got, `QP ${q}: CQEs (wr_id:status) in posting order, each once (seed ${tb.seed})`).toEqual(want);
  }
}

describe('nic_ack_tracker retry engine (closed loop)', () => {
  it('random loss both ways on 4 QPs (WRITEs and READs), ghost ACK/NAKs: every message once, in order; rewinds at the oldest entry, never past what arrived', async () => {
    await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
      const res = await runLoop(dut, tb, { msgsPerQp: 80, pLoss: 0.04, timeoutLog2: 10, retryCnt: 7, pRead: 0.4, pGhost: 0.01 });
      checkCompletions(tb, res, () => res.msgs[0]!.map(() => CQE_STATUS.SUCCESS));
      console.log(`retry loop: seed ${tb.seed}, ${res.rewinds.length} rewinds (${res.rewinds.filter(x => x.resume !== res.msgs[x.qp]!.find(m => m.ring === x.ringIdx)!.first).length} inside a message), `
        + `${res.timeouts.length} timeouts, ${res.implied} implied NAKs, ${res.acksPastRead} ACKs past a missing READ response, ${res.ghosts} ghost ACK/NAKs, ${tb.cycle} cycles`);
      expect(res.rewinds.length).toBeGreaterThan(10);
      expect(res.rewinds.some(x => x.resume !== res.msgs[x.qp]!.find(m => m.ring === x.ringIdx)!.first), 'a rewind inside a message').toBe(true);
      expect(res.timeouts.length).toBeGreaterThan(0);
      expect(res.implied).toBeGreaterThan(0);
      expect(res.errors).toEqual([0, 0, 0, 0]);
    }, { maxCycles: 4_000_000 });
  });
});


describe('nic_ack_tracker retry engine: exhaustion, RNR, parking', () => {
  it('a QP that loses everything: retry_cnt + 1 timeouts T apart, retry_cnt rewinds, RETRY_EXCEEDED then flushes, one qp_error; the others carry on', async () => {
    await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
      const retryCnt = 3, bh = 2;
      const res = await runLoop(dut, tb, { msgsPerQp: 12, pLoss: 0.02, timeoutLog2: 10, retryCnt, pRead: 0.3, blackHole: bh });
      checkCompletions(tb, res, q => res.msgs[q]!.map((_, k) => (q !== bh ? CQE_STATUS.SUCCESS : k === 0 ? CQE_STATUS.RETRY_EXCEEDED : CQE_STATUS.FLUSH_ERROR)));
      const t = res.timeouts.filter(x => x.qp === bh), rw = res.rewinds.filter(x => x.qp === bh);
      console.log(`retry exhaustion: seed ${tb.seed}, QP ${bh}: ${t.length} timeouts at ${t.map(x => x.cycle).join(', ')}, ${rw.length} rewinds; errors ${res.errors.join(',')}`);
      expect(t.length, 'timeouts of the QP').toBe(retryCnt + 1);
      expect(rw.length, 'rewinds of the QP').toBe(retryCnt);
      expect(res.errors, 'qp_error per QP').toEqual([0, 0, 1, 0].map((x, q) => (q === bh ? 1 : 0) + x - (q === 2 ? 1 : 0)));
      expect(res.retryExc, 'RETRY_EXC pulses').toBe(1);
    }, { maxCycles: 4_000_000 });
  });

  for (const [rnrRetry, times] of [[7, 3], [1, 2]] as const) {
    it(`RNR NAK x${times} with rnr_retry ${rnrRetry}: rewinds after the RNR timer, no retry used, ${rnrRetry === 7 ? 'never exhausted' : 'RNR_RETRY_EXCEEDED at the second'}`, async () => {
      await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
        const q = 1, code = 1;
        const res = await runLoop(dut, tb, { msgsPerQp: 6, pLoss: 0, timeoutLog2: 10, retryCnt: 0, rnrRetry, pRead: 0, rnr: { qp: q, code, times } });
        const wait = rnrTimerCycles(code);
        const ok = rnrRetry === 7;
        checkCompletions(tb, res, x => res.msgs[x]!.map((_, k) => (x !== q || ok ? CQE_STATUS.SUCCESS : k === 0 ? CQE_STATUS.RNR_RETRY_EXCEEDED : CQE_STATUS.FLUSH_ERROR)));
        const rw = res.rewinds.filter(x => x.qp === q);
        console.log(`RNR: seed ${tb.seed}, RNR NAKs at ${res.rnrAt.map(x => x.cycle).join(', ')}, rewinds at ${rw.map(x => x.cycle).join(', ')} (RNR timer ${wait} cycles), timeouts ${res.timeouts.length}`);
        expect(res.rnrAt.length).toBe(times);
        expect(rw.length, 'rewinds after RNR NAKs').toBe(ok ? times : 1);
        rw.forEach((x, k) => {
          const d = x.cycle - res.rnrAt[k]!.cycle;
          expect(d, `rewind ${k} ${d} cycles after its RNR NAK (timer ${wait})`).toBeGreaterThanOrEqual(wait);
          expect(d, `rewind ${k} ${d} cycles after its RNR NAK (timer ${wait})`).toBeLessThanOrEqual(wait + 100);
        });
        // Retry count 0: had an RNR NAK or its wait used a retry (or run the ACK timer), the QP would have failed.
        expect(res.timeouts.filter(x => x.qp === q).length, 'ACK timeouts while waiting for the RNR timer').toBe(0);
        expect(res.errors[q]).toBe(ok ? 0 : 1);
      }, { maxCycles: 2_000_000 });
    });
  }

  it('parks: fetch_rewind in the same cycle, tx_hold until the fence (READs retired), the READ limit (ctx_room) or the entry room clears', async () => {
    await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
      const ctx = Array.from({ length: NUM_QP }, () => ({ ...emptyQpCtx(), state: QP_STATE.RTS, retry: retryReg({ retryCnt: 3, timeoutLog2: 0 }) }));
      dut.qp_ctx.value = ctx as never;
      quietInputs(dut, { rewindReady: 1, tpQp: 0 });
      await tb.reset(2);
      const reqSrc = new StructSource<ReqEntryV>(tb, dut.s_req as never, 's_req');
      const ackSrc = new StructSource<AckEvent & { msn: number }>(tb, dut.s_ack as never, 's_ack');
      const doneSrc = new StructSource<Record<string, number | bigint>>(tb, dut.s_read_done as never, 's_read_done');
      const hold = (q: number): number => (Number(dut.tx_hold.value) >> q) & 1;
      const entry = (q: number, ring: number, psn: number, read: boolean): ReqEntryV => ({
        qp: q, wrId: BigInt(ring), opcode: read ? WQE_OPCODE.RDMA_READ : WQE_OPCODE.RDMA_WRITE, length: 1, firstPsn: psn, lastPsn: psn,
        msgFirstPsn: psn, ringIndex: ring, signaled: 0, status: CQE_STATUS.SUCCESS,
      });
      const park = async (q: number, ring: number, reason: number): Promise<void> => {
        await tb.rising();
        dut.s_park.value = { valid: 1, qp: q, ringIdx: ring, reason };
        await tb.falling();
        const f = dut.fetch_rewind.value as { valid: number; qp: number; ringIdx: number };
        expect({ valid: Number(f.valid), qp: Number(f.qp), ringIdx: Number(f.ringIdx) }, `fetch_rewind in the park's cycle (QP ${q})`).toEqual({ valid: 1, qp: q, ringIdx: ring });
        await tb.rising();
        dut.s_park.value = { valid: 0, qp: 0, ringIdx: 0, reason: 0 };
        await tb.falling();
      };
      // Fence: QP 0 with two READ entries outstanding.
      for (let k = 0; k < 2; k++) reqSrc.push(entry(0, k, 100 + k, true));
      await reqSrc.wait();
      await park(0, 2, PARK.FENCE);
      expect(hold(0), 'QP 0 held while its READs are outstanding').toBe(1);
      doneSrc.push({ qp: 0, wrId: 0n, lastPsn: 100, status: 0, syndrome: 0, ok: 1 });
      await doneSrc.wait();
      await tb.clockCycles(20);
      expect(hold(0), 'one READ still outstanding').toBe(1);
      doneSrc.push({ qp: 0, wrId: 1n, lastPsn: 101, status: 0, syndrome: 0, ok: 1 });
      await tb.until(() => hold(0) === 0, { timeout: 100, what: 'QP 0 released once its READs retired' });
      // READ limit: QP 1 without a free READ context.
      dut.ctx_room.value = 0xf & ~(1 << 1);
      await park(1, 7, PARK.READ_LIMIT);
      await tb.clockCycles(30);
      expect(hold(1), 'QP 1 held without a READ context').toBe(1);
      await tb.rising();
      dut.ctx_room.value = 0xf;
      await tb.until(() => hold(1) === 0, { timeout: 10, what: 'QP 1 released when a context frees' });
      // Entry room: QP 2 with its FIFO full (DEPTH WRITEs, not acknowledged).
      for (let k = 0; k < DEPTH; k++) reqSrc.push(entry(2, 40 + k, 500 + k, false));
      await reqSrc.wait();
      dut.tp_qp.value = 2;
      await tb.clockCycles(2);
      expect(Number((dut.tp.value as { room: number }).room), 'tp.room of a full QP').toBe(0);
      await park(2, 40 + DEPTH, PARK.TRACKER_FULL);
      await tb.clockCycles(30);
      expect(hold(2), 'QP 2 held with its entry FIFO full').toBe(1);
      ackSrc.push({ qp: 2, psn: 503, syndrome: 0x1f, msn: 0, rdMiss: 0, rdExp: 0 });
      await tb.until(() => hold(2) === 0, { timeout: 100, what: 'QP 2 released once entries retired' });
      expect(Number(dut.tx_hold.value), 'nothing held at the end').toBe(0);
      console.log(`parks: seed ${tb.seed}: fence, READ limit and entry room each held and released their QP`);
    });
  });
});

describe('nic_ack_tracker retry engine: a reset QP', () => {
  it('a rewind still waiting when its QP is reset is dropped: none after the reconnect, the QP starts clean', async () => {
    await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
      const retry = retryReg({ retryCnt: 3, timeoutLog2: 0 });
      const state: number[] = [QP_STATE.RTR, QP_STATE.RTR, QP_STATE.RTR, QP_STATE.RTR];
      const publish = (): void => { dut.qp_ctx.value = state.map(s => ({ ...emptyQpCtx(), state: s, retry })) as never; };
      publish();
      quietInputs(dut, { rewindReady: 0, tpQp: 1 });
      await tb.reset(2);
      await tb.clockCycles(2);
      state[1] = QP_STATE.RTS; publish();
      const reqSrc = new StructSource<ReqEntryV>(tb, dut.s_req as never, 's_req');
      const ackSrc = new StructSource<AckEvent & { msn: number }>(tb, dut.s_ack as never, 's_ack');
      reqSrc.push({ qp: 1, wrId: 1n, opcode: WQE_OPCODE.RDMA_WRITE, length: 10, firstPsn: 100, lastPsn: 103, msgFirstPsn: 100, ringIndex: 7, signaled: 1, status: CQE_STATUS.SUCCESS });
      await reqSrc.wait();
      ackSrc.push({ qp: 1, psn: 102, syndrome: 0x60, rdMiss: 0, rdExp: 0, msn: 0 });
      await tb.until(() => dut.m_rewind.valid.value === 1, { timeout: 100, what: 'the rewind' });
      // Reset the QP while the rewind waits (m_rewind not ready).
      await tb.rising();
      state[1] = QP_STATE.RESET; publish();
      await tb.clockCycles(3);
      expect(Number(dut.m_rewind.valid.value), 'the rewind of a reset QP is dropped').toBe(0);
      dut.m_rewind.ready.value = 1;
      state[1] = QP_STATE.INIT; publish(); await tb.clockCycles(2);
      state[1] = QP_STATE.RTS; publish();
      let rewinds = 0;
      ClockPhases.of(tb).onSample(() => { if (dut.m_rewind.valid.value === 1) rewinds++; });
      await tb.clockCycles(50);
      const t = dut.tp.value as { expIdx: number; resumeValid: number; highValid: number; room: number };
      expect(rewinds, 'rewinds after the reconnect').toBe(0);
      expect({ expIdx: Number(t.expIdx), resumeValid: Number(t.resumeValid), highValid: Number(t.highValid), room: Number(t.room) }, 'send pointer after RESET').toEqual({ expIdx: 0, resumeValid: 0, highValid: 0, room: 1 });
      expect(Number(dut.read_busy.value) | Number(dut.tx_hold.value)).toBe(0);
    });
  });
});


// Soak finding 6 (docs/regress.md; seed 2472471773 at 0241bfb, NAK 0x61 on a WRITE): a rewind
// waits (nic_req_tx busy with the QP's next WQE) while an ACK covers the entry it restarts at.
// The handshake came in a cycle the completion engine picked the QP: the pick read the head
// entry the rewind was dropping, and the next cycle (rewind gone, so no longer held) retired
// it: a CQE and SQ_CI past an entry that is sent and posted again. Software reused the slot,
// fetch re-read it (torn: LOCAL_LENGTH_ERROR, nothing sent) and the next WRITE went out at its
// PSN. The engine alternates PICK and EVAL while one QP has entries, so the handshake is tried
// at four consecutive cycles (one QP each); the dropped entry must complete only once it has
// been posted again, exactly once.
describe('nic_ack_tracker retry engine: an entry dropped by a rewind', () => {
  it('a rewind taken in the cycle the engine picks its QP, its entry ACKed while it waited: no CQE or SQ_CI for the dropped entry until it is posted again, then each entry once', async () => {
    await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
      const retry = retryReg({ retryCnt: 3, timeoutLog2: 0 });
      // RTR loads the retry counters from RETRY; then RTS.
      const publish = (state: number): void => { dut.qp_ctx.value = Array.from({ length: NUM_QP }, () => ({ ...emptyQpCtx(), state, retry })) as never; };
      publish(QP_STATE.RTR);
      quietInputs(dut, { rewindReady: 0, tpQp: 0 });
      await tb.reset(2);
      await tb.clockCycles(2);
      publish(QP_STATE.RTS);
      const reqSrc = new StructSource<ReqEntryV>(tb, dut.s_req as never, 's_req');
      const ackSrc = new StructSource<AckEvent & { msn: number }>(tb, dut.s_ack as never, 's_ack');
      const cqes: { qp: number; wrId: bigint; status: number; cycle: number }[] = [];
      new StructSink<Record<string, number | bigint>>(tb, dut.m_cqe as never, 'm_cqe', {
        onItem: (v, at) => cqes.push({ qp: Number(v['qp']), wrId: BigInt(v['wrId']!), status: Number(v['status']), cycle: at }),
      });
      const ci: { qp: number; value: number; cycle: number }[] = [];
      ClockPhases.of(tb).onSample(() => {
        const u = dut.sq_ci_upd.value as { valid: number; qp: number; value: number };
        if (u.valid) ci.push({ qp: Number(u.qp), value: Number(u.value), cycle: tb.cycle });
      });
      const entry = (q: number, ring: number, first: number, last: number, resume = first): ReqEntryV => ({
        qp: q, wrId: BigInt(q * 100 + ring), opcode: WQE_OPCODE.RDMA_WRITE, length: 256 * (last - first + 1), firstPsn: resume, lastPsn: last,
        msgFirstPsn: first, ringIndex: ring, signaled: 1, status: CQE_STATUS.SUCCESS,
      });
      const ack = (q: number, psn: number, syndrome: number): void => ackSrc.push({ qp: q, psn, syndrome, rdMiss: 0, rdExp: 0, msn: 0 });
      for (let q = 0; q < NUM_QP; q++) {
        // M2 (ring 10, an ONLY at PSN 200) and M3 (ring 11, PSNs 201..204), as in the soak.
        const base = 200, m2 = entry(q, 10, base, base), m3 = entry(q, 11, base + 1, base + 4);
        reqSrc.push(m2); reqSrc.push(m3);
        await reqSrc.wait();
        // The responder saw M3's FIRST before M2 (reordered): NAK 0x60 at M2's PSN.
        ack(q, base, 0x60);
        await tb.until(() => dut.m_rewind.valid.value === 1, { timeout: 100, what: `QP ${q}: the rewind` });
        const loaded = tb.cycle;
        const rw = dut.m_rewind.data.value as { qp: number; ringIdx: number; sqPsn: number };
        expect({ qp: Number(rw.qp), ringIdx: Number(rw.ringIdx), sqPsn: Number(rw.sqPsn) }, `QP ${q}: rewind at M2`).toEqual({ qp: q, ringIdx: 10, sqPsn: base });
        // M2 arrives late: its ACK comes while the rewind waits. M2 must not retire yet.
        ack(q, base, 0x1f);
        await ackSrc.wait();
        // The handshake 40 + q cycles after the rewind showed: both phases of PICK/EVAL are hit.
        await tb.clockCycles(loaded + 40 + q - tb.cycle);
        expect(cqes.filter(c => c.qp === q), `QP ${q}: no CQE while the rewind waits`).toEqual([]);
        dut.m_rewind.ready.value = 1;
        await tb.clockCycles(1);
        dut.m_rewind.ready.value = 0;
        const took = tb.cycle;
        await tb.clockCycles(1);
        expect(Number(dut.m_rewind.valid.value), `QP ${q}: the rewind was taken`).toBe(0);
        await tb.clockCycles(20);
        const early = cqes.filter(c => c.qp === q), earlyCi = ci.filter(c => c.qp === q);
        expect(early, `QP ${q}: a CQE for an entry the rewind (handshake at cycle ${took}) dropped, before it was posted again (seed ${tb.seed})`).toEqual([]);
        expect(earlyCi, `QP ${q}: SQ_CI moved past an entry the rewind (cycle ${took}) dropped, before it was posted again: software may reuse its slot (seed ${tb.seed})`).toEqual([]);
        // nic_req_tx resends from the send pointer (M2 whole: resume = its only PSN) and posts again.
        dut.tp_qp.value = q;
        await tb.clockCycles(2);
        const tp = dut.tp.value as { expIdx: number; resumeValid: number };
        expect({ expIdx: Number(tp.expIdx), resumeValid: Number(tp.resumeValid) }, `QP ${q}: send pointer at M2, whole`).toEqual({ expIdx: 10, resumeValid: 0 });
        reqSrc.push(m2); reqSrc.push(m3);
        await reqSrc.wait();
        ack(q, base, 0x1f);
        ack(q, base + 4, 0x1f);
        await tb.until(() => cqes.filter(c => c.qp === q).length >= 2, { timeout: 200, what: `QP ${q}: the two CQEs` });
        await tb.clockCycles(20);
        expect(cqes.filter(c => c.qp === q).map(c => [c.wrId, c.status]), `QP ${q}: M2 then M3, each once`).toEqual([[m2.wrId, CQE_STATUS.SUCCESS], [m3.wrId, CQE_STATUS.SUCCESS]]);
        expect(ci.filter(c => c.qp === q).map(c => c.value), `QP ${q}: SQ_CI`).toEqual([11, 12]);
      }
      expect(Number(dut.m_rewind.valid.value) | Number(dut.tx_hold.value), 'nothing left').toBe(0);
      console.log(`rewind-dropped entry: seed ${tb.seed}, four handshake phases, each entry completed once after its re-post`);
    });
  });
});


// nic_req_tx never posts an entry of a QP in the cycle it takes that QP's rewind (rewind_safe:
// between WQEs only). If it did, the record's tail would take the post (tail + 1) and lose the
// rewind's tail := head: an entry kept that the resend posts again. The tracker asserts it.
describe('nic_ack_tracker retry engine: a post racing a rewind', () => {
  it('stops the simulation at the assertion when a post and a rewind of the same QP meet in one cycle', async () => {
    const entry = (ring: number, psn: number): ReqEntryV => ({
      qp: 2, wrId: BigInt(ring), opcode: WQE_OPCODE.RDMA_WRITE, length: 256, firstPsn: psn, lastPsn: psn, msgFirstPsn: psn, ringIndex: ring, signaled: 1, status: CQE_STATUS.SUCCESS,
    });
    const err = await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
      const retry = retryReg({ retryCnt: 3, timeoutLog2: 0 });
      const publish = (state: number): void => { dut.qp_ctx.value = Array.from({ length: NUM_QP }, () => ({ ...emptyQpCtx(), state, retry })) as never; };
      publish(QP_STATE.RTR);
      quietInputs(dut, { rewindReady: 0, tpQp: 2 });
      dut.m_cqe.ready.value = 0;
      await tb.reset(2);
      await tb.clockCycles(2);
      publish(QP_STATE.RTS);
      // s_req driven by hand (always ready here: the FIFO has room), so the last post can be
      // put in the very cycle of the rewind's handshake.
      const post = async (e: ReqEntryV, rewindReady: 0 | 1 = 0): Promise<void> => {
        dut.s_req.data.value = e as never; dut.s_req.valid.value = 1; dut.m_rewind.ready.value = rewindReady;
        await tb.clockCycles(1);
        dut.s_req.valid.value = 0;
      };
      const ackSrc = new StructSource<AckEvent & { msn: number }>(tb, dut.s_ack as never, 's_ack');
      await post(entry(5, 300)); await post(entry(6, 301));
      ackSrc.push({ qp: 2, psn: 300, syndrome: 0x60, rdMiss: 0, rdExp: 0, msn: 0 });
      await tb.until(() => dut.m_rewind.valid.value === 1, { timeout: 100, what: 'the rewind' });
      // The same edge: ring 7 posted and the rewind (to ring 5) taken.
      await post(entry(7, 302), 1);
      await tb.clockCycles(3);
    }, { seed: 1, pictures: false }).catch((e: unknown) => e);
    expect(err, 'the run must fail at the assertion').toBeInstanceOf(TestFailure);
    const cause = (err as TestFailure).cause;
    expect(cause).toBeInstanceOf(AssertionFailure);
    expect((cause as AssertionFailure).assertMessage).toMatch(/^a post and a rewind of the same QP in the same cycle/);
    expect((cause as AssertionFailure).loc).toMatch(/^gen\/nic\/ack-tracker\.ts:\d+:\d+$/);
  });
});


// Regress soak seed 2192387687 (docs/nic-reliability.md): the link reordered a WRITE's expected
// packet behind the next ones round after round, so the responder's progress reached the
// requester only through NAKs 0x60 that moved acked a PSN or two, between ACK timeouts. The
// tracker reloaded the retry count only on an ACK, and ignored those NAKs as echoes of the
// retry already started: seven rounds used the count up although the window moved
// (RETRY_EXCEEDED). Issue 11: any progress reloads it; a NAK that moves acked is a new loss.
describe('nic_ack_tracker retry engine: progress through NAKs only', () => {
  it('retry_cnt 2: rounds of an ACK timeout then a NAK 0x60 one PSN further, each a rewind, never RETRY_EXCEEDED; the WRITE completes once', async () => {
    await runTest(design(nicAckTracker, { depth: DEPTH }), async (dut, tb) => {
      const q = 1, first = 100, last = 109, rounds = 4, timeoutLog2 = 8;
      const retry = retryReg({ retryCnt: 2, timeoutLog2 });
      const publish = (state: number): void => { dut.qp_ctx.value = Array.from({ length: NUM_QP }, () => ({ ...emptyQpCtx(), state, retry })) as never; };
      publish(QP_STATE.RTR);
      quietInputs(dut, { rewindReady: 1, tpQp: q });
      await tb.reset(2);
      await tb.clockCycles(2);
      publish(QP_STATE.RTS);
      const reqSrc = new StructSource<ReqEntryV>(tb, dut.s_req as never, 's_req');
      const ackSrc = new StructSource<AckEvent & { msn: number }>(tb, dut.s_ack as never, 's_ack');
      const cqes: { wrId: bigint; status: number }[] = [];
      new StructSink<Record<string, number | bigint>>(tb, dut.m_cqe as never, 'm_cqe', {
        onItem: v => cqes.push({ wrId: BigInt(v['wrId']!), status: Number(v['status']) }),
      });
      const timeouts = new PulseMonitor(tb, { get value() { return (dut.ack_timeout.value as { valid: number }).valid; } } as never, null);
      const rewinds: { cycle: number; resume: number; why: string }[] = [];
      let errors = 0;
      ClockPhases.of(tb).onSample(() => { if ((dut.qp_error.value as { valid: number }).valid) errors++; });
      // nic_req_tx: post the WRITE (again) from the send pointer's resume PSN.
      const post = async (): Promise<void> => {
        const tp = dut.tp.value as { resumeValid: number; resumePsn: number };
        const resume = Number(tp.resumeValid) ? Number(tp.resumePsn) : first;
        reqSrc.push({ qp: q, wrId: 7n, opcode: WQE_OPCODE.RDMA_WRITE, length: 2560, firstPsn: resume, lastPsn: last, msgFirstPsn: first, ringIndex: 3, signaled: 1, status: CQE_STATUS.SUCCESS });
        await reqSrc.wait();
      };
      // A NAK's rewind comes at once (within 50 cycles, well before the next timeout).
      const rewound = async (why: string, within: number): Promise<void> => {
        await tb.until(() => dut.m_rewind.valid.value === 1, { timeout: within, what: `QP ${q}: the rewind after ${why} (round ${rewinds.length >> 1}; seed ${tb.seed})` });
        await tb.clockCycles(2);
        const tp = dut.tp.value as { resumeValid: number; resumePsn: number };
        rewinds.push({ cycle: tb.cycle, resume: Number(tp.resumeValid) ? Number(tp.resumePsn) : first, why });
      };
      await post();
      for (let k = 0; k < rounds; k++) {
        // Nothing arrives: the ACK timeout rewinds (a retry used: one left). Without the reload
        // at the NAK below, the next round's timeout would find none.
        await rewound('an ACK timeout', 4 << timeoutLog2);
        expect(errors, `QP ${q}: qp_error after the timeout of round ${k} (seed ${tb.seed})`).toBe(0);
        await post();
        // The responder got one more PSN (the expected one came behind the next): NAK at
        // first + k + 1, progress: the count reloads to 2 and this retry uses one.
        ackSrc.push({ qp: q, psn: first + k + 1, syndrome: 0x60, rdMiss: 0, rdExp: 0, msn: 0 });
        await rewound(`the NAK 0x60 at ${first + k + 1}`, 50);
        expect(rewinds.at(-1)!.resume, `QP ${q}: resume PSN after the NAK at ${first + k + 1}`).toBe(first + k + 1);
        await post();
      }
      ackSrc.push({ qp: q, psn: last, syndrome: 0x1f, rdMiss: 0, rdExp: 0, msn: 0 });
      await tb.until(() => cqes.length >= 1, { timeout: 200, what: `QP ${q}: the WRITE's CQE` });
      await tb.clockCycles(20);
      console.log(`NAK-only progress: seed ${tb.seed}, retry_cnt 2, ${timeouts.events.length} timeouts, ${rewinds.length} rewinds (${rewinds.map(r => `${r.why} -> ${r.resume}`).join('; ')})`);
      expect(cqes, `QP ${q}: one SUCCESS CQE`).toEqual([{ wrId: 7n, status: CQE_STATUS.SUCCESS }]);
      expect(errors, `QP ${q}: qp_error`).toBe(0);
      expect(timeouts.events.length, 'ACK timeouts').toBe(rounds);
    });
  });
});
