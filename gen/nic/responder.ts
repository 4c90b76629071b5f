// nic_responder: the RC responder for RDMA WRITE and READ REQUEST, plus the hand-off of
// received ACKs and READ responses to the requester side.
//
// Checks run in the order of Linux Soft-RoCE (rxe_resp.c) and NIC.md's error table:
//   QP       destQpn = LOCAL_QPN_BASE + index, QP in RTR/RTS  else drop (counted, no state change)
//   PSN      = EXP_PSN: go on; behind: re-ACK (PSN EXP_PSN-1, current MSN), write nothing;
//            ahead: one NAK 0x60 carrying EXP_PSN, then silence until EXP_PSN arrives
//   sequence FIRST/ONLY outside a message, MIDDLE/LAST inside one   else NAK 0x61, QP ERROR
//   opcode   WRITE FIRST/MIDDLE/LAST/ONLY or READ (not SEND, IMM)   else NAK 0x61, QP ERROR
//   length   FIRST/MIDDLE = MTU and short of the RETH length; LAST 1..MTU, ONLY 0..MTU, and the
//            message ends exactly at the RETH length                 else NAK 0x61, QP ERROR
//   rkey     at FIRST/ONLY one translation of the whole RETH range   else NAK 0x62, QP ERROR
//   execute  DmaWriteCmd + payload to nic_dma_write
//   ack      EXP_PSN+1 per packet, MSN+1 per message; AckReq → ACK once the write's status
//            is back (an ACK never overtakes its data); a write error → NAK 0x62, QP ERROR
//
// Structure: a header FSM (IDLE → CHECK → [XLATE] → IDLE) takes one header per two cycles at
// best, decides, and queues (a) a payload job (forward or drop) and (b) an ack job. The
// payload mover and the ack stage run behind it, so the next packet's header is checked
// while earlier packets' data are still being written: up to ACK_JOBS packets in flight.
// Every ACK/NAK goes through the one ack-job queue, so they leave in packet order and a
// re-ACK or NAK 0x60 (which acknowledge everything before EXP_PSN) waits for earlier writes.
//
// Per-QP state (issue 15, docs/synth.md "State per QP"): the open message of each QP (RETH
// VA, rkey and length, offset reached) is a row of msg_mem, read (registered) as its header
// is taken in IDLE and written back whole when the packet executes; the held ACK/NAK of each
// QP (below) is a row of defer_mem, read asynchronously (LUTRAM). What stays in flip-flops per
// QP is 11 bits: in_msg, nak_sent, hdr_err, ack_err, dup_rd and defer_valid flags, and
// pend_rd (5 bits). Same ports and cycles as with the records in registers.
//
// EXP_PSN and MSN are read from qp_ctx (nic_regs owns them; software sets EXP_PSN). An update
// issued in CHECK is visible two cycles later at the next CHECK, so one register stage
// between nic_regs and this block would still be safe.
//
// READ REQUEST (docs/nic-read.md): PSN as above; sequence (inside a WRITE message), length
// (payload 0, RETH present) and room (rd_room[q]) failures → NAK 0x61, QP ERROR. Accepted:
// EXP_PSN += max(1, ceil(len / MTU)), MSN += 1, and an ack job with `read` set carries the
// ReadReq, so it leaves on m_read_req after the DMA statuses of earlier WRITEs of the queue.
// A duplicate (PSN behind) queues the ReadReq again (its PSN, current MSN, no EXP_PSN/MSN
// update) when rd_room[q], else it is dropped (drop pulse). Such a duplicate holds a READ slot
// the requester does not count, so until the QP has no READ left, a new READ without room is
// dropped (a gap, recovered by go-back-N) instead of NAKed 0x61 (dup_rd_reg). rd_room counts only requests the
// READ responder has taken, so a READ header waits in CHECK while an earlier READ of its QP is
// still in the ack-job queue (pendRd); then rd_room is exact. No rkey check here: the READ
// responder's DMA read validates the range.
// READ RESPONSE 0x0D-0x10 (requester side): for a QP in RTS the header leaves on m_rresp_hdr
// and its payload on m_rresp_payload (payload jobs say which way each packet's bytes go, so
// the two payload outputs never mix); PSNs are the requester's, EXP_PSN/MSN are untouched.
// ACKNOWLEDGE 0x11 (requester side): for a QP in RTR/RTS the header leaves on m_rresp_hdr as
// well, so nic_read_resp_rx sees ACKs and READ responses in the order they arrived (an ACK
// past a READ whose response is missing means a lost response; docs/nic-reliability.md).
//
// Response order (IBTA: a responder answers in PSN order): an ACK/NAK of a QP that still has
// READs at nic_read_responder whose response commands are not all out
// (rd_busy, or the ReadReq in this block's output register) is held in a per-QP deferred
// slot and sent once they are, so it never overtakes the READ responses before it. Coalescing
// makes one slot enough: a newer ACK/NAK replaces the held one, except that a plain ACK
// below a held NAK 0x60's PSN keeps the NAK. The QP error of a fatal NAK is raised at once.
// Counters: SEQ_NAK_TX (a NAK 0x60 sent), SEQ_NAK_RX (one received for a QP in RTR/RTS),
// DUP_REQ_RX (a WRITE packet or READ REQUEST with a PSN behind EXP_PSN).

import { Bool, defineModule, lit, mux, pack, Struct, UInt, Vec, cat, type Value } from '../hdl/index.ts';
import { syncFifo } from '../lib/fifo.ts';
import { skidBuffer } from '../lib/skid.ts';
import { stream } from '../lib/interfaces.ts';
import { NicCfg, qpErrorEvent, qpUpdate } from './ctx.ts';
import { ctxPortRule, qpCtxView, type CtxPort } from './ctx-view.ts';
import { AETH, LOCAL_QPN_BASE } from './flow-types.ts';
import { READ_RESP, readReqStruct } from './read-types.ts';
import { QP_STATE } from './regmap.ts';
import { psnGt } from './psn.ts';
import { byteStream, DmaStatus, DmaWriteCmd, qpIndexWidth, RxPktHdr, TxPktCmd, XLATE_ACCESS, XlateReq, xlateReq, xlateResp } from './types.ts';

export type ResponderParams = { dataWidth: number; numQp: number; ctxPort: CtxPort };

/** Packets between a header's decision and its ACK (DMA statuses outstanding at most). */
const ACK_JOBS = 16;

const OP = { WRITE_FIRST: 0x06, WRITE_MIDDLE: 0x07, WRITE_LAST: 0x08, WRITE_ONLY: 0x0a, READ_REQUEST: 0x0c, ACK: 0x11 } as const;

export const responder = defineModule('nic_responder', { dataWidth: 64, numQp: 4, ctxPort: 'vec' } as ResponderParams, (m, p) => {
  const qw = qpIndexWidth(p.numQp);
  const { clk, rst } = m.clockAndReset();
  const qpCtx = qpCtxView(m, p.numQp, p.ctxPort, ['state', 'destQpn', 'expPsn', 'pmtu', 'destMac', 'destIp', 'pd', 'udpSport', 'msn'], 'only state, destQpn, expPsn, pmtu, destMac, destIp, pd, udpSport and msn are used');
  const cfg = m.input('cfg', NicCfg);
  const sHdr = stream(RxPktHdr).sink(m, 's_hdr');
  const sPay = byteStream(p.dataWidth).sink(m, 's_payload');
  const xreq = xlateReq.source(m, 'm_xlate_req');
  const xresp = xlateResp.sink(m, 's_xlate_resp');
  const dmaCmd = stream(DmaWriteCmd).source(m, 'm_dma_cmd');
  const mPay = byteStream(p.dataWidth).source(m, 'm_payload');
  const dmaStatus = stream(DmaStatus).sink(m, 's_dma_status');
  const ackCmd = stream(TxPktCmd).source(m, 'm_ack_cmd');
  const expPsnUpd = m.output('exp_psn_upd', qpUpdate('EXP_PSN', p.numQp));
  const msnUpd = m.output('msn_upd', qpUpdate('MSN', p.numQp));
  const qpError = m.output('qp_error', qpErrorEvent(p.numQp));
  const drop = m.output('drop', Bool);
  const ReadReq = readReqStruct(p.numQp);
  const readReq = stream(ReadReq).source(m, 'm_read_req');
  const rdRoom = m.input('rd_room', UInt(p.numQp));
  /** Bit q: QP q's duplicate slot at nic_read_responder is free (a duplicate READ uses it). */
  const rdDupRoom = m.input('rd_dup_room', UInt(p.numQp));
  /** Bit q: nic_read_responder still has response commands of QP q to hand on. */
  const rdBusy = m.input('rd_busy', UInt(p.numQp));
  const cntSeqNakTx = m.output('cnt_seq_nak_tx', Bool);
  const cntSeqNakRx = m.output('cnt_seq_nak_rx', Bool);
  const cntDupReq = m.output('cnt_dup_req', Bool);
  const rrHdr = stream(RxPktHdr).source(m, 'm_rresp_hdr');
  const rrPay = byteStream(p.dataWidth).source(m, 'm_rresp_payload');
  m.unused(cfg, 'only mac, ipAddr and ipCfg are read (ACK addressing); config and irqMod are not');
  m.unused(xresp.data, 'only the status is read: the whole-range check needs no physical address');

  /** One ACK/NAK to send (or a write to wait for), in packet order. */
  const Job = Struct('resp_ack_job', {
    qp: UInt(qw), psn: UInt(24), msn: UInt(24), syndrome: UInt(8),
    /** A DmaStatus belongs to this packet: wait for it; an error turns the job into NAK 0x62. */
    waitDma: Bool,
    /** Send an ACK/NAK (AckReq set, or a re-ACK / NAK decided at the header). */
    send: Bool,
    /** A NAK that moves the QP to ERROR. */
    fatal: Bool,
    /** Last packet of its message (msn already counts it; a failed write must not). */
    last: Bool,
    /** An accepted (or duplicate) READ REQUEST: send the ReadReq below on m_read_req. */
    read: Bool,
    /** The READ is a duplicate (its ReadReq takes the QP's duplicate slot). */
    dup: Bool,
    va: UInt(64), rkey: UInt(32), len: UInt(32), pd: UInt(16), pmtu: UInt(4),
  });
  const jobs = m.instance('u_ack_jobs', syncFifo, { width: Job.width, depth: ACK_JOBS });
  // Two bits per packet with payload: bit 0 = drop its bytes, bit 1 = forward them to
  // m_rresp_payload (a READ response); 00 = forward them to nic_dma_write.
  const payJobs = m.instance('u_pay_jobs', syncFifo, { width: 2, depth: ACK_JOBS });

  // ---- per-QP responder state (cleared while software holds the QP in RESET) ------------
  const inMsg = m.reg('in_msg_reg', UInt(p.numQp));
  const nakSent = m.reg('nak_sent_reg', UInt(p.numQp));
  // Errors found here (NAK queued, qp_error follows from the ack stage) and by a write's
  // status (later ack jobs of that QP are dropped): either stops the QP receiving at once.
  const hdrErr = m.reg('hdr_err_reg', UInt(p.numQp));
  // READ jobs of each QP queued but not yet taken by the READ responder (at most ACK_JOBS).
  const pendRd = m.reg('pend_rd_reg', Vec(UInt(5), p.numQp));
  /** Per QP: a duplicate READ answered again may hold a READ slot (see dup_rd_queued). */
  const dupRd = m.reg('dup_rd_reg', UInt(p.numQp));
  const ackErr = m.reg('ack_err_reg', UInt(p.numQp));
  // The open message of each QP (RETH VA, rkey and length, offset reached): one row per QP in
  // msg_mem (block RAM or LUTRAM), one registered read port and one write port. The row of
  // the QP of the header being taken is read as it is taken (IDLE), so it is there in CHECK;
  // `enable` holds it through CHECK and XLATE. The whole row is written back when the packet
  // executes (FIRST/ONLY: the RETH's fields; MIDDLE/LAST: the row read, new offset).
  // Hazard (two headers of one QP back to back): the write happens in CHECK or XLATE (exec),
  // the next read in IDLE, which always comes between them, so the read is at least one edge
  // after the write and sees it: no forwarding (responder.test.ts, "back to back").
  const MsgRec = Struct('resp_msg_rec', { va: UInt(64), rkey: UInt(32), len: UInt(32), off: UInt(32) });
  const msgMem = m.memory('msg_mem', MsgRec, 2 ** qw);

  // ---- header FSM ------------------------------------------------------------------------
  const fsm = m.fsm('state', ['IDLE', 'CHECK', 'XLATE'] as const);
  const h = m.reg('hdr_reg', RxPktHdr, { reset: null });
  m.unused(h, 'source addresses and AETH of requests are not used: replies go to the QP\'s configured peer');
  sHdr.ready.set(fsm.is('IDLE'));
  const hdrTake = m.let('hdr_take', fsm.is('IDLE').land(sHdr.valid));
  m.if(hdrTake, () => { h.set(sHdr.data); fsm.goto('CHECK'); });
  const msgRow = msgMem.read(m.let('msg_rd_qp', sHdr.data.field('destQpn').subw(LOCAL_QPN_BASE).trunc(qw)), { enable: hdrTake });

  const op = h.field('opcode');
  const qpnOff = m.let('qpn_off', h.field('destQpn').subw(LOCAL_QPN_BASE));
  const q = m.let('qp_idx', qpnOff.trunc(qw));
  const known = m.let('qp_known', h.field('destQpn').ge(LOCAL_QPN_BASE).land(qpnOff.lt(p.numQp)));
  const ctx = qpCtx.at(q);
  const st = ctx.field('state');
  const able = m.let('qp_able', known.land(st.eq(QP_STATE.RTR).lor(st.eq(QP_STATE.RTS)))
    .land(hdrErr.bit(q).lnot()).land(ackErr.bit(q).lnot()));

  const isFirst = m.let('is_first', op.eq(OP.WRITE_FIRST));
  const isMiddle = m.let('is_middle', op.eq(OP.WRITE_MIDDLE));
  const isLast = m.let('is_last', op.eq(OP.WRITE_LAST));
  const isOnly = m.let('is_only', op.eq(OP.WRITE_ONLY));
  const isAck = m.let('is_ack', op.eq(OP.ACK));
  const starts = m.let('starts_msg', isFirst.lor(isOnly));
  const ends = m.let('ends_msg', isLast.lor(isOnly));
  // Requests this responder does not serve: SEND (needs a receive queue), WRITE with
  // immediate (same), atomics. Answered with NAK 0x61 after the PSN check.
  const isRead = m.let('is_read', op.eq(OP.READ_REQUEST));
  const isUnserved = m.let('is_unserved', op.le(0x05).lor(op.eq(0x09)).lor(op.eq(0x0b)).lor(op.eq(0x13)).lor(op.eq(0x14)));
  const isWrite = m.let('is_write', starts.lor(isMiddle).lor(isLast));
  const isRresp = m.let('is_rresp', op.ge(READ_RESP.FIRST).land(op.le(READ_RESP.ONLY)));
  // READ responses go to the requester's receiver only while the QP is in RTS.
  const rrespOk = m.let('rresp_ok', known.land(st.eq(QP_STATE.RTS)).land(hdrErr.bit(q).lnot()).land(ackErr.bit(q).lnot()));
  // Anything else (atomic ACKs, UC/UD, CNP, reserved opcodes) is dropped and counted.

  const exp = ctx.field('expPsn');
  const msn = ctx.field('msn');
  const psnDiff = m.let('psn_diff', h.field('psn').subw(exp));
  const psnOk = m.let('psn_ok', psnDiff.eq(0));
  // ±2^23 window: the top bit of the 24-bit difference is the sign.
  const psnBehind = m.let('psn_behind', psnDiff.bit(23));

  const seqErr = m.let('seq_err', starts.land(inMsg.bit(q)).lor(isMiddle.lor(isLast).land(inMsg.bit(q).lnot())));
  const mtu = m.let('mtu', lit(1, 13).shl(ctx.field('pmtu')));
  const plen = h.field('payloadLen');
  const off = m.let('msg_off', mux(starts, 0, msgRow.field('off')).trunc(32));
  const dmaLen = m.let('dma_len', mux(starts, h.field('rethLen'), msgRow.field('len')).trunc(32));
  const end = m.let('msg_end', off.add(plen.zext(32)));
  // Checked at every packet, not only at the end, so no byte lands outside the RETH range:
  // a FIRST/MIDDLE that reaches the RETH length can never end the message right.
  const lenErr = m.let('len_err', mux(ends,
    end.ne(dmaLen.zext(33)).lor(plen.gt(mtu)).lor(isLast.land(plen.eq(0))),
    plen.ne(mtu).lor(end.ge(dmaLen.zext(33)))));
  const needXlate = m.let('need_xlate', starts.land(h.field('rethLen').ne(0)));
  // READ: a READ inside a WRITE message, or one with payload or without RETH, is invalid.
  const rdBad = m.let('rd_bad', inMsg.bit(q).lor(plen.ne(0)).lor(h.field('hasReth').lnot()));
  const rdRoomQ = m.let('rd_room_q', rdRoom.bit(q));
  const rdDupRoomQ = m.let('rd_dup_room_q', rdDupRoom.bit(q));
  const rethLen = h.field('rethLen');
  // Response packets: max(1, ceil(len / MTU)) = len == 0 ? 1 : ((len - 1) >> pmtu) + 1, mod 2^24.
  const rdPkts = m.let('rd_pkts', mux(rethLen.eq(0), lit(1, 24), rethLen.subw(1).shr(ctx.field('pmtu')).trunc(24).addw(1)).trunc(24));
  // A READ header waits while an earlier READ of its QP is on its way to the READ responder.
  const rdWait = m.let('rd_wait', isRead.land(pendRd.at(q).ne(0)));

  // ---- output registers --------------------------------------------------------------------
  const xreqValid = m.reg('xlate_req_valid_reg', Bool);
  const xreqData = m.reg('xlate_req_data_reg', XlateReq, { reset: null });
  xreq.valid.set(xreqValid);
  xreq.data.set(xreqData);
  m.if(xreq.ready, () => xreqValid.set(0));
  xresp.ready.set(fsm.is('XLATE'));

  const dmaValid = m.reg('dma_cmd_valid_reg', Bool);
  const dmaData = m.reg('dma_cmd_data_reg', DmaWriteCmd, { reset: null });
  dmaCmd.valid.set(dmaValid);
  dmaCmd.data.set(dmaData);
  m.if(dmaCmd.ready, () => dmaValid.set(0));

  // Every outcome of CHECK may need these; waiting for all keeps the decision in one place.
  const rrHdrValid = m.reg('rresp_hdr_valid_reg', Bool);
  const rrHdrData = m.reg('rresp_hdr_data_reg', RxPktHdr, { reset: null });
  rrHdr.valid.set(rrHdrValid);
  rrHdr.data.set(rrHdrData);
  m.if(rrHdr.ready, () => rrHdrValid.set(0));

  const room = m.let('room', jobs.s.ready.land(payJobs.s.ready)
    .land(dmaValid.lnot().lor(dmaCmd.ready))
    .land(rrHdrValid.lnot().lor(rrHdr.ready)).land(rdWait.lnot()));
  const decide = m.let('decide', fsm.is('CHECK').land(room));
  const xlateOk = m.let('xlate_ok', fsm.is('XLATE').land(xresp.valid).land(xresp.data.field('status').eq(0)));
  const xlateBad = m.let('xlate_bad', fsm.is('XLATE').land(xresp.valid).land(xresp.data.field('status').ne(0)));

  jobs.s.valid.set(0);
  payJobs.s.valid.set(0);
  payJobs.s.data.set(1);
  drop.set(0);
  const seqNakRx = m.reg('seq_nak_rx_reg', Bool);
  const dupReq = m.reg('dup_req_reg', Bool);
  seqNakRx.set(decide.land(able).land(isAck).land(h.field('aethSyndrome').eq(AETH.NAK_PSN_SEQ)));
  dupReq.set(decide.land(able).land(psnBehind).land(isWrite.lor(isRead)));
  cntSeqNakRx.set(seqNakRx);
  cntDupReq.set(dupReq);
  expPsnUpd.set(pack(expPsnUpd.shape, { valid: 0, qp: q, value: h.field('psn').addw(1) }));
  msnUpd.set(pack(msnUpd.shape, { valid: 0, qp: q, value: msn.addw(1) }));
  const setBit = (r: typeof inMsg, v: number): void => {
    for (let i = 0; i < p.numQp; i++) m.if(q.eq(i), () => r.setBits(i, i, v));
  };
  const queueJob = (f: { psn: Value | number; msn: Value | number; syndrome: number; waitDma?: Value | number; send?: Value | number; fatal?: number; last?: Value | number; read?: number; dup?: number }): void => {
    jobs.s.valid.set(1);
    jobs.s.data.set(pack(Job, {
      qp: q, psn: f.psn, msn: f.msn, syndrome: f.syndrome, waitDma: f.waitDma ?? 0, send: f.send ?? 1, fatal: f.fatal ?? 0, last: f.last ?? 0,
      read: f.read ?? 0, dup: f.dup ?? 0, va: h.field('rethVa'), rkey: h.field('rethRkey'), len: rethLen, pd: ctx.field('pd'), pmtu: ctx.field('pmtu'),
    }));
  };
  const dupRdQueued = m.wire('dup_rd_queued', Bool);
  const queueRead = (psn: Value, msnV: Value, dup: number): void => queueJob({ psn, msn: msnV, syndrome: AETH.ACK, send: 0, read: 1, dup });
  const dropPayload = (): void => { m.if(plen.ne(0), () => payJobs.s.valid.set(1)); };
  const fatalNak = (syndrome: number): void => {
    queueJob({ psn: h.field('psn'), msn, syndrome, fatal: 1 });
    setBit(hdrErr, 1);
    dropPayload();
    fsm.goto('IDLE');
  };

  m.if(decide, () => {
    fsm.goto('IDLE');
    m.if(isRresp, () => {
      m.if(rrespOk, () => {
        rrHdrValid.set(1);
        rrHdrData.set(h);
        m.if(plen.ne(0), () => { payJobs.s.valid.set(1); payJobs.s.data.set(2); });
      }).else(() => { drop.set(1); dropPayload(); });
    }).elif(able.lnot().lor(isAck.lor(isWrite).lor(isUnserved).lor(isRead).lnot()), () => {
      drop.set(1);
      dropPayload();
    }).elif(isAck, () => {
      // To nic_read_resp_rx, in order with the READ responses (it passes it to the ACK tracker).
      rrHdrValid.set(1);
      rrHdrData.set(h);
      dropPayload();
    }).elif(psnBehind.land(isRead), () => {
      // A duplicate READ is answered again (the responses were lost) in the QP's duplicate
      // slot, never in one of its READ slots (the requester sent it once as far as its limit
      // goes: rxe's duplicate_request re-uses the READ's resource). Slot busy: dropped.
      m.if(rdDupRoomQ, () => { queueRead(h.field('psn'), msn, 1); dupRdQueued.set(1); }).else(() => drop.set(1));
      dropPayload();
    }).elif(psnBehind, () => {
      queueJob({ psn: exp.subw(1), msn, syndrome: AETH.ACK });
      dropPayload();
    }).elif(psnOk.lnot(), () => {
      m.if(nakSent.bit(q).lnot(), () => queueJob({ psn: exp, msn, syndrome: AETH.NAK_PSN_SEQ }));
      setBit(nakSent, 1);
      dropPayload();
    }).else(() => {
      setBit(nakSent, 0);
      m.if(isRead, () => {
        // No room because a duplicate holds a slot: not the peer's fault; dropped like a lost
        // packet (its next request gets the NAK 0x60, or its timer resends it).
        m.if(rdBad.lnot().land(rdRoomQ.lnot()).land(dupRd.bit(q)), () => drop.set(1)).elif(rdBad.lor(rdRoomQ.lnot()), () => fatalNak(AETH.NAK_INVALID_REQ)).else(() => {
          queueRead(h.field('psn'), msn.addw(1), 0);
          expPsnUpd.setField('valid', 1);
          expPsnUpd.setField('value', h.field('psn').addw(rdPkts));
          msnUpd.setField('valid', 1);
        });
      }).elif(seqErr.lor(isUnserved).lor(lenErr), () => fatalNak(AETH.NAK_INVALID_REQ))
        .elif(needXlate, () => {
          xreqValid.set(1);
          xreqData.set(pack(XlateReq, { key: h.field('rethRkey'), va: h.field('rethVa'), len: h.field('rethLen'), pd: ctx.field('pd'), access: XLATE_ACCESS.REMOTE_WRITE }));
          fsm.goto('XLATE');
        });
    });
  });
  m.if(xlateBad, () => fatalNak(AETH.NAK_REMOTE_ACCESS));

  // Execute: the packet passed every check (and the translation, when there was one).
  const exec = m.let('exec', decide.land(able).land(isWrite).land(psnOk).land(seqErr.lor(lenErr).lnot()).land(needXlate.lnot()).lor(xlateOk));
  const hasData = m.let('has_data', plen.ne(0));
  const va = m.let('msg_va', mux(starts, h.field('rethVa'), msgRow.field('va')).trunc(64));
  const key = m.let('msg_key', mux(starts, h.field('rethRkey'), msgRow.field('rkey')).trunc(32));
  const newMsn = m.let('new_msn', mux(ends, msn.addw(1), msn).trunc(24));
  m.if(exec, () => {
    fsm.goto('IDLE');
    m.if(hasData, () => {
      dmaValid.set(1);
      dmaData.set(pack(DmaWriteCmd, { va: va.addw(off.zext(64)), len: plen.zext(32), key, pd: ctx.field('pd'), access: XLATE_ACCESS.REMOTE_WRITE }));
      payJobs.s.valid.set(1);
      payJobs.s.data.set(0);
    });
    m.if(hasData.lor(h.field('ackReq')), () => queueJob({ psn: h.field('psn'), msn: newMsn, syndrome: AETH.ACK, waitDma: hasData, send: h.field('ackReq'), last: ends }));
    expPsnUpd.setField('valid', 1);
    msnUpd.setField('valid', ends);
    setBit(inMsg, 0);
    m.if(isFirst.lor(isMiddle), () => setBit(inMsg, 1));
    msgMem.write(q, pack(MsgRec, { va, rkey: key, len: dmaLen, off: end.trunc(32) }));
  });

  // ---- payload mover -------------------------------------------------------------------
  const W = p.dataWidth, K = W / 8;
  const skid = m.instance('u_pay_skid', skidBuffer, { width: W + K + 1 });
  const rrSkid = m.instance('u_rresp_skid', skidBuffer, { width: W + K + 1 });
  const dropBeat = payJobs.m.data.bit(0);
  const toRresp = payJobs.m.data.bit(1);
  const beat = cat(sPay.tlast!, sPay.tkeep!, sPay.tdata);
  skid.s.valid.set(sPay.tvalid.land(payJobs.m.valid).land(dropBeat.lor(toRresp).lnot()));
  skid.s.data.set(beat);
  rrSkid.s.valid.set(sPay.tvalid.land(payJobs.m.valid).land(toRresp));
  rrSkid.s.data.set(beat);
  sPay.tready.set(payJobs.m.valid.land(dropBeat.lor(mux(toRresp, rrSkid.s.ready, skid.s.ready))));
  rrPay.tvalid.set(rrSkid.m.valid);
  rrPay.tdata.set(rrSkid.m.data.bits(W - 1, 0));
  rrPay.tkeep!.set(rrSkid.m.data.bits(W + K - 1, W));
  rrPay.tlast!.set(rrSkid.m.data.bit(W + K));
  rrSkid.m.ready.set(rrPay.tready);
  payJobs.m.ready.set(sPay.tvalid.land(sPay.tready).land(sPay.tlast!));
  mPay.tvalid.set(skid.m.valid);
  mPay.tdata.set(skid.m.data.bits(W - 1, 0));
  mPay.tkeep!.set(skid.m.data.bits(W + K - 1, W));
  mPay.tlast!.set(skid.m.data.bit(W + K));
  skid.m.ready.set(mPay.tready);

  // ---- ack stage: one job per cycle, in packet order -----------------------------------------
  const job = jobs.m.data.as(Job);
  const jq = job.field('qp');
  const ackValid = m.reg('ack_cmd_valid_reg', Bool);
  const ackData = m.reg('ack_cmd_data_reg', TxPktCmd, { reset: null });
  const errValid = m.reg('qp_error_valid_reg', Bool);
  const errQp = m.reg('qp_error_qp_reg', UInt(qw));
  ackCmd.valid.set(ackValid);
  ackCmd.data.set(ackData);
  qpError.set(pack(qpError.shape, { valid: errValid, qp: errQp }));
  m.if(ackCmd.ready, () => ackValid.set(0));
  errValid.set(0);

  const rdValid = m.reg('read_req_valid_reg', Bool);
  const rdData = m.reg('read_req_data_reg', ReadReq, { reset: null });
  readReq.valid.set(rdValid);
  readReq.data.set(rdData);
  m.if(readReq.ready, () => rdValid.set(0));
  const pop = m.let('job_pop', jobs.m.valid.land(job.field('waitDma').lnot().lor(dmaStatus.valid)).land(ackValid.lnot().lor(ackCmd.ready))
    .land(rdValid.lnot().lor(readReq.ready)));
  jobs.m.ready.set(pop);
  dmaStatus.ready.set(pop.land(job.field('waitDma')));
  const dmaBad = m.let('dma_bad', job.field('waitDma').land(dmaStatus.data.field('status').ne(0)));
  // After a failed write the QP is going to ERROR: later jobs of it (already queued) are void.
  const live = m.let('job_live', pop.land(ackErr.bit(jq).lnot()));
  const ipCfg = cfg.field('ipCfg');
  const ackFree = m.let('ack_cmd_free', ackValid.lnot().lor(ackCmd.ready));
  const seqNakTx = m.reg('seq_nak_tx_reg', Bool);
  seqNakTx.set(0);
  cntSeqNakTx.set(seqNakTx);
  const send = (qi: Value, psn: Value, syndrome: Value | number, msnV: Value): void => {
    const c = qpCtx.at(qi);
    ackValid.set(1);
    seqNakTx.set(lit(AETH.NAK_PSN_SEQ, 8).eq(syndrome));
    ackData.set(pack(TxPktCmd, {
      opcode: OP.ACK, destQpn: c.field('destQpn'), psn, ackReq: 0, payloadLen: 0,
      hasReth: 0, rethVa: 0, rethRkey: 0, rethLen: 0, hasAeth: 1, aethSyndrome: syndrome, aethMsn: msnV,
      srcMac: cfg.field('mac'), dstMac: c.field('destMac'), srcIp: cfg.field('ipAddr'), dstIp: c.field('destIp'),
      srcPort: c.field('udpSport'), ttl: ipCfg.bits(7, 0), dscp: ipCfg.bits(13, 8),
    }));
  };

  // ---- deferred ACK/NAK per QP (response order behind READ responses) --------------------------
  // The held ACK/NAK of each QP is a row of defer_mem, valid while its defer_valid_reg bit is
  // set. The row is read at two QPs in the cycle they are needed (the job's, for the
  // keep-held compare, and the one whose held ACK/NAK goes), so both reads are asynchronous:
  // distributed RAM (LUTRAM) with two read ports and one write port, not block RAM, which
  // reads a cycle late. A read in the cycle of a write sees the row before it, as the
  // registers did; the flags are still read for all QPs at once (the choice of the next).
  const DeferRec = Struct('resp_defer_rec', { psn: UInt(24), msn: UInt(24), syndrome: UInt(8) });
  const dfValid = m.reg('defer_valid_reg', UInt(p.numQp));
  const dfMem = m.memory('defer_mem', DeferRec, 2 ** qw);
  const rdPending = (qi: Value): Value => rdBusy.bit(qi).lor(rdValid.land(rdData.field('qp').eq(qi)));
  // What the job would send now: a write's failure NAK, or its ACK/NAK.
  const jobSends = m.let('job_sends', live.land(dmaBad.lor(job.field('read').lnot().land(job.field('send')))));
  const jobSyn = m.let('job_syndrome', mux(dmaBad, lit(AETH.NAK_REMOTE_ACCESS, 8), job.field('syndrome')));
  const jobMsn = m.let('job_msn', mux(dmaBad, job.field('msn').subw(job.field('last').zext(24)), job.field('msn')));
  const jobDefers = m.let('job_defers', jobSends.land(rdPending(jq).lor(dfValid.bit(jq))));
  // A held NAK 0x60 stays when a plain ACK below its PSN comes (the NAK says more).
  const dfJob = m.let('defer_job_row', dfMem.readAsync(jq));
  m.unused(dfJob, 'the keep-held compare reads psn and syndrome; the msn is read where a held ACK/NAK goes');
  const dfIsSeqNak = dfJob.field('syndrome').eq(AETH.NAK_PSN_SEQ);
  const jobIsAck = jobSyn.bits(7, 5).eq(0);
  const keepHeld = m.let('defer_keep_held', dfValid.bit(jq).land(dfIsSeqNak).land(jobIsAck).land(psnGt(dfJob.field('psn'), job.field('psn'))));
  m.if(jobDefers.land(keepHeld.lnot()), () => {
    dfMem.write(jq, pack(DeferRec, { psn: job.field('psn'), msn: jobMsn, syndrome: jobSyn }));
    for (let i = 0; i < p.numQp; i++) m.if(jq.eq(i), () => dfValid.setBits(i, i, 1));
  });
  // A held one whose READs are all out goes when the job path sends nothing this cycle.
  const dfReady: Value[] = [];
  for (let i = 0; i < p.numQp; i++) dfReady.push(dfValid.bit(i).land(rdPending(lit(i, qw)).lnot()));
  let dfQ: Value = lit(0, qw);
  for (let i = p.numQp - 1; i >= 0; i--) dfQ = mux(dfReady[i]!, lit(i, qw), dfQ);
  const dfAny = m.let('defer_any', dfReady.reduce((a, b) => a.lor(b)));
  const dfQp = m.let('defer_qp', dfQ);
  // Not while the job path sends or holds this cycle (one ack command, one write per slot).
  const dfGo = m.let('defer_send', dfAny.land(ackFree).land(jobSends.lnot()));
  const dfOut = dfMem.readAsync(dfQp);
  m.if(dfGo, () => {
    send(dfQp, dfOut.field('psn'), dfOut.field('syndrome'), dfOut.field('msn'));
    for (let i = 0; i < p.numQp; i++) m.if(dfQp.eq(i), () => dfValid.setBits(i, i, 0));
  });

  m.if(live, () => {
    m.if(dmaBad, () => {
      errValid.set(1);
      errQp.set(jq);
      for (let i = 0; i < p.numQp; i++) m.if(jq.eq(i), () => ackErr.setBits(i, i, 1));
    }).elif(job.field('read'), () => {
      rdValid.set(1);
      rdData.set(pack(ReadReq, {
        qp: jq, psn: job.field('psn'), va: job.field('va'), rkey: job.field('rkey'), len: job.field('len'),
        pd: job.field('pd'), pmtu: job.field('pmtu'), msn: job.field('msn'), dup: job.field('dup'),
      }));
    }).elif(job.field('send'), () => {
      m.if(job.field('fatal'), () => { errValid.set(1); errQp.set(jq); });
    });
    m.if(jobSends.land(jobDefers.lnot()), () => send(jq, job.field('psn'), jobSyn, jobMsn));
  });

  // READ jobs in flight per QP: +1 when queued in CHECK, -1 when the READ responder takes it
  // or the ack stage voids it (its QP failed a write).
  const rdQueued = m.let('rd_queued', jobs.s.valid.land(jobs.s.ready).land(jobs.s.data.as(Job).field('read')));
  const rdSent = rdData.field('qp');
  const rdVoid = m.let('rd_void', pop.land(job.field('read')).land(live.lnot()));
  for (let i = 0; i < p.numQp; i++) {
    const up = rdQueued.land(q.eq(i));
    const down = rdValid.land(readReq.ready).land(rdSent.eq(i)).lor(rdVoid.land(jq.eq(i)));
    m.if(up.land(down.lnot()), () => pendRd.setBits(5 * i + 4, 5 * i, pendRd.at(i).addw(1)));
    m.if(down.land(up.lnot()), () => pendRd.setBits(5 * i + 4, 5 * i, pendRd.at(i).subw(1)));
  }

  // A duplicate READ answered again takes a READ slot the requester does not count (it sent
  // the READ once as far as its limit goes), so a new READ may then find no room through no
  // fault of the peer. dup_rd_reg[q] marks that this may be so until the QP has no READ left
  // anywhere (queued here, in the output register, at the READ responder).
  for (let i = 0; i < p.numQp; i++) {
    const setNow = dupRdQueued.land(q.eq(i));
    const none = pendRd.at(i).eq(0).land(rdBusy.bit(i).lor(rdValid.land(rdData.field('qp').eq(i))).lnot());
    m.if(setNow, () => dupRd.setBits(i, i, 1)).elif(none, () => dupRd.setBits(i, i, 0));
  }

  // Software holding a QP in RESET starts it afresh (last, so it wins).
  for (let i = 0; i < p.numQp; i++) {
    m.if(qpCtx.at(i).field('state').eq(QP_STATE.RESET), () => {
      for (const r of [inMsg, nakSent, hdrErr, ackErr, dfValid, dupRd]) r.setBits(i, i, 0);
    });
  }

  return {
    clk, rst, ...qpCtx.ports, cfg, s_hdr: sHdr, s_payload: sPay, m_xlate_req: xreq, s_xlate_resp: xresp,
    m_dma_cmd: dmaCmd, m_payload: mPay, s_dma_status: dmaStatus, m_ack_cmd: ackCmd,
    exp_psn_upd: expPsnUpd, msn_upd: msnUpd, qp_error: qpError, drop,
    m_read_req: readReq, rd_room: rdRoom, rd_dup_room: rdDupRoom, rd_busy: rdBusy, m_rresp_hdr: rrHdr, m_rresp_payload: rrPay,
    cnt_seq_nak_tx: cntSeqNakTx, cnt_seq_nak_rx: cntSeqNakRx, cnt_dup_req: cntDupReq,
  };
}, { doc: 'RC responder: WRITE checks (QP, PSN, sequence, length, rkey), DMA writes, ACK/NAK; received ACKs to the tracker', params: { rules: { ctxPort: ctxPortRule } } });
