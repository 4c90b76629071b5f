// nic_req_tx: the requester's TX engine. One decoded WQE at a time (from nic_wqe_fetch):
//
//   IDLE  -> CHECK : take the WQE (a good unfenced WRITE offers its first DMA command already
//                    here, with the checks below made on s_wqe; taken, CHECK is skipped).
//   CHECK          : park it if the tracker has no slot for its QP (any status); then
//                    decide its status, in this order of precedence:
//                      the fetch status (not SUCCESS: bad opcode, QP not in RTS, flush);
//                      the QP's state now (ERROR -> FLUSH_ERROR, not RTS -> LOCAL_QP_ERROR),
//                        because an earlier WQE of this QP may have moved it to ERROR (a
//                        QP this stage moved to ERROR counts as ERROR until it is RESET);
//                      opcode not RDMA WRITE / RDMA READ -> BAD_OPCODE;
//                      num_sge > 4 or length != sum of the SGE lengths -> LOCAL_LENGTH_ERROR.
//                    An error goes to ERR (one ReqEntry with that status, nothing sent).
//                    Fence: a good WQE with the FENCE flag is parked while its QP has a
//                    READ outstanding (read_busy, or a READ this stage handed on in the last
//                    3 cycles, which the tracker's read_busy may not show yet); a good READ
//                    is parked while its QP has no free READ context (ctx_room).
//                    A READ skips DMA/WAIT: its SGEs are where the response lands, not data.
//   DMA            : one DmaReadCmd per SGE (num_sge 0: one zero-length SGE; the first one is
//                    already offered in CHECK once the WQE passed its checks), lkey and the
//                    QP's PD, LOCAL_READ, segLog2 = path MTU so the DMA raises tlast at
//                    every packet boundary; the payload goes from nic_dma_read straight to
//                    the packetizer and never passes through here.
//   WAIT           : the message's DmaStatus. Not OK: the DMA streams nothing, so nothing
//                    is sent; ReqEntry LOCAL_PROTECTION_ERROR and qp_error (QP -> ERROR).
//                    OK: takes the PSNs as PSN does and, if the generator is free, starts
//                    the message in this very cycle as START would (else on to START).
//   PSN            : (READ) first/last PSN from the QP's SQ_PSN and the packet count
//                    n = max(1, ceil(len / MTU)) (for a READ: the responses it expects).
//   RCTX           : READ only: push the read_ctx (PSN range, SGEs) to the response
//                    receiver, before the request can leave, so no response beats it.
//   START          : once the packet generator is free: push the ReqEntry (SUCCESS), hand
//                    the message (with the QP's addressing) to the generator and publish
//                    SQ_PSN = first + n on sq_psn_upd, all at the edge the entry is taken.
//
// The packet generator then emits one TxPktCmd per cycle (WRITE ONLY / FIRST / MIDDLE /
// LAST, RETH on the first, AckReq on the last and on every 64th; for a READ one READ
// REQUEST with RETH {va, rkey, length}, no payload, AckReq set), the first one already at the
// hand-over edge when its output register is free, so it is offered the cycle after the
// ReqEntry was taken (OK status, ReqEntry, first command: same cycle, then the next one).
// Meanwhile the front FSM already takes, checks and sends the DMA commands of the next WQE,
// so messages follow each other without gaps beyond the DMA's validation latency.
//
// Go-back-N (docs/nic-reliability.md). The ACK tracker holds each QP's send pointer and this
// stage reads it for the QP of the WQE it holds (tp_qp -> tp):
//   - a WQE whose ringIndex is not the QP's expIdx is a stale copy (fetched before a rewind or
//     a park moved the pointer back): taken in IDLE and dropped;
//   - a rewind (s_rewind, from the tracker) is taken between this QP's WQEs: SQ_PSN := the
//     first PSN of the message it restarts at (sq_psn_upd); fetch reads the ring again;
//   - the WQE at a resumed pointer (tp.resumeValid) restarts at PSN tp.resumePsn: k = resume -
//     SQ_PSN packets (k path MTUs of bytes) are skipped. A WRITE's DMA commands start at the
//     SGE holding byte k x MTU (that SGE from the byte inside it), its packets are cut from PSN
//     resume with the opcode, RETH placement and AckReq of the first transmission (MIDDLE/LAST
//     without RETH for k > 0, AckReq on packet 64, 128, ... of the message); a READ sends one
//     READ REQUEST at the resume PSN for the rest: RETH va + k x MTU, length - k x MTU, and a
//     read_ctx {firstPsn = resume, startOff = k x MTU}. The ReqEntry says firstPsn = resume,
//     msgFirstPsn = the message's first PSN, and the full length (the CQE's byte_len);
//   - packets with a PSN at or below the newest PSN ever sent (tp.sentHigh) count as
//     retransmissions (cnt_retx, RETX_PKTS), when their command is taken (m_pkt_cmd).
// DMA abort (dmaAbort 1, nic_top; docs/nic-reliability.md "NAK-path recovery"): a rewind would
// otherwise wait for the QP's message in the generator to be cut to its end, and for its next
// WRITE, whose DMA commands already went, to be sent whole. Instead, when the rewind's QP has a
// message with payload left to cut (generator or m_pkt_cmd) or a WRITE here past its first DMA
// command (need_abort), the abort engine (abortEngine below) withholds the QP's packet
// commands, waits until the payload of the commands already taken has left nic_dma_read
// (pay_end; the QP's stream then sits at a packet boundary), aborts the QP in nic_dma_read
// (messages tagged {qp, msg id} on m_dma_tag), ends the generator's message at the reported
// offset (asserted: right after the last command taken; the last packet sent is a MIDDLE the
// responder drops, its PSN being past the NAKed one) and drops the QP's WQE held here (after its
// DMA status). Only then is the rewind taken; with it, rewind_high sets the tracker's sentHigh
// back to the newest PSN really passed on. Payload and commands keep pairing by order in
// nic_tx_cmd_mux: a command is withheld only before it was taken, and the DMA stream is cut
// exactly where the taken commands' payload ends. Other QPs' commands and payload go on.
// Gate drop (issue-11n, docs/nic-reliability.md "NAK-path recovery within R + 64"): when the
// QP's last command taken still has payload coming out of nic_dma_read, its packet would fill
// nic_tx_frame_gate at the wire's pace and go out whole ahead of the resend. Instead HOLD's first
// cycle drops it there (gate_drop), and the DMA abort then cuts inside it (dma_abort_open: one
// empty tlast beat ends it), so HOLD does not wait for it; rewind_high and RETX_PKTS (counted
// at the payload's tlast into the gate, undropped) leave the dropped packet out.
// Parking: a WQE that would wait here, for a fence, for the READ limit (ctx_room) or for a
// free entry slot at the tracker (tp.room), is put back instead (s_park: its ring index and the
// reason; the tracker holds the QP at fetch until the reason is gone): the stage never blocks
// the other QPs behind one QP that waits for its READs, its timer or a retry.
//
// SQ_PSN is read from qp_ctx: nic_regs applies sq_psn_upd at the edge it is valid (qp_ctx
// shows it from the next cycle). The update is valid in the IDLE cycle after the hand-over,
// and the next read of SQ_PSN (in PSN or WAIT) comes at least one cycle after that: a READ
// passes IDLE and CHECK; a WRITE whose first DMA command left in IDLE reads in WAIT, not
// before the cycle after IDLE (and nic_dma_read's status takes several cycles).
// The ReqEntry reaches the ACK tracker before the message's first packet command leaves,
// so an ACK can never arrive for a message the tracker does not know yet.
// Timing (docs/synth.md, "The WQE path across module boundaries"): what leaves this stage after
// IDLE is built from the WQE register and its QP's context (held_qp), never through wqe_now's
// mux from s_wqe: the ReqEntry and read_ctx, with the packet count n in a register computed a
// cycle after the WQE was taken (a DMA status in that very cycle waits one cycle; nic_dma_read's
// never comes that early); s_rewind_ready is from registers and the rewind itself (not in CHECK,
// not while a start is offered), since nic_top forks it into nic_read_resp_rx and, through its
// s_hdr_ready, into nic_responder's decision.
// PMTU values outside 8..12 are clamped into that range.

import { Bool, UInt, Vec, defineModule, lit, mux, pack, type Value } from '../hdl/index.ts';
import { stream } from '../lib/interfaces.ts';
import { NicCfg, qpErrorEvent, qpUpdate } from './ctx.ts';
import { ctxPortRule, qpCtxView, type CtxPort } from './ctx-view.ts';
import { reqEntryStruct } from './flow-types.ts';
import { psnGe, psnGt } from './psn.ts';
import { PARK, parkStruct, RewindHigh, rewindStruct, TxPointer } from './qp-transport.ts';
import { dmaAbortDone, dmaAbortReq, dmaReadTag } from './dma-read.ts';
import { ReadSge, readCtxStruct } from './read-types.ts';
import { CQE_STATUS, MAX_SGE, QP_STATE, WQE_FLAG, WQE_OPCODE } from './regmap.ts';
import { DmaReadCmd, DmaStatus, MAX_MTU_LOG2, TxPktCmd, XLATE_ACCESS, XLATE_STATUS, qpIndexWidth } from './types.ts';
import { wqeStruct } from './wqe.ts';

export type ReqTxParams = {
  /** Datapath width: no effect inside (no payload passes here); kept so nic_top passes one set. */
  dataWidth: number;
  numQp: number;
  /** 1: cut a QP's messages short at a go-back-N rewind with nic_dma_read's abort (ports
   *  m_dma_tag, m_abort, s_abort_done, pay_end; nic_top); 0: the rewind waits for them. */
  dmaAbort: number;
  /** Where the QP context comes from (ctx-view.ts): 'vec' = the qp_ctx input (stage tests), 'lanes' = nic_regs' write lanes (nic_top). */
  ctxPort: CtxPort;
};

/** Bits of the message id nic_req_tx tags its DMA messages with (m_dma_tag). */
export const REQ_TX_MSG_ID_WIDTH = 4;

/** RC RDMA WRITE opcodes on the wire (NIC.md). */
export const WRITE_OPCODE = { FIRST: 0x06, MIDDLE: 0x07, LAST: 0x08, ONLY: 0x0a } as const;
/** RC RDMA READ REQUEST opcode (NIC.md): RETH, no payload. */
export const READ_REQUEST_OPCODE = 0x0c;
/** Cycles after handing on a READ during which the fence treats its QP as busy on its own:
 *  the ACK tracker's read_busy bit may rise up to a cycle after it took the ReqEntry. */
const READ_MARK_CYCLES = 3;

/** a and not b (b absent: a). */
const andNot = (a: Value, b: Value | undefined): Value => (b ? a.land(b.lnot()) : a);
/** Smallest path MTU (log2); PMTU values below it are clamped. */
export const MIN_MTU_LOG2 = 8;
/** AckReq at least every this many packets (NIC.md). */
export const ACKREQ_INTERVAL = 64;

export const nicReqTx = defineModule('nic_req_tx', { dataWidth: 64, numQp: 4, dmaAbort: 0, ctxPort: 'vec' } as ReqTxParams, (m, p) => {
  if (p.dataWidth < 64 || p.dataWidth > 512) throw new Error(`nic_req_tx: dataWidth ${p.dataWidth} is outside 64..512`);
  const qw = qpIndexWidth(p.numQp);
  const Wqe = wqeStruct(p.numQp);
  const ReqEntry = reqEntryStruct(p.numQp);

  const { clk, rst } = m.clockAndReset();
  const qpCtx = qpCtxView(m, p.numQp, p.ctxPort, ['state', 'sqPsn', 'pmtu', 'pd', 'destQpn', 'destMac', 'destIp', 'udpSport'], 'only STATE, SQ_PSN, PMTU, PD and the peer addressing fields are read');
  const cfg = m.input('cfg', NicCfg);
  const sWqe = stream(Wqe).sink(m, 's_wqe');
  const mDma = stream(DmaReadCmd).source(m, 'm_dma_cmd');
  const sStatus = stream(DmaStatus).sink(m, 's_dma_status');
  const mPkt = stream(TxPktCmd).source(m, 'm_pkt_cmd');
  const mReq = stream(ReqEntry).source(m, 'm_req');
  const ReadCtx = readCtxStruct(p.numQp);
  const mReadCtx = stream(ReadCtx).source(m, 'm_read_ctx');
  /** Bit q: the ACK tracker holds an uncompleted READ of QP q (for the fence). */
  const readBusy = m.input('read_busy', UInt(p.numQp));
  /** Bit q: nic_read_resp_rx has a free READ context for QP q (the requester's READ limit). */
  const ctxRoom = m.input('ctx_room', UInt(p.numQp));
  const sRewind = stream(rewindStruct(qw)).sink(m, 's_rewind');
  const tpQp = m.output('tp_qp', UInt(qw));
  const tp = m.input('tp', TxPointer);
  const parkOut = m.output('m_park', parkStruct(qw));
  const psnUpd = m.output('sq_psn_upd', qpUpdate('SQ_PSN', p.numQp));
  const qpError = m.output('qp_error', qpErrorEvent(p.numQp));
  const cntRetx = m.output('cnt_retx', Bool);
  const rwHighOut = m.output('rewind_high', RewindHigh);
  const abOn = p.dmaAbort !== 0;
  const MsgTag = dmaReadTag(p.numQp, REQ_TX_MSG_ID_WIDTH);
  const AB = abOn ? {
    tag: m.output('m_dma_tag', MsgTag),
    req: stream(dmaAbortReq(p.numQp)).source(m, 'm_abort'),
    done: stream(dmaAbortDone(REQ_TX_MSG_ID_WIDTH)).sink(m, 's_abort_done'),
    /** A packet's payload (from nic_dma_read) passed its last beat into nic_tx_cmd_mux. */
    payEnd: m.input('pay_end', Bool),
    /** nic_tx_frame_gate drops the packet coming in: the QP's last command taken (see below). */
    gateDrop: m.output('gate_drop', Bool),
    /** To nic_dma_read: that dropped packet is still open (its tlast not passed): cut inside it. */
    abortOpen: m.output('dma_abort_open', Bool),
  } : undefined;
  m.unused(cfg, 'CONFIG and IRQ_MOD are for other stages');

  const fsm = m.fsm('state', ['IDLE', 'CHECK', 'DMA', 'WAIT', 'PSN', 'RCTX', 'START', 'ERR'] as const);
  const cur = m.reg('wqe_reg', Wqe, { reset: null });
  // The WQE being worked on: in IDLE the one on s_wqe (so a good WRITE's first DMA command can
  // leave in the cycle the WQE is taken), afterwards the register.
  const wqe = m.let('wqe_now', mux(fsm.is('IDLE'), sWqe.data, cur).as(Wqe));
  m.unused(wqe, 'flag bits other than SIGNALED and FENCE are reserved');
  const wq = wqe.field('qp');
  tpQp.set(wq);
  const ctx = qpCtx.at(wq);
  // The WQE held, from CHECK on: what leaves this stage after IDLE (the ReqEntry to the ACK
  // tracker, the READ context, rewind_safe) is built from it and from its QP's context, never
  // through wqe_now's mux from s_wqe. In those states the two are the same WQE, but a
  // synthesis tool does not know the state, so from wqe_now the WQE queue's read data ran on
  // through this stage into the tracker's post (docs/synth.md, "The WQE path across module
  // boundaries").
  const hq = m.let('held_qp', cur.field('qp'));
  const hctx = qpCtx.at(hq);
  const heldIsWrite = cur.field('opcode').eq(WQE_OPCODE.RDMA_WRITE);
  const heldIsRead = m.let('held_is_read', cur.field('opcode').eq(WQE_OPCODE.RDMA_READ));
  const entryStatus = m.reg('entry_status_reg', UInt(4));
  const firstPsn = m.reg('first_psn_reg', UInt(24));
  const lastPsn = m.reg('last_psn_reg', UInt(24));
  const mtuLog2 = m.reg('mtu_log2_reg', UInt(4));
  const pd = m.reg('pd_reg', UInt(16));
  const sgeIdx = m.reg('sge_idx_reg', UInt(2));
  // ---- DMA abort at a rewind (dmaAbort; the logic is below the packet generator) ----------------
  const abFsm = abOn ? m.fsm('abort_state', ['IDLE', 'HOLD', 'REQ', 'WAIT', 'DONE'] as const) : undefined;
  const abQp = abOn ? m.reg('abort_qp_reg', UInt(qw)) : undefined;
  // While a QP's messages are cut short and until its rewind is taken, a WQE of that QP is
  // dropped where it would start (DMA, generator, CHECK): the rewind reads the ring again.
  const qDrop = abFsm ? m.let('abort_drop_wqe', abFsm.is('IDLE').lnot().land(wq.eq(abQp!))) : undefined;
  const unlessDrop = (v: Value): Value => (qDrop ? v.land(qDrop.lnot()) : v);
  // The same for the WQE held (the states after CHECK, where wqe_now is the register).
  const heldDrop = abFsm ? m.let('abort_drop_held', abFsm.is('IDLE').lnot().land(hq.eq(abQp!))) : undefined;
  const dropOr = (body: () => void): (() => void) => (qDrop ? () => m.if(qDrop, () => fsm.goto('IDLE')).else(body) : body);
  /** A DMA command of the WQE held has gone (its message is in nic_dma_read, maybe in part). */
  const dmaSent = abOn ? m.reg('dma_sent_reg', Bool) : undefined;

  // ---- CHECK ----------------------------------------------------------------------------------
  const numSge = wqe.field('numSge');
  const sges = wqe.field('sge');
  let sum: Value = lit(0, 34);
  for (let i = 0; i < MAX_SGE; i++) sum = sum.addw(mux(numSge.gt(i), sges.at(i).field('len').zext(34), lit(0, 34)));
  const sgeSum = m.let('sge_sum', sum);
  const lengthOk = m.let('length_ok', numSge.le(MAX_SGE).land(sgeSum.eq(wqe.field('length').zext(34))));
  // QPs this stage moved to ERROR, remembered until software resets them: nic_top merges
  // the stages' qp_error events, and with several at once the merged one can be late.
  const errSeen = m.reg('err_seen_reg', UInt(p.numQp));
  for (let i = 0; i < p.numQp; i++) m.if(qpCtx.at(i).field('state').eq(QP_STATE.RESET), () => errSeen.setBits(i, i, 0));
  const qpState = m.let('qp_state', mux(errSeen.bit(wq), lit(QP_STATE.ERROR, 3), ctx.field('state')));
  const st = (v: number): Value => lit(v, 4);
  const isWrite = m.let('is_write', wqe.field('opcode').eq(WQE_OPCODE.RDMA_WRITE));
  const isRead = m.let('is_read', wqe.field('opcode').eq(WQE_OPCODE.RDMA_READ));
  const checkStatus = m.let('check_status',
    mux(wqe.field('status').ne(CQE_STATUS.SUCCESS), wqe.field('status'),
      mux(qpState.eq(QP_STATE.ERROR), st(CQE_STATUS.FLUSH_ERROR),
        mux(qpState.ne(QP_STATE.RTS), st(CQE_STATUS.LOCAL_QP_ERROR),
          mux(isWrite.lor(isRead).lnot(), st(CQE_STATUS.BAD_OPCODE),
            mux(lengthOk.lnot(), st(CQE_STATUS.LOCAL_LENGTH_ERROR), st(CQE_STATUS.SUCCESS)))))));
  // A copy of a WQE the QP's send pointer has moved away from (rewind or park): dropped.
  const stale = m.let('wqe_stale', wqe.field('ringIndex').ne(tp.field('expIdx')));
  // ---- fence, READ limit and tracker room: park instead of waiting ------------------------------
  const markCnt = m.reg('read_mark_cnt_reg', UInt(2));
  const markQp = m.reg('read_mark_qp_reg', UInt(qw));
  m.if(markCnt.ne(0), () => markCnt.set(markCnt.subw(1)));
  const recentRead = m.let('recent_read', markCnt.ne(0).land(markQp.eq(wq)));
  const qpReadBusy = m.let('qp_read_busy', readBusy.bit(wq).lor(recentRead));
  const fenced = wqe.field('flags').bit(Math.log2(WQE_FLAG.FENCE));
  const good = checkStatus.eq(CQE_STATUS.SUCCESS);
  const parkReason = m.let('park_reason', mux(tp.field('room').lnot(), lit(PARK.TRACKER_FULL, 2),
    mux(good.land(fenced).land(qpReadBusy), lit(PARK.FENCE, 2),
      mux(good.land(isRead).land(ctxRoom.bit(wq).lnot()), lit(PARK.READ_LIMIT, 2), lit(PARK.NONE, 2)))));
  const parkNow = m.let('park_now', unlessDrop(fsm.is('CHECK').land(parkReason.ne(PARK.NONE))));
  const pmtu = ctx.field('pmtu');
  const pmtuClamped = m.let('pmtu_clamped', mux(pmtu.lt(MIN_MTU_LOG2), lit(MIN_MTU_LOG2, 4), mux(pmtu.gt(MAX_MTU_LOG2), lit(MAX_MTU_LOG2, 4), pmtu)));

  // ---- resume inside a message (go-back-N) ----------------------------------------------------
  // k packets of the message were acknowledged; skip k path MTUs of its bytes. Computed from
  // the WQE, SQ_PSN (the message's first PSN since the rewind) and the send pointer, and latched
  // in CHECK: a resumed WQE never takes the IDLE fast path.
  const skipPkts = m.let('resume_skip_pkts', tp.field('resumePsn').subw(ctx.field('sqPsn')).trunc(24));
  const resuming = m.let('resuming', tp.field('resumeValid').land(skipPkts.ne(0)));
  const skipBytesWide = m.let('resume_skip_bytes', skipPkts.zext(36).shl(pmtuClamped));
  m.assert(fsm.is('CHECK').land(resuming).land(good).lnot().lor(skipBytesWide.lt(wqe.field('length').zext(36))), 'resume point at or past the end of the message');
  const skipBytes = skipBytesWide.trunc(32);
  // The SGE that holds byte skipBytes, and the offset inside it.
  let before: Value = lit(0, 34);
  let seekSge: Value = lit(0, 2);
  let seekOff: Value = skipBytes.zext(34);
  let found: Value = lit(0, 1);
  for (let i = 0; i < MAX_SGE; i++) {
    const end = before.addw(mux(numSge.gt(i), sges.at(i).field('len').zext(34), lit(0, 34)));
    const here = found.lnot().land(end.gt(skipBytes.zext(34)));
    seekSge = mux(here, lit(i, 2), seekSge);
    seekOff = mux(here, skipBytes.zext(34).subw(before), seekOff);
    found = found.lor(here);
    before = end;
  }
  const resumeReg = m.reg('resume_reg', Bool);
  const resumePsnReg = m.reg('resume_psn_reg', UInt(24));
  // Only the packet index mod 64 matters (AckReq on every 64th packet of the message).
  const skipPktsReg = m.reg('skip_pkts_reg', UInt(6));
  const skipBytesReg = m.reg('skip_bytes_reg', UInt(32));
  const skipSgeReg = m.reg('skip_sge_reg', UInt(2));
  const skipOffReg = m.reg('skip_off_reg', UInt(32));

  // ---- DMA commands ---------------------------------------------------------------------------
  // A good unfenced WRITE offers its first DMA command already in the cycle the WQE is taken
  // (IDLE), else in CHECK: two cycles less from doorbell to payload. pd and the segment size then
  // come straight from the QP context, not the registers. Fenced, parked and resumed WQEs go
  // through DMA (registers), so the command never depends on a wait.
  const inCheck = fsm.is('IDLE').lor(fsm.is('CHECK'));
  const checkDma = m.let('check_dma', fsm.is('CHECK').lor(fsm.is('IDLE').land(sWqe.valid).land(stale.lnot()).land(sRewind.valid.lnot()))
    .land(good).land(fenced.lnot()).land(isWrite).land(resuming.lnot()).land(unlessDrop(tp.field('room'))));
  const dmaIdx = m.let('dma_sge_idx', mux(inCheck, lit(0, 2), sgeIdx));
  const sge = sges.at(dmaIdx);
  const noSge = numSge.eq(0);
  const lastSge = m.let('last_sge', noSge.lor(dmaIdx.zext(8).eq(numSge.subw(1))));
  // The first SGE of a resumed WRITE starts skip_off bytes in.
  const sgeSkip = m.let('dma_sge_skip', mux(inCheck.lnot().land(resumeReg).land(dmaIdx.eq(skipSgeReg)), skipOffReg, lit(0, 32)));
  // A dropped WQE sends no DMA command (one already sent: its message goes on to its status).
  const dmaFresh = dmaSent ? m.let('dma_drop_fresh', qDrop!.land(dmaSent.lnot())) : undefined;
  mDma.valid.set((dmaFresh ? fsm.is('DMA').land(dmaFresh.lnot()) : fsm.is('DMA')).lor(checkDma));
  // Message ids for nic_dma_read's tags: one per DMA message, counted at its last SGE.
  const msgCnt = abOn ? m.reg('dma_msg_cnt_reg', UInt(REQ_TX_MSG_ID_WIDTH)) : undefined;
  if (AB && msgCnt && dmaSent) {
    AB.tag.set(pack(MsgTag, { qp: wq, msg: msgCnt }));
    const dmaFire = mDma.valid.land(mDma.ready);
    m.if(dmaFire.land(lastSge), () => msgCnt.set(msgCnt.addw(1)));
    m.if(fsm.is('IDLE'), () => dmaSent.set(0));
    m.if(dmaFire, () => dmaSent.set(1));
  }
  mDma.data.set(pack(DmaReadCmd, {
    va: sge.field('addr').addw(sgeSkip.zext(64)), len: mux(noSge, lit(0, 32), sge.field('len').subw(sgeSkip)), key: sge.field('lkey'), pd: mux(inCheck, ctx.field('pd'), pd),
    last: lastSge, segLog2: mux(inCheck, pmtuClamped, mtuLog2), access: XLATE_ACCESS.LOCAL_READ,
  }));
  // The packet count below is computed from the WQE a cycle after it was taken.
  const nFresh = m.reg('pkt_count_fresh_reg', Bool);
  nFresh.set(fsm.is('IDLE').land(sWqe.valid).land(sWqe.ready).lnot());
  // (pkt_count_fresh_reg: the status waits one cycle if it arrives in the cycle after the WQE was
  // taken, when the packet count is not computed yet; nic_dma_read's status comes later.)
  sStatus.ready.set(fsm.is('WAIT').land(nFresh));
  /** The DMA status is taken (see pkt_count_fresh_reg). */
  const statusIn = m.let('dma_status_in', sStatus.valid.land(nFresh));

  // ---- PSNs -----------------------------------------------------------------------------------
  // The packet count n = max(1, ceil(len / MTU)) of the WQE held, in a register computed every
  // cycle from registers (the held WQE's length and the path MTU: in CHECK the QP's, afterwards
  // mtu_log2_reg), so the ReqEntry's last PSN is one adder behind registers. It is read in PSN
  // and in WAIT with the DMA status: always at least a cycle after the WQE was taken (checked).
  const len = cur.field('length');
  const countMtu = mux(fsm.is('CHECK'), pmtuClamped, mtuLog2);
  const mtuMinus1 = m.let('mtu_minus_1', lit(1, 33).shl(countMtu).subw(1));
  const nCeil = m.let('pkt_count_ceil', len.zext(33).addw(mtuMinus1).shr(countMtu));
  const nPkts = m.reg('pkt_count_reg', UInt(24));
  const nPktsMinus1 = m.reg('pkt_count_minus1_reg', UInt(24));
  const nNext = mux(nCeil.eq(0), lit(1, 33), nCeil).trunc(24);
  nPkts.set(nNext);
  nPktsMinus1.set(nNext.subw(1));
  const sqPsn = hctx.field('sqPsn');

  // ---- the packet generator's message registers ------------------------------------------------
  const genBusy = m.reg('gen_busy_reg', Bool);
  const gPsn = m.reg('gen_psn_reg', UInt(24));
  const gNext = m.reg('gen_next_psn_reg', UInt(24));
  const gRem = m.reg('gen_rem_reg', UInt(32));
  const gFirst = m.reg('gen_first_reg', Bool);
  const gCount = m.reg('gen_count_reg', UInt(6));
  const gMtuLog2 = m.reg('gen_mtu_log2_reg', UInt(4));
  const gVa = m.reg('gen_va_reg', UInt(64));
  const gRkey = m.reg('gen_rkey_reg', UInt(32));
  const gLen = m.reg('gen_len_reg', UInt(32));
  const gRead = m.reg('gen_read_reg', Bool);
  const gDestQpn = m.reg('gen_dest_qpn_reg', UInt(24));
  const gDestMac = m.reg('gen_dest_mac_reg', UInt(48));
  const gDestIp = m.reg('gen_dest_ip_reg', UInt(32));
  const gSport = m.reg('gen_sport_reg', UInt(16));
  const gHighValid = m.reg('gen_high_valid_reg', Bool);
  const gHigh = m.reg('gen_high_psn_reg', UInt(24));
  // The command on m_pkt_cmd (cut, not yet taken), and beside it what the abort needs: its QP,
  // message id, offset in its DMA message, payload, whether it is its message's first on the
  // wire, and the QP's newest PSN sent before its message (for rewind_high).
  const pktValid = m.reg('pkt_valid_reg', Bool);
  const pktData = m.reg('pkt_data_reg', TxPktCmd, { reset: null });
  const pktRetx = m.reg('pkt_retx_reg', Bool);
  const G = abOn ? {
    qp: m.reg('gen_qp_reg', UInt(qw)),
    msg: m.reg('gen_msg_reg', UInt(REQ_TX_MSG_ID_WIDTH)),
    off: m.reg('gen_off_reg', UInt(32)),
    pktQp: m.reg('pkt_qp_reg', UInt(qw)),
    pktMsg: m.reg('pkt_msg_reg', UInt(REQ_TX_MSG_ID_WIDTH)),
    pktOff: m.reg('pkt_off_reg', UInt(32)),
    pktHasPay: m.reg('pkt_has_payload_reg', Bool),
    pktFirst: m.reg('pkt_first_reg', Bool),
    pktHighValid: m.reg('pkt_high_valid_reg', Bool),
    pktHigh: m.reg('pkt_high_psn_reg', UInt(24)),
  } : undefined;

  // ---- ReqEntry -------------------------------------------------------------------------------
  // A WRITE starts in WAIT already, in the cycle its OK status arrives (no START cycle), when
  // the generator is free: the PSNs then come straight from SQ_PSN, and the registers that
  // START would use load at the same edge, so an entry not taken in WAIT stays the same in
  // START. valid depends on the status' valid, never on a ready.
  const inWait = fsm.is('WAIT');
  const statusOk = m.let('dma_status_ok', statusIn.land(sStatus.data.field('status').eq(XLATE_STATUS.OK)));
  const startNow0 = fsm.is('START').lor(inWait.land(statusOk)).land(genBusy.lnot());
  const startNow = m.let('start_now', heldDrop ? startNow0.land(heldDrop.lnot()) : startNow0);
  m.assert(fsm.is('PSN').lnot().lor(nFresh), 'the packet count is read in the cycle after its WQE was taken');
  // The message is handed over (entry pushed, generator loaded) at this edge.
  const startTake = m.let('start_take', startNow.land(mReq.ready));
  const sqFirst = m.let('sq_first_psn', sqPsn);
  const sqLast = m.let('sq_last_psn', sqPsn.addw(nPktsMinus1));
  const sqNext = m.let('sq_next_psn', sqPsn.addw(nPkts));
  // The first PSN on the wire: the resume PSN when the message restarts inside.
  const wireFirst = m.reg('wire_first_psn_reg', UInt(24));
  const sqWireFirst = m.let('sq_wire_first_psn', mux(resumeReg, resumePsnReg, sqFirst));
  const startFirst = m.let('start_first_psn', mux(inWait, sqWireFirst, wireFirst));
  const startMsgFirst = m.let('start_msg_first_psn', mux(inWait, sqFirst, firstPsn));
  const startLast = m.let('start_last_psn', mux(inWait, sqLast, lastPsn));
  const startNext = m.let('start_next_psn', mux(inWait, sqNext, gNext));
  mReq.valid.set(fsm.is('ERR').lor(startNow));
  mReq.data.set(pack(ReqEntry, {
    qp: hq, wrId: cur.field('wrId'), opcode: cur.field('opcode'), length: len,
    firstPsn: startFirst, lastPsn: startLast, msgFirstPsn: startMsgFirst, ringIndex: cur.field('ringIndex'),
    signaled: cur.field('flags').bit(Math.log2(WQE_FLAG.SIGNALED)), status: entryStatus,
  }));

  mReadCtx.valid.set(fsm.is('RCTX'));
  mReadCtx.data.set(pack(ReadCtx, {
    qp: hq, wrId: cur.field('wrId'), firstPsn: wireFirst, lastPsn, length: len, startOff: mux(resumeReg, skipBytesReg, lit(0, 32)), pd, pmtu: mtuLog2,
    numSge: cur.field('numSge').trunc(3), sge: cur.field('sge').as(Vec(ReadSge, MAX_SGE)),
  }));

  const updValid = m.reg('psn_upd_valid_reg', Bool);
  const updQp = m.reg('psn_upd_qp_reg', UInt(qw));
  const updValue = m.reg('psn_upd_value_reg', UInt(24));
  const errValid = m.reg('qp_error_valid_reg', Bool);
  const errQp = m.reg('qp_error_qp_reg', UInt(qw));
  const parkValid = m.reg('park_valid_reg', Bool);
  const parkData = m.reg('park_data_reg', parkStruct(qw), { reset: null });
  m.unused(parkData, 'its valid bit: park_valid_reg (with reset) says when it is valid');
  updValid.set(0);
  errValid.set(0);
  parkValid.set(0);

  // ---- rewind: between two WQEs of the QP (never while one of them is half sent) ------------------
  const rwQp = sRewind.data.field('qp');
  const unlessBlocked = (v: Value): Value => (abBlock ? v.land(abBlock.lnot()) : v);
  m.unused(sRewind.data, 'ringIdx is for the fetch stage (the tracker applies it there)');
  // Not in CHECK, where a park may be decided (parkNow), nor while it is on m_park
  // (park_valid_reg, the cycle after): the tracker takes one of them per cycle (its
  // fetch_rewind carries one). Nor while a message is offered to the tracker (start_now): its
  // hand-over publishes SQ_PSN on the same sq_psn_upd. Both from registers (CHECK, not parkNow;
  // start_now, not start_take): s_rewind_ready goes through nic_top's rewind fork into
  // nic_read_resp_rx's s_hdr_ready and nic_responder's decision, and parkNow is the whole WQE
  // check (docs/synth.md, "The WQE path across module boundaries"). A rewind waits a cycle
  // longer when it meets a CHECK, or a start the tracker is not ready for.
  // With dmaAbort, not while the QP has a message in the generator or on m_pkt_cmd with payload
  // still to cut, or a WRITE past its first DMA command here (need_abort: the abort below cuts
  // them first), nor while that abort runs.
  // The generator's term needs payload left to cut (gen_rem_reg != 0): a zero-length WRITE has
  // no bytes in nic_dma_read, so its abort finds no cut and can only report "nothing left" once
  // nic_dma_read is empty, while the QP's message it withholds freezes the generator and with it
  // the packet commands of the later messages whose payload fills nic_dma_read (regress soak
  // seed 1625113463: B QP 0's zero-length WRITE in the generator, QP 2's payload at the DMA
  // head, every QP stopped). Without payload the rewind waits for the packet to be cut, as
  // before the abort.
  const needAbort = G ? m.let('need_abort', genBusy.land(G.qp.eq(rwQp)).land(gRead.lnot()).land(gRem.ne(0))
    .lor(pktValid.land(G.pktQp.eq(rwQp)).land(G.pktHasPay))
    .lor(hq.eq(rwQp).land(fsm.is('DMA').lor(fsm.is('WAIT')).lor(fsm.is('START').land(heldIsWrite))))) : undefined;
  const abBlock = needAbort && abFsm ? m.let('abort_blocks_rewind', needAbort.lor(abFsm.is('IDLE').lnot().land(abFsm.is('DONE').lnot()).land(abQp!.eq(rwQp)))) : undefined;
  const rwSafe = m.let('rewind_safe', unlessBlocked(fsm.is('IDLE').lor(hq.ne(rwQp)).land(startNow.lnot()).land(fsm.is('CHECK').lnot()).land(parkValid.lnot())));
  sRewind.ready.set(rwSafe);
  const rwFire = m.let('rewind_fire', sRewind.valid.land(rwSafe));
  // SQ_PSN only for a connected QP: software may be programming it (RESET, INIT, RTR).
  const rwState = qpCtx.at(rwQp).field('state');
  m.if(rwFire.land(rwState.eq(QP_STATE.RTS).lor(rwState.eq(QP_STATE.ERROR))), () => { updValid.set(1); updQp.set(rwQp); updValue.set(sRewind.data.field('sqPsn')); });

  const takePsns = (): void => {
    firstPsn.set(sqFirst);
    lastPsn.set(sqLast);
    gNext.set(sqNext);
    wireFirst.set(sqWireFirst);
  };
  // The message is handed over at this edge (in START, or in WAIT with its status): publish
  // SQ_PSN (valid from the next cycle), mark a READ for the fence, back to IDLE.
  const started = (): void => {
    updValid.set(1);
    updQp.set(wq);
    updValue.set(startNext);
    m.if(isRead, () => { markCnt.set(READ_MARK_CYCLES); markQp.set(wq); });
    fsm.goto('IDLE');
  };
  // The first DMA command went (IDLE or CHECK): on to the next SGE, or wait for the status.
  const firstDmaTaken = (): void => {
    sgeIdx.set(1);
    fsm.goto('DMA');
    m.if(lastSge, () => fsm.goto('WAIT'));
  };
  const latchCheck = (): void => {
    entryStatus.set(checkStatus);
    firstPsn.set(0);
    lastPsn.set(0);
    wireFirst.set(0);
    mtuLog2.set(pmtuClamped);
    pd.set(ctx.field('pd'));
    sgeIdx.set(mux(resuming, seekSge, lit(0, 2)));
    resumeReg.set(resuming);
    resumePsnReg.set(tp.field('resumePsn'));
    skipPktsReg.set(mux(resuming, skipPkts.trunc(6), lit(0, 6)));
    skipBytesReg.set(mux(resuming, skipBytes, lit(0, 32)));
    skipSgeReg.set(seekSge);
    skipOffReg.set(seekOff.trunc(32));
  };
  const parkIt = (): void => {
    parkValid.set(1);
    parkData.set(pack(parkStruct(qw), { valid: 1, qp: wq, ringIdx: wqe.field('ringIndex'), reason: parkReason }));
    fsm.goto('IDLE');
  };
  sWqe.ready.set(fsm.is('IDLE').land(sRewind.valid.lnot()));
  fsm.states({
    IDLE: () => m.if(sWqe.valid.land(sRewind.valid.lnot()), () => {
      cur.set(sWqe.data);
      m.if(unlessDrop(stale.lnot()), () => {
        fsm.goto('CHECK');
        m.if(checkDma.land(mDma.ready), () => { latchCheck(); firstDmaTaken(); });
      });
    }),
    CHECK: dropOr(() => {
      latchCheck();
      m.if(parkNow, parkIt)
        .elif(good.lnot(), () => fsm.goto('ERR'))
        .elif(isRead, () => fsm.goto('PSN'))
        .else(() => {
          fsm.goto('DMA');
          m.if(checkDma.land(mDma.ready), firstDmaTaken);
        });
    }),
    DMA: () => {
      const next = (): void => {
        m.if(mDma.ready, () => {
          sgeIdx.set(sgeIdx.addw(1));
          m.if(lastSge, () => fsm.goto('WAIT'));
        });
      };
      if (dmaFresh) m.if(dmaFresh, () => fsm.goto('IDLE')).else(next); else next();
    },
    // A WRITE's PSNs are taken with its DMA status (no PSN cycle), and with a free generator
    // the message starts right here (see start_now).
    WAIT: () => m.if(statusIn, dropOr(() => {
      m.if(statusOk, () => {
        takePsns();
        fsm.goto('START');
        m.if(startTake, started);
      }).else(() => {
        entryStatus.set(CQE_STATUS.LOCAL_PROTECTION_ERROR);
        errValid.set(1);
        errQp.set(wq);
        for (let i = 0; i < p.numQp; i++) m.if(wq.eq(i), () => errSeen.setBits(i, i, 1));
        fsm.goto('ERR');
      });
    })),
    PSN: dropOr(() => {
      takePsns();
      m.if(isRead, () => fsm.goto('RCTX')).else(() => fsm.goto('START'));
    }),
    RCTX: () => m.if(mReadCtx.ready, () => fsm.goto('START')),
    START: dropOr(() => m.if(startTake, started)),
    ERR: () => m.if(mReq.ready, () => fsm.goto('IDLE')),
  });
  psnUpd.set(pack(qpUpdate('SQ_PSN', p.numQp), { valid: updValid, qp: updQp, value: updValue }));
  qpError.set(pack(qpErrorEvent(p.numQp), { valid: errValid, qp: errQp }));
  parkOut.set(pack(parkStruct(qw), { valid: parkValid, qp: parkData.field('qp'), ringIdx: parkData.field('ringIdx'), reason: parkData.field('reason') }));

  // ---- packet generator -----------------------------------------------------------------------
  // While a message runs (gen_busy_reg) the generator cuts from its registers. Idle, it cuts the
  // message handed over at this edge straight from its sources (the now() values), so the first
  // command is in pkt_data_reg at the hand-over edge: offered one cycle after the ReqEntry was
  // taken, and one cycle earlier than a register load would allow. A resumed message starts
  // skip_bytes in: its first packet is cut as packet k of the message.
  const now = (reg: Value, atStart: Value | number): Value => mux(genBusy, reg, atStart);
  const startRem = m.let('start_rem', len.subw(skipBytesReg));
  const cPsn = m.let('gen_cur_psn', now(gPsn, startFirst));
  const cRem = m.let('gen_cur_rem', now(gRem, startRem));
  const cFirst = m.let('gen_cur_first', mux(genBusy, gFirst, resumeReg.lnot()));
  const cCount = m.let('gen_cur_count', now(gCount, skipPktsReg));
  const cRead = m.let('gen_cur_read', now(gRead, heldIsRead));
  const cHighValid = m.let('gen_cur_high_valid', now(gHighValid, tp.field('highValid')));
  const cHigh = m.let('gen_cur_high', now(gHigh, tp.field('sentHigh')));
  const mtu = m.let('gen_mtu', lit(1, 13).shl(now(gMtuLog2, mtuLog2)));
  // A READ is one request packet whatever its length (the responses carry the data).
  const gLast = m.let('gen_last', cRead.lor(cRem.le(mtu.zext(32))));
  const writeOpcode = mux(cFirst, mux(gLast, lit(WRITE_OPCODE.ONLY, 8), lit(WRITE_OPCODE.FIRST, 8)),
    mux(gLast, lit(WRITE_OPCODE.LAST, 8), lit(WRITE_OPCODE.MIDDLE, 8)));
  const opcode = mux(cRead, lit(READ_REQUEST_OPCODE, 8), writeOpcode);
  const ipCfg = cfg.field('ipCfg');
  const rethVaStart = m.let('start_reth_va', cur.field('remoteVa').addw(skipBytesReg.zext(64)));
  const payLen = m.let('gen_payload_len', mux(cRead, lit(0, 13), mux(gLast, cRem.trunc(13), mtu)));
  const cmd = pack(TxPktCmd, {
    opcode, destQpn: now(gDestQpn, hctx.field('destQpn')), psn: cPsn, ackReq: gLast.lor(cCount.eq(ACKREQ_INTERVAL - 1)),
    payloadLen: payLen,
    // A READ re-requested from inside asks for the rest only: RETH va and length advanced.
    hasReth: cFirst.lor(cRead), rethVa: now(gVa, rethVaStart), rethRkey: now(gRkey, cur.field('rkey')), rethLen: now(gLen, startRem),
    hasAeth: 0, aethSyndrome: 0, aethMsn: 0,
    srcMac: cfg.field('mac'), dstMac: now(gDestMac, hctx.field('destMac')), srcIp: cfg.field('ipAddr'),
    dstIp: now(gDestIp, hctx.field('destIp')), srcPort: now(gSport, hctx.field('udpSport')),
    ttl: ipCfg.bits(7, 0), dscp: ipCfg.bits(13, 8),
  });
  // An abort withholds the QP's command (valid falls without a handshake: nic_tx_cmd_mux keeps
  // nothing of an offered command it did not take) and stops cutting the QP's message.
  // Except while HOLD waits for a WRITE of the QP half handed to the DMA (abort_release): then
  // the QP's payload commands go on, and each is dropped in nic_tx_frame_gate as it comes in
  // (gate_drop). Why: nic_dma_read takes the WRITE's next SGE only with its translation request
  // register free, which needs its translation answers taken, which needs its burst generator
  // free, which needs the R beats in flight taken: they are the QP's next packet, whose command
  // would be withheld. Withheld, nothing moves again (soak seeds 1164272509, 1926268528: the QP
  // hung in HOLD; 11n's smaller read window made it likely). Commands without payload stay
  // withheld (they block no payload, and a READ REQUEST sent would be answered).
  const abHere = (q: Value): Value | undefined => (abFsm ? abFsm.is('IDLE').lnot().land(q.eq(abQp!)) : undefined);
  const abRelease = abFsm && dmaSent ? m.let('abort_release', abFsm.is('HOLD').land(fsm.is('DMA')).land(dmaSent).land(wq.eq(abQp!))) : undefined;
  const withheld = G ? m.let('pkt_withheld', andNot(abHere(G.pktQp)!, abRelease?.land(G.pktHasPay))) : undefined;
  mPkt.valid.set(withheld ? pktValid.land(withheld.lnot()) : pktValid);
  mPkt.data.set(pktData);
  const pktTaken = m.let('pkt_taken', mPkt.valid.land(mPkt.ready));
  // startTake only when !genBusy, so the two never compete.
  const genFree = G ? andNot(genBusy.land(abHere(G.qp)!), abRelease).lnot() : lit(1, 1);
  const emit = m.let('gen_emit', genBusy.lor(startTake).land(pktValid.lnot().lor(pktTaken)).land(genFree));
  m.if(pktTaken, () => pktValid.set(0));
  m.if(startTake, () => {
    genBusy.set(1);
    gPsn.set(startFirst);
    gRem.set(startRem);
    gFirst.set(resumeReg.lnot());
    gCount.set(skipPktsReg);
    gMtuLog2.set(mtuLog2);
    gVa.set(rethVaStart);
    gRkey.set(cur.field('rkey'));
    gLen.set(startRem);
    gRead.set(heldIsRead);
    gHighValid.set(tp.field('highValid'));
    gHigh.set(tp.field('sentHigh'));
    // The previous message may still be cut while this one waits in PSN/START, so the QP's
    // addressing is latched only now.
    gDestQpn.set(hctx.field('destQpn'));
    gDestMac.set(hctx.field('destMac'));
    gDestIp.set(hctx.field('destIp'));
    gSport.set(hctx.field('udpSport'));
  });
  // Cut one packet (overrides the hand-over's first-packet values when both happen). A packet is
  // counted as a retransmission when its command is taken (an abort may drop one cut before).
  const retxValid = m.reg('retx_valid_reg', Bool);
  retxValid.set(pktTaken.land(pktRetx));
  cntRetx.set(retxValid);
  const cOff = G ? m.let('gen_cur_off', now(G.off, lit(0, 32))) : undefined;
  if (G) {
    m.if(startTake, () => { G.qp.set(wq); G.msg.set(msgCnt!.subw(1)); G.off.set(0); });
  }
  m.if(emit, () => {
    pktValid.set(1);
    pktData.set(cmd);
    pktRetx.set(cHighValid.land(psnGe(cHigh, cPsn)));
    if (G && cOff) {
      G.off.set(cOff.addw(payLen.zext(32)));
      G.pktQp.set(now(G.qp, wq));
      G.pktMsg.set(now(G.msg, msgCnt!.subw(1)));
      G.pktOff.set(cOff);
      G.pktHasPay.set(payLen.ne(0));
      G.pktFirst.set(cOff.eq(0));
      G.pktHighValid.set(cHighValid);
      G.pktHigh.set(cHigh);
    }
    gPsn.set(cPsn.addw(1));
    gRem.set(cRem.subw(mtu.zext(32)));
    gFirst.set(0);
    gCount.set(cCount.addw(1));
    m.if(gLast, () => genBusy.set(0));
  });
  if (AB && G && abFsm && abQp && dmaSent) abortEngine(AB, G, abFsm, abQp, dmaSent);
  else rwHighOut.set(0);

  /**
   * The DMA abort at a rewind (docs/nic-reliability.md "NAK-path recovery"). A rewind for a QP
   * whose message has payload left to cut here (need_abort) starts it:
   *   HOLD : the QP's command on m_pkt_cmd is withheld and its message no longer cut, its WQEs
   *          here are dropped where they would start; wait until no payload of the QP's
   *          commands already taken is still on its way out of nic_dma_read (pay_out) and no
   *          WRITE of the QP is half handed to the DMA: the QP's stream is at a packet boundary;
   *   REQ  : s_abort {qp} to nic_dma_read: it cuts the QP's stream there (its report is checked
   *          against the end of the last command taken) and drops the rest of its messages;
   *   WAIT : at the report the generator's message of the QP ends and its withheld command is
   *          dropped; rewind_high gets the QP's newest PSN really passed on;
   *   DONE : until the rewind is taken (rewind_safe: the dropped WQE's DMA status taken too).
   */
  function abortEngine(ab: NonNullable<typeof AB>, g: NonNullable<typeof G>, fsmA: NonNullable<typeof abFsm>, q: NonNullable<typeof abQp>, sent: Value): void {
    const payOut = m.reg('pay_out_reg', UInt(2));
    const grQp = m.reg('granted_qp_reg', UInt(qw));
    const grMsg = m.reg('granted_msg_reg', UInt(REQ_TX_MSG_ID_WIDTH));
    const grEnd = m.reg('granted_end_reg', UInt(32));
    const grant = m.let('pay_grant', pktTaken.land(g.pktHasPay));
    m.if(grant.land(ab.payEnd.lnot()), () => payOut.set(payOut.addw(1))).elif(ab.payEnd.land(grant.lnot()), () => payOut.set(payOut.subw(1)));
    m.assert(ab.payEnd.lnot().lor(payOut.ne(0)), 'pay_end without a payload command taken');
    m.if(grant, () => { grQp.set(g.pktQp); grMsg.set(g.pktMsg); grEnd.set(g.pktOff.addw(pktData.field('payloadLen').zext(32))); });
    // What rewind_high and RETX_PKTS need of the last payload command taken, should the gate
    // drop it: its PSN, whether it was its message's first on the wire, the newest PSN sent
    // before its message, and whether it is a retransmission.
    const grPsn = m.reg('granted_psn_reg', UInt(24));
    const grFirst = m.reg('granted_first_reg', Bool);
    const grHv = m.reg('granted_high_valid_reg', Bool);
    const grHigh = m.reg('granted_high_psn_reg', UInt(24));
    const grRetx = m.reg('granted_retx_reg', Bool);
    const grDropped = m.reg('granted_dropped_reg', Bool);
    m.if(grant, () => {
      grPsn.set(pktData.field('psn')); grFirst.set(g.pktFirst); grHv.set(g.pktHighValid); grHigh.set(g.pktHigh);
      grRetx.set(pktRetx); grDropped.set(0);
    });
    // The gate drop: the QP's packet whose payload is still coming out of nic_dma_read (its
    // command taken, so it waits on nic_tx_frame_gate's s_cmd until its tlast) is dropped there
    // as the abort starts, its payload left (up to its tlast) discarded at one beat per cycle:
    // HOLD then ends as soon as nic_dma_read has sent that tlast, not when the wire has made room
    // for the packet, and the packet does not go out ahead of the resend. Registers only (the
    // gate's s_payload_tready must not depend on it: pay_end does).
    const gateDrop = m.let('gate_drop_now', fsmA.is('HOLD').land(payOut.ne(0)).land(grQp.eq(q)).land(grDropped.lnot()));
    ab.gateDrop.set(gateDrop);
    // A command taken in the drop's cycle (its tlast went in then, and the next payload command
    // is granted at once: another QP's, or the QP's own released one) is not the dropped one.
    // (Soak seed 273488280: marked dropped, the QP's released packet was not, and the abort cut
    // inside it.)
    m.if(gateDrop.land(grant.lnot()), () => grDropped.set(1));
    // This abort's drop, and what it needs of the dropped packet later (other QPs' commands are
    // taken again once its payload's cut tlast has passed, and overwrite the granted_* registers).
    const abDrop = m.reg('abort_dropped_reg', Bool);
    const dMsg = m.reg('abort_dropped_msg_reg', UInt(REQ_TX_MSG_ID_WIDTH));
    const dEnd = m.reg('abort_dropped_end_reg', UInt(32));
    const dHv = m.reg('abort_dropped_high_valid_reg', Bool);
    const dHigh = m.reg('abort_dropped_high_psn_reg', UInt(24));
    const grPrev = grPsn.subw(1);
    m.if(gateDrop, () => {
      abDrop.set(1); dMsg.set(grMsg); dEnd.set(grEnd);
      // The QP's newest PSN passed on: the one before the (first) dropped packet, unless that is
      // its message's first on the wire: then the newest before its message. (Packets released
      // after it, abort_release, are dropped too: they do not count.)
      m.if(abDrop.lnot(), () => {
        dHv.set(grFirst.lnot().lor(grHv));
        dHigh.set(mux(grFirst.lor(grHv.land(psnGt(grHigh, grPrev))), grHigh, grPrev));
      });
    });
    if (abRelease) m.cover(abRelease.land(pktTaken), 'abort_release_taken');
    // RETX_PKTS counts what the wire sees twice: a payload packet counts when its tlast has gone
    // into the gate undropped (pay_end), a command without payload when it is taken.
    // Both can happen in one cycle (a resent READ REQUEST taken as a resent packet's tlast goes
    // in): a few are kept in retx_pend_reg and counted one per cycle (cnt_retx is one bit).
    const retxCmd = m.let('retx_cmd', pktTaken.land(pktRetx).land(g.pktHasPay.lnot()));
    const retxPay = m.let('retx_pay', ab.payEnd.land(grRetx).land(grDropped.lor(gateDrop).lnot()));
    const retxPend = m.reg('retx_pend_reg', UInt(3));
    const retxSum = m.let('retx_sum', retxPend.addw(retxCmd.zext(3)).addw(retxPay.zext(3)));
    retxValid.set(retxSum.ne(0));
    retxPend.set(mux(retxSum.ne(0), retxSum.subw(1), retxSum));
    m.assert(retxPend.ne(7), 'RETX_PKTS: more than 6 resent packets waiting to be counted');
    m.cover(gateDrop, 'abort_gate_drop');

    // The QP was RESET while its abort ran: its rewind is dropped by the tracker (and the QP may
    // be connected again before DONE), so DONE does not wait for it.
    const wasReset = m.reg('abort_qp_reset_reg', Bool);
    const inReset = qpCtx.at(q).field('state').eq(QP_STATE.RESET);
    m.if(fsmA.is('IDLE'), () => wasReset.set(0)).elif(inReset, () => wasReset.set(1));
    const hv = m.reg('abort_high_valid_reg', Bool);
    const hHv = m.reg('abort_high_hv_reg', Bool);
    const hPsn = m.reg('abort_high_psn_reg', UInt(24));
    const rep = ab.done.data;
    // abort_dropped_reg: the gate drops the packet in progress, so the DMA may cut inside it (dma_abort_open).
    const atBoundary = m.let('abort_at_boundary', payOut.ne(0).land(grQp.eq(q)).land(abDrop.lnot()).lnot().land(fsm.is('DMA').land(sent).land(wq.eq(q)).lnot()));
    ab.req.valid.set(fsmA.is('REQ'));
    ab.req.data.set(pack(dmaAbortReq(p.numQp), { qp: q }));
    // Registers only: it changes with the dropped packet's tlast (pay_end), which nic_dma_read
    // sends; at its cut it sends one empty tlast beat if, and only if, the packet is open. (It may
    // be high after the abort, abort_dropped_reg staying until the next one: nic_dma_read looks
    // at it only while an abort cuts, and the next abort's HOLD clears it before its REQ.)
    ab.abortOpen.set(m.let('abort_open', abDrop.land(payOut.ne(0)).land(grQp.eq(q))));
    ab.done.ready.set(fsmA.is('WAIT'));
    const matches = m.let('abort_report_granted', grQp.eq(q).land(grMsg.eq(rep.field('msg'))));
    // After a gate drop the cut is inside the dropped packet, or right after it: at its end, or
    // before the QP's next message (offset 0 of another message) when the packet's tlast left
    // nic_dma_read before the abort came (abort_open fell: soak seeds 938153264, 1926268528).
    const dropCutOk = m.let('abort_drop_cut_ok', mux(rep.field('msg').eq(dMsg), rep.field('offset').le(dEnd), rep.field('offset').eq(0)));
    m.assert(fsmA.is('WAIT').land(ab.done.valid).land(rep.field('none').lnot()).lnot()
      .lor(mux(abDrop, dropCutOk, rep.field('offset').eq(mux(matches, grEnd, lit(0, 32))))),
      'the DMA abort cut the stream elsewhere than right after the last packet command taken (or inside the packet the gate dropped)');
    // The QP's newest PSN passed on: before the withheld command (or the generator's next one),
    // unless that is its message's first on the wire: then the newest before its message.
    const wQ = m.let('abort_withheld_here', pktValid.land(g.pktQp.eq(q)));
    const pPrev = pktData.field('psn').subw(1);
    const wHigh = mux(g.pktFirst.lor(g.pktHighValid.land(psnGt(g.pktHigh, pPrev))), g.pktHigh, pPrev);
    // The generator's message of the QP ends here, a READ too (its request not cut yet: the
    // rewind resends it; cut after the dropped packets, its PSN would come out of order).
    const gQ = m.let('abort_gen_here', genBusy.land(g.qp.eq(q)));
    const gAny = g.off.ne(0);
    const gPrev = gPsn.subw(1);
    const gHighNow = mux(gAny.lnot().lor(gHighValid.land(psnGt(gHigh, gPrev))), gHigh, gPrev);
    const payLessWaits = m.let('abort_payless_waits', pktValid.land(g.pktQp.eq(rwQp)).land(g.pktHasPay.lnot()));
    m.cover(fsmA.is('IDLE').land(sRewind.valid).land(needAbort!).land(ab.req.ready).land(payLessWaits), 'abort_held_for_payless_cmd');
    fsmA.states({
      // Only once nic_dma_read's previous abort is closed (s_abort ready): it stays open until
      // every message inside is out, so withholding this QP's commands before that could hold
      // up a message of this QP the previous abort waits for (regress soak seed 20: deadlock).
      // Nor while a command of the QP without payload waits on m_pkt_cmd: withheld, it would
      // stop the generator's next message (another QP's, payload in nic_dma_read ahead of
      // this QP's), and the abort finds no cut before that payload is out (as for seed
      // 1625113463 above); it is taken unheld meanwhile (the rewind stays blocked).
      // abort_dropped_reg: only a drop of this abort counts.
      IDLE: () => m.if(sRewind.valid.land(needAbort!).land(ab.req.ready).land(payLessWaits.lnot()), () => { q.set(rwQp); abDrop.set(0); fsmA.goto('HOLD'); }),
      HOLD: () => m.if(atBoundary, () => fsmA.goto('REQ')),
      REQ: () => m.if(ab.req.ready, () => fsmA.goto('WAIT')),
      WAIT: () => m.if(ab.done.valid, () => {
        m.if(gQ, () => genBusy.set(0));
        m.if(wQ, () => pktValid.set(0));
        hv.set(wQ.lor(gQ).lor(abDrop));
        // A packet the gate dropped came before the withheld command and the generator's next.
        hHv.set(mux(abDrop, dHv, mux(wQ, g.pktFirst.lnot().lor(g.pktHighValid), gAny.lor(gHighValid))));
        hPsn.set(mux(abDrop, dHigh, mux(wQ, wHigh, gHighNow)));
        fsmA.goto('DONE');
      }),
      DONE: () => m.if(rwFire.land(rwQp.eq(q)).lor(inReset).lor(wasReset), () => { hv.set(0); fsmA.goto('IDLE'); }),
    });
    rwHighOut.set(pack(RewindHigh, { valid: fsmA.is('DONE').land(hv).land(rwQp.eq(q)), highValid: hHv, sentHigh: hPsn }));
    // After an abort nothing of the QP may be cut or offered when its rewind is taken: it would
    // go out with its old PSNs ahead of the resend, past the packets the abort dropped.
    m.assert(fsmA.is('DONE').land(rwFire).land(rwQp.eq(q)).land(genBusy.land(g.qp.eq(q)).lor(pktValid.land(g.pktQp.eq(q)))).lnot(),
      'a rewind taken after a DMA abort while the QP still has a message in the generator or a command on m_pkt_cmd');
    m.cover(fsmA.is('HOLD').land(atBoundary.lnot()), 'abort_waits_for_payload');
    m.cover(fsmA.is('WAIT').land(ab.done.valid).land(rep.field('none').lnot()).land(rep.field('offset').ne(0)), 'abort_cut_inside_message');
    m.cover(fsmA.is('WAIT').land(ab.done.valid).land(rep.field('none').lnot()).land(rep.field('offset').eq(0)), 'abort_cut_before_message');
    m.cover(fsmA.is('WAIT').land(ab.done.valid).land(rep.field('none')), 'abort_nothing_left');
    m.cover(fsmA.is('WAIT').land(ab.done.valid).land(wQ), 'abort_drops_withheld_command');
  }

  return {
    clk, rst, ...qpCtx.ports, cfg, s_wqe: sWqe, m_dma_cmd: mDma, s_dma_status: sStatus, m_pkt_cmd: mPkt, m_req: mReq,
    m_read_ctx: mReadCtx, read_busy: readBusy, ctx_room: ctxRoom, s_rewind: sRewind, tp_qp: tpQp, tp, m_park: parkOut,
    sq_psn_upd: psnUpd, qp_error: qpError, cnt_retx: cntRetx, rewind_high: rwHighOut,
    ...(AB ? { m_dma_tag: AB.tag, m_abort: AB.req, s_abort_done: AB.done, pay_end: AB.payEnd, gate_drop: AB.gateDrop, dma_abort_open: AB.abortOpen } : {}),
  };
}, { doc: 'Requester TX: WQE checks, parking (fence, READ limit, tracker room), go-back-N resume, DMA read commands per SGE, RDMA WRITE packet commands at the path MTU, READ REQUEST + read_ctx, ReqEntry to the ACK tracker', params: { rules: { ctxPort: ctxPortRule } } });
