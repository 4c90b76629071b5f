// nic_wqe_fetch (stage 2): reads WQEs from the QPs' send rings in host memory.
//
// - Keeps each QP's fetch index (ci: the next WQE to read) itself. It is not SQ_CI: a slot is
//   free for software only once its WQE completed (nic_ack_tracker publishes SQ_CI), because
//   a go-back-N rewind reads the ring again (docs/nic-reliability.md). While a QP is in RESET
//   its ci is 0 (and stays 0 after RESET until the QP's next burst or rewind).
// - ci is in memories (issue 15, "Scale"; no 16-bit register per QP): ci_fetch_mem (written at
//   a burst's end) and ci_rewind_mem (written by a rewind; both may write, for different QPs,
//   in one cycle and a LUTRAM has one write port), ci_live_reg (one bit per QP: which bank is
//   newer) and ci_zero_reg (one bit per QP: ci is 0; set by `rst` and in RESET). It is read
//   at one QP where needed: when a QP's context is loaded and at a SQ_PI write.
// - `rewind` (from nic_ack_tracker: a go-back-N rewind, or nic_req_tx putting a WQE back)
//   sets a QP's ci to its ringIdx at once; a burst of that QP whose read was planned (ADDR,
//   DATA) then ends without moving ci (its WQEs are stale copies nic_req_tx drops); a rewind
//   that lands while the QP's context is being loaded or planned makes the stage load it again.
// - SQ_PI is not scanned either: it is a memory field of the QP context like SQ_BASE (read at
//   the loaded QP, at the QP of a burst's end and at the QP of a rewind), and the stage learns
//   of every change as a write event `sq_pi_wr` {qp, pi}: in nic_top nic_regs' software lane
//   (a doorbell = a write of SQ_PI; the clear that comes with STATE = RESET; the reset sweep),
//   at the edge that writes the stage's SQ_PI memory; in the stage tests ('vec') an input.
// - "Has work" (SQ_PI != ci) is one bit per QP (has_work_reg), set again at each event that
//   changes SQ_PI or ci of a QP, never by comparing every QP's SQ_PI and ci in every cycle:
//   a SQ_PI write (the new PI against that QP's ci), a burst's end (the new ci against that
//   QP's SQ_PI), a rewind (its index against SQ_PI). Events of one cycle see each other: a
//   SQ_PI write in the cycle of a rewind or a burst end of its QP compares with the new ci, and
//   those compare with the new SQ_PI. ci counts as 0 in RESET; a QP entering RESET (RESET seen
//   while ci_zero_reg is still clear) gets 0, since nic_regs clears its SQ_PI with that write.
//   A SQ_PI write during LOAD/PLAN of its QP: the loaded PI is the old one (as with a register),
//   the bit is set and the QP is pushed again after its turn.
// - Active-list scheduler (only QPs with work are looked at, so the scheduler's depth and its
//   latency do not grow with numQp). A QP is *eligible* when its has-work bit is set, it is not
//   in RESET and not held (`hold`: the tracker keeps a parked QP back until its fence, READ
//   limit or entry room clears; the RESET and hold terms are single bits per QP). `u_active` is
//   a FIFO of QP indices (depth numQp rounded up to a power of two) with a `queued` bit per
//   QP, so a QP is in it at most once and it cannot overflow.
//   Pushing is level-driven, never an event that could be missed: every cycle the lowest
//   eligible QP that is neither queued nor owned by the scheduler is pushed (one per cycle,
//   a balanced priority tree, gen/lib lowestSetIndex). So a doorbell, a rewind that leaves
//   work, a hold that clears and leaving RESET with work all push the QP within a few cycles,
//   and a doorbell in the same cycle as the pop of its QP is simply seen at the next look.
//   The scheduler pops the head and owns that QP for its turn: it loads the QP's context
//   (LOAD, in IDLE), plans the burst from those registers (PLAN) and reads it (ADDR, DATA).
//   A popped QP that turns out to have no work, or is held or in RESET, is dropped at PLAN
//   (2 cycles; a held QP waits out its hold unqueued and is pushed again once it is eligible,
//   so nothing scans the QPs for it). After a burst the QP keeps the scheduler for its next
//   burst while it has turn left (weights below) or nobody is queued; otherwise it is released
//   and, if still eligible, pushed at the tail: round robin among active QPs.
// - Weights: a QP of weight w (the `weight` input, read when its turn starts; 0 counts as 1)
//   gets up to w consecutive bursts per turn before it goes to the tail; equal weights give
//   plain round robin. With every QP busy, QP i gets w_i / sum(w) of the bursts. A QP waits
//   for at most the turns of the QPs ahead of it in the list (each at most its weight in
//   bursts), plus a few cycles to be pushed.
// - One AXI4 INCR read fetches up to MAX_BURST (4) WQEs of 128 bytes: never past the ring's
//   end, never across a 4 KiB boundary, never more than are posted. The last WQE of a burst
//   is read only up to its last SGE (0x60 bytes; at 64 bits 12 of 16 beats), so a one-WQE
//   burst frees the shared R channel 4 beats sooner. One burst is in flight at a time; ci
//   advances when its last beat is taken.
// - The read is offered on AR from registers only (the plan registered in PLAN; valid and
//   payload stable until arready), DOORBELL_TO_AR cycles after an idle stage with an empty
//   list first sees SQ_PI != ci (the cycle after the edge that takes the SQ_PI write: the
//   has-work bit is set at that edge, as the SQ_PI register was): push (the index into
//   u_active), LOAD (the context into registers), PLAN (burst address, length and status into
//   registers), AR.
// - Every fetched WQE leaves on m_wqe, decoded (Wqe in wqe.ts) with a status the TX engine
//   turns into an error completion instead of sending anything (NIC.md: "rejects bad opcodes
//   and QPs not in RTS with an error completion"):
//     LOCAL_QP_ERROR  the read returned an AXI error, or the QP is in INIT/RTR (not RTS)
//     FLUSH_ERROR     the QP is in ERROR (its posted WQEs are flushed)
//     BAD_OPCODE      the opcode is neither RDMA WRITE nor RDMA READ
//   in that order of precedence; SUCCESS otherwise. The QP state is sampled when the burst's
//   context is loaded.
// - A WQE is decoded and handed on at the beat that completes the bytes it uses (header and
//   its num_sge SGEs, wqeUsedBytes), not at its last beat: at 64 bits a one-SGE WQE leaves
//   after beat 5 of 16, 10 cycles sooner (doorbell -> first TX beat latency). Its remaining
//   beats (unused SGEs, reserved bytes) are taken and dropped; an AXI error on them does not
//   change the status of a WQE already handed on. SGEs at or past num_sge are zero.
// - m_wqe holds one decoded WQE in a register; a stalled consumer stalls the R channel on
//   the decode beat of the next WQE.

import { Bool, Struct, UInt, Vec, cat, defineModule, lit, mux, pack, type Input, type Value, intIn, oneOf } from '../hdl/index.ts';
import { lowestSetIndex } from '../lib/arbiter.ts';
import { syncFifo } from '../lib/fifo.ts';
import { AXI_BURST, stream } from '../lib/interfaces.ts';
import { log2Exact } from '../lib/util.ts';
import { axi4Read } from './axi-ports.ts';
import { ctxPortRule, qpCtxView, stateMask, type CtxPort } from './ctx-view.ts';
import { qpRegWidth, qpWriteLane } from './ctx.ts';
import { oneHotIf } from './mux-util.ts';
import { select } from './frame-util.ts';
import { fetchRewindStruct } from './qp-transport.ts';
import { CQE_STATUS, MAX_SGE, QP_REGS, QP_STATE, WQE_BYTES, WQE_OPCODE } from './regmap.ts';
import { ADDR_WIDTH, PAGE_BITS, qpIndexWidth } from './types.ts';
import { WQE_STATUS_BITS, wqeField, wqeSges, wqeStruct, wqeUsedBytes } from './wqe.ts';

/** SQ_PI's word slot in a QP's register block (the software lane's `reg`). */
const SQ_PI_SLOT = QP_REGS.find(r => r.name === 'SQ_PI')!.offset >> 2;

export type WqeFetchParams = {
  dataWidth: number;
  numQp: number;
  /** Bits of each scheduler weight. */
  weightWidth: number;
  idWidth: number;
  /** Where the QP context comes from (ctx-view.ts): 'vec' = the qp_ctx input (stage tests), 'lanes' = nic_regs' write lanes (nic_top). */
  ctxPort: CtxPort;
};

/** Most WQEs read in one burst. */
export const MAX_BURST = 4;
/** Cycles from the first cycle an idle stage with an empty active list sees SQ_PI != ci to
 *  the cycle it offers the read on AR: push, LOAD, PLAN. */
export const DOORBELL_TO_AR = 3;

export const nicWqeFetch = defineModule('nic_wqe_fetch', { dataWidth: 64, numQp: 4, weightWidth: 4, idWidth: 4, ctxPort: 'vec' } as WqeFetchParams, (m, p) => {
  const busBytes = p.dataWidth / 8;
  log2Exact(busBytes, 'dataWidth / 8');
  if (p.dataWidth < 64 || p.dataWidth > 512) throw new Error(`nic_wqe_fetch: dataWidth ${p.dataWidth} is outside 64..512`);
  const beatsPerWqe = (WQE_BYTES * 8) / p.dataWidth;
  const bpwLog2 = Math.log2(beatsPerWqe);
  const wqeBits = WQE_BYTES * 8;
  const qw = qpIndexWidth(p.numQp);
  const Wqe = wqeStruct(p.numQp);

  const { clk, rst } = m.clockAndReset();
  const qpCtx = qpCtxView(m, p.numQp, p.ctxPort, ['state', 'sqPi', 'sqBase', 'sqSizeLog2'], 'only STATE, SQ_BASE, SQ_SIZE_LOG2 and SQ_PI are read; the rest is for other stages');
  const weight = m.input('weight', Vec(UInt(p.weightWidth), p.numQp));
  const axi = axi4Read({ idWidth: p.idWidth, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth }).source(m, 'm_axi');
  const out = stream(Wqe).source(m, 'm_wqe');
  const rewind = m.input('rewind', fetchRewindStruct(qw));
  const hold = m.input('hold', UInt(p.numQp));
  m.unused(axi.rid, 'one burst in flight: every response belongs to it');

  // ---- per-QP fetch indices, SQ_PI writes, "has work" bits and the active list --------------
  // ci per QP in memories (issue 15, "Scale"): read where the stage needs one QP's ci (LOAD, and
  // at a SQ_PI write below), written at the end of a burst (ci_fetch_mem) and by a rewind
  // (ci_rewind_mem): two LUTRAMs since both may write (different QPs) in one cycle; ci_live_reg
  // (1 = the rewind bank holds the QP's newest ci) picks one, and ci_zero_reg makes ci read 0
  // after `rst` and while the QP is in RESET (memories have no reset), until the next write.
  const rows = 2 ** qw;
  const ciFetchMem = m.memory('ci_fetch_mem', UInt(16), rows);
  const ciRewindMem = m.memory('ci_rewind_mem', UInt(16), rows);
  const ciLive = m.reg('ci_live_reg', UInt(p.numQp));
  const ciZero = m.reg('ci_zero_reg', UInt(p.numQp), { reset: (1n << BigInt(p.numQp)) - 1n });
  const ciOf = (q: Value): Value => mux(ciZero.bit(q), lit(0, 16), mux(ciLive.bit(q), ciRewindMem.readAsync(q), ciFetchMem.readAsync(q)));
  const inReset = stateMask(m, qpCtx, p.numQp, QP_STATE.RESET, 'qp_in_reset');
  // SQ_PI writes, one per cycle: SQ_PI of QP `qp` becomes `pi` at the coming edge. In nic_top
  // ('lanes') they are nic_regs' software lane: a write of SQ_PI (the doorbell), the clear of
  // a STATE = RESET write and the reset sweep (SQ_PI := 0), at the edge nic_regs writes its
  // copy and this stage's SQ_PI memory takes it. With 'vec' the test drives `sq_pi_wr` beside
  // qp_ctx (qp_ctx shows the new SQ_PI from that edge on).
  const SqPiWr = Struct('sq_pi_wr', { valid: Bool, qp: UInt(qw), pi: UInt(16) });
  let sqPiWr: Value;
  // Typed as the 'vec' mode's port (the stage tests drive it); nic_top has no such port.
  let sqPiWrPort = {} as { sq_pi_wr: Input<typeof SqPiWr> };
  if (p.ctxPort === 'lanes') {
    const wr = (qpCtx.ports as unknown as Record<string, Value>)['ctx_wr']!.as(qpWriteLane(p.numQp));
    const zero = wr.field('init').lor(wr.field('clr'));
    sqPiWr = m.let('sq_pi_wr', pack(SqPiWr, {
      valid: wr.field('valid').land(wr.field('reg').eq(SQ_PI_SLOT)).lor(zero), qp: wr.field('qp'), pi: mux(zero, lit(0, 16), wr.field('data').trunc(16)),
    }));
  } else {
    const port = m.input('sq_pi_wr', SqPiWr);
    sqPiWr = port;
    sqPiWrPort = { sq_pi_wr: port };
  }
  const db = sqPiWr.as(SqPiWr);
  const dbValid = db.field('valid'), dbQp = db.field('qp'), dbPi = db.field('pi');
  const fsm = m.fsm('state', ['IDLE', 'PLAN', 'ADDR', 'DATA'] as const);
  const idle = fsm.is('IDLE');
  // The QP the scheduler owns (popped, its turn not over) and whether IDLE loads it again
  // (its turn goes on, or a rewind made its loaded context stale) instead of popping the list.
  const qpReg = m.reg('qp_reg', UInt(qw));
  const busy = m.reg('busy_reg', Bool);
  const again = m.reg('again_reg', Bool);
  const queued = m.reg('queued_reg', UInt(p.numQp));
  // SQ_PI != ci per QP, kept by events (below), not compared for every QP in every cycle.
  const hasWorkBits = m.reg('has_work_reg', UInt(p.numQp));
  const active = m.instance('u_active', syncFifo, { width: qw, depth: 2 ** qw, bypass: false });
  m.unused(active.count, 'the queued bits say who is in the list');
  m.unused(active.full, 'never full: a QP is in the list at most once');
  m.unused(active.empty, 'm_valid says the same');
  const wants: Value[] = [];
  for (let i = 0; i < p.numQp; i++) {
    const eligible = hasWorkBits.bit(i).land(inReset.bit(i).lnot()).land(hold.bit(i).lnot());
    const owned = busy.land(qpReg.eq(i));
    wants.push(m.let(`want_${i}`, eligible.land(queued.bit(i).lnot()).land(owned.lnot())));
  }
  const push = lowestSetIndex(m, 'push', cat(...[...wants].reverse()));
  active.s.valid.set(push.valid);
  active.s.data.set(push.index);
  m.assert(push.valid.lnot().lor(active.s.ready), 'active list full: a QP was pushed twice');
  const popNow = m.let('pop', idle.land(again.lnot()).land(active.m.valid));
  active.m.ready.set(idle.land(again.lnot()));
  const head = active.m.data;
  // Set by a push, cleared by a pop (never the same QP: a queued QP is not pushed).
  const bitOf = (q: Value, on: Value): Value => oneHotIf(p.numQp, q, on);
  queued.set(queued.or(bitOf(push.index, push.valid)).and(bitOf(head, popNow).not()));

  // ---- LOAD (in IDLE): the owned QP's context into registers -----------------------------------
  const loadQp = m.let('load_qp', mux(again, qpReg, head));
  const loadNow = m.let('load_now', idle.land(again.lor(active.m.valid)));
  const field = (name: 'sqPi' | 'sqBase' | 'sqSizeLog2' | 'state'): Value => qpCtx.at(loadQp).field(name);
  const ldPi = m.reg('ld_pi_reg', UInt(16), { reset: null });
  const ldCi = m.reg('ld_ci_reg', UInt(16), { reset: null });
  const ldBase = m.reg('ld_base_reg', UInt(ADDR_WIDTH), { reset: null });
  const ldSizeLog2 = m.reg('ld_size_log2_reg', UInt(qpRegWidth('SQ_SIZE_LOG2')), { reset: null });
  const ldState = m.reg('ld_state_reg', UInt(qpRegWidth('STATE')), { reset: null });
  const ldWeight = m.reg('ld_weight_reg', UInt(p.weightWidth), { reset: null });
  // A rewind of the QP in the cycle its context is loaded: the loaded ci is the old one.
  const ldStale = m.reg('ld_stale_reg', Bool);
  const rewindHits = (q: Value): Value => rewind.field('valid').land(rewind.field('qp').eq(q));
  // Bursts planned in this turn (at most the weight).
  const used = m.reg('used_reg', UInt(p.weightWidth));

  // ---- PLAN: the burst from the loaded registers -----------------------------------------------
  const pending = m.let('plan_pending', ldPi.subw(ldCi));
  // Timing (docs/synth.md): the ring mask is decoded from the size (bit i set when i < log2
  // size, no shift and subtract), and the ring and page limits are counted as the slots left
  // *after* this one (mask & ~ci, and ~ the 5-bit page slot), so no adder sits between a
  // register and a limit's compare but the page slot's 5-bit add. The 64-bit wqe_addr add only
  // feeds addr_reg.
  // (A bit at or above the largest size the register holds is constant zero: no constant compare.)
  const sizeMax = 2 ** ldSizeLog2.width - 1;
  const ringMask = m.let('ring_mask', cat(...Array.from({ length: 16 }, (_, i) => (i < sizeMax ? ldSizeLog2.gt(i) : lit(0, 1))).reverse()));
  const slot = m.let('ring_slot', ldCi.and(ringMask));
  const ringLeft = m.let('ring_left', ringMask.and(ldCi.not()));
  const wqeLog2 = Math.log2(WQE_BYTES), pageSlotBits = PAGE_BITS - wqeLog2;
  const wqeAddr = m.let('wqe_addr', ldBase.addw(cat(slot, lit(0, wqeLog2)).zext(ADDR_WIDTH)));
  // wqe_addr's page slot without the 64-bit add: slot * WQE_BYTES has no bits below wqeLog2,
  // so no carry enters bit wqeLog2 and the page slot is base's plus slot's, modulo the page.
  const pageSlot = m.let('page_slot', ldBase.bits(PAGE_BITS - 1, wqeLog2).addw(slot.bits(pageSlotBits - 1, 0)));
  const pageLeft = m.let('page_left', pageSlot.not());
  // Each limit clamped to MAX_BURST first (three compares side by side), then the least.
  const clamp = (x: Value): Value => mux(x.lt(MAX_BURST), x.trunc(3), lit(MAX_BURST, 3));
  /** clamp(x + 1) for x = the slots left after this one. */
  const clampNext = (x: Value): Value => mux(x.lt(MAX_BURST - 1), x.trunc(2).add(1), lit(MAX_BURST, 3));
  const min = (a: Value, b: Value): Value => mux(a.lt(b), a, b);
  const count = m.let('burst_count', min(min(clamp(pending), clampNext(ringLeft)), clampNext(pageLeft)));
  const fetchStatus = m.let('fetch_status', mux(ldState.eq(QP_STATE.RTS), lit(CQE_STATUS.SUCCESS, WQE_STATUS_BITS),
    mux(ldState.eq(QP_STATE.ERROR), lit(CQE_STATUS.FLUSH_ERROR, WQE_STATUS_BITS), lit(CQE_STATUS.LOCAL_QP_ERROR, WQE_STATUS_BITS))));
  const planStale = m.let('plan_stale', ldStale.lor(rewindHits(qpReg)));
  const hasWork = m.let('plan_has_work', ldPi.ne(ldCi).land(ldState.ne(QP_STATE.RESET)).land(hold.bit(qpReg).lnot()));

  const addrReg = m.reg('addr_reg', UInt(ADDR_WIDTH));
  const arlenReg = m.reg('arlen_reg', UInt(8));
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
  // AR length of a burst of `count` WQEs, a constant per count (no adder behind the compares).
  const counts = Array.from({ length: 8 }, (_, c) => c);
  const arlenOf = m.let('burst_arlen', select(count, counts, counts.map(c => lit(((((c - 1) & 0xff) << bpwLog2) + tailBeats - 1) & 0xff, 8))));
  const buf = maxDecode === 0 ? undefined : m.reg('wqe_buf_reg', UInt(maxDecode * p.dataWidth), { reset: null });
  const outValid = m.reg('out_valid_reg', Bool);
  const outData = m.reg('out_data_reg', Wqe, { reset: null });
  // The burst's QP was rewound after its read was planned: its end leaves ci alone.
  const burstStale = m.reg('burst_stale_reg', Bool);
  const rewindsBurst = m.let('rewind_hits_burst', rewindHits(qpReg).land(fsm.is('ADDR').lor(fsm.is('DATA'))));
  m.if(rewindsBurst, () => burstStale.set(1));

  // ---- AR channel -----------------------------------------------------------------------------
  // From the plan registers alone: valid in ADDR, the payload stable until arready. The burst
  // stops after the last WQE's used bytes (at most MAX_SGE SGEs): its reserved tail would only
  // hold the R channel (at 64 bits 4 beats, in front of the payload read).
  axi.arid.set(0);
  axi.araddr.set(addrReg);
  axi.arlen.set(arlenReg);
  axi.arsize.set(Math.log2(busBytes));
  axi.arburst.set(AXI_BURST.INCR);
  axi.arlock.set(0);
  axi.arcache.set(0b0011);
  axi.arprot.set(0);
  axi.arvalid.set(fsm.is('ADDR'));

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

  /** The read was accepted: receive its beats from the first. */
  const startData = (): void => {
    beat.set(0);
    idx.set(0);
    errAcc.set(0);
    fsm.goto('DATA');
  };
  /** The owned QP's turn is over: it leaves the scheduler (pushed again if still eligible). */
  const release = (): void => { busy.set(0); again.set(0); };
  const weightOf = m.let('turn_weight', mux(ldWeight.eq(0), lit(1, p.weightWidth), ldWeight));
  const turnLeft = m.let('turn_left', used.lt(weightOf));
  fsm.states({
    IDLE: () => m.if(loadNow, () => {
      qpReg.set(loadQp);
      busy.set(1);
      again.set(0);
      m.if(again.lnot(), () => used.set(0));
      ldPi.set(field('sqPi'));
      ldCi.set(ciOf(loadQp));
      ldBase.set(field('sqBase'));
      ldSizeLog2.set(field('sqSizeLog2'));
      ldState.set(field('state'));
      ldWeight.set(weight.at(loadQp));
      ldStale.set(rewindHits(loadQp));
      fsm.goto('PLAN');
    }),
    PLAN: () => {
      m.if(planStale, () => again.set(1)).elif(hasWork.lnot(), release).else(() => {
        burstStale.set(0);
        addrReg.set(wqeAddr);
        arlenReg.set(arlenOf);
        countReg.set(count);
        ciStart.set(ldCi);
        statusReg.set(fetchStatus);
        used.set(used.addw(1));
      });
      m.if(planStale.lor(hasWork.lnot()), () => fsm.goto('IDLE')).else(() => fsm.goto('ADDR'));
    },
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
      // The turn goes on while it has bursts left, or with nobody queued behind (a new turn).
      m.if(burstLast, () => {
        fsm.goto('IDLE');
        m.if(turnLeft.lor(active.m.valid.lnot()), () => {
          again.set(1);
          m.if(turnLeft.lnot(), () => used.set(0));
        }).else(release);
      });
    }),
  });

  // ci: advanced at the end of a burst (unless the QP was rewound meanwhile: then a rewind of
  // the same QP in that cycle is excluded too), set by a rewind, 0 in RESET (ci_zero_reg).
  // Timing: `take` (rready, from num_sge in rdata at a decode beat) enters the has-work logic
  // last, as the select of two precomputed next values (with and without the burst end).
  const endCandidate = m.let('fetch_end_if_taken', fsm.is('DATA').land(burstLast).land(burstStale.lor(rewindsBurst).lnot()));
  const fetchEnd = m.let('fetch_end', endCandidate.land(take));
  // The burst's ci after it, registered in ADDR (ci_start_reg and count_reg are fixed from PLAN
  // on; the last beat comes in DATA, at least a cycle later): no adder in front of the
  // has-work compares (docs/synth.md, numQp 16).
  const fetchCiReg = m.reg('fetch_end_ci_reg', UInt(16), { reset: null });
  m.if(fsm.is('ADDR'), () => fetchCiReg.set(ciStart.addw(countReg.zext(16))));
  const fetchCi = m.let('fetch_end_ci', fetchCiReg);
  const rwValid = rewind.field('valid'), rwQp = rewind.field('qp'), rwCi = rewind.field('ringIdx');
  m.if(fetchEnd, () => ciFetchMem.write(qpReg, fetchCi));
  m.if(rwValid, () => ciRewindMem.write(rwQp, rwCi));
  const bitOfQp = (q: Value, on: Value): Value => oneHotIf(p.numQp, q, on);
  ciLive.set(ciLive.and(bitOfQp(qpReg, fetchEnd).not()).or(bitOfQp(rwQp, rwValid)));
  ciZero.set(ciZero.and(bitOfQp(qpReg, fetchEnd).not()).and(bitOfQp(rwQp, rwValid).not()).or(inReset));

  // "Has work" (SQ_PI != ci) per QP, set again at every event that moves either of a QP: a SQ_PI
  // write (compared with that QP's ci), the end of a burst and a rewind (compared with that
  // QP's SQ_PI), each with the other events of the same cycle and of the same QP taken into
  // account (a doorbell racing a burst end or a rewind of its QP), ci taken as 0 in RESET.
  // A QP entering RESET (ci_zero_reg not yet set) gets 0: nic_regs clears SQ_PI with it.
  const sqPiAt = (q: Value): Value => qpCtx.at(q).field('sqPi');
  const sqPiNext = (q: Value): Value => mux(dbValid.land(dbQp.eq(q)), dbPi, sqPiAt(q));
  const dbCiOther = m.let('db_ci_other', mux(inReset.bit(dbQp), lit(0, 16), mux(rwValid.land(rwQp.eq(dbQp)), rwCi, ciOf(dbQp))));
  // A burst end of the SQ_PI write's QP: its new ci (a rewind of that QP excludes the end).
  const dbCiEnd = m.let('db_ci_end', mux(inReset.bit(dbQp), lit(0, 16), fetchCi));
  const workDbOther = m.let('db_has_work', dbPi.ne(dbCiOther));
  const workDbEnd = m.let('db_has_work_end', mux(qpReg.eq(dbQp), dbPi.ne(dbCiEnd), workDbOther));
  const workEnd = m.let('end_has_work', sqPiNext(qpReg).ne(mux(inReset.bit(qpReg), lit(0, 16), fetchCi)));
  const workRw = m.let('rewind_has_work', sqPiNext(rwQp).ne(mux(inReset.bit(rwQp), lit(0, 16), rwCi)));
  const entering = m.let('qp_entering_reset', inReset.and(ciZero.not()));
  const setBit = (v: Value, q: Value, on: Value, x: Value): Value => v.and(bitOfQp(q, on).not()).or(bitOfQp(q, on.land(x)));
  const nextWork = (end: boolean): Value => {
    let v: Value = hasWorkBits.and(entering.not());
    if (end) v = setBit(v, qpReg, lit(1, 1), workEnd);
    v = setBit(v, rwQp, rwValid, workRw);
    return setBit(v, dbQp, dbValid, end ? workDbEnd : workDbOther);
  };
  hasWorkBits.set(mux(fetchEnd, m.let('has_work_if_end', nextWork(true)), m.let('has_work_if_not', nextWork(false))));
  // The invariant the events keep (simulation only): outside RESET, the owned QP's bit is
  // SQ_PI != ci (a missing bit would strand the QP's work, a spurious one make it spin).
  m.assert(inReset.bit(qpReg).lor(hasWorkBits.bit(qpReg).eq(sqPiAt(qpReg).ne(ciOf(qpReg)))), 'has_work_reg of the owned QP is not SQ_PI != ci');

  return { clk, rst, ...qpCtx.ports, ...sqPiWrPort, weight, rewind, hold, m_axi: axi, m_wqe: out };
}, { doc: 'WQE fetch: weighted round-robin over an active list of QPs with posted WQEs, up to 4 WQEs per AXI burst, decoded', params: { rules: { ctxPort: ctxPortRule, dataWidth: oneOf(64, 128, 256, 512), numQp: intIn(1, 256), weightWidth: intIn(1, 16), idWidth: intIn(1, 16) } } });
