// nic_read_resp_rx: the requester's RDMA READ response receiver (docs/nic-read.md).
//
//   s_ctx ──► per-QP context FIFOs (readsPerQp each; the head is the READ being answered)
//   s_hdr ──► header FSM: IDLE → CHECK → [CUT] → [DONE] → IDLE
//               CHECK  expected PSN (started ? nextPsn : firstPsn): behind or ahead → drop;
//                      equal → opcode sequence, length → on error a completion, payload dropped
//               CUT    one DmaWriteCmd per SGE piece of the packet (zero-length SGEs skipped),
//                      its length to the byte splitter and a "wait for a status" entry
//               DONE   the READ's last packet: its completion entry
//   s_payload ► drop, or nic_byte_splitter (re-packs each piece from byte 0) ► m_payload
//   pending FIFO (status waits and completions, in decision order) + s_dma_status ► m_done
//
// Every DmaWriteCmd and every completion go through the one pending FIFO, so a READ's
// m_done leaves only after the statuses of all its pieces (its bytes are in host memory),
// and the completions of one QP keep posting order. A DMA error marks the QP; the READ's
// completion then says LOCAL_PROTECTION_ERROR (once: one completion per READ). Once that error
// is back, the READ's later packets are still checked (PSN, sequence, length) but their
// payload is dropped, no DMA command: nothing more of a failed READ lands (pieces already
// sent to the DMA before the error came back still do). Pending entries carry a per-QP READ
// number, so an error is matched to its READ while the FSM is already on the next one.
//
// NAK 0x61..0x63 (s_ack, always ready) are queued and applied by the header FSM when IDLE,
// in arrival order: a NAK whose PSN lies in [expected, lastPsn] of the QP's head READ
// completes it with the NAK's status and syndrome. A QP in ERROR or RESET loses its contexts
// and pending completions silently: the ACK tracker flushes those work requests itself.

import { Bool, cat, defineModule, lit, mux, pack, Struct, UInt, Vec, type Sig, type Shape, type SignalValue, type Value, intIn, oneOf } from '../hdl/index.ts';
import { syncFifo, syncFifoRam } from '../lib/fifo.ts';
import { stream } from '../lib/interfaces.ts';
import { nicByteSplitter, PIECE_LEN_BITS } from './byte-splitter.ts';
import { QpCtx } from './ctx.ts';
import { ackInStruct, LOCAL_QPN_BASE } from './flow-types.ts';
import { nakCqeStatus } from './nak-status.ts';
import { readCtxStruct, readDoneStruct, READ_RESP } from './read-types.ts';
import { CQE_STATUS, MAX_SGE, QP_STATE } from './regmap.ts';
import { byteStream, DmaStatus, DmaWriteCmd, qpIndexWidth, RxPktHdr, XLATE_ACCESS, XLATE_STATUS } from './types.ts';

export type ReadRespRxParams = {
  dataWidth: number;
  numQp: number;
  /** READ contexts per QP (>= 1): s_ctx is not ready for a QP holding this many, so the
   *  requester (nic_req_tx, which registers a READ before sending it) keeps at most this many
   *  READs outstanding per QP. nic_top's `readsPerQp` (docs/nic-read.md). */
  readsPerQp: number;
  /** Landing FIFO on m_payload in bytes (a power of two beats, at least 2). Default: one
   *  4 KiB-MTU packet, so nic_dma_write translates the next piece while this one drains. */
  landBytes?: number;
};

const LAND_BYTES = 4096;

function landDepth(p: ReadRespRxParams): number {
  const depth = (p.landBytes ?? LAND_BYTES) / (p.dataWidth / 8);
  if (!Number.isInteger(depth) || depth < 2 || !Number.isInteger(Math.log2(depth))) {
    throw new Error(`nic_read_resp_rx: landBytes ${p.landBytes ?? LAND_BYTES} is not a power of two >= 2 beats of ${p.dataWidth} bits`);
  }
  return depth;
}

/** Status waits and completions queued ahead of the DMA statuses. */
const PENDING = 16;
/** READ sequence numbers per QP (mod 2^SEQ_BITS) tag the pending entries: more than the READs
 *  of one QP the pending FIFO can hold, so a DMA error is matched to its READ unambiguously. */
const SEQ_BITS = Math.log2(PENDING) + 1;
/** NAKs 0x61..0x63 waiting for the header FSM (a QP sends one before it goes to ERROR). */
const NAK_QUEUE = 4;
/** Packets (with payload) and pieces decided ahead of their bytes. */
const PAY_JOBS = 8;

/** items[idx] as a mux chain (any count, no out-of-range index). */
function pick(idx: Value, items: readonly Value[]): Value {
  return items.slice(1).reduce((acc, v, i) => mux(idx.eq(i + 1), v, acc), items[0]!);
}

export const nicReadRespRx = defineModule('nic_read_resp_rx', { dataWidth: 64, numQp: 4, readsPerQp: 2 } as ReadRespRxParams, (m, p) => {
  const perQp = p.readsPerQp;
  if (!Number.isInteger(perQp) || perQp < 1) throw new Error(`nic_read_resp_rx: readsPerQp ${perQp} is not a positive integer`);
  // FIFO depth: a power of two of at least 2 words; a limit below it is kept by the count.
  const ctxDepth = Math.max(2, 2 ** Math.ceil(Math.log2(perQp)));
  const qw = qpIndexWidth(p.numQp);
  const sw = Math.ceil(Math.log2(MAX_SGE));
  const ReadCtx = readCtxStruct(p.numQp);
  const ReadDone = readDoneStruct(p.numQp);
  const AckIn = ackInStruct(p.numQp);
  /** One pending entry: wait for a DmaStatus (dma), or complete a READ. */
  const Pend = Struct('read_rx_pend', { dma: Bool, qp: UInt(qw), seq: UInt(SEQ_BITS), wrId: UInt(64), lastPsn: UInt(24), status: UInt(4), syndrome: UInt(8) });

  const { clk, rst } = m.clockAndReset();
  const qpCtx = m.input('qp_ctx', Vec(QpCtx, p.numQp));
  const sCtx = stream(ReadCtx).sink(m, 's_ctx');
  const sHdr = stream(RxPktHdr).sink(m, 's_hdr');
  const sPay = byteStream(p.dataWidth).sink(m, 's_payload');
  const sAck = stream(AckIn).sink(m, 's_ack');
  const mCmd = stream(DmaWriteCmd).source(m, 'm_dma_cmd');
  const mPay = byteStream(p.dataWidth).source(m, 'm_payload');
  const sStatus = stream(DmaStatus).sink(m, 's_dma_status');
  const mDone = stream(ReadDone).source(m, 'm_done');
  m.unused(qpCtx, 'only STATE is read (discard of contexts)');

  const st = (i: number | Value) => qpCtx.at(i).field('state');
  const dead: Value[] = [];
  for (let i = 0; i < p.numQp; i++) dead.push(m.let(`qp${i}_dead`, st(i).eq(QP_STATE.ERROR).lor(st(i).eq(QP_STATE.RESET))));
  const deadBits = m.let('dead_bits', dead.slice(1).reduce((acc, d, i) => d.zext(p.numQp).shl(i + 1).or(acc), dead[0]!.zext(p.numQp)));

  // ---- contexts --------------------------------------------------------------------------
  const ctxFifos = Array.from({ length: p.numQp }, (_, i) => m.instance(`u_ctx_fifo${i}`, syncFifo, { width: ReadCtx.width, depth: ctxDepth }));
  const cq = sCtx.data.field('qp');
  const room = ctxFifos.map((f, i) => m.let(`ctx_room${i}`, perQp === ctxDepth ? f.s.ready : f.count.lt(perQp)));
  sCtx.ready.set(pick(cq, room.map((r, i) => r.lor(dead[i]!))));
  ctxFifos.forEach((f, i) => {
    f.s.valid.set(sCtx.valid.land(cq.eq(i)).land(dead[i]!.lnot()).land(room[i]!));
    f.s.data.set(sCtx.data);
    if (perQp === ctxDepth) m.unused(f.count, 'the limit is the FIFO depth: s_ready is used');
    else m.unused(f.s.ready, 'the limit is below the FIFO depth: count is used');
    m.unused(f.full, 's_ready or count is used'); m.unused(f.empty, 'm_valid is used');
  });

  // ---- per-QP receive state ----------------------------------------------------------------
  const started = m.reg('started_reg', UInt(p.numQp));
  const nextPsn = m.reg('next_psn_reg', Vec(UInt(24), p.numQp), { reset: null });
  const msgOff = m.reg('msg_off_reg', Vec(UInt(32), p.numQp), { reset: null });
  const sgeIdx = m.reg('sge_idx_reg', Vec(UInt(sw), p.numQp), { reset: null });
  const sgeOff = m.reg('sge_off_reg', Vec(UInt(32), p.numQp), { reset: null });
  // The header FSM's READ of each QP, counted (tags its pending entries).
  const rdSeq = m.reg('rd_seq_reg', Vec(UInt(SEQ_BITS), p.numQp));
  // A DMA error of the QP came back (cleared when its READ completes), and that READ's tag.
  const dmaErr = m.reg('dma_err_reg', UInt(p.numQp));
  const errSeq = m.reg('err_seq_reg', Vec(UInt(SEQ_BITS), p.numQp), { reset: null });
  const setAt = (reg: { setBits(hi: number, lo: number, v: Value | number): void }, w: number, idx: Value, v: Value | number) => {
    for (let i = 0; i < p.numQp; i++) m.if(idx.eq(i), () => reg.setBits(w * i + w - 1, w * i, v));
  };

  // ---- queues to the data side and the pending FIFO ---------------------------------------
  const payJobs = m.instance('u_pay_jobs', syncFifo, { width: 1, depth: PAY_JOBS });
  const pieces = m.instance('u_piece_fifo', syncFifo, { width: PIECE_LEN_BITS, depth: PAY_JOBS });
  const pend = m.instance('u_pend_fifo', syncFifo, { width: Pend.width, depth: PENDING });
  const NakEv = Struct('read_rx_nak', { qp: UInt(qw), psn: UInt(24), syndrome: UInt(8) });
  const nakFifo = m.instance('u_nak_fifo', syncFifo, { width: NakEv.width, depth: NAK_QUEUE });
  for (const f of [payJobs, pieces, pend, nakFifo]) { m.unused(f.count, 'only empty/full matter'); m.unused(f.full, 's_ready is used'); m.unused(f.empty, 'm_valid is used'); }
  payJobs.s.valid.set(0); payJobs.s.data.set(0);
  pieces.s.valid.set(0); pieces.s.data.set(0);
  pend.s.valid.set(0); pend.s.data.set(0);
  const ctxPop = Array.from({ length: p.numQp }, (_, i) => m.wire(`ctx_pop${i}`, Bool));

  // ---- header FSM ------------------------------------------------------------------------------
  const fsm = m.fsm('state', ['IDLE', 'CHECK', 'CUT', 'DONE'] as const);
  const h = m.reg('hdr_reg', RxPktHdr, { reset: null });
  m.unused(h, 'responses are matched by QP, PSN, opcode and length only');
  const q = m.let('qp_idx', h.field('destQpn').subw(LOCAL_QPN_BASE).trunc(qw));
  const known = m.let('qp_known', h.field('destQpn').ge(LOCAL_QPN_BASE).land(h.field('destQpn').subw(LOCAL_QPN_BASE).lt(p.numQp)));
  const headValid = m.let('head_valid', pick(q, ctxFifos.map(f => f.m.valid)));
  const headRaw = m.let('head_ctx', pick(q, ctxFifos.map(f => f.m.data)));
  const head = headRaw.as(ReadCtx);
  const qDead = m.let('qp_dead', deadBits.bit(q));
  m.unused(headRaw, 'qp is implied by the FIFO; numSge is implied by length (SGEs past it are never reached)');

  const pendOf = (f: { dma: Value | number; qp: Value; ctx: typeof head; status: Value | number; syndrome: Value | number }) =>
    pack(Pend, { dma: f.dma, qp: f.qp, seq: rdSeq.at(f.qp), wrId: f.ctx.field('wrId'), lastPsn: f.ctx.field('lastPsn'), status: f.status, syndrome: f.syndrome });
  const finish = (qi: Value, status: Value | number, syndrome: Value | number, ctx: typeof head) => {
    pend.s.valid.set(1);
    pend.s.data.set(pendOf({ dma: 0, qp: qi, ctx, status, syndrome }));
    ctxFifos.forEach((_, i) => m.if(qi.eq(i), () => ctxPop[i]!.set(1)));
    setAt(started, 1, qi, 0);
    setAt(rdSeq, SEQ_BITS, qi, rdSeq.at(qi).addw(1));
  };

  // IDLE: a held NAK first (in arrival order), else the next header.
  const nak = nakFifo.m.data.as(NakEv);
  const nakQ = m.let('nak_qp', nak.field('qp'));
  const anyNak = nakFifo.m.valid;
  const nHeadValid = pick(nakQ, ctxFifos.map(f => f.m.valid));
  const nHeadRaw = m.let('nak_head_ctx', pick(nakQ, ctxFifos.map(f => f.m.data)));
  const nHead = nHeadRaw.as(ReadCtx);
  m.unused(nHeadRaw, 'a NAK needs only the PSN range, wrId and the QP');
  const nExp = mux(started.bit(nakQ), nextPsn.at(nakQ), nHead.field('firstPsn'));
  const nPsn = nak.field('psn');
  // PSN in [expected, lastPsn]: both distances in the ±2^23 window.
  const nakHits = m.let('nak_hits', nHeadValid.land(nPsn.subw(nExp).bit(23).lnot()).land(nHead.field('lastPsn').subw(nPsn).bit(23).lnot()).land(deadBits.bit(nakQ).lnot()));
  const nakGo = m.let('nak_go', fsm.is('IDLE').land(anyNak).land(pend.s.ready));
  nakFifo.m.ready.set(nakGo);
  sHdr.ready.set(fsm.is('IDLE').land(anyNak.lnot()));

  // CHECK decisions.
  const op = h.field('opcode');
  const plen = h.field('payloadLen');
  const isFirst = op.eq(READ_RESP.FIRST), isMiddle = op.eq(READ_RESP.MIDDLE), isLast = op.eq(READ_RESP.LAST), isOnly = op.eq(READ_RESP.ONLY);
  const qStarted = m.let('qp_started', started.bit(q));
  const expPsn = m.let('exp_psn', mux(qStarted, nextPsn.at(q), head.field('firstPsn')));
  const psnOk = m.let('psn_ok', h.field('psn').eq(expPsn));
  const seqOk = m.let('seq_ok', mux(qStarted, isMiddle.lor(isLast), isFirst.lor(isOnly)));
  const mtu = m.let('mtu', lit(1, 13).shl(head.field('pmtu')));
  const off = m.let('msg_off', mux(qStarted, msgOff.at(q), lit(0, 32)));
  const end = m.let('msg_end', off.zext(33).addw(plen.zext(33)).asUnsigned());
  const length = head.field('length').zext(33);
  const atLast = h.field('psn').eq(head.field('lastPsn'));
  const lenOk = m.let('len_ok', mux(isFirst.lor(isMiddle), plen.eq(mtu).land(end.lt(length)),
    plen.le(mtu).land(end.eq(length)).land(atLast).land(isOnly.lor(plen.ne(0)))));
  const ends = m.let('ends_read', isLast.lor(isOnly));
  const usable = m.let('hdr_usable', known.land(qDead.lnot()).land(headValid).land(psnOk));
  // This READ already had a DMA error: its later packets are checked but not written.
  const qFailed = m.let('read_failed', dmaErr.bit(q).land(errSeq.at(q).eq(rdSeq.at(q))));
  const checkGo = m.let('check_go', fsm.is('CHECK').land(pend.s.ready).land(payJobs.s.ready));

  // CUT working state.
  const cutRem = m.reg('cut_rem_reg', UInt(13));
  const cutSge = m.reg('cut_sge_reg', UInt(sw));
  const cutOff = m.reg('cut_off_reg', UInt(32));
  const cutEnds = m.reg('cut_ends_reg', Bool);
  const cmdValid = m.reg('dma_cmd_valid_reg', Bool);
  const cmdData = m.reg('dma_cmd_data_reg', DmaWriteCmd, { reset: null });
  mCmd.valid.set(cmdValid);
  mCmd.data.set(cmdData);
  m.if(mCmd.ready, () => cmdValid.set(0));
  const cmdFree = m.let('dma_cmd_free', cmdValid.lnot().lor(mCmd.ready));
  const sge = head.field('sge').at(cutSge);
  const avail = m.let('sge_avail', sge.field('len').subw(cutOff));
  const fits = m.let('piece_is_rest', cutRem.zext(32).le(avail));
  const pieceLen = m.let('piece_len', mux(fits, cutRem, avail.trunc(13)).asUnsigned());
  const skip = m.let('sge_skip', fsm.is('CUT').land(avail.eq(0)));
  const emit = m.let('piece_emit', fsm.is('CUT').land(avail.ne(0)).land(cmdFree).land(pend.s.ready).land(pieces.s.ready));

  // A packet taken in sequence moves its QP's READ on, whether its payload lands or not.
  const acceptInSequence = (): void => {
    setAt(started, 1, q, 1);
    setAt(nextPsn, 24, q, h.field('psn').addw(1));
    setAt(msgOff, 32, q, end.trunc(32));
  };

  fsm.states({
    IDLE: () => {
      m.if(nakGo, () => {
        m.if(nakHits, () => finish(nakQ, nakCqeStatus(nak.field('syndrome')), nak.field('syndrome'), nHead));
      }).elif(sHdr.valid.land(anyNak.lnot()), () => { h.set(sHdr.data); fsm.goto('CHECK'); });
    },
    CHECK: () => m.if(checkGo, () => {
      fsm.goto('IDLE');
      // Payload of a packet not written: dropped (one job per packet with payload beats).
      payJobs.s.valid.set(plen.ne(0));
      payJobs.s.data.set(1);
      m.if(usable.land(seqOk.lnot()), () => finish(q, CQE_STATUS.REMOTE_INVALID_REQUEST, 0, head))
        .elif(usable.land(lenOk.lnot()), () => finish(q, CQE_STATUS.LOCAL_LENGTH_ERROR, 0, head))
        .elif(usable.land(plen.eq(0)), () => finish(q, CQE_STATUS.SUCCESS, 0, head))
        .elif(usable, () => {
          acceptInSequence();
          // After a DMA error the payload is dropped; the completion (at the READ's end) takes
          // the DMA error's status.
          m.if(qFailed, () => m.if(ends, () => finish(q, CQE_STATUS.SUCCESS, 0, head))).else(() => {
            payJobs.s.data.set(0);
            cutRem.set(plen);
            cutSge.set(mux(qStarted, sgeIdx.at(q), lit(0, sw)));
            cutOff.set(mux(qStarted, sgeOff.at(q), lit(0, 32)));
            cutEnds.set(ends);
            fsm.goto('CUT');
          });
        });
    }),
    CUT: () => {
      m.if(skip, () => { cutSge.set(cutSge.addw(1)); cutOff.set(0); });
      m.if(emit, () => {
        cmdValid.set(1);
        cmdData.set(pack(DmaWriteCmd, { va: sge.field('addr').addw(cutOff.zext(64)), len: pieceLen.zext(32), key: sge.field('lkey'), pd: head.field('pd'), access: XLATE_ACCESS.LOCAL_WRITE }));
        pieces.s.valid.set(1);
        pieces.s.data.set(pieceLen);
        pend.s.valid.set(1);
        pend.s.data.set(pendOf({ dma: 1, qp: q, ctx: head, status: 0, syndrome: 0 }));
        cutRem.set(cutRem.subw(pieceLen));
        const nOff = cutOff.addw(pieceLen.zext(32));
        const sgeEnd = nOff.eq(sge.field('len'));
        const nSge = mux(sgeEnd, cutSge.addw(1), cutSge);
        cutSge.set(nSge);
        cutOff.set(mux(sgeEnd, lit(0, 32), nOff));
        m.if(fits, () => {
          setAt(sgeIdx, sw, q, nSge);
          setAt(sgeOff, 32, q, mux(sgeEnd, lit(0, 32), nOff));
          m.if(cutEnds, () => fsm.goto('DONE')).else(() => fsm.goto('IDLE'));
        });
      });
    },
    DONE: () => m.if(pend.s.ready, () => { finish(q, CQE_STATUS.SUCCESS, 0, head); fsm.goto('IDLE'); }),
  });

  // ---- NAKs (s_ack always ready): 0x61..0x63 are queued, everything else ignored --------------
  sAck.ready.set(1);
  m.unused(sAck.data, 'the MSN is not needed: a NAK is matched by its PSN');
  const isNak = m.let('ack_is_nak', sAck.valid.land(nakCqeStatus(sAck.data.field('syndrome')).ne(CQE_STATUS.SUCCESS)));
  nakFifo.s.valid.set(isNak);
  nakFifo.s.data.set(pack(NakEv, { qp: sAck.data.field('qp'), psn: sAck.data.field('psn'), syndrome: sAck.data.field('syndrome') }));
  m.assert(isNak.lnot().lor(nakFifo.s.ready), `more than ${NAK_QUEUE} NAKs 0x61-0x63 waiting (one per QP is expected before it goes to ERROR)`);

  // ---- discard of QPs in ERROR/RESET (only while no header of theirs is being worked on) ---
  ctxFifos.forEach((f, i) => {
    m.if(dead[i]!, () => started.setBits(i, i, 0));
    f.m.ready.set(ctxPop[i]!.lor(dead[i]!.land(fsm.is('IDLE'))));
  });

  // ---- payload: drop, or split into pieces ----------------------------------------------------
  const split = m.instance('u_splitter', nicByteSplitter, { dataWidth: p.dataWidth });
  const drop = payJobs.m.data.bit(0);
  split.s_axis.tvalid.set(sPay.tvalid.land(payJobs.m.valid).land(drop.lnot()));
  split.s_axis.tdata.set(sPay.tdata);
  // tkeep/tlast are optional in the bundle type; the splitter has both.
  const into = (x: unknown) => x as Sig<Shape>, from = (x: unknown) => x as SignalValue<Shape>;
  into(split.s_axis.tkeep).set(sPay.tkeep!);
  into(split.s_axis.tlast).set(sPay.tlast!);
  const payReady = m.let('pay_ready', payJobs.m.valid.land(drop.lor(split.s_axis.tready)));
  sPay.tready.set(payReady);
  payJobs.m.ready.set(sPay.tvalid.land(payReady).land(sPay.tlast!));
  split.s_len.valid.set(pieces.m.valid);
  split.s_len.data.set(pieces.m.data);
  pieces.m.ready.set(split.s_len.ready);
  // Landing FIFO: nic_dma_write takes a piece's bytes only once its translation is back, so
  // without room here the splitter, and with it the RX stream, stopped for that latency at
  // every packet (at 512 bits a 65-beat frame has one spare cycle: A's RX buffer overflowed).
  const B = p.dataWidth / 8;
  const land = m.instance('u_land_fifo', syncFifoRam, { width: p.dataWidth + B + 1, depth: landDepth(p) });
  land.s.valid.set(split.m_axis.tvalid);
  land.s.data.set(cat(from(split.m_axis.tlast) as Value, from(split.m_axis.tkeep) as Value, split.m_axis.tdata));
  split.m_axis.tready.set(land.s.ready);
  mPay.tvalid.set(land.m.valid);
  mPay.tdata.set(land.m.data.bits(p.dataWidth - 1, 0));
  mPay.tkeep!.set(land.m.data.bits(p.dataWidth + B - 1, p.dataWidth));
  mPay.tlast!.set(land.m.data.bit(p.dataWidth + B));
  land.m.ready.set(mPay.tready);
  m.unused(land.count, 'ready/valid only'); m.unused(land.full, 'ready/valid only'); m.unused(land.empty, 'ready/valid only');

  // ---- completions, in pending order --------------------------------------------------------
  const pe = pend.m.data.as(Pend);
  const pq = pe.field('qp');
  const doneValid = m.reg('done_valid_reg', Bool);
  const doneData = m.reg('done_data_reg', ReadDone, { reset: null });
  mDone.valid.set(doneValid);
  mDone.data.set(doneData);
  m.if(mDone.ready, () => doneValid.set(0));
  const doneFree = m.let('done_free', doneValid.lnot().lor(mDone.ready));
  const statusTake = m.let('status_take', pend.m.valid.land(pe.field('dma')).land(sStatus.valid));
  const doneTake = m.let('done_take', pend.m.valid.land(pe.field('dma').lnot()).land(doneFree));
  sStatus.ready.set(statusTake);
  pend.m.ready.set(statusTake.lor(doneTake));
  m.if(statusTake.land(sStatus.data.field('status').ne(XLATE_STATUS.OK)), () => { setAt(dmaErr, 1, pq, 1); setAt(errSeq, SEQ_BITS, pq, pe.field('seq')); });
  const failed = dmaErr.bit(pq);
  const fStatus = m.let('final_status', mux(failed, lit(CQE_STATUS.LOCAL_PROTECTION_ERROR, 4), pe.field('status')));
  m.if(doneTake, () => {
    setAt(dmaErr, 1, pq, 0);
    doneValid.set(deadBits.bit(pq).lnot());
    doneData.set(pack(ReadDone, { qp: pq, wrId: pe.field('wrId'), lastPsn: pe.field('lastPsn'), status: fStatus, syndrome: mux(failed, lit(0, 8), pe.field('syndrome')), ok: fStatus.eq(CQE_STATUS.SUCCESS) }));
  });

  return { clk, rst, qp_ctx: qpCtx, s_ctx: sCtx, s_hdr: sHdr, s_payload: sPay, s_ack: sAck, m_dma_cmd: mCmd, m_payload: mPay, s_dma_status: sStatus, m_done: mDone };
}, { doc: 'RDMA READ response receiver: PSN/sequence/length checks, SGE scatter to DMA writes, READ completions after their DMA statuses', params: { rules: { dataWidth: oneOf(64, 128, 256, 512), numQp: intIn(1, 64), readsPerQp: intIn(1, 64) } } });
