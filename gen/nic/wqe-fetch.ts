// nic_wqe_fetch (stage 2): reads WQEs from the QPs' send rings in host memory.
//
// - Keeps each QP's SQ consumer index (ci) itself and publishes every change on sq_ci_upd
//   (to nic_regs' hw_sq_ci). While a QP is in RESET its ci is held at 0, matching nic_regs,
//   which clears SQ_PI/SQ_CI when software writes STATE = RESET.
// - A QP is a candidate when SQ_PI != ci and it is not in RESET. A weighted round-robin
//   arbiter (gen/lib wrrArbiter, weights from the `weight` input; equal weights give plain
//   round robin) picks one candidate per burst.
// - One AXI4 INCR read fetches up to MAX_BURST (4) WQEs of 128 bytes: never past the ring's
//   end, never across a 4 KiB boundary, never more than are posted. The last WQE of a burst
//   is read only up to its last SGE (0x60 bytes; at 64 bits 12 of 16 beats), so a one-WQE
//   burst frees the shared R channel 4 beats sooner. One burst is in flight at a time; ci
//   advances when its last beat is taken.
// - The read is offered on AR in the cycle the arbiter grants (the first cycle an idle stage
//   sees SQ_PI != ci), computed straight from qp_ctx; if arready is low, the plan registered
//   in that cycle keeps AR valid and unchanged (ADDR) until it is taken.
// - Every fetched WQE leaves on m_wqe, decoded (Wqe in wqe.ts) with a status the TX engine
//   turns into an error completion instead of sending anything (NIC.md: "rejects bad opcodes
//   and QPs not in RTS with an error completion"):
//     LOCAL_QP_ERROR  the read returned an AXI error, or the QP is in INIT/RTR (not RTS)
//     FLUSH_ERROR     the QP is in ERROR (its posted WQEs are flushed)
//     BAD_OPCODE      the opcode is neither RDMA WRITE nor RDMA READ
//   in that order of precedence; SUCCESS otherwise. The QP state is sampled when the burst
//   is chosen.
// - A WQE is decoded and handed on at the beat that completes the bytes it uses (header and
//   its num_sge SGEs, wqeUsedBytes), not at its last beat: at 64 bits a one-SGE WQE leaves
//   after beat 5 of 16, 10 cycles sooner (doorbell -> first TX beat latency). Its remaining
//   beats (unused SGEs, reserved bytes) are taken and dropped; an AXI error on them does not
//   change the status of a WQE already handed on. SGEs at or past num_sge are zero.
// - m_wqe holds one decoded WQE in a register; a stalled consumer stalls the R channel on
//   the decode beat of the next WQE.

import { Bool, UInt, Vec, cat, defineModule, lit, mux, pack, type Value, intIn, oneOf } from '../hdl/index.ts';
import { wrrArbiter } from '../lib/arbiter.ts';
import { AXI_BURST, stream } from '../lib/interfaces.ts';
import { log2Exact } from '../lib/util.ts';
import { axi4Read } from './axi-ports.ts';
import { QpCtx, qpUpdate } from './ctx.ts';
import { select } from './frame-util.ts';
import { CQE_STATUS, MAX_SGE, QP_STATE, WQE_BYTES, WQE_OPCODE } from './regmap.ts';
import { ADDR_WIDTH, PAGE_BITS, qpIndexWidth } from './types.ts';
import { WQE_STATUS_BITS, wqeField, wqeSges, wqeStruct, wqeUsedBytes } from './wqe.ts';

export type WqeFetchParams = {
  dataWidth: number;
  numQp: number;
  /** Bits of each scheduler weight. */
  weightWidth: number;
  idWidth: number;
};

/** Most WQEs read in one burst. */
export const MAX_BURST = 4;

export const nicWqeFetch = defineModule('nic_wqe_fetch', { dataWidth: 64, numQp: 4, weightWidth: 4, idWidth: 4 } as WqeFetchParams, (m, p) => {
  const busBytes = p.dataWidth / 8;
  log2Exact(busBytes, 'dataWidth / 8');
  if (p.dataWidth < 64 || p.dataWidth > 512) throw new Error(`nic_wqe_fetch: dataWidth ${p.dataWidth} is outside 64..512`);
  const beatsPerWqe = (WQE_BYTES * 8) / p.dataWidth;
  const bpwLog2 = Math.log2(beatsPerWqe);
  const wqeBits = WQE_BYTES * 8;
  const qw = qpIndexWidth(p.numQp);
  const Wqe = wqeStruct(p.numQp);

  const { clk, rst } = m.clockAndReset();
  const qpCtx = m.input('qp_ctx', Vec(QpCtx, p.numQp));
  const weight = m.input('weight', Vec(UInt(p.weightWidth), p.numQp));
  const axi = axi4Read({ idWidth: p.idWidth, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth }).source(m, 'm_axi');
  const out = stream(Wqe).source(m, 'm_wqe');
  const ciUpd = m.output('sq_ci_upd', qpUpdate('SQ_CI', p.numQp));
  m.unused(qpCtx, 'only STATE, SQ_BASE, SQ_SIZE_LOG2 and SQ_PI are read; the rest is for other stages');
  m.unused(axi.rid, 'one burst in flight: every response belongs to it');

  // ---- per-QP consumer indices and candidates -------------------------------------------------
  const ci = m.reg('ci_reg', Vec(UInt(16), p.numQp));
  const cand: Value[] = [];
  for (let i = 0; i < p.numQp; i++) {
    const ctx = qpCtx.at(i);
    const inReset = ctx.field('state').eq(QP_STATE.RESET);
    cand.push(m.let(`cand_${i}`, ctx.field('sqPi').ne(ci.at(i)).land(inReset.lnot())));
  }
  const arb = m.instance('u_arb', wrrArbiter, { n: p.numQp, weightWidth: p.weightWidth });
  arb.req.set(cat(...[...cand].reverse()));
  arb.weight.set(weight);
  m.unused(arb.grant, 'the binary grant_index is used');

  const fsm = m.fsm('state', ['IDLE', 'ADDR', 'DATA'] as const);
  const idle = fsm.is('IDLE');
  arb.accept.set(idle.land(arb.grant_valid));

  // ---- burst planning (IDLE) ------------------------------------------------------------------
  const gi = arb.grant_index;
  const sel = qpCtx.at(gi);
  const selCi = m.let('sel_ci', ci.at(gi));
  const pending = m.let('sel_pending', sel.field('sqPi').subw(selCi));
  const ringMask = m.let('ring_mask', lit(1, 16).shl(sel.field('sqSizeLog2')).subw(1));
  const slot = m.let('ring_slot', selCi.and(ringMask));
  const toRingEnd = m.let('to_ring_end', ringMask.subw(slot).addw(1));
  const wqeAddr = m.let('wqe_addr', sel.field('sqBase').addw(cat(slot, lit(0, Math.log2(WQE_BYTES))).zext(ADDR_WIDTH)));
  const pageWqes = 2 ** PAGE_BITS / WQE_BYTES;
  const pageSlot = wqeAddr.bits(PAGE_BITS - 1, Math.log2(WQE_BYTES));
  const toPage = m.let('to_page_end', lit(pageWqes, 16).subw(pageSlot.zext(16)));
  const min = (a: Value, b: Value): Value => mux(a.lt(b), a, b);
  const count = m.let('burst_count', min(min(min(lit(MAX_BURST, 16), pending), toRingEnd), toPage).trunc(3));
  const selState = sel.field('state');
  const fetchStatus = m.let('fetch_status', mux(selState.eq(QP_STATE.RTS), lit(CQE_STATUS.SUCCESS, WQE_STATUS_BITS),
    mux(selState.eq(QP_STATE.ERROR), lit(CQE_STATUS.FLUSH_ERROR, WQE_STATUS_BITS), lit(CQE_STATUS.LOCAL_QP_ERROR, WQE_STATUS_BITS))));

  const qpReg = m.reg('qp_reg', UInt(qw));
  const addrReg = m.reg('addr_reg', UInt(ADDR_WIDTH));
  const countReg = m.reg('count_reg', UInt(3));
  const ciStart = m.reg('ci_start_reg', UInt(16));
  const statusReg = m.reg('fetch_status_reg', UInt(WQE_STATUS_BITS));
  const beat = m.reg('beat_reg', UInt(Math.max(1, bpwLog2)));
  const idx = m.reg('wqe_idx_reg', UInt(3));
  const errAcc = m.reg('rresp_err_reg', Bool);
  // The earlier beats of the WQE being received, slot j = beat j (the decode beat comes
  // straight from rdata). Only beats that can hold used bytes are kept.
  const decodeBeatOf = (n: number): number => Math.ceil(wqeUsedBytes(n) / busBytes) - 1;
  const maxDecode = decodeBeatOf(MAX_SGE);
  /** Beats read of a burst's last WQE: up to its last possibly used byte. */
  const tailBeats = maxDecode + 1;
  const buf = maxDecode === 0 ? undefined : m.reg('wqe_buf_reg', UInt(maxDecode * p.dataWidth), { reset: null });
  const outValid = m.reg('out_valid_reg', Bool);
  const outData = m.reg('out_data_reg', Wqe, { reset: null });
  const updValid = m.reg('upd_valid_reg', Bool);
  const updQp = m.reg('upd_qp_reg', UInt(qw));
  const updValue = m.reg('upd_value_reg', UInt(16));

  // ---- AR channel -----------------------------------------------------------------------------
  // Offered straight from the plan in the cycle the arbiter grants (IDLE), and from the
  // registers holding that same plan while it waits for arready (ADDR): valid stays high and
  // the payload stable. arvalid depends on qp_ctx, ci and the arbiter only, never on arready.
  const offerNow = m.let('ar_from_plan', idle.land(arb.grant_valid));
  const arCount = mux(idle, count, countReg);
  axi.arid.set(0);
  axi.araddr.set(mux(idle, wqeAddr, addrReg));
  // The burst stops after the last WQE's used bytes (at most MAX_SGE SGEs): its reserved tail
  // would only hold the R channel (at 64 bits 4 beats, in front of the payload read).
  axi.arlen.set(arCount.zext(8).subw(1).shl(bpwLog2).addw(tailBeats - 1));
  axi.arsize.set(Math.log2(busBytes));
  axi.arburst.set(AXI_BURST.INCR);
  axi.arlock.set(0);
  axi.arcache.set(0b0011);
  axi.arprot.set(0);
  axi.arvalid.set(offerNow.lor(fsm.is('ADDR')));

  // ---- R channel ------------------------------------------------------------------------------
  const lastOfBurst = m.let('last_of_burst', idx.eq(countReg.subw(1)));
  const beatLast = m.let('beat_last', tailBeats === beatsPerWqe ? beat.eq(beatsPerWqe - 1)
    : beat.eq(mux(lastOfBurst, lit(tailBeats - 1, beat.width), lit(beatsPerWqe - 1, beat.width))));
  // The WQE as far as it is in: slot j from the buffer, the current beat from rdata, the
  // rest zero (never used: decoding waits for the beat that completes the used bytes).
  const bufSlot = (j: number): Value => buf!.bits((j + 1) * p.dataWidth - 1, j * p.dataWidth);
  const slots: Value[] = [];
  for (let j = 0; j <= maxDecode; j++) slots.push(j === maxDecode ? axi.rdata : mux(beat.eq(j), axi.rdata, bufSlot(j)));
  const spare = wqeBits - (maxDecode + 1) * p.dataWidth;
  const view = m.let('wqe_view', cat(...(spare > 0 ? [lit(0, spare)] : []), ...[...slots].reverse()));
  m.unused(view, 'reserved WQE bytes are not decoded');
  const numSge = wqeField(view, 'num_sge');
  // num_sge 0..MAX_SGE; anything larger (rejected by req_tx) decodes like MAX_SGE.
  const decodeKeys = Array.from({ length: MAX_SGE + 1 }, (_, n) => n);
  const decodeAt = m.let('decode_beat', select(numSge, decodeKeys, decodeKeys.map(n => lit(decodeBeatOf(n), beat.width))));
  const decodeNow = m.let('decode_now', beat.eq(decodeAt));
  // At beat 0 num_sge comes from rdata: rready must not depend on it, so beat 0 waits for a
  // free output whenever some num_sge would decode there.
  const mayDecode = decodeBeatOf(0) === 0 ? mux(beat.eq(0), lit(1, 1), decodeNow) : decodeNow;
  const outFree = m.let('out_free', outValid.lnot().lor(out.ready));
  axi.rready.set(fsm.is('DATA').land(mayDecode.lnot().lor(outFree)));
  const take = m.let('r_take', axi.rvalid.land(axi.rready));
  const errNow = m.let('wqe_err', errAcc.lor(axi.rresp.ne(0)));
  const burstLast = m.let('burst_last', beatLast.land(lastOfBurst));
  m.assert(take.land(burstLast).lnot().lor(axi.rlast), 'rlast must come with the last beat of the burst');
  m.assert(take.land(axi.rlast).lnot().lor(burstLast), 'rlast before the last beat of the burst');

  const opcode = wqeField(view, 'opcode');
  const goodOpcode = opcode.eq(WQE_OPCODE.RDMA_WRITE).lor(opcode.eq(WQE_OPCODE.RDMA_READ));
  const wqeStatus = m.let('wqe_status', mux(errNow, lit(CQE_STATUS.LOCAL_QP_ERROR, WQE_STATUS_BITS),
    mux(statusReg.ne(CQE_STATUS.SUCCESS), statusReg, mux(goodOpcode, lit(CQE_STATUS.SUCCESS, WQE_STATUS_BITS), lit(CQE_STATUS.BAD_OPCODE, WQE_STATUS_BITS)))));
  const decoded = pack(Wqe, {
    qp: qpReg, ringIndex: ciStart.addw(idx.zext(16)), status: wqeStatus,
    opcode, flags: wqeField(view, 'flags'), numSge, length: wqeField(view, 'length'),
    wrId: wqeField(view, 'wr_id'), remoteVa: wqeField(view, 'remote_va'), rkey: wqeField(view, 'rkey'), sge: wqeSges(view, numSge),
  });

  out.valid.set(outValid);
  out.data.set(outData);
  m.if(out.ready, () => outValid.set(0));
  updValid.set(0);

  /** The read was accepted: receive its beats from the first. */
  const startData = (): void => {
    beat.set(0);
    idx.set(0);
    errAcc.set(0);
    fsm.goto('DATA');
  };
  fsm.states({
    IDLE: () => m.if(arb.grant_valid, () => {
      qpReg.set(gi);
      addrReg.set(wqeAddr);
      countReg.set(count);
      ciStart.set(selCi);
      statusReg.set(fetchStatus);
      m.if(axi.arready, startData).else(() => fsm.goto('ADDR'));
    }),
    ADDR: () => m.if(axi.arready, startData),
    DATA: () => m.if(take, () => {
      if (buf) {
        const sw = m.switch(beat);
        for (let j = 0; j < maxDecode; j++) sw.case(j, () => buf.setBits((j + 1) * p.dataWidth - 1, j * p.dataWidth, axi.rdata));
      }
      beat.set(beat.addw(1));
      errAcc.set(errNow);
      m.if(decodeNow, () => {
        outValid.set(1);
        outData.set(decoded);
      });
      m.if(beatLast, () => {
        errAcc.set(0);
        idx.set(idx.addw(1));
      });
      m.if(burstLast, () => {
        const next = ciStart.addw(countReg.zext(16));
        // A QP reset meanwhile keeps its index at 0 (nic_regs cleared it too): publish nothing.
        updValid.set(qpCtx.at(qpReg).field('state').ne(QP_STATE.RESET));
        updQp.set(qpReg);
        updValue.set(next);
        fsm.goto('IDLE');
      });
    }),
  });

  // ci: advanced at the end of a burst, held at 0 in RESET.
  for (let i = 0; i < p.numQp; i++) {
    const ciI = (v: Value | number): void => ci.setBits(16 * i + 15, 16 * i, v);
    m.if(fsm.is('DATA').land(take).land(burstLast).land(qpReg.eq(i)), () => ciI(ciStart.addw(countReg.zext(16))));
    m.if(qpCtx.at(i).field('state').eq(QP_STATE.RESET), () => ciI(0));
  }
  ciUpd.set(pack(qpUpdate('SQ_CI', p.numQp), { valid: updValid, qp: updQp, value: updValue }));

  return { clk, rst, qp_ctx: qpCtx, weight, m_axi: axi, m_wqe: out, sq_ci_upd: ciUpd };
}, { doc: 'WQE fetch: weighted round-robin over QPs with posted WQEs, up to 4 WQEs per AXI burst, decoded', params: { rules: { dataWidth: oneOf(64, 128, 256, 512), numQp: intIn(1, 64), weightWidth: intIn(1, 16), idWidth: intIn(1, 16) } } });
