// nic_ack_tracker: the requester's completer and retry engine (docs/nic-requester.md,
// docs/nic-reliability.md). It completes messages from the ACKs, NAKs and READ responses the
// RX side hands it, asks nic_completion for CQEs, decides go-back-N retries, runs the per-QP
// ACK and RNR timers, and holds every QP's transport record (gen/nic/qp-transport.ts).
//
// Outstanding messages: ReqEntries in a pool of `entries` slots shared by all QPs (one block
// RAM), each QP's in posting order as a linked list (head, tail, count in its record; a
// next-slot memory), at most `depth` per QP. s_req waits while the entry's QP has `depth`
// entries, or has no spare slot and the pool is empty (`room`; the TRACKER_FULL park waits for
// the same). Free slots: never used since reset (a counter) or given back (a FIFO of slot
// numbers): a retirement gives its slot back at once. A rewind or RESET drops every entry of
// the QP in one cycle without a memory write: the list becomes the QP's spare slots (still
// linked, next[tail] is the first spare), which its next posts reuse in order, and which the
// pool takes back one per cycle while the QP has no entry (at most `depth` per QP, so with
// entries = numQp x depth no QP ever waits for the pool: cycle for cycle the per-QP FIFOs).
// Every slot is always in exactly one place: free + sum of (count + spare) = entries (asserted).
//
// Events (s_ack, always ready, in arrival order from nic_read_resp_rx), with PSN p:
//   ACK (syndrome 000x_xxxx, also a READ response taken at p): when acked < p <= lastSent,
//     no NAK is pending and the QP is not flushing: acked := p. Ghost, stale and late ACKs
//     are ignored.
//     rdMiss set (the ACK covers a READ response still missing): a NAK 0x60 at rdExp instead.
//   NAK 0x60 (or rdMiss: an ACK or NAK past a missing READ response, or an implied NAK from a
//     response ahead of the expected one) with p in the window: acked := resume - 1 with
//     resume = rdMiss ? rdExp : p; then a retry (below) unless one is pending or one was
//     started since the last progress (rxe's started_retry: one retry per loss; a NAK that
//     moves acked is progress, so it starts its own retry).
//   Progress is any event that moves acked forward (ACK, NAK, READ response, read_done): the
//   retry counters reload (before the event's own retry, if any, takes one), retryStarted
//   clears and the ACK timer restarts.
//   RNR NAK (0x20 | t) in the window: acked := p - 1; rnr_retry left 0 -> RNR_RETRY_EXCEEDED,
//     else one used (7 = infinite) and the QP's timer waits the RNR time of code t; its expiry
//     rewinds to acked + 1 without using a retry (and a NAK 0x60 meanwhile, the responder's
//     answer to the packets behind the RNR-NAKed one, is absorbed). SEND/RECV (issue 12) will
//     send them.
//   NAK 0x61/0x62/0x63 while something is outstanding and p was sent and not acknowledged
//     (acked < p <= sentHigh; else a ghost NAK, ignored): acked := p - 1 when p is in the
//     window, the NAK is recorded for the oldest uncovered entry, qp_error (QP -> ERROR).
//   read_done (s_read_done): ok -> rdAcked := lastPsn, and acked := lastPsn when that moves
//     it forward; not ok -> held for the READ entry ending at lastPsn (docs/nic-read.md).
//
// Retry: a timeout or a sequence NAK uses one of the QP's retries (RETRY[2:0], IBTA retry_cnt;
// reloaded on progress). None left: RETRY_EXCEEDED is recorded like a NAK (syndrome 0x60 for a
// NAK, 0 for a timeout): the oldest uncovered entry completes with it, qp_error, later
// entries flush. Else `retryPend`: the completion engine, at the QP's oldest uncovered entry,
// loads a rewind {qp, ringIdx, sqPsn = the message's first PSN}; at its handshake (nic_req_tx,
// nic_read_resp_rx and nic_wqe_fetch take it in the same cycle) the QP's entries are dropped
// (count := 0: they become spare slots; the window is emptied: lastSent := acked), the send
// pointer moves to ringIdx with resume PSN acked + 1 (at most the entry's lastPsn), sentHigh is set back to nic_req_tx's
// rewind_high when it is valid (nic_req_tx cut the QP's messages short with a DMA abort: PSNs
// posted but never sent are not "sent" for RETX_PKTS or the NAK check), and fetch re-reads the ring from
// there: nic_req_tx sends the WQEs again, the first one from the resume PSN, and posts them
// again as new entries. A READ head whose responses all arrived is not rewound (its read_done
// comes; the retry then applies to the next entry). Nothing of the QP retires while its
// rewind waits.
//
// Timers: a free-running 32-bit cycle counter and one deadline per QP; a scanner looks at one
// QP per cycle (a QP expires at most numQp - 1 cycles late), so the deadlines can live in a
// block RAM. ACK timeout 2^L cycles (L = RETRY[12:8], 0 = off): armed while PSNs are in flight
// and no retry is pending, restarted on progress, kept when more is posted.
//
// Completion engine: a round-robin arbiter picks a QP with entries, its head entry is read
// (one cycle), then decided in this order (nothing, back to the pick, when the QP has no entry
// left by then: a rewind or RESET in the pick's cycle dropped them):
//   flush set                          -> FLUSH_ERROR (CQE)
//   entry status not SUCCESS           -> that status (CQE, signaled or not); a
//                                         LOCAL_PROTECTION_ERROR sets flush
//   READ: rdErr for its lastPsn        -> that status and syndrome; rdAcked covers it -> SUCCESS
//   WRITE: acked covers its lastPsn    -> SUCCESS (CQE only when signaled)
//   NAK pending                        -> the NAK's status and syndrome (CQE), sets flush
//   QP state ERROR                     -> FLUSH_ERROR (CQE), sets flush
//   QP state RESET                     -> retired without a CQE
//   retry pending                      -> load the rewind (above)
//   otherwise                          -> wait (the arbiter moves on to the next QP)
// A retirement publishes SQ_CI := ringIndex + 1 (sq_ci_upd): a send-ring slot is free for
// software only once its WQE completed, because a rewind may read it again.
//
// Parking: nic_req_tx does not wait for a fence, the READ limit or an entry slot (that
// would block every QP behind one); it puts the WQE back (s_park) and this block records why,
// moves fetch's pointer back (fetch_rewind) and holds the QP at fetch (tx_hold) until the
// reason is gone: no READ entry of the QP (fence), a free READ context (ctx_room) or `room`
// (fewer than depth entries and a spare or free slot).
//
// RESET: the QP's record is cleared and its entries dropped without CQEs; the retry counters
// follow the RETRY register while the QP is in RESET, INIT or RTR. The record's fields kept in
// LUTRAMs (qp-transport.ts) are not cleared: the send pointer's and sentHigh read 0 through a
// per-QP flag until written again, the error words mean nothing once their valid bit is clear.

import { Bool, UInt, Struct, intIn, cat, defineModule, lit, mux, pack, type Value } from '../hdl/index.ts';
import { rrArbiter } from '../lib/arbiter.ts';
import { bankedMemory } from '../lib/banked-memory.ts';
import { stream } from '../lib/interfaces.ts';
import { indexWidth, log2Exact } from '../lib/util.ts';
import { cqeReqStruct } from './cqe-req.ts';
import { qpErrorEvent, qpPulse, qpUpdate } from './ctx.ts';
import { ctxPortRule, qpCtxView, stateMask, type CtxPort } from './ctx-view.ts';
import { AETH, ackInStruct, reqEntryStruct } from './flow-types.ts';
import { nakCqeStatus } from './nak-status.ts';
import { psnGe, psnGt } from './psn.ts';
import { fetchRewindStruct, firstOf, PARK, parkStruct, qpTransportTable, RewindHigh, rewindStruct, rnrTimerValue, TxPointer, type QpTransportField, type QpTransportShape } from './qp-transport.ts';
import { readDoneStruct } from './read-types.ts';
import { CQE_STATUS, QP_STATE, RETRY_FIELDS, RNR_RETRY_INFINITE, WQE_OPCODE } from './regmap.ts';
import { qpIndexWidth } from './types.ts';

export { psnGe, psnGt } from './psn.ts';

export type AckTrackerParams = {
  numQp: number;
  /** Outstanding entries per QP (a power of two). */
  depth: number;
  /** Where the QP context comes from (ctx-view.ts): 'vec' = the qp_ctx input (stage tests), 'lanes' = nic_regs' write lanes (nic_top). */
  ctxPort: CtxPort;
  /** Entry slots shared by all QPs (>= 2; numQp x depth: no QP ever waits for the pool). */
  entries: number;
};

/** What a slot keeps of a ReqEntry (the QP's list holds the slot). */
const Stored = Struct('ack_entry', {
  wrId: UInt(64), opcode: UInt(8), length: UInt(32), msgFirstPsn: UInt(24), lastPsn: UInt(24), ringIndex: UInt(16), signaled: Bool, status: UInt(4),
});

/** A held read_done error (rdErrValid in the record says one is held) and a recorded NAK
 *  (nakValid): in LUTRAMs, not flip-flops (see the record's fields in memories, below). */
const RdErr = Struct('rd_err', { psn: UInt(24), status: UInt(4), syn: UInt(8) });
const NakWord = Struct('nak_word', { status: UInt(4), syn: UInt(8) });

const retryField = (retry: Value, f: keyof typeof RETRY_FIELDS): Value => retry.bits(RETRY_FIELDS[f].lo + RETRY_FIELDS[f].width - 1, RETRY_FIELDS[f].lo);

export const nicAckTracker = defineModule('nic_ack_tracker', { numQp: 4, depth: 16, ctxPort: 'vec', entries: 64 } as AckTrackerParams, (m, p) => {
  const dw = log2Exact(p.depth, 'depth');
  const sw = indexWidth(p.entries);
  const qw = qpIndexWidth(p.numQp);
  const CqeReq = cqeReqStruct(p.numQp);

  const { clk, rst } = m.clockAndReset();
  const qpCtx = qpCtxView(m, p.numQp, p.ctxPort, ['state', 'retry'], 'only STATE and RETRY are read');
  const sReq = stream(reqEntryStruct(p.numQp)).sink(m, 's_req');
  const sAck = stream(ackInStruct(p.numQp)).sink(m, 's_ack');
  const mCqe = stream(CqeReq).source(m, 'm_cqe');
  const qpError = m.output('qp_error', qpErrorEvent(p.numQp));
  const sDone = stream(readDoneStruct(p.numQp)).sink(m, 's_read_done');
  const readBusy = m.output('read_busy', UInt(p.numQp));
  const ciUpd = m.output('sq_ci_upd', qpUpdate('SQ_CI', p.numQp));
  const mRewind = stream(rewindStruct(qw)).source(m, 'm_rewind');
  const sPark = m.input('s_park', parkStruct(qw));
  /** With the rewind's handshake: the QP's newest PSN really sent (nic_req_tx cut messages short). */
  const rwHigh = m.input('rewind_high', RewindHigh);
  const fetchRw = m.output('fetch_rewind', fetchRewindStruct(qw));
  const hold = m.output('tx_hold', UInt(p.numQp));
  const ctxRoom = m.input('ctx_room', UInt(p.numQp));
  const tpQp = m.input('tp_qp', UInt(qw));
  const tp = m.output('tp', TxPointer);
  /** An ACK timeout expired (ACK_TIMEOUTS counts them; the QP for tests and per-QP counts). */
  const cntTimeout = m.output('ack_timeout', qpPulse('ack_timeout_event', p.numQp));
  const cntRetryExc = m.output('cnt_retry_exc', Bool);
  m.unused(sDone.data, 'the wrId is not needed: a READ is found by its lastPsn');
  m.unused(sAck.data, 'the MSN is not needed: completion follows the PSN');
  if (p.numQp === 1) m.unused(tpQp, 'one QP: nothing to select');

  const tab = qpTransportTable(m, p.numQp, dw, sw);
  const rec = (q: Value | number): Value<QpTransportShape> => tab.at(q) as Value<QpTransportShape>;
  // The record's wide fields that only posts and rewinds write, in LUTRAMs (one bank per
  // writer, a newest-bank bit and a "reads as 0" bit per QP: gen/lib/banked-memory.ts): the
  // send pointer's ring index and resume PSN, and sentHigh. RESET makes them read 0, as the
  // record's clear did. A post and a rewind of one QP never meet in a cycle: asserted below in
  // those terms (so not again by each memory).
  const inResetMask = stateMask(m, qpCtx, p.numQp, QP_STATE.RESET, 'qp_in_reset');
  const postAndRewind = { banks: ['post', 'rewind'], rows: p.numQp, zeroFlag: true, assertOneWriter: false };
  const expIdxMem = bankedMemory(m, 'exp_idx', UInt(16), postAndRewind);
  const resumePsnMem = bankedMemory(m, 'resume_psn', UInt(24), { banks: ['rewind'], rows: p.numQp, zeroFlag: true });
  const sentHighMem = bankedMemory(m, 'sent_high', UInt(24), postAndRewind);
  const rdAckedMem = bankedMemory(m, 'rd_acked', UInt(24), { banks: ['post', 'done'], rows: p.numQp, zeroFlag: true });
  for (const t of [expIdxMem, resumePsnMem, sentHighMem, rdAckedMem]) t.clearRows(inResetMask);
  const mem = m.memory('entries', Stored, p.entries);
  const now = m.reg('now_reg', UInt(32));
  now.set(now.addw(1));

  // ---- the slot pool: entries, the next-slot links of the QPs' lists, the free slots -----------
  // Links are read in the cycle they are needed (distributed RAM: entries x slot bits).
  const link = m.memory('entry_next', UInt(sw), p.entries);
  // Free slots: `fresh` counts the slots used since reset (the others are free); given-back
  // slots wait in a FIFO (free_slots, read in the same cycle), taken before fresh ones.
  const freeq = m.memory('free_slots', UInt(sw), p.entries);
  const fresh = m.reg('pool_fresh_reg', UInt(sw + 1));
  const freeCnt = m.reg('pool_free_count_reg', UInt(sw + 1));
  const freeHd = m.reg('pool_free_head_reg', UInt(sw));
  const freeTl = m.reg('pool_free_tail_reg', UInt(sw));
  const wrapInc = (x: Value): Value => mux(x.eq(p.entries - 1), lit(0, sw), x.addw(1));
  const poolEmpty = m.let('pool_empty', freeCnt.eq(0).land(fresh.eq(p.entries)));
  /** The QP can post now: fewer than depth entries and a slot (its spare or the pool's). */
  const roomOf = (r: Value<QpTransportShape>): Value => r.field('count').ne(p.depth).land(r.field('spare').ne(0).lor(poolEmpty.lnot()));

  // ---- posting (s_req) ------------------------------------------------------------------------
  const rq = sReq.data.field('qp');
  const rr = rec(rq);
  sReq.ready.set(roomOf(rr));
  const push = m.let('push', sReq.valid.land(sReq.ready));
  // The slot: the QP's first spare (already linked after its tail), else a free one (given back
  // first, then fresh).
  const fromSpare = m.let('push_from_spare', rr.field('spare').ne(0));
  const fromFifo = m.let('pool_take_freed', push.land(fromSpare.lnot()).land(freeCnt.ne(0)));
  const fromFresh = m.let('pool_take_fresh', push.land(fromSpare.lnot()).land(freeCnt.eq(0)));
  const pushSlot = m.let('push_slot', mux(fromSpare, rr.field('spareHead'), mux(freeCnt.ne(0), freeq.readAsync(freeHd), fresh.trunc(sw))));
  const pushSpareNext = m.let('push_spare_next', link.readAsync(rr.field('spareHead')));
  m.if(push.land(fromSpare.lnot()).land(rr.field('count').ne(0)), () => link.write(rr.field('tail'), pushSlot));
  const reqOk = m.let('req_ok', sReq.data.field('status').eq(CQE_STATUS.SUCCESS));
  const isReadOp = (op: Value): Value => op.eq(WQE_OPCODE.RDMA_READ).lor(op.eq(0x0c));
  const reqRead = m.let('req_is_read', isReadOp(sReq.data.field('opcode')));
  const allAcked = m.let('req_all_acked', rr.field('sentValid').lnot().lor(rr.field('acked').eq(rr.field('lastSent'))));
  const reqLast = sReq.data.field('lastPsn');
  const pushOk = m.let('push_ok', push.land(reqOk));
  // The newest PSN ever sent rises with a post (a rewind may set it back: below).
  const highUp = m.let('push_high_up', pushOk.land(rr.field('highValid').lnot().lor(psnGt(reqLast, sentHighMem.read(rq)))));
  sentHighMem.write('post', highUp, rq, reqLast);
  expIdxMem.write('post', push, rq, sReq.data.field('ringIndex').addw(1));
  m.if(push, () => mem.write(pushSlot, pack(Stored, {
    wrId: sReq.data.field('wrId'), opcode: sReq.data.field('opcode'), length: sReq.data.field('length'), msgFirstPsn: sReq.data.field('msgFirstPsn'),
    lastPsn: reqLast, ringIndex: sReq.data.field('ringIndex'), signaled: sReq.data.field('signaled'), status: sReq.data.field('status'),
  })));

  // ---- ACK / NAK / READ-response events (s_ack, always ready) --------------------------------
  sAck.ready.set(1);
  const aq = sAck.data.field('qp');
  const apsn = sAck.data.field('psn');
  const syn = sAck.data.field('syndrome');
  const rdMiss = sAck.data.field('rdMiss');
  const ra = rec(aq);
  const aRts = m.let('ack_qp_rts', qpCtx.at(aq).field('state').eq(QP_STATE.RTS));
  const inWindow = m.let('ack_in_window', ra.field('sentValid').land(psnGt(apsn, ra.field('acked'))).land(psnGe(ra.field('lastSent'), apsn)));
  const outstanding = m.let('ack_outstanding', ra.field('sentValid').land(ra.field('acked').ne(ra.field('lastSent'))));
  // After a NAK (pending or completed) the QP is going to ERROR: later events must not turn the
  // NAK's entry or the flushed ones into successes.
  const live = m.let('ack_qp_live', sAck.valid.land(ra.field('nakValid').lnot()).land(ra.field('flush').lnot()));
  const isAckSyn = m.let('is_ack', syn.bits(7, 5).eq(0));
  const isRnr = m.let('is_rnr_nak', syn.bits(7, 5).eq(1));
  const nakCode = m.let('nak_status', nakCqeStatus(syn));
  const ackMove = m.let('ack_take', live.land(isAckSyn).land(rdMiss.lnot()).land(inWindow));
  const seqEv = m.let('seq_nak', live.land(inWindow).land(aRts).land(syn.eq(AETH.NAK_PSN_SEQ).lor(rdMiss)));
  const resumeAt = m.let('seq_resume_psn', mux(rdMiss, sAck.data.field('rdExp'), apsn));
  const seqAcked = m.let('seq_acked', resumeAt.subw(1).trunc(24));
  const rnrEv = m.let('rnr_nak', live.land(inWindow).land(aRts).land(isRnr).land(rdMiss.lnot()));
  // A NAK 0x61-0x63 names the request it refuses: its PSN must be one this QP sent and has not
  // seen acknowledged (acked < p <= sentHigh; sentHigh survives rewinds, so a genuine NAK that
  // arrives after a rewind still counts). Others are ghosts, ignored like ghost ACKs (rxe);
  // taking one failed the oldest WQE: one forged frame killed a live QP (docs/fuzz.md).
  const nakNamed = m.let('nak_psn_sent', ra.field('highValid').land(psnGt(apsn, ra.field('acked'))).land(psnGe(sentHighMem.read(aq), apsn)));
  const nakTake = m.let('nak_take', live.land(nakCode.ne(CQE_STATUS.SUCCESS)).land(outstanding).land(nakNamed));
  const nakAcked = m.let('nak_acked', apsn.subw(1).trunc(24));
  // Where the event moves acked (forward only).
  const aNew = m.let('ack_new_acked', firstOf([[ackMove, apsn], [seqEv, seqAcked]], nakAcked));
  const aMoves = m.let('ack_moves', ackMove.lor(seqEv.lor(rnrEv).lor(nakTake.land(inWindow)).land(psnGt(aNew, ra.field('acked')))));
  // Retry decisions.
  const rnrWaiting = (r: Value<QpTransportShape>): Value => r.field('tmArmed').land(r.field('tmRnr'));
  // A NAK 0x60 while an RNR wait runs is the echo of the packets behind the RNR-NAKed one (the
  // responder NAKs the first that is ahead): the rewind after the wait resends them anyway.
  // Progress reloads the counts and ends the retry in progress before the event's own retry is
  // decided (rxe's reset_retry_counters): a NAK that moves acked is a new loss, and a link that
  // keeps moving only through NAKs (the expected packet reordered behind the next ones, round
  // after round) never runs the count out (regress soak seed 2192387687).
  const aRetry = qpCtx.at(aq).field('retry');
  const aRetryLeft = m.let('ack_retry_left', mux(aMoves, retryField(aRetry, 'RETRY_CNT'), ra.field('retryLeft')));
  const aRnrLeft = m.let('ack_rnr_left', mux(aMoves, retryField(aRetry, 'RNR_RETRY'), ra.field('rnrLeft')));
  const seqTrig = m.let('seq_retry', seqEv.land(ra.field('retryPend').lnot()).land(ra.field('retryStarted').lnot().lor(aMoves)).land(rnrWaiting(ra).lnot()));
  const seqExceed = m.let('seq_retry_exceeded', seqTrig.land(aRetryLeft.eq(0)));
  const rnrTrig = m.let('rnr_retry', rnrEv.land(ra.field('retryPend').lnot()).land(rnrWaiting(ra).lnot()));
  const rnrExceed = m.let('rnr_retry_exceeded', rnrTrig.land(aRnrLeft.eq(0)));
  const ackErr = m.let('ack_qp_error', nakTake.lor(seqExceed).lor(rnrExceed));

  // ---- READ completions (s_read_done) -------------------------------------------------------
  const dq = sDone.data.field('qp');
  const dpsn = sDone.data.field('lastPsn');
  const dOk = sDone.data.field('ok');
  const rd = rec(dq);
  const doneVoid = m.let('done_void', rd.field('nakValid').lor(rd.field('flush')));
  sDone.ready.set(dOk.lor(doneVoid).lor(rd.field('rdErrValid').lnot()));
  const doneOk = m.let('done_ok', sDone.valid.land(dOk).land(doneVoid.lnot()));
  const doneErr = m.let('done_err', sDone.valid.land(dOk.lnot()).land(doneVoid.lnot()).land(rd.field('rdErrValid').lnot()));
  // The held error's PSN, status and syndrome: written by that read_done only (doneErr: none is
  // held), read by the completion engine at selQp, so one LUTRAM word per QP instead of 36
  // flip-flops. RESET clears rdErrValid only: the word means nothing without it.
  const rdErrMem = bankedMemory(m, 'rd_err', RdErr, { banks: ['done'], rows: p.numQp, zeroFlag: false });
  rdErrMem.write('done', doneErr, dq, pack(RdErr, { psn: dpsn, status: sDone.data.field('status'), syn: sDone.data.field('syndrome') }));
  // The response acknowledges every PSN up to lastPsn: the same window test as an ACK.
  const doneAck = m.let('done_ack', doneOk.land(rd.field('sentValid')).land(psnGt(dpsn, rd.field('acked'))).land(psnGe(rd.field('lastSent'), dpsn)));
  // A read_done ahead of everything its QP sent (kept as rdEarly, below), and a post of the READ
  // it completes (an earlier early read_done, or one in this very cycle): decided once on the
  // events' records, not once per QP.
  const doneEarly = m.let('done_early', doneOk.land(doneAck.lnot()).land(rd.field('sentValid').lnot().lor(psnGt(dpsn, rd.field('lastSent')))));
  const pushEarlyHit = m.let('push_rd_early_hit', pushOk.land(reqRead).land(rr.field('rdEarly').land(rdAckedMem.read(rq).eq(reqLast))
    .lor(doneEarly.land(dq.eq(rq)).land(dpsn.eq(reqLast)))));
  // rdAcked, the newest READ PSN known complete: written by a read_done (`dq`) and by the post of
  // a READ that starts it afresh (`rq`, its first PSN - 1), read by the post and the completion
  // engine only, so a LUTRAM word per QP in two banks. A read_done of the posting QP in the same
  // cycle wins (it did in the record's fold): the post's bank does not write then.
  rdAckedMem.write('done', doneOk, dq, dpsn);
  rdAckedMem.write('post', pushOk.land(reqRead).land(rr.field('rdCount').eq(0)).land(pushEarlyHit.lnot()).land(doneOk.land(dq.eq(rq)).lnot()),
    rq, sReq.data.field('firstPsn').subw(1).trunc(24));

  // ---- completion engine ----------------------------------------------------------------------
  const nonEmpty: Value[] = [];
  for (let i = 0; i < p.numQp; i++) nonEmpty.push(rec(i).field('count').ne(0));
  const arb = m.instance('u_arb', rrArbiter, { n: p.numQp });
  arb.req.set(cat(...[...nonEmpty].reverse()));
  m.unused(arb.grant, 'the binary grant_index is used');
  const fsm = m.fsm('state', ['PICK', 'EVAL'] as const);
  const pick = m.let('pick', fsm.is('PICK').land(arb.grant_valid));
  arb.accept.set(pick);
  const gi = arb.grant_index;
  const selQp = m.reg('sel_qp_reg', UInt(qw));
  const e = mem.read(rec(gi).field('head'), { enable: pick });
  const sel = rec(selQp);
  const selRdErr = rdErrMem.read(selQp);
  // A recorded NAK's status and syndrome (nakValid says one is recorded): written by the ACK
  // event that fails the QP or by the scanner's exhausted timeout (below; `fire` excludes
  // ackErr, so one write port), read here only. RESET clears nakValid only.
  const nakMem = bankedMemory(m, 'nak', NakWord, { banks: ['err'], rows: p.numQp, zeroFlag: false });
  const selNak = nakMem.read(selQp);

  const st = (v: number): Value => lit(v, 4);
  const qState = qpCtx.at(selQp).field('state');
  const selReset = m.let('sel_reset', qState.eq(QP_STATE.RESET));
  const stateBad = m.let('state_bad', qState.eq(QP_STATE.ERROR).lor(selReset));
  const eStatus = e.field('status');
  const eLast = e.field('lastPsn');
  const eRead = m.let('e_is_read', isReadOp(e.field('opcode')));
  const fl = sel.field('flush');
  const nak = sel.field('nakValid');
  const eOk = eStatus.eq(CQE_STATUS.SUCCESS);
  // READ entries ignore ACKs: only their read_done (ok → rdAcked, error → rdErr) decides.
  const rdErrHit = m.let('rd_err_hit', eRead.land(sel.field('rdErrValid')).land(selRdErr.field('psn').eq(eLast)));
  const covered = m.let('covered', mux(eRead, sel.field('rdCount').ne(0).land(psnGe(rdAckedMem.read(selQp), eLast)),
    sel.field('sentValid').land(psnGe(sel.field('acked'), eLast))).land(rdErrHit.lnot()));
  // A rewind of this QP is on its way: nothing of it retires until it was taken.
  const rwValid = m.reg('rewind_valid_reg', Bool);
  const rwData = m.reg('rewind_data_reg', rewindStruct(qw), { reset: null });
  const rwLast = m.reg('rewind_last_psn_reg', UInt(24), { reset: null });
  const selRewinding = m.let('sel_rewinding', rwValid.land(rwData.field('qp').eq(selQp)));
  // The pick read `e` a cycle ago; the QP may have no entries now: a rewind taken in the pick's
  // cycle drops them (count := 0), as RESET does. Then `e` names a dropped entry and nothing
  // is decided for it (soak finding 6: it was retired, SQ_CI moved past an entry sent and
  // posted again, software reused its ring slot while fetch read it again).
  const selHas = m.let('sel_has_entries', sel.field('count').ne(0));
  const complete = m.let('complete', fl.lor(eOk.lnot()).lor(rdErrHit).lor(covered).lor(nak).lor(stateBad).land(selRewinding.lnot()).land(selHas));
  const outStatus = m.let('out_status', mux(fl, st(CQE_STATUS.FLUSH_ERROR), mux(eOk.lnot(), eStatus,
    mux(rdErrHit, selRdErr.field('status'), mux(covered, st(CQE_STATUS.SUCCESS), mux(nak, selNak.field('status'), st(CQE_STATUS.FLUSH_ERROR)))))));
  const usesRdErr = m.let('uses_rd_err', fl.lnot().land(eOk).land(rdErrHit));
  const usesNak = m.let('uses_nak', fl.lnot().land(eOk).land(rdErrHit.lnot()).land(covered.lnot()).land(nak));
  const rdErrStatus = selRdErr.field('status');
  const rdErrFlushes = m.let('rd_err_flushes', rdErrStatus.ge(CQE_STATUS.LOCAL_PROTECTION_ERROR).land(rdErrStatus.le(CQE_STATUS.REMOTE_OPERATIONAL_ERROR)));
  const setsFlush = m.let('sets_flush', fl.lnot().land(mux(eOk, mux(rdErrHit, rdErrFlushes, covered.lnot()), eStatus.eq(CQE_STATUS.LOCAL_PROTECTION_ERROR))));
  const wantsCqe = m.let('wants_cqe', outStatus.ne(CQE_STATUS.SUCCESS).lor(e.field('signaled')).land(selReset.lnot()));
  const cqeValid = m.reg('cqe_valid_reg', Bool);
  const cqeData = m.reg('cqe_data_reg', CqeReq, { reset: null });
  const cqeFree = m.let('cqe_free', cqeValid.lnot().lor(mCqe.ready));
  // A READ failed by its read_done (not by a NAK) moves the QP to ERROR here; it waits a cycle
  // when an ACK event takes the one qp_error register in the same cycle.
  const rdErrFatal = m.let('rd_err_fatal', usesRdErr.land(rdErrFlushes));
  const retire = m.let('retire', fsm.is('EVAL').land(complete).land(wantsCqe.lnot().lor(cqeFree)).land(rdErrFatal.land(ackErr).lnot()));
  // The oldest uncovered entry of a QP with a retry pending: rewind here. A READ whose
  // responses all arrived is not (its read_done comes; then the next entry is the one).
  const rewindHere = m.let('rewind_here', fsm.is('EVAL').land(complete.lnot()).land(selRewinding.lnot()).land(selHas).land(sel.field('retryPend'))
    .land(eRead.land(psnGe(sel.field('acked'), eLast)).lnot()).land(rwValid.lnot()));
  mCqe.valid.set(cqeValid);
  mCqe.data.set(cqeData);
  m.if(mCqe.ready, () => cqeValid.set(0));

  fsm.states({
    PICK: () => m.if(pick, () => { selQp.set(gi); fsm.goto('EVAL'); }),
    // Nothing to do for this QP yet, or done: look at the next one. A completion whose CQE
    // finds m_cqe busy waits here (the decision is re-evaluated every cycle).
    EVAL: () => m.if(complete.lnot().lor(retire), () => fsm.goto('PICK')),
  });
  m.if(retire.land(wantsCqe), () => {
    cqeValid.set(1);
    cqeData.set(pack(CqeReq, {
      qp: selQp, wrId: e.field('wrId'), byteLen: e.field('length'), opcode: e.field('opcode'), status: outStatus,
      syndrome: mux(usesNak, selNak.field('syn'), mux(usesRdErr, selRdErr.field('syn'), lit(0, 8))),
    }));
  });
  const ciValid = m.reg('sq_ci_valid_reg', Bool);
  const ciQp = m.reg('sq_ci_qp_reg', UInt(qw));
  const ciValue = m.reg('sq_ci_value_reg', UInt(16));
  ciValid.set(retire.land(selReset.lnot()));
  ciQp.set(selQp);
  ciValue.set(e.field('ringIndex').addw(1));
  ciUpd.set(pack(qpUpdate('SQ_CI', p.numQp), { valid: ciValid, qp: ciQp, value: ciValue }));
  const excValid = m.reg('retry_exc_reg', Bool);
  excValid.set(retire.land(wantsCqe).land(outStatus.eq(CQE_STATUS.RETRY_EXCEEDED).lor(outStatus.eq(CQE_STATUS.RNR_RETRY_EXCEEDED))));
  cntRetryExc.set(excValid);

  // ---- rewind: loaded at the oldest uncovered entry, taken by req_tx + read_resp_rx + fetch ---
  mRewind.valid.set(rwValid);
  mRewind.data.set(rwData);
  const rwFire = m.let('rewind_fire', rwValid.land(mRewind.ready));
  const rwQp = rwData.field('qp');
  const rwRec = rec(rwQp);
  // Resume after the newest PSN acknowledged by now, inside the entry's PSN range.
  const rwNext = rwRec.field('acked').addw(1);
  const rwResume = m.let('rewind_resume_psn', mux(psnGe(rwNext, rwData.field('sqPsn')).lnot(), rwData.field('sqPsn'), mux(psnGt(rwNext, rwLast), rwLast, rwNext)));
  m.if(rwFire, () => rwValid.set(0));
  expIdxMem.write('rewind', rwFire, rwQp, rwData.field('ringIdx'));
  resumePsnMem.write('rewind', rwFire, rwQp, rwResume);
  // nic_req_tx cut the QP's messages short: sentHigh back to what was sent.
  sentHighMem.write('rewind', rwFire.land(rwHigh.field('valid')), rwQp, rwHigh.field('sentHigh'));
  // A QP reset while its rewind waits: the rewind belongs to the old connection (its ring
  // index and PSN mean nothing to the new one), so it is dropped.
  m.if(qpCtx.at(rwQp).field('state').eq(QP_STATE.RESET), () => rwValid.set(0));
  m.if(rewindHere, () => {
    rwValid.set(1);
    rwData.set(pack(rewindStruct(qw), { qp: selQp, ringIdx: e.field('ringIndex'), sqPsn: e.field('msgFirstPsn') }));
    rwLast.set(eLast);
  });

  // ---- timer scanner: one QP per cycle ---------------------------------------------------------
  const scan = m.reg('scan_reg', UInt(qw));
  scan.set(mux(scan.eq(p.numQp - 1), lit(0, qw), scan.addw(1)));
  const rs = rec(scan);
  const scanBusy = m.let('scan_busy', sAck.valid.land(aq.eq(scan)).lor(sDone.valid.land(dq.eq(scan))).lor(push.land(rq.eq(scan)))
    .lor(rwFire.land(rwQp.eq(scan))).lor(sPark.field('valid').land(sPark.field('qp').eq(scan))));
  const expired = m.let('timer_expired', rs.field('tmArmed').land(now.subw(rs.field('tmDeadline')).bit(31).lnot()));
  const fire = m.let('timer_fire', expired.land(scanBusy.lnot()).land(qpCtx.at(scan).field('state').eq(QP_STATE.RTS))
    .land(rs.field('nakValid').lnot()).land(rs.field('flush').lnot()).land(ackErr.lnot()).land(retire.land(rdErrFatal).lnot()));
  const fireTo = m.let('ack_timeout_fire', fire.land(rs.field('tmRnr').lnot()));
  const toExceed = m.let('timeout_retry_exceeded', fireTo.land(rs.field('retryLeft').eq(0)));
  // The NAK recorded for the oldest uncovered entry: the ACK event's, else an exhausted timeout's.
  const nakStatusAck = mux(nakTake, nakCode, mux(seqExceed, lit(CQE_STATUS.RETRY_EXCEEDED, 4), lit(CQE_STATUS.RNR_RETRY_EXCEEDED, 4)));
  const nakSynAck = mux(seqExceed.land(nakTake.lnot()), lit(AETH.NAK_PSN_SEQ, 8), syn);
  nakMem.write('err', ackErr.lor(toExceed), mux(ackErr, aq, scan), mux(ackErr, pack(NakWord, { status: nakStatusAck, syn: nakSynAck }),
    pack(NakWord, { status: CQE_STATUS.RETRY_EXCEEDED, syn: 0 })));
  const toValid = m.reg('ack_timeout_reg', Bool);
  const toQp = m.reg('ack_timeout_qp_reg', UInt(qw));
  toValid.set(fireTo);
  toQp.set(scan);
  cntTimeout.set(pack(qpPulse('ack_timeout_event', p.numQp), { valid: toValid, qp: toQp }));

  const errValid = m.reg('qp_error_valid_reg', Bool);
  const errQp = m.reg('qp_error_qp_reg', UInt(qw));
  errValid.set(ackErr.lor(toExceed).lor(retire.land(rdErrFatal)));
  errQp.set(mux(ackErr, aq, mux(toExceed, scan, selQp)));
  qpError.set(pack(qpErrorEvent(p.numQp), { valid: errValid, qp: errQp }));

  // ---- parking: fetch's pointer back, the QP held until the reason is gone ---------------------
  fetchRw.set(pack(fetchRewindStruct(qw), {
    valid: rwFire.lor(sPark.field('valid')), qp: mux(rwFire, rwQp, sPark.field('qp')), ringIdx: mux(rwFire, rwData.field('ringIdx'), sPark.field('ringIdx')),
  }));
  m.assert(rwFire.land(sPark.field('valid')).lnot(), 'a park and a rewind in the same cycle (nic_req_tx takes a rewind only when it parks nothing)');
  // A post and a rewind of one QP in one cycle: the posted entry would be dropped with the
  // others (the record below; with the per-QP FIFOs the post's tail + 1 won over the rewind's
  // tail := head and kept an entry the rewind meant to drop). Either way a message is wrong.
  m.assert(push.land(rwFire).land(rq.eq(rwQp)).lnot(), 'a post and a rewind of the same QP in the same cycle (nic_req_tx takes a rewind only between the QP\'s WQEs)');

  // ---- slots back to the pool: a retirement's at once, a QP's spares while it has no entry ------
  const selNext = m.let('sel_next_slot', link.readAsync(sel.field('head')));
  const relReq: Value[] = [];
  for (let i = 0; i < p.numQp; i++) relReq.push(rec(i).field('count').eq(0).land(rec(i).field('spare').ne(0)));
  const relArb = m.instance('u_release_arb', rrArbiter, { n: p.numQp });
  relArb.req.set(cat(...[...relReq].reverse()));
  m.unused(relArb.grant, 'the binary grant_index is used');
  const relQp = relArb.grant_index;
  const relSlot = rec(relQp).field('spareHead');
  const relNext = m.let('release_next_slot', link.readAsync(relSlot));
  // One free_slots write per cycle: a retirement's slot goes first; a QP posting now takes its
  // first spare itself.
  const release = m.let('spare_release', relArb.grant_valid.land(retire.lnot()).land(push.land(rq.eq(relQp)).lnot()));
  relArb.accept.set(release);
  const giveBack = m.let('pool_give_back', retire.lor(release));
  m.if(giveBack, () => {
    freeq.write(freeTl, mux(retire, sel.field('head'), relSlot));
    freeTl.set(wrapInc(freeTl));
  });
  m.if(fromFifo, () => freeHd.set(wrapInc(freeHd)));
  m.if(fromFresh, () => fresh.set(fresh.addw(1)));
  freeCnt.set(firstOf([[giveBack.land(fromFifo.lnot()), freeCnt.addw(1)], [fromFifo.land(giveBack.lnot()), freeCnt.subw(1)]], freeCnt));
  // No slot lost or counted twice: the free ones and those the QPs hold (entries and spares).
  const sumW = sw + qw + dw + 2;
  let held: Value = freeCnt.zext(sumW);
  for (let i = 0; i < p.numQp; i++) held = held.addw(rec(i).field('count').zext(sumW)).addw(rec(i).field('spare').zext(sumW));
  m.assert(held.eq(fresh.zext(sumW)), 'entry pool: free slots + the QPs\' entries and spare slots != entries (a slot leaked or was given back twice)');

  // ---- the next record of every QP ------------------------------------------------------------
  // An RNR NAK's wait ends here (only the ACK event's QP can arm it).
  const rnrDeadline = m.let('rnr_deadline', now.addw(rnrTimerValue(syn.bits(4, 0))));
  const holdBits: Value[] = [];
  const busyBits: Value[] = [];
  for (let i = 0; i < p.numQp; i++) {
    const r = rec(i);
    const f = (name: QpTransportField): Value => r.field(name);
    const ctx = qpCtx.at(i);
    const state = ctx.field('state');
    const isRts = state.eq(QP_STATE.RTS);
    const inReset = state.eq(QP_STATE.RESET);
    const loadCounters = inReset.lor(state.eq(QP_STATE.INIT)).lor(state.eq(QP_STATE.RTR));
    const retry = ctx.field('retry');
    const tmLog2 = retryField(retry, 'ACK_TIMEOUT');
    const isPush = push.land(rq.eq(i)), isAck = sAck.valid.land(aq.eq(i)), isDone = sDone.valid.land(dq.eq(i));
    const isRet = retire.land(selQp.eq(i)), isRw = rwFire.land(rwQp.eq(i)), isPark = sPark.field('valid').land(sPark.field('qp').eq(i));
    const isScan = scan.eq(i);
    const isPushOk = isPush.land(reqOk);

    // window (a READ posted after its early read_done: that response acknowledges it)
    const earlyNow = isDone.land(doneEarly);
    const earlyHit = m.let(`qp${i}_rd_early_hit`, isPush.land(pushEarlyHit));
    const ackWins = isAck.land(aMoves).land(isDone.land(doneAck).land(psnGt(dpsn, aNew)).lnot());
    const acked = m.let(`qp${i}_acked_next`, firstOf([[earlyHit, reqLast], [ackWins, aNew], [isDone.land(doneAck), dpsn], [isPushOk.land(allAcked), sReq.data.field('firstPsn').subw(1).trunc(24)]], f('acked')));
    const lastSent = m.let(`qp${i}_last_sent_next`, firstOf([[isPushOk, reqLast], [isRw, acked]], f('lastSent')));
    const sentValid = f('sentValid').lor(isPushOk);
    const outstandingNext = m.let(`qp${i}_outstanding_next`, sentValid.land(acked.ne(lastSent)));
    // A rewind after nic_req_tx cut the QP's messages short: sentHigh back to what was sent.
    const isRwHigh = isRw.land(rwHigh.field('valid'));
    // Progress: anything that moves acked (an ACK, a NAK's implicit acknowledgement, a READ
    // response); it restarts the ACK timer and reloads the retry counts.
    const progress = m.let(`qp${i}_progress`, isAck.land(aMoves).lor(isDone.land(doneAck)));
    // entries: the list after this cycle's post and retirement (a slot for the post, the
    // retired one's successor), and the spare slots after a post or a release took the first
    const cnt = f('count');
    const isRel = release.land(relQp.eq(i));
    const head1 = firstOf([[isPush.land(cnt.eq(0)), pushSlot], [isRet.land(cnt.eq(1)), pushSlot], [isRet, selNext]], f('head'));
    const tail1 = mux(isPush, pushSlot, f('tail'));
    const count1 = m.let(`qp${i}_count_next`, firstOf([[isPush.land(isRet.lnot()), cnt.addw(1)], [isRet.land(isPush.lnot()), cnt.subw(1)]], cnt));
    const spareTake = isPush.land(f('spare').ne(0));
    const spareHead1 = firstOf([[spareTake, pushSpareNext], [isRel, relNext]], f('spareHead'));
    const spare1 = mux(spareTake.lor(isRel), f('spare').subw(1), f('spare'));
    // A rewind (and RESET, below) drops every entry: the list goes in front of the spare slots
    // (next[tail] is already the first spare), nothing written.
    const dropped = (drop: Value): { head: Value; tail: Value; count: Value; spareHead: Value; spare: Value } => ({
      head: head1, tail: tail1, count: mux(drop, lit(0, dw + 1), count1),
      spareHead: mux(drop.land(count1.ne(0)), head1, spareHead1), spare: mux(drop, count1.addw(spare1), spare1),
    });
    const rdUp = isPush.land(reqRead), rdDown = isRet.land(eRead);
    const rdCount = firstOf([[isRw, 0], [rdUp.land(rdDown.lnot()), f('rdCount').addw(1)], [rdDown.land(rdUp.lnot()), f('rdCount').subw(1)]], f('rdCount'));
    // A read_done ahead of everything sent (no entry yet) is kept in rdAcked and flagged
    // (rdEarly): the post of that READ finds it complete instead of waiting for a response that
    // already came (soak finding 1, tb/tests/nic/soak-findings.test.ts).
    const rdEarly = firstOf([[isRw.lor(isPush), 0], [earlyNow, 1]], f('rdEarly'));
    const rdErrSet = isDone.land(doneErr);
    // errors: a fatal NAK or an exhausted retry count is recorded for the oldest uncovered entry
    const nakSet = isAck.land(ackErr).lor(isScan.land(toExceed));
    // retry engine
    const reloadRetry = retryField(retry, 'RETRY_CNT'), reloadRnr = retryField(retry, 'RNR_RETRY');
    const retryUse = isAck.land(seqTrig).land(seqExceed.lnot()).lor(isScan.land(fireTo).land(toExceed.lnot()));
    const rnrUse = isAck.land(rnrTrig).land(rnrExceed.lnot());
    // A retry taken with progress in the same event counts from the reloaded value.
    const retryBase = mux(progress, reloadRetry, f('retryLeft')), rnrBase = mux(progress, reloadRnr, f('rnrLeft'));
    const retryLeft = firstOf([[loadCounters, reloadRetry], [retryUse, retryBase.subw(1)]], retryBase);
    const rnrLeft = firstOf([[loadCounters, reloadRnr], [rnrUse.land(rnrBase.ne(RNR_RETRY_INFINITE)), rnrBase.subw(1)]], rnrBase);
    const retryStarted = firstOf([[loadCounters, 0], [isAck.land(seqTrig).lor(isScan.land(fireTo)), 1], [progress, 0]], f('retryStarted'));
    const emptyNext = count1.eq(0);
    const retryPend = m.let(`qp${i}_retry_pend_next`, firstOf([[isRts.lnot(), 0], [retryUse.lor(isScan.land(fire).land(rs.field('tmRnr'))), 1], [isRw.lor(emptyNext), 0]], f('retryPend')));
    // timer: RNR wait armed by an RNR NAK; ACK timeout while PSNs are in flight
    const rnrArm = rnrUse;
    const ackArmed = tmLog2.ne(0).land(outstandingNext).land(retryPend.lnot());
    const restart = progress.lor(f('tmArmed').lnot()).lor(f('tmRnr'));
    const ackDeadline = mux(restart, now.addw(lit(1, 32).shl(tmLog2)), f('tmDeadline'));
    const stopTimer = isScan.land(fire).lor(isRw).lor(isRts.lnot());
    const keepRnr = rnrWaiting(r);
    const tmArmed = m.let(`qp${i}_tm_armed_next`, firstOf([[stopTimer, 0], [rnrArm, 1], [keepRnr, 1]], ackArmed));
    const tmRnr = firstOf([[stopTimer, 0], [rnrArm, 1], [keepRnr, 1]], lit(0, 1));
    const tmDeadline = firstOf([[rnrArm, rnrDeadline], [keepRnr, f('tmDeadline')]], ackDeadline);
    // parking and its wake-up
    const park = f('park');
    const wake = m.let(`qp${i}_wake`, isRts.lnot().lor(firstOf([
      [park.eq(PARK.FENCE), f('rdCount').eq(0)], [park.eq(PARK.READ_LIMIT), ctxRoom.bit(i)], [park.eq(PARK.TRACKER_FULL), roomOf(r)],
    ], lit(1, 1))));
    holdBits.push(park.ne(PARK.NONE).land(wake.lnot()));
    busyBits.push(f('rdCount').ne(0));

    const next = pack(tab.shape, {
      ...dropped(isRw), sentValid, lastSent, acked,
      highValid: mux(isRwHigh, rwHigh.field('highValid'), f('highValid').lor(isPushOk)),
      nakValid: f('nakValid').land(isRet.land(usesNak).lnot()).lor(nakSet),
      flush: f('flush').lor(isRet.land(setsFlush)),
      rdCount, rdEarly,
      rdErrValid: f('rdErrValid').land(isRet.land(usesRdErr).lnot()).lor(rdErrSet),
      retryLeft, rnrLeft, retryStarted, retryPend,
      tmArmed, tmRnr, tmDeadline,
      resumeValid: firstOf([[isPush, 0], [isRw, rwResume.ne(rwData.field('sqPsn'))]], f('resumeValid')),
      park: firstOf([[isRw.lor(isPush), PARK.NONE], [isPark, sPark.field('reason')], [wake, PARK.NONE]], park),
    });
    // RESET starts the QP afresh: entries dropped (spare slots now), window, errors, timers,
    // pointer cleared.
    const cleared = pack(tab.shape, {
      ...dropped(lit(1, 1)), sentValid: 0, lastSent: 0, acked: 0, highValid: 0, nakValid: 0, flush: 0,
      rdCount: 0, rdEarly: 0, rdErrValid: 0, retryLeft: reloadRetry, rnrLeft: reloadRnr,
      retryStarted: 0, retryPend: 0, tmArmed: 0, tmRnr: 0, tmDeadline: 0, resumeValid: 0, park: 0,
    });
    tab.write(i, mux(inReset, cleared, next));
  }
  readBusy.set(cat(...busyBits.reverse()));
  hold.set(cat(...holdBits.reverse()));

  // ---- send-pointer read port for nic_req_tx ----------------------------------------------------
  const rt = rec(tpQp);
  tp.set(pack(TxPointer, {
    expIdx: expIdxMem.read(tpQp), resumeValid: rt.field('resumeValid'), resumePsn: resumePsnMem.read(tpQp),
    highValid: rt.field('highValid'), sentHigh: sentHighMem.read(tpQp), room: roomOf(rt),
  }));

  return {
    clk, rst, ...qpCtx.ports, s_req: sReq, s_ack: sAck, m_cqe: mCqe, qp_error: qpError, s_read_done: sDone, read_busy: readBusy,
    sq_ci_upd: ciUpd, m_rewind: mRewind, rewind_high: rwHigh, s_park: sPark, fetch_rewind: fetchRw, tx_hold: hold, ctx_room: ctxRoom, tp_qp: tpQp, tp,
    ack_timeout: cntTimeout, cnt_retry_exc: cntRetryExc,
  };
}, { doc: 'ACK tracker and retry engine: per-QP transport records, coalesced ACKs, go-back-N rewinds, ACK/RNR timers, NAK errors and flushes, CQE requests in posting order', params: { rules: { ctxPort: ctxPortRule, entries: intIn(2, 65536) } } });
