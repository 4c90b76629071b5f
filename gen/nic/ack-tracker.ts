// nic_ack_tracker: completes the requester's messages from the ACKs and NAKs the RX side
// receives, and asks nic_completion for CQEs.
//
// Per QP, a FIFO of outstanding ReqEntries in posting order (one block RAM, `depth` slots per
// QP; s_req waits while the entry's QP has no free slot). Per QP, registers:
//   lastSent  lastPsn of the newest SUCCESS entry (the newest PSN on the wire), sentValid
//   acked     the newest PSN an ACK covered. When a SUCCESS entry arrives while every PSN
//             sent is acknowledged (or none was sent since RESET), acked := firstPsn - 1,
//             so the window below always spans exactly the PSNs in flight.
//   nak       a pending NAK (status, syndrome) for the oldest entry not covered by acked
//   flush     sticky: an error moved the QP to ERROR; every later entry is flushed
//
// ACK/NAK input (always ready; applied in one cycle):
//   - syndrome 000x_xxxx (ACK, incl. the credit forms) with PSN p: applied when
//     acked < p <= lastSent (NIC.md PSN comparison, ±2^23) and no NAK is pending and the
//     QP is not flushing: acked := p. Anything else is a ghost ACK (p never sent), older
//     than everything outstanding, or too late, and is ignored.
//   - NAK 0x61/0x62/0x63 with PSN p in the window (acked < p <= lastSent), no NAK pending:
//     acked := p - 1, the NAK is recorded for the oldest entry still uncovered (the one whose
//     range holds p), qp_error moves the QP to ERROR at once. Outside the window (never sent,
//     already acknowledged) it is a ghost NAK, ignored like a ghost ACK, as in rxe (taking it
//     failed the oldest WQE: a fuzzer finding, docs/fuzz.md).
//   - NAK 0x60 (PSN sequence error), RNR NAKs (0x20..0x3F) and reserved syndromes are
//     ignored here. RETRANSMISSION HOOK: 0x60 and the ACK timeout belong to the
//     retransmission issue; `seq_nak` below is the decoded 0x60 event it will consume
//     (go back to PSN p in nic_req_tx), today only marked unused.
//
// Completion engine: a round-robin arbiter picks a QP with entries, its head entry is read
// (one cycle), then decided in this order:
//   flush set                          -> FLUSH_ERROR (CQE)
//   entry status not SUCCESS           -> that status (CQE, signaled or not); a
//                                         LOCAL_PROTECTION_ERROR sets flush (nic_req_tx has
//                                         moved the QP to ERROR)
//   acked covers its lastPsn           -> SUCCESS (CQE only when signaled)
//   NAK pending                        -> the NAK's status and syndrome (CQE), sets flush
//   QP state ERROR or RESET            -> FLUSH_ERROR (CQE), sets flush
//   otherwise                          -> wait (the arbiter moves on to the next QP)
// Other error statuses (BAD_OPCODE, LOCAL_LENGTH_ERROR, LOCAL_QP_ERROR) complete the entry
// but do not flush later ones: nic_req_tx does not move the QP to ERROR for them.
// While a QP is in RESET its PSN window, NAK and flush state are cleared.
// m_cqe holds one request in a register; CQEs of one QP leave in posting order.
//
// RDMA READ (docs/nic-read.md). A READ entry is a SUCCESS entry whose opcode is
// WQE_OPCODE.RDMA_READ (1: ReqEntry.opcode is the WQE opcode, as for WRITE = 0, because it
// becomes the CQE's opcode); the wire opcode 0x0C is accepted as well. An ACK never completes
// it: it waits for nic_read_resp_rx's read_done (s_read_done, always ready except that an
// error done waits while an earlier error done of its QP is still unclaimed):
//   ok      rdAcked := lastPsn (the newest READ known complete; reset to firstPsn - 1 when a
//           READ is posted with no READ outstanding) and acked := lastPsn when that moves acked
//           forward inside the window (a response acknowledges every earlier PSN).
//   not ok  held as rdErr {lastPsn, status, syndrome} for the READ entry ending at lastPsn.
// A READ entry's decision: flush, entry status, rdErr for its lastPsn, rdAcked covers it,
// NAK pending, QP state ERROR/RESET, else wait. Like ACKs, read_dones that arrive while a NAK
// is pending or the QP is flushing are taken and ignored, so every decision is final once it
// can be made: a NAK completes the oldest entry not yet completed, READ or not (NAK status and
// syndrome), and the read_done nic_read_resp_rx also sends for a NAKed READ is dropped (no
// double completion; if that read_done comes first, it decides, with the same status).
// REMOTE_* and LOCAL_PROTECTION_ERROR from a read_done set flush and pulse qp_error;
// LOCAL_LENGTH_ERROR does not (the QP stays in RTS).
// read_busy bit q: QP q holds an uncompleted READ entry (a per-QP counter updated at the
// s_req handshake, so the bit rises the cycle after the entry is accepted).

import { Bool, UInt, Vec, Struct, cat, defineModule, lit, mux, pack, type Value } from '../hdl/index.ts';
import { rrArbiter } from '../lib/arbiter.ts';
import { stream } from '../lib/interfaces.ts';
import { log2Exact } from '../lib/util.ts';
import { cqeReqStruct } from './cqe-req.ts';
import { QpCtx, qpErrorEvent } from './ctx.ts';
import { AETH, ackInStruct, reqEntryStruct } from './flow-types.ts';
import { nakCqeStatus } from './nak-status.ts';
import { readDoneStruct } from './read-types.ts';
import { CQE_STATUS, QP_STATE, WQE_OPCODE } from './regmap.ts';
import { qpIndexWidth } from './types.ts';

export type AckTrackerParams = {
  numQp: number;
  /** Outstanding entries per QP (a power of two). */
  depth: number;
};

/** a >= b in the ±2^23 PSN window (NIC.md): the 24-bit difference a - b is not negative. */
export function psnGe(a: Value, b: Value): Value {
  return a.subw(b).trunc(24).bit(23).lnot();
}
/** a > b in the PSN window. */
export function psnGt(a: Value, b: Value): Value {
  return psnGe(a, b).land(a.ne(b));
}

/** What the FIFO keeps of a ReqEntry (the QP is the FIFO; firstPsn is only needed on push). */
const Stored = Struct('ack_entry', {
  wrId: UInt(64), opcode: UInt(8), length: UInt(32), lastPsn: UInt(24), signaled: Bool, status: UInt(4),
});

export const nicAckTracker = defineModule('nic_ack_tracker', { numQp: 4, depth: 16 } as AckTrackerParams, (m, p) => {
  const dw = log2Exact(p.depth, 'depth');
  const qw = qpIndexWidth(p.numQp);
  const CqeReq = cqeReqStruct(p.numQp);

  const { clk, rst } = m.clockAndReset();
  const qpCtx = m.input('qp_ctx', Vec(QpCtx, p.numQp));
  const sReq = stream(reqEntryStruct(p.numQp)).sink(m, 's_req');
  const sAck = stream(ackInStruct(p.numQp)).sink(m, 's_ack');
  const mCqe = stream(CqeReq).source(m, 'm_cqe');
  const qpError = m.output('qp_error', qpErrorEvent(p.numQp));
  const sDone = stream(readDoneStruct(p.numQp)).sink(m, 's_read_done');
  const readBusy = m.output('read_busy', UInt(p.numQp));
  m.unused(qpCtx, 'only STATE is read');
  m.unused(sDone.data, 'the wrId is not needed: a READ is found by its lastPsn');

  const head = m.reg('head_reg', Vec(UInt(dw + 1), p.numQp));
  const tail = m.reg('tail_reg', Vec(UInt(dw + 1), p.numQp));
  const lastSent = m.reg('last_sent_reg', Vec(UInt(24), p.numQp));
  const sentValid = m.reg('sent_valid_reg', UInt(p.numQp));
  const acked = m.reg('acked_reg', Vec(UInt(24), p.numQp));
  const nakValid = m.reg('nak_valid_reg', UInt(p.numQp));
  const nakStatus = m.reg('nak_status_reg', Vec(UInt(4), p.numQp));
  const nakSyn = m.reg('nak_syndrome_reg', Vec(UInt(8), p.numQp));
  const flush = m.reg('flush_reg', UInt(p.numQp));
  const rdCount = m.reg('rd_count_reg', Vec(UInt(dw + 1), p.numQp));
  const rdAcked = m.reg('rd_acked_reg', Vec(UInt(24), p.numQp));
  const rdErrValid = m.reg('rd_err_valid_reg', UInt(p.numQp));
  const rdErrPsn = m.reg('rd_err_psn_reg', Vec(UInt(24), p.numQp));
  const rdErrStatus = m.reg('rd_err_status_reg', Vec(UInt(4), p.numQp));
  const rdErrSyn = m.reg('rd_err_syndrome_reg', Vec(UInt(8), p.numQp));
  const setAt = (r: { setBits(hi: number, lo: number, v: Value | number): void }, w: number, i: number, v: Value | number): void => r.setBits(w * i + w - 1, w * i, v);

  const mem = m.memory('entries', Stored, (2 ** qw) * p.depth);
  const slotAddr = (q: Value, ptr: Value): Value => cat(q, ptr.bits(dw - 1, 0));

  // ---- posting (s_req) ------------------------------------------------------------------------
  const rq = sReq.data.field('qp');
  const rqUsed = m.let('req_used', tail.at(rq).subw(head.at(rq)).trunc(dw + 1));
  sReq.ready.set(rqUsed.ne(p.depth));
  const push = m.let('push', sReq.valid.land(sReq.ready));
  const reqOk = sReq.data.field('status').eq(CQE_STATUS.SUCCESS);
  const isReadOp = (op: Value): Value => op.eq(WQE_OPCODE.RDMA_READ).lor(op.eq(0x0c));
  const reqRead = m.let('req_is_read', isReadOp(sReq.data.field('opcode')));
  const allAcked = m.let('req_all_acked', sentValid.bit(rq).lnot().lor(acked.at(rq).eq(lastSent.at(rq))));
  m.if(push, () => mem.write(slotAddr(rq, tail.at(rq)), pack(Stored, {
    wrId: sReq.data.field('wrId'), opcode: sReq.data.field('opcode'), length: sReq.data.field('length'),
    lastPsn: sReq.data.field('lastPsn'), signaled: sReq.data.field('signaled'), status: sReq.data.field('status'),
  })));

  // ---- ACK / NAK (s_ack) ----------------------------------------------------------------------
  sAck.ready.set(1);
  m.unused(sAck.data, 'the MSN is not needed: completion follows the PSN');
  const aq = sAck.data.field('qp');
  const apsn = sAck.data.field('psn');
  const syn = sAck.data.field('syndrome');
  const inWindow = m.let('ack_in_window', sentValid.bit(aq).land(psnGt(apsn, acked.at(aq))).land(psnGe(lastSent.at(aq), apsn)));
  const isAck = m.let('is_ack', syn.bits(7, 5).eq(0));
  const nakCode = m.let('nak_status', nakCqeStatus(syn));
  // After a NAK (pending or completed) the QP is going to ERROR: later ACKs must not turn the
  // NAK's entry or the flushed ones into successes.
  const ackTake = m.let('ack_take', sAck.valid.land(isAck).land(inWindow).land(nakValid.bit(aq).lnot()).land(flush.bit(aq).lnot()));
  const nakTake = m.let('nak_take', sAck.valid.land(nakCode.ne(CQE_STATUS.SUCCESS)).land(inWindow)
    .land(nakValid.bit(aq).lnot()).land(flush.bit(aq).lnot()));
  // ---- READ completions (s_read_done) -------------------------------------------------------
  const dq = sDone.data.field('qp');
  const dpsn = sDone.data.field('lastPsn');
  const dOk = sDone.data.field('ok');
  const doneVoid = m.let('done_void', nakValid.bit(dq).lor(flush.bit(dq)));
  sDone.ready.set(dOk.lor(doneVoid).lor(rdErrValid.bit(dq).lnot()));
  const doneOk = m.let('done_ok', sDone.valid.land(dOk).land(doneVoid.lnot()));
  const doneErr = m.let('done_err', sDone.valid.land(dOk.lnot()).land(doneVoid.lnot()).land(rdErrValid.bit(dq).lnot()));
  // The response acknowledges every PSN up to lastPsn: the same window test as an ACK.
  const doneAck = m.let('done_ack', doneOk.land(sentValid.bit(dq)).land(psnGt(dpsn, acked.at(dq))).land(psnGe(lastSent.at(dq), dpsn)));
  // Same QP in the same cycle: the newer of the two PSNs wins.
  const ackYields = m.let('ack_yields', doneAck.land(dq.eq(aq)).land(psnGt(dpsn, apsn)));

  const seqNak = m.let('seq_nak', sAck.valid.land(syn.eq(AETH.NAK_PSN_SEQ)));
  m.unused(seqNak, 'retransmission hook: NAK 0x60 is handled by the retransmission issue');

  const errValid = m.reg('qp_error_valid_reg', Bool);
  const errQp = m.reg('qp_error_qp_reg', UInt(qw));
  qpError.set(pack(qpErrorEvent(p.numQp), { valid: errValid, qp: errQp }));

  // ---- completion engine ----------------------------------------------------------------------
  const nonEmpty: Value[] = [];
  for (let i = 0; i < p.numQp; i++) nonEmpty.push(head.at(i).ne(tail.at(i)));
  const arb = m.instance('u_arb', rrArbiter, { n: p.numQp });
  arb.req.set(cat(...[...nonEmpty].reverse()));
  m.unused(arb.grant, 'the binary grant_index is used');
  const fsm = m.fsm('state', ['PICK', 'EVAL'] as const);
  const pick = m.let('pick', fsm.is('PICK').land(arb.grant_valid));
  arb.accept.set(pick);
  const gi = arb.grant_index;
  const selQp = m.reg('sel_qp_reg', UInt(qw));
  const e = mem.read(slotAddr(gi, head.at(gi)), { enable: pick });

  const st = (v: number): Value => lit(v, 4);
  const qState = qpCtx.at(selQp).field('state');
  const stateBad = m.let('state_bad', qState.eq(QP_STATE.ERROR).lor(qState.eq(QP_STATE.RESET)));
  const eStatus = e.field('status');
  const eLast = e.field('lastPsn');
  const eRead = m.let('e_is_read', isReadOp(e.field('opcode')));
  const fl = flush.bit(selQp);
  const nak = nakValid.bit(selQp);
  const eOk = eStatus.eq(CQE_STATUS.SUCCESS);
  // READ entries ignore ACKs: only their read_done (ok → rdAcked, error → rdErr) decides.
  const rdErrHit = m.let('rd_err_hit', eRead.land(rdErrValid.bit(selQp)).land(rdErrPsn.at(selQp).eq(eLast)));
  const covered = m.let('covered', mux(eRead, rdCount.at(selQp).ne(0).land(psnGe(rdAcked.at(selQp), eLast)),
    sentValid.bit(selQp).land(psnGe(acked.at(selQp), eLast))).land(rdErrHit.lnot()));
  const complete = m.let('complete', fl.lor(eOk.lnot()).lor(rdErrHit).lor(covered).lor(nak).lor(stateBad));
  const outStatus = m.let('out_status', mux(fl, st(CQE_STATUS.FLUSH_ERROR), mux(eOk.lnot(), eStatus,
    mux(rdErrHit, rdErrStatus.at(selQp), mux(covered, st(CQE_STATUS.SUCCESS), mux(nak, nakStatus.at(selQp), st(CQE_STATUS.FLUSH_ERROR)))))));
  const usesRdErr = m.let('uses_rd_err', fl.lnot().land(eOk).land(rdErrHit));
  const usesNak = m.let('uses_nak', fl.lnot().land(eOk).land(rdErrHit.lnot()).land(covered.lnot()).land(nak));
  const rdErrFlushes = m.let('rd_err_flushes', rdErrStatus.at(selQp).ge(CQE_STATUS.LOCAL_PROTECTION_ERROR).land(rdErrStatus.at(selQp).le(CQE_STATUS.REMOTE_OPERATIONAL_ERROR)));
  const setsFlush = m.let('sets_flush', fl.lnot().land(mux(eOk, mux(rdErrHit, rdErrFlushes, covered.lnot()), eStatus.eq(CQE_STATUS.LOCAL_PROTECTION_ERROR))));
  const wantsCqe = m.let('wants_cqe', outStatus.ne(CQE_STATUS.SUCCESS).lor(e.field('signaled')));
  const cqeValid = m.reg('cqe_valid_reg', Bool);
  const cqeData = m.reg('cqe_data_reg', CqeReq, { reset: null });
  const cqeFree = m.let('cqe_free', cqeValid.lnot().lor(mCqe.ready));
  // A READ failed by its read_done (not by a NAK) moves the QP to ERROR here; it waits a cycle
  // when a NAK takes the one qp_error register in the same cycle.
  const rdErrFatal = m.let('rd_err_fatal', usesRdErr.land(rdErrFlushes));
  const retire = m.let('retire', fsm.is('EVAL').land(complete).land(wantsCqe.lnot().lor(cqeFree)).land(rdErrFatal.land(nakTake).lnot()));
  errValid.set(nakTake.lor(retire.land(rdErrFatal)));
  errQp.set(mux(nakTake, aq, selQp));
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
      syndrome: mux(usesNak, nakSyn.at(selQp), mux(usesRdErr, rdErrSyn.at(selQp), lit(0, 8))),
    }));
  });

  // ---- per-QP state updates -------------------------------------------------------------------
  for (let i = 0; i < p.numQp; i++) {
    m.if(push.land(rq.eq(i)), () => {
      setAt(tail, dw + 1, i, tail.at(i).addw(1));
      m.if(reqRead.land(reqOk).land(rdCount.at(i).eq(0)), () => setAt(rdAcked, 24, i, sReq.data.field('firstPsn').subw(1)));
      m.if(reqOk, () => {
        setAt(lastSent, 24, i, sReq.data.field('lastPsn'));
        sentValid.setBits(i, i, 1);
        m.if(allAcked, () => setAt(acked, 24, i, sReq.data.field('firstPsn').subw(1)));
      });
    });
    // A push with nothing in flight and an ACK/NAK that moves acked exclude each other: the
    // ACK or NAK needs an outstanding PSN.
    m.if(doneAck.land(dq.eq(i)), () => setAt(acked, 24, i, dpsn));
    m.if(ackTake.land(aq.eq(i)).land(ackYields.lnot()), () => setAt(acked, 24, i, apsn));
    m.if(doneOk.land(dq.eq(i)), () => setAt(rdAcked, 24, i, dpsn));
    m.if(doneErr.land(dq.eq(i)), () => {
      rdErrValid.setBits(i, i, 1);
      setAt(rdErrPsn, 24, i, dpsn);
      setAt(rdErrStatus, 4, i, sDone.data.field('status'));
      setAt(rdErrSyn, 8, i, sDone.data.field('syndrome'));
    });
    // Posted and retired READs counted in one expression: both may happen in one cycle.
    const up = push.land(rq.eq(i)).land(reqRead);
    const down = retire.land(selQp.eq(i)).land(eRead);
    m.if(up.xor(down), () => setAt(rdCount, dw + 1, i, mux(up, rdCount.at(i).addw(1), rdCount.at(i).subw(1)).trunc(dw + 1)));
    m.if(nakTake.land(aq.eq(i)), () => {
      nakValid.setBits(i, i, 1);
      setAt(nakStatus, 4, i, nakCode);
      setAt(nakSyn, 8, i, syn);
      setAt(acked, 24, i, apsn.subw(1));
    });
    m.if(retire.land(selQp.eq(i)), () => {
      setAt(head, dw + 1, i, head.at(i).addw(1));
      m.if(usesNak, () => nakValid.setBits(i, i, 0));
      m.if(usesRdErr, () => rdErrValid.setBits(i, i, 0));
      m.if(setsFlush, () => flush.setBits(i, i, 1));
    });
    m.if(qpCtx.at(i).field('state').eq(QP_STATE.RESET), () => {
      sentValid.setBits(i, i, 0);
      nakValid.setBits(i, i, 0);
      flush.setBits(i, i, 0);
      rdErrValid.setBits(i, i, 0);
    });
  }
  const busyBits: Value[] = [];
  for (let i = 0; i < p.numQp; i++) busyBits.push(rdCount.at(i).ne(0));
  readBusy.set(cat(...busyBits.reverse()));

  return { clk, rst, qp_ctx: qpCtx, s_req: sReq, s_ack: sAck, m_cqe: mCqe, qp_error: qpError, s_read_done: sDone, read_busy: readBusy };
}, { doc: 'ACK tracker: per-QP outstanding messages, coalesced ACKs, NAK errors and flushes, CQE requests in posting order' });
