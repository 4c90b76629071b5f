// nic_read_resp_rx: the requester's RDMA READ response receiver (docs/nic-read.md).
//
//   s_ctx ──► READ context pool (`contexts` slots shared by all QPs, readsPerQp per QP at most;
//             each QP's contexts a linked list of slots, its head the READ being answered)
//   s_hdr ──► header FSM: IDLE → CHECK → [CUT] → [DONE] → IDLE
//               CHECK  ACK/NAK: m_ack event (annotated), a NAK 0x61..0x63 may end the head READ;
//                      READ response: expected PSN (started ? nextPsn : firstPsn): behind → drop;
//                      ahead → implied NAK, drop; equal → opcode sequence, length → on error a
//                      completion, payload dropped; else an ACK event of its PSN
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
// ACKs and NAKs come on s_hdr too (opcode 0x11, from nic_responder in arrival order with the
// READ responses), so this block sees the requester's whole RX side in order and hands the
// ACK tracker one event per packet on m_ack (docs/nic-reliability.md):
//   ACK / NAK      passed on; rdMiss when it acknowledges a PSN whose READ response is still
//                  missing: an ACK at or past the head READ's expected response PSN (rdExp),
//                  a NAK 0x60 or RNR NAK past it. A NAK 0x61..0x63 whose PSN lies in
//                  [expected, lastPsn] of the QP's head READ also completes that READ with
//                  the NAK's status and syndrome.
//   READ response  taken in sequence: an ACK of its PSN (the window moves); ahead of the
//                  expected PSN: an implied NAK (0x60, rdMiss, rdExp) and its payload dropped;
//                  behind it (a duplicate) or without a context: dropped, no event.
// A rewind (s_rewind, with the tracker's go-back-N) drops the QP's READ contexts; nic_req_tx
// then registers them again, the first one resumed: firstPsn = the resume PSN, startOff = the
// bytes already landed. At the first PSN of a resumed context a FIRST/ONLY (the re-request's
// answer) and a MIDDLE/LAST (the first request's answer, still on its way) are both in
// sequence; the bytes land at startOff either way, so nothing lands twice differently.
// A QP in ERROR or RESET loses its contexts and pending completions silently: the ACK
// tracker flushes those work requests itself.
//
// Per-QP state (issue 15, docs/synth.md "u_read_resp_rx's records in memories"): the position
// in the READ being answered (pos_mem: next response PSN and message offset; sge_mem: SGE
// index and offset) and the READ tag (rd_seq_mem) are rows of memories, read (registered) as
// the QP's header is taken and written by the header FSM; the tag of the READ whose DMA error
// came back (err_seq_mem) is read asynchronously (LUTRAM). What stays in flip-flops per QP:
// the started, ctx_flush and dma_err flags and the context pool's per-QP counts. Same ports and
// cycles as with the records in registers.
//
// READ contexts (issue 15, docs/synth.md "u_read_resp_rx's READ contexts pooled"): one pool of
// `contexts` slots (default numQp x readsPerQp) in one memory (ctx_mem, read asynchronously:
// LUTRAM), each QP's contexts a linked list of slots in posting order; a pop (a READ
// completed, a rewind's or a dead QP's drop) only counts, and the popped slots go back to the
// pool through one release port, a slot a cycle (the "contexts: a pool" block below). The
// count per QP is kept exactly as the per-QP FIFOs kept theirs, so ctx_room, s_ctx_ready and
// every output keep their cycles at the default pool (read-resp-rx-pool.test.ts checks the
// pool for leaks and cross-linked slots).

import { Bool, Vec, cat, defineModule, lit, mux, pack, Struct, UInt, type Sig, type Shape, type SignalValue, type Value, intIn, oneOf } from '../hdl/index.ts';
import { syncFifo, syncFifoRam } from '../lib/fifo.ts';
import { stream } from '../lib/interfaces.ts';
import { nicByteSplitter, PIECE_LEN_BITS } from './byte-splitter.ts';
import { ctxPortRule, qpCtxView, type CtxPort } from './ctx-view.ts';
import { ackInStruct, AETH, LOCAL_QPN_BASE } from './flow-types.ts';
import { nakCqeStatus } from './nak-status.ts';
import { psnGe, psnGt } from './psn.ts';
import { rewindStruct } from './qp-transport.ts';
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
  /** READ contexts of the pool shared by all QPs (0: numQp x readsPerQp, every QP its limit at
   *  once, so the pool is never what makes s_ctx wait; nic_top leaves it at 0). */
  contexts?: number;
  /** Landing FIFO on m_payload in bytes (a power of two beats, at least 2). Default: one
   *  4 KiB-MTU packet, so nic_dma_write translates the next piece while this one drains. */
  landBytes?: number;
  /** Where the QP context comes from (ctx-view.ts): 'vec' = the qp_ctx input (stage tests), 'lanes' = nic_regs' STATE vector (nic_top). */
  ctxPort: CtxPort;
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
/** ACKNOWLEDGE opcode: ACK/NAK headers come in on s_hdr with the READ responses. */
const ACK_OPCODE = 0x11;
/** Packets (with payload) and pieces decided ahead of their bytes. */
const PAY_JOBS = 8;

export const nicReadRespRx = defineModule('nic_read_resp_rx', { dataWidth: 64, numQp: 4, readsPerQp: 2, contexts: 0, ctxPort: 'vec' } as ReadRespRxParams, (m, p) => {
  const perQp = p.readsPerQp;
  if (!Number.isInteger(perQp) || perQp < 1) throw new Error(`nic_read_resp_rx: readsPerQp ${perQp} is not a positive integer`);
  const qw = qpIndexWidth(p.numQp);
  const sw = Math.ceil(Math.log2(MAX_SGE));
  const ReadCtx = readCtxStruct(p.numQp);
  const ReadDone = readDoneStruct(p.numQp);
  const AckIn = ackInStruct(p.numQp);
  /** One pending entry: wait for a DmaStatus (dma), or complete a READ. */
  const Pend = Struct('read_rx_pend', { dma: Bool, qp: UInt(qw), seq: UInt(SEQ_BITS), wrId: UInt(64), lastPsn: UInt(24), status: UInt(4), syndrome: UInt(8) });

  const { clk, rst } = m.clockAndReset();
  const qpCtx = qpCtxView(m, p.numQp, p.ctxPort, ['state'], 'only STATE is read (discard of contexts)');
  const sCtx = stream(ReadCtx).sink(m, 's_ctx');
  const sHdr = stream(RxPktHdr).sink(m, 's_hdr');
  const sPay = byteStream(p.dataWidth).sink(m, 's_payload');
  const mAck = stream(AckIn).source(m, 'm_ack');
  const sRewind = stream(rewindStruct(qw)).sink(m, 's_rewind');
  const ctxRoomOut = m.output('ctx_room', UInt(p.numQp));
  const mCmd = stream(DmaWriteCmd).source(m, 'm_dma_cmd');
  const mPay = byteStream(p.dataWidth).source(m, 'm_payload');
  const sStatus = stream(DmaStatus).sink(m, 's_dma_status');
  const mDone = stream(ReadDone).source(m, 'm_done');

  const st = (i: number | Value) => qpCtx.at(i).field('state');
  const dead: Value[] = [];
  for (let i = 0; i < p.numQp; i++) dead.push(m.let(`qp${i}_dead`, st(i).eq(QP_STATE.ERROR).lor(st(i).eq(QP_STATE.RESET))));
  const deadBits = m.let('dead_bits', dead.slice(1).reduce((acc, d, i) => d.zext(p.numQp).shl(i + 1).or(acc), dead[0]!.zext(p.numQp)));

  // ---- contexts: a pool shared by all QPs ---------------------------------------------------
  // (issue 15, docs/synth.md "u_read_resp_rx's READ contexts pooled"). `contexts` slots, the
  // words in one memory (ctx_mem); each QP's contexts are a linked list of slots in posting
  // order (head slot: head_new_mem / head_mem, tail slot: tail_mem, links: ctx_next_mem),
  // free slots are a counter of slots never used (pool_fresh_reg) and a FIFO of slots given
  // back (free_slot_mem). Per QP in flip-flops (each is read or changed for several QPs in
  // one cycle, which one RAM row a cycle cannot do):
  //   ctx_count_reg  the QP's live contexts, exactly the count its context FIFO had: +1 per
  //                  context taken, -1 per pop (a READ completed, a rewind's drop one a
  //                  cycle, a dead QP's drop one a cycle in IDLE; up to one per QP per cycle,
  //                  for several QPs at once), so ctx_room, s_ctx_ready and the flush's end
  //                  keep their cycles;
  //   ctx_held_reg   the slots the QP's list holds: its live contexts behind the popped ones
  //                  not yet given back. A pop only counts; the popped slot stays at the front
  //                  of the list until the release port gives it back (one slot a cycle for
  //                  all QPs: the header's QP first, then the last rewound, then a scan), so pops
  //                  of many QPs in one cycle write no memory. A rewind or a dead QP's drop
  //                  thus returns every slot of the QP to the pool (asserted each cycle: free
  //                  slots + every QP's held slots = slots handed out);
  //   head_new_reg   which of the two head memories holds the QP's head slot: head_new_mem is
  //                  written when a context goes into an empty list, head_mem when the release
  //                  port moves the head on; two writers of different QPs can meet in one
  //                  cycle, and one memory has one write port.
  // The header FSM reads the head context of the header's QP asynchronously (head slot, then
  // its word), as it read the head of the QP's FIFO; it waits in CHECK while the QP has popped
  // slots in front of its live ones (qp_draining: only after a pop whose release had to wait).
  // (contexts is checked by the params rules; numQp x readsPerQp is at least 1.)
  const C = p.contexts || p.numQp * perQp;
  const slotW = Math.max(1, Math.ceil(Math.log2(C)));
  const cntW = Math.ceil(Math.log2(C + 1));
  const cw = Math.ceil(Math.log2(perQp + 1));
  // A QP's list holds at most 2 x readsPerQp slots (live and popped): s_ctx waits for the
  // release port beyond that, which keeps ctx_held_reg narrow (log2 of the limit, not of the
  // pool). Popped slots are given back a cycle after their pop unless several QPs pop at
  // once, so the cap only binds after such a pile-up.
  const heldMax = Math.min(C, 2 * perQp);
  const hw = Math.ceil(Math.log2(heldMax + 1));
  const cmpW = Math.max(hw, cw);
  const ctxMem = m.memory('ctx_mem', UInt(ReadCtx.width), C);
  const nextMem = m.memory('ctx_next_mem', UInt(slotW), C);
  const tailMem = m.memory('tail_mem', UInt(slotW), 2 ** qw);
  const headMem = m.memory('head_mem', UInt(slotW), 2 ** qw);
  const headNewMem = m.memory('head_new_mem', UInt(slotW), 2 ** qw);
  const freeMem = m.memory('free_slot_mem', UInt(slotW), C);
  const counts = m.reg('ctx_count_reg', Vec(UInt(cw), p.numQp));
  const held = m.reg('ctx_held_reg', Vec(UInt(hw), p.numQp));
  const headNew = m.reg('head_new_reg', UInt(p.numQp));
  const fresh = m.reg('pool_fresh_reg', UInt(cntW));
  const freeCnt = m.reg('free_count_reg', UInt(cntW));
  const freeHd = m.reg('free_head_reg', UInt(slotW));
  const freeTl = m.reg('free_tail_reg', UInt(slotW));
  const wrapInc = (x: Value): Value => (2 ** slotW === C ? x.addw(1) : mux(x.eq(C - 1), lit(0, slotW), x.addw(1)));
  const headOf = (x: Value): Value => mux(headNew.bit(x), headNewMem.readAsync(x), headMem.readAsync(x));
  const fromFree = freeCnt.ne(0);
  const poolAvail = m.let('pool_avail', fromFree.lor(fresh.lt(C)));
  const newSlot = m.let('ctx_new_slot', mux(fromFree, freeMem.readAsync(freeHd), fresh.trunc(slotW)));
  const cq = sCtx.data.field('qp');
  const room = Array.from({ length: p.numQp }, (_, i) => m.let(`ctx_room${i}`, counts.at(i).lt(perQp)));
  const roomBits = m.let('ctx_room_bits', cat(...[...room].reverse()));
  const deadCq = m.let('ctx_qp_dead', deadBits.bit(cq));
  // A free context for the QP: under its limit, and a slot in the pool.
  ctxRoomOut.set(mux(poolAvail, roomBits, lit(0, p.numQp)));
  const cqHeld = held.at(cq);
  const listRoom = m.let('ctx_list_room', cqHeld.lt(heldMax));
  const ctxFits = m.let('ctx_fits', roomBits.bit(cq).land(poolAvail).land(listRoom));
  const ctxPush = m.let('ctx_push', sCtx.valid.land(deadCq.lnot()).land(ctxFits));
  sCtx.ready.set(mux(deadCq, lit(1, 1), ctxFits));
  m.if(ctxPush, () => {
    ctxMem.write(newSlot, sCtx.data);
    tailMem.write(cq, newSlot);
    m.if(fromFree, () => { freeHd.set(wrapInc(freeHd)); }).else(() => fresh.set(fresh.addw(1)));
    m.if(cqHeld.eq(0), () => headNewMem.write(cq, newSlot)).else(() => nextMem.write(tailMem.readAsync(cq), newSlot));
  });
  // Per QP: its list holds popped slots not yet given back (a release is owed; in front of
  // its live contexts).
  const relReq = Array.from({ length: p.numQp }, (_, i) => held.at(i).zext(cmpW).ne(counts.at(i).zext(cmpW)));
  const relBits = m.let('release_req', cat(...[...relReq].reverse()));
  // ---- per-QP receive state ----------------------------------------------------------------
  // Flags, one bit per QP in flip-flops: each is cleared or tested for several QPs in one
  // cycle (`started` for every QP in ERROR/RESET each cycle, and by a rewind while the FSM
  // works on another QP; `dma_err` set and cleared by the completion side at its QP while
  // the FSM reads it at the header's), which a RAM row cannot do.
  const started = m.reg('started_reg', UInt(p.numQp));
  // A rewind is dropping the QP's contexts (one a cycle, at most readsPerQp cycles).
  const flushing = m.reg('ctx_flush_reg', UInt(p.numQp));
  // A DMA error of the QP came back (cleared when its READ completes); that READ's tag is
  // the QP's row of err_seq_mem.
  const dmaErr = m.reg('dma_err_reg', UInt(p.numQp));
  // Records, one row per QP (issue 15, docs/synth.md "u_read_resp_rx's records in memories"):
  //   pos_mem     the position in the READ being answered: next response PSN, message offset
  //               (written in CHECK when a packet is taken in sequence)
  //   sge_mem     the SGE index and offset reached (written in CUT with the packet's last piece)
  //   rd_seq_mem  the header FSM's READ of the QP, counted (tags its pending entries; written
  //               when a READ completes, in CHECK or DONE)
  // Only the header FSM reads and writes them, always at the QP of the header it holds: one
  // registered read port each (block RAM or LUTRAM), addressed from s_hdr_data as the header
  // is taken in IDLE, enabled only then, so the row holds through CHECK, CUT and DONE; one
  // write port each, at the header's QP. Hazard (two headers of one QP back to back): every
  // write is in CHECK, CUT or DONE and the FSM always passes through IDLE before it takes the
  // next header, so that header's read is at least one edge after the write and sees it (no
  // forwarding; read-resp-rx.test.ts "back to back"). A row read in the cycle of its write
  // gets the row before it, as the registers gave. rd_seq_mem is not reset (rd_seq_reg was):
  // a tag is only ever compared with a tag read from the same row (err_seq_mem holds one taken
  // from it, looked at only while dma_err is set), so its starting value does not matter.
  //   err_seq_mem the tag of the READ whose DMA error came back: written by the completion
  //               side at the pending entry's QP, read by the FSM at the header's QP in the
  //               same cycle, so read asynchronously (LUTRAM), as the register was.
  const PosRec = Struct('read_rx_pos_rec', { nextPsn: UInt(24), msgOff: UInt(32) });
  const SgeRec = Struct('read_rx_sge_rec', { idx: UInt(sw), off: UInt(32) });
  const posMem = m.memory('pos_mem', PosRec, 2 ** qw);
  const sgeMem = m.memory('sge_mem', SgeRec, 2 ** qw);
  const seqMem = m.memory('rd_seq_mem', UInt(SEQ_BITS), 2 ** qw);
  const errSeqMem = m.memory('err_seq_mem', UInt(SEQ_BITS), 2 ** qw);
  const setAt = (reg: { setBits(hi: number, lo: number, v: Value | number): void }, w: number, idx: Value, v: Value | number) => {
    for (let i = 0; i < p.numQp; i++) m.if(idx.eq(i), () => reg.setBits(w * i + w - 1, w * i, v));
  };

  // ---- queues to the data side and the pending FIFO ---------------------------------------
  const payJobs = m.instance('u_pay_jobs', syncFifo, { width: 1, depth: PAY_JOBS });
  const pieces = m.instance('u_piece_fifo', syncFifo, { width: PIECE_LEN_BITS, depth: PAY_JOBS });
  const pend = m.instance('u_pend_fifo', syncFifo, { width: Pend.width, depth: PENDING });
  for (const f of [payJobs, pieces, pend]) { m.unused(f.count, 'only empty/full matter'); m.unused(f.full, 's_ready is used'); m.unused(f.empty, 'm_valid is used'); }
  payJobs.s.valid.set(0); payJobs.s.data.set(0);
  pieces.s.valid.set(0); pieces.s.data.set(0);
  pend.s.valid.set(0); pend.s.data.set(0);
  // The header's QP's head READ completes (its context is popped).
  const ctxPop = m.wire('ctx_pop', Bool);
  ctxPop.set(0);

  // ---- header FSM ------------------------------------------------------------------------------
  const fsm = m.fsm('state', ['IDLE', 'CHECK', 'CUT', 'DONE'] as const);
  const h = m.reg('hdr_reg', RxPktHdr, { reset: null });
  m.unused(h, 'responses are matched by QP, PSN, opcode and length only; ACKs need their AETH');
  const q = m.let('qp_idx', h.field('destQpn').subw(LOCAL_QPN_BASE).trunc(qw));
  const known = m.let('qp_known', h.field('destQpn').ge(LOCAL_QPN_BASE).land(h.field('destQpn').subw(LOCAL_QPN_BASE).lt(p.numQp)));
  const headValid = m.let('head_valid', counts.at(q).ne(0));
  const headSlot = m.let('head_slot', headOf(q));
  const headRaw = m.let('head_ctx', ctxMem.readAsync(headSlot));
  const head = headRaw.as(ReadCtx);
  const qDead = m.let('qp_dead', deadBits.bit(q));
  m.unused(headRaw, 'qp is implied by the list; numSge is implied by length (SGEs past it are never reached)');
  const qFlushing = m.let('qp_flushing', flushing.bit(q));
  // The QP's rows, read as its header is taken (IDLE) and held until the next one is.
  sHdr.ready.set(fsm.is('IDLE').land(sRewind.valid.lnot()));
  const hdrTake = m.let('hdr_take', sHdr.valid.land(fsm.is('IDLE')).land(sRewind.valid.lnot()));
  const rdQp = m.let('rec_rd_qp', sHdr.data.field('destQpn').subw(LOCAL_QPN_BASE).trunc(qw));
  const posRow = m.let('pos_row', posMem.read(rdQp, { enable: hdrTake })).as(PosRec);
  const sgeRow = m.let('sge_row', sgeMem.read(rdQp, { enable: hdrTake })).as(SgeRec);
  const seqRow = m.let('rd_seq_row', seqMem.read(rdQp, { enable: hdrTake }));

  const pendOf = (f: { dma: Value | number; qp: Value; ctx: typeof head; status: Value | number; syndrome: Value | number }) =>
    pack(Pend, { dma: f.dma, qp: f.qp, seq: seqRow, wrId: f.ctx.field('wrId'), lastPsn: f.ctx.field('lastPsn'), status: f.status, syndrome: f.syndrome });
  // The header's QP's head READ completes (always the QP of the header held: its rows).
  const finish = (status: Value | number, syndrome: Value | number) => {
    pend.s.valid.set(1);
    pend.s.data.set(pendOf({ dma: 0, qp: q, ctx: head, status, syndrome }));
    ctxPop.set(1);
    setAt(started, 1, q, 0);
    seqMem.write(q, seqRow.addw(1));
  };

  // CHECK decisions.
  const op = h.field('opcode');
  const plen = h.field('payloadLen');
  const isFirst = op.eq(READ_RESP.FIRST), isMiddle = op.eq(READ_RESP.MIDDLE), isLast = op.eq(READ_RESP.LAST), isOnly = op.eq(READ_RESP.ONLY);
  const qStarted = m.let('qp_started', started.bit(q));
  const expPsn = m.let('exp_psn', mux(qStarted, posRow.field('nextPsn'), head.field('firstPsn')));
  const psnOk = m.let('psn_ok', h.field('psn').eq(expPsn));
  // A resumed context (startOff > 0) takes the first request's MIDDLE/LAST at its first PSN too.
  const resumed = m.let('ctx_resumed', head.field('startOff').ne(0));
  const seqOk = m.let('seq_ok', mux(qStarted, isMiddle.lor(isLast), isFirst.lor(isOnly).lor(resumed.land(isMiddle.lor(isLast)))));
  const mtu = m.let('mtu', lit(1, 13).shl(head.field('pmtu')));
  const off = m.let('msg_off', mux(qStarted, posRow.field('msgOff'), head.field('startOff')));
  const end = m.let('msg_end', off.zext(33).addw(plen.zext(33)).asUnsigned());
  const length = head.field('length').zext(33);
  const atLast = h.field('psn').eq(head.field('lastPsn'));
  const lenOk = m.let('len_ok', mux(isFirst.lor(isMiddle), plen.eq(mtu).land(end.lt(length)),
    plen.le(mtu).land(end.eq(length)).land(atLast).land(isOnly.lor(plen.ne(0)))));
  const ends = m.let('ends_read', isLast.lor(isOnly));
  const usable = m.let('hdr_usable', known.land(qDead.lnot()).land(headValid).land(psnOk));
  // This READ already had a DMA error: its later packets are checked but not written.
  const qFailed = m.let('read_failed', dmaErr.bit(q).land(errSeqMem.readAsync(q).eq(seqRow)));
  const ackValid = m.reg('ack_valid_reg', Bool);
  const ackData = m.reg('ack_data_reg', AckIn, { reset: null });
  mAck.valid.set(ackValid);
  mAck.data.set(ackData);
  m.if(mAck.ready, () => ackValid.set(0));
  m.assert(ackValid.lnot().lor(mAck.ready), 'm_ack: the ACK tracker must always take an event');
  // Popped slots of the header's QP not yet given back stand in front of its head context.
  const qDraining = m.let('qp_draining', known.land(qDead.lnot()).land(relBits.bit(q)));
  const checkGo = m.let('check_go', fsm.is('CHECK').land(pend.s.ready).land(payJobs.s.ready).land(ackValid.lnot().lor(mAck.ready)).land(qFlushing.lnot()).land(qDraining.lnot()));
  // ---- ACK/NAK headers and the READ state they meet --------------------------------------
  const isAckHdr = m.let('is_ack_hdr', op.eq(ACK_OPCODE));
  const syn = h.field('aethSyndrome');
  const readOpen = m.let('read_open', known.land(qDead.lnot()).land(headValid));
  const synAck = syn.bits(7, 5).eq(0);
  const synSeqOrRnr = syn.eq(AETH.NAK_PSN_SEQ).lor(syn.bits(7, 5).eq(1));
  // The ACK covers the expected response PSN (or a NAK acknowledges past it): a response is missing.
  const ackMiss = m.let('ack_read_miss', readOpen.land(mux(synAck, psnGe(h.field('psn'), expPsn), synSeqOrRnr.land(psnGt(h.field('psn'), expPsn)))));
  const nakStatus = nakCqeStatus(syn);
  const nakHits = m.let('nak_hits', readOpen.land(nakStatus.ne(CQE_STATUS.SUCCESS)).land(psnGe(h.field('psn'), expPsn)).land(psnGe(head.field('lastPsn'), h.field('psn'))));
  const ahead = m.let('resp_ahead', known.land(qDead.lnot()).land(headValid).land(psnGt(h.field('psn'), expPsn)));
  const sendAck = (f: { psn: Value; syndrome: Value | number; rdMiss: Value | number }): void => {
    ackValid.set(1);
    ackData.set(pack(AckIn, { qp: q, psn: f.psn, syndrome: f.syndrome, msn: h.field('aethMsn'), rdMiss: f.rdMiss, rdExp: expPsn }));
  };

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
  // An SGE the cut is past (empty, or wholly before a resumed READ's startOff): next one.
  const past = m.let('sge_past', cutOff.ge(sge.field('len')));
  const skip = m.let('sge_skip', fsm.is('CUT').land(past));
  const emit = m.let('piece_emit', fsm.is('CUT').land(past.lnot()).land(cmdFree).land(pend.s.ready).land(pieces.s.ready));

  // A packet taken in sequence moves its QP's READ on, whether its payload lands or not.
  const acceptInSequence = (): void => {
    setAt(started, 1, q, 1);
    posMem.write(q, pack(PosRec, { nextPsn: h.field('psn').addw(1), msgOff: end.trunc(32) }));
  };

  fsm.states({
    // IDLE: the next header (a rewind waiting goes first, so no header sees half-dropped contexts).
    IDLE: () => {
      m.if(hdrTake, () => { h.set(sHdr.data); fsm.goto('CHECK'); });
    },
    CHECK: () => m.if(checkGo, () => {
      fsm.goto('IDLE');
      // Payload of a packet not written: dropped (one job per packet with payload beats).
      payJobs.s.valid.set(plen.ne(0));
      payJobs.s.data.set(1);
      m.if(isAckHdr, () => {
        m.if(known, () => sendAck({ psn: h.field('psn'), syndrome: syn, rdMiss: ackMiss }));
        m.if(nakHits, () => finish(nakStatus, syn));
      }).elif(ahead, () => sendAck({ psn: h.field('psn'), syndrome: AETH.NAK_PSN_SEQ, rdMiss: 1 }))
        .elif(usable.land(seqOk).land(lenOk), () => sendAck({ psn: h.field('psn'), syndrome: AETH.ACK, rdMiss: 0 }));
      m.if(isAckHdr.lnot().land(usable).land(seqOk.lnot()), () => finish(CQE_STATUS.REMOTE_INVALID_REQUEST, 0))
        .elif(isAckHdr.lnot().land(usable).land(lenOk.lnot()), () => finish(CQE_STATUS.LOCAL_LENGTH_ERROR, 0))
        .elif(isAckHdr.lnot().land(usable).land(plen.eq(0)), () => finish(CQE_STATUS.SUCCESS, 0))
        .elif(isAckHdr.lnot().land(usable), () => {
          acceptInSequence();
          // After a DMA error the payload is dropped; the completion (at the READ's end) takes
          // the DMA error's status.
          m.if(qFailed, () => m.if(ends, () => finish(CQE_STATUS.SUCCESS, 0))).else(() => {
            payJobs.s.data.set(0);
            cutRem.set(plen);
            // A resumed READ starts startOff bytes into its SGEs (CUT walks to the SGE).
            cutSge.set(mux(qStarted, sgeRow.field('idx'), lit(0, sw)));
            cutOff.set(mux(qStarted, sgeRow.field('off'), head.field('startOff')));
            cutEnds.set(ends);
            fsm.goto('CUT');
          });
        });
    }),
    CUT: () => {
      m.if(skip, () => { cutSge.set(cutSge.addw(1)); cutOff.set(cutOff.subw(sge.field('len'))); });
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
          sgeMem.write(q, pack(SgeRec, { idx: nSge, off: mux(sgeEnd, lit(0, 32), nOff) }));
          m.if(cutEnds, () => fsm.goto('DONE')).else(() => fsm.goto('IDLE'));
        });
      });
    },
    DONE: () => m.if(pend.s.ready, () => { finish(CQE_STATUS.SUCCESS, 0); fsm.goto('IDLE'); }),
  });

  // ---- rewind: drop the QP's READ contexts (taken while no header of the QP is decided) ----
  const rwQp = sRewind.data.field('qp');
  m.unused(sRewind.data, 'only the QP: its contexts are dropped, whatever the restart point');
  sRewind.ready.set(fsm.is('IDLE'));
  const rwFire = m.let('rewind_fire', sRewind.valid.land(fsm.is('IDLE')));
  for (let i = 0; i < p.numQp; i++) {
    m.if(rwFire.land(rwQp.eq(i)), () => { flushing.setBits(i, i, 1); started.setBits(i, i, 0); });
    m.if(flushing.bit(i).land(counts.at(i).eq(0)), () => flushing.setBits(i, i, 0));
  }
  m.assert(sCtx.valid.land(flushing.bit(cq)).lnot(), 'a READ context arrived while its QP\'s contexts were being dropped by a rewind');

  // ---- discard of QPs in ERROR/RESET (only while no header of theirs is being worked on) ---
  for (let i = 0; i < p.numQp; i++) m.if(dead[i]!, () => started.setBits(i, i, 0));

  // ---- pops, the release port and the per-QP counts ------------------------------------------
  // Releases: one slot a cycle, the front of a list holding more slots than live contexts.
  // Which QP: the header's (its next header waits for it; a completed READ's slot goes back in
  // the IDLE cycle after it, hdr_reg still the READ's header), else the QP of the last rewind
  // (its flush pops one a cycle: given back one a cycle behind), else the QP a scan pointer is
  // at (one QP a cycle: the drops of QPs in ERROR/RESET, and what two rewinds at once left).
  const rwLastQp = m.reg('release_rw_qp_reg', UInt(qw));
  m.if(rwFire, () => rwLastQp.set(rwQp));
  const relScanQp = m.reg('release_scan_reg', UInt(qw));
  relScanQp.set(mux(relScanQp.eq(p.numQp - 1), lit(0, qw), relScanQp.addw(1)));
  const relMine = m.let('release_hdr_qp', known.land(relBits.bit(q)));
  const relRw = m.let('release_rw_qp', relBits.bit(rwLastQp));
  const relQp = m.let('release_qp', mux(relMine, q, mux(relRw, rwLastQp, relScanQp)));
  const release = m.let('slot_release', relMine.lor(relRw).lor(relBits.bit(relScanQp)));
  const relSlot = m.let('release_slot', headOf(relQp));
  // The list's last slot goes while a context joins it: the new one becomes the head.
  const relJoin = ctxPush.land(cq.eq(relQp)).land(held.at(relQp).eq(1));
  const relNext = m.let('release_next_slot', mux(relJoin, newSlot, nextMem.readAsync(relSlot)));
  m.if(release, () => {
    freeMem.write(freeTl, relSlot);
    freeTl.set(wrapInc(freeTl));
    headMem.write(relQp, relNext);
  });
  const taken = ctxPush.land(fromFree);
  freeCnt.set(mux(release.land(taken.lnot()), freeCnt.addw(1), mux(taken.land(release.lnot()), freeCnt.subw(1), freeCnt)));
  for (let i = 0; i < p.numQp; i++) {
    const pushI = ctxPush.land(cq.eq(i));
    const relI = release.land(relQp.eq(i));
    const popI = ctxPop.land(q.eq(i)).lor(dead[i]!.land(fsm.is('IDLE'))).lor(flushing.bit(i)).land(counts.at(i).ne(0));
    m.if(pushI.lor(popI), () => counts.setBits(cw * i + cw - 1, cw * i, counts.at(i).addw(pushI.zext(cw)).subw(popI.zext(cw)).trunc(cw)));
    m.if(pushI.lor(relI), () => held.setBits(hw * i + hw - 1, hw * i, held.at(i).addw(pushI.zext(hw)).subw(relI.zext(hw)).trunc(hw)));
    m.if(pushI.land(cqHeld.eq(0)), () => headNew.setBits(i, i, 1)).elif(relI, () => headNew.setBits(i, i, 0));
  }
  // No slot lost or given back twice: the free ones and those the QPs' lists hold.
  const sumW = Math.max(cntW, hw) + qw + 1;
  let heldSum: Value = freeCnt.zext(sumW);
  for (let i = 0; i < p.numQp; i++) heldSum = heldSum.addw(held.at(i).zext(sumW));
  m.assert(heldSum.eq(fresh.zext(sumW)), 'READ context pool: free slots + the slots the QPs hold != slots handed out (a slot leaked or was given back twice)');
  let countsFit: Value = lit(1, 1);
  for (let i = 0; i < p.numQp; i++) countsFit = countsFit.land(counts.at(i).zext(cmpW).le(held.at(i).zext(cmpW)));
  m.assert(countsFit, 'READ context pool: a QP has more live contexts than slots in its list');

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
  m.if(statusTake.land(sStatus.data.field('status').ne(XLATE_STATUS.OK)), () => { setAt(dmaErr, 1, pq, 1); errSeqMem.write(pq, pe.field('seq')); });
  const failed = dmaErr.bit(pq);
  const fStatus = m.let('final_status', mux(failed, lit(CQE_STATUS.LOCAL_PROTECTION_ERROR, 4), pe.field('status')));
  m.if(doneTake, () => {
    setAt(dmaErr, 1, pq, 0);
    doneValid.set(deadBits.bit(pq).lnot());
    doneData.set(pack(ReadDone, { qp: pq, wrId: pe.field('wrId'), lastPsn: pe.field('lastPsn'), status: fStatus, syndrome: mux(failed, lit(0, 8), pe.field('syndrome')), ok: fStatus.eq(CQE_STATUS.SUCCESS) }));
  });

  return { clk, rst, ...qpCtx.ports, s_ctx: sCtx, s_hdr: sHdr, s_payload: sPay, m_ack: mAck, s_rewind: sRewind, ctx_room: ctxRoomOut, m_dma_cmd: mCmd, m_payload: mPay, s_dma_status: sStatus, m_done: mDone };
}, { doc: 'RDMA READ response receiver: PSN/sequence/length checks, SGE scatter to DMA writes, READ completions after their DMA statuses', params: { rules: { ctxPort: ctxPortRule, dataWidth: oneOf(64, 128, 256, 512), numQp: intIn(1, 256), readsPerQp: intIn(1, 64), contexts: intIn(0, 65536) } } });
