// nic_completion (stage 8, CQE writer): turns completion requests into 32-byte CQEs in each
// QP's completion ring and raises the moderated interrupt event.
//
// - Requests are handled one at a time, in arrival order (so per QP in request order): AW,
//   then the CQE's beats on W (4 beats of 64 bits, or one beat with an 32-byte wstrb lane on
//   a 512-bit bus), then B. One burst per CQE, never across 4 KiB (a CQE is 32-byte aligned).
// - The CQE layout comes from regmap.ts CQE_FIELDS; unused bytes are 0. phase = 1 on the
//   first pass around the ring, 0 on the second, ... (bit log2(size) of CQ_PI, inverted).
// - Back-pressure: a request is taken into the stage (s_req_ready is the IDLE state, a
//   register) and waits there while its CQ is full, i.e. CQ_PI - CQ_CI = ring size, so an
//   unconsumed CQE is never overwritten; s_req_ready stays low meanwhile. The stage is in
//   order, so a full CQ also holds the requests of other QPs behind it. A CQE takes two
//   cycles more than before the timing work (LOAD, CHECK: registered context and address).
// - CQ_PI (kept per QP here in a memory, pi_done_mem, read when a request is loaded; a flip-flop
//   per QP, pi_zero_reg, makes it read 0 after `rst` and while the QP is in RESET) advances after an OKAY
//   write response and is published on cq_pi_upd (to nic_regs' hw_cq_pi). A write error
//   leaves CQ_PI alone and reports the QP on qp_error (to nic_regs' hw_error: QP to ERROR).
// - Interrupt moderation (irq_mod = the IRQ_MOD register): irq_event pulses for one cycle
//   after the completion that makes `count` un-signalled completions (count = bits 5:0,
//   0 counts as 1, above 32 as 32), or `timer` (bits 31:16, 0 = off) cycles after the first
//   un-signalled completion, whichever comes first; either resets both.
//   Precisely, per clock edge, with done = a completion counted at this edge:
//     if done and pending+1 >= count                  -> event, pending = 0, timer = 0
//     elif pending > 0 and timer on and timer+1 >= T  -> event, pending = 0, timer = 0
//     else pending += done; timer = pending > 0 ? timer + 1 : 0
//   so a lone completion at edge E raises the event at edge E + T.

import { Bool, UInt, cat, defineModule, lit, mux, pack, type Value, intIn, oneOf } from '../hdl/index.ts';
import { AXI_BURST, stream } from '../lib/interfaces.ts';
import { bankedMemory } from '../lib/banked-memory.ts';
import { log2Exact } from '../lib/util.ts';
import { axi4Write } from './axi-ports.ts';
import { cqeReqStruct } from './cqe-req.ts';
import { qpErrorEvent, qpUpdate } from './ctx.ts';
import { ctxPortRule, qpCtxView, stateMask, type CtxPort } from './ctx-view.ts';
import { CQE_BYTES, CQE_FIELDS, QP_STATE } from './regmap.ts';
import { ADDR_WIDTH, qpIndexWidth } from './types.ts';

export type CompletionParams = {
  dataWidth: number;
  numQp: number;
  idWidth: number;
  /** Where the QP context comes from (ctx-view.ts): 'vec' = the qp_ctx input (stage tests), 'lanes' = nic_regs' write lanes (nic_top). */
  ctxPort: CtxPort;
};

/** Most completions one interrupt event stands for (NIC.md). */
export const IRQ_MAX_COUNT = 32;

export const nicCompletion = defineModule('nic_completion', { dataWidth: 64, numQp: 4, idWidth: 4, ctxPort: 'vec' } as CompletionParams, (m, p) => {
  const busBytes = p.dataWidth / 8;
  log2Exact(busBytes, 'dataWidth / 8');
  if (p.dataWidth < 64 || p.dataWidth > 512) throw new Error(`nic_completion: dataWidth ${p.dataWidth} is outside 64..512`);
  const cqeBits = CQE_BYTES * 8;
  const beats = Math.max(1, CQE_BYTES / busBytes);
  const qw = qpIndexWidth(p.numQp);
  const CqeReq = cqeReqStruct(p.numQp);

  const { clk, rst } = m.clockAndReset();
  const qpCtx = qpCtxView(m, p.numQp, p.ctxPort, ['state', 'cqBase', 'cqSizeLog2', 'cqCi'], 'only STATE, CQ_BASE, CQ_SIZE_LOG2 and CQ_CI are read; the rest is for other stages');
  const irqMod = m.input('irq_mod', UInt(32));
  const req = stream(CqeReq).sink(m, 's_req');
  const axi = axi4Write({ idWidth: p.idWidth, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth }).source(m, 'm_axi');
  const piUpd = m.output('cq_pi_upd', qpUpdate('CQ_PI', p.numQp));
  const qpError = m.output('qp_error', qpErrorEvent(p.numQp));
  const irqEvent = m.output('irq_event', Bool);
  m.unused(irqMod, 'bits 15:6 of IRQ_MOD are reserved');
  m.unused(axi.bid, 'one write in flight: every response belongs to it');

  // CQ_PI per QP (issue 15, "Scale"): a memory (`pi_done_mem`, one bank: the completion is its
  // only writer) read at the QP being completed (LOAD) and written at its completion, with the
  // banked memory's "reads as 0" flag per QP (`pi_zero_reg`; memories have no reset): set by
  // `rst` and in every cycle the QP is in RESET (a clear wins over a write), cleared when the
  // QP's CQ_PI is written outside RESET. So CQ_PI reads 0 after a reset and in and after RESET
  // until the next completion, as the flip-flop vector held at 0 in RESET did.
  const cqPi = bankedMemory(m, 'pi', UInt(16), { banks: ['done'], rows: p.numQp, zeroFlag: true });
  const fsm = m.fsm('state', ['IDLE', 'LOAD', 'CHECK', 'ADDR', 'DATA', 'RESP'] as const);

  // ---- accepting a request (IDLE), then two register stages (LOAD, CHECK) ----------------------
  // Timing (docs/synth.md "Datapath stages at 512 bits"): s_req_ready is the state register
  // alone, the request goes into registers as it is taken, LOAD reads its QP's context and
  // CQ_PI into registers, CHECK does the ring arithmetic and the 64-bit CQE address from
  // registers only. A full ring sends CHECK back to LOAD, which reads CQ_CI again: the
  // request waits inside the stage (s_req_ready stays low behind it), polling every two
  // cycles. CQ_CI only grows while the ring is in use, so a CQ_CI one cycle old can only
  // make the ring look fuller than it is, never overwrite an unconsumed CQE.
  const reqReg = m.reg('req_reg', CqeReq, { reset: null });
  const rd = reqReg.as(CqeReq);
  const qpReg = m.let('req_qp', rd.field('qp'));
  const ctx = qpCtx.at(qpReg);
  const ldPi = m.reg('ld_pi_reg', UInt(16), { reset: null });
  const ldCi = m.reg('ld_ci_reg', UInt(16), { reset: null });
  const ldSizeLog2 = m.reg('ld_size_log2_reg', UInt(ctx.field('cqSizeLog2').width), { reset: null });
  const ldBase = m.reg('ld_base_reg', UInt(ADDR_WIDTH), { reset: null });
  const ringSize = m.let('ring_size', lit(1, 17).shl(ldSizeLog2));
  const used = m.let('ring_used', ldPi.subw(ldCi).zext(17));
  const full = m.let('ring_full', used.ge(ringSize));
  const slot = m.let('ring_slot', ldPi.and(ringSize.subw(1).trunc(16)));
  const addr = m.let('cqe_addr', ldBase.addw(cat(slot, lit(0, Math.log2(CQE_BYTES))).zext(ADDR_WIDTH)));
  const phase = m.let('phase', ldPi.bit(ldSizeLog2).lnot());
  req.ready.set(fsm.is('IDLE'));

  /** The CQE bytes, little-endian, from CQE_FIELDS (gaps are 0). */
  const fieldValue: Record<typeof CQE_FIELDS[number]['name'], Value> = {
    wr_id: rd.field('wrId'), byte_len: rd.field('byteLen'), qp: qpReg, opcode: rd.field('opcode'),
    status: rd.field('status'), syndrome: rd.field('syndrome'), phase,
  };
  const parts: Value[] = [];
  let at = 0;
  for (const f of [...CQE_FIELDS].sort((a, b) => a.offset - b.offset)) {
    if (f.offset > at) parts.unshift(lit(0, 8 * (f.offset - at)));
    parts.unshift(fieldValue[f.name].zext(8 * f.size));
    at = f.offset + f.size;
  }
  if (at < CQE_BYTES) parts.unshift(lit(0, 8 * (CQE_BYTES - at)));
  const cqe = m.let('cqe', cat(...parts));

  const addrReg = m.reg('addr_reg', UInt(ADDR_WIDTH));
  const piReg = m.reg('pi_next_reg', UInt(16));
  const cqeReg = m.reg('cqe_reg', UInt(cqeBits), { reset: null });
  const beat = m.reg('beat_reg', UInt(3));

  // ---- AW / W / B -----------------------------------------------------------------------------
  axi.awid.set(0);
  axi.awaddr.set(addrReg);
  axi.awlen.set(beats - 1);
  axi.awsize.set(Math.log2(busBytes));
  axi.awburst.set(AXI_BURST.INCR);
  axi.awlock.set(0);
  axi.awcache.set(0b0011);
  axi.awprot.set(0);
  axi.awvalid.set(fsm.is('ADDR'));
  if (busBytes <= CQE_BYTES) {
    // Whole-bus beats: the CQE register shifts down one beat per transfer.
    axi.wdata.set(cqeReg.bits(p.dataWidth - 1, 0));
    axi.wstrb.set(lit((1n << BigInt(busBytes)) - 1n, busBytes));
    m.unused(addrReg, 'on buses up to 32 bytes the CQE fills whole beats; the address only goes to awaddr');
  } else {
    // One beat; the CQE sits in its 32-byte lane of the bus.
    const lane = addrReg.bits(Math.log2(busBytes) - 1, Math.log2(CQE_BYTES));
    axi.wdata.set(cqeReg.zext(p.dataWidth).shl(cat(lane, lit(0, Math.log2(cqeBits)))));
    axi.wstrb.set(lit((1n << BigInt(CQE_BYTES)) - 1n, busBytes).shl(cat(lane, lit(0, Math.log2(CQE_BYTES)))));
  }
  const wLast = m.let('w_last', beat.eq(beats - 1));
  axi.wlast.set(wLast);
  axi.wvalid.set(fsm.is('DATA'));
  axi.bready.set(fsm.is('RESP'));

  const updValid = m.reg('upd_valid_reg', Bool);
  const errValid = m.reg('err_valid_reg', Bool);
  const evQp = m.reg('ev_qp_reg', UInt(qw));
  const evPi = m.reg('ev_pi_reg', UInt(16));
  updValid.set(0);
  errValid.set(0);
  const done = m.let('cqe_done', fsm.is('RESP').land(axi.bvalid).land(axi.bresp.eq(0)));

  fsm.states({
    IDLE: () => m.if(req.valid, () => {
      reqReg.set(req.data);
      fsm.goto('LOAD');
    }),
    LOAD: () => {
      ldPi.set(cqPi.read(qpReg));
      ldCi.set(ctx.field('cqCi'));
      ldSizeLog2.set(ctx.field('cqSizeLog2'));
      ldBase.set(ctx.field('cqBase'));
      fsm.goto('CHECK');
    },
    CHECK: () => m.if(full, () => fsm.goto('LOAD')).else(() => {
      addrReg.set(addr);
      piReg.set(ldPi.addw(1));
      cqeReg.set(cqe);
      fsm.goto('ADDR');
    }),
    ADDR: () => m.if(axi.awready, () => { beat.set(0); fsm.goto('DATA'); }),
    DATA: () => m.if(axi.wready, () => {
      beat.set(beat.addw(1));
      if (busBytes < CQE_BYTES) cqeReg.set(cqeReg.shr(p.dataWidth));
      m.if(wLast, () => fsm.goto('RESP'));
    }),
    RESP: () => m.if(axi.bvalid, () => {
      evQp.set(qpReg);
      evPi.set(piReg);
      // A QP reset meanwhile keeps its index at 0 (nic_regs cleared it too): publish nothing.
      m.if(axi.bresp.eq(0), () => updValid.set(qpCtx.at(qpReg).field('state').ne(QP_STATE.RESET))).else(() => errValid.set(1));
      fsm.goto('IDLE');
    }),
  });
  cqPi.write('done', done, qpReg, piReg);
  cqPi.clearRows(stateMask(m, qpCtx, p.numQp, QP_STATE.RESET, 'qp_in_reset'));
  piUpd.set(pack(qpUpdate('CQ_PI', p.numQp), { valid: updValid, qp: evQp, value: evPi }));
  qpError.set(pack(qpErrorEvent(p.numQp), { valid: errValid, qp: evQp }));

  // ---- interrupt moderation -------------------------------------------------------------------
  const cw = Math.ceil(Math.log2(IRQ_MAX_COUNT + 1));
  const cfgCount = irqMod.bits(5, 0);
  const limit = m.let('irq_count', mux(cfgCount.eq(0), lit(1, 6), mux(cfgCount.gt(IRQ_MAX_COUNT), lit(IRQ_MAX_COUNT, 6), cfgCount)));
  const timerCfg = irqMod.bits(31, 16);
  const pending = m.reg('irq_pending_reg', UInt(cw));
  const timer = m.reg('irq_timer_reg', UInt(16));
  const event = m.reg('irq_event_reg', Bool);
  const pendNext = m.let('irq_pending_next', pending.addw(done.zext(cw)));
  const byCount = m.let('irq_by_count', done.land(pendNext.zext(6).ge(limit)));
  const byTimer = m.let('irq_by_timer', pending.ne(0).land(timerCfg.ne(0)).land(timer.add(1).ge(timerCfg)));
  event.set(0);
  m.if(byCount.lor(byTimer), () => { event.set(1); pending.set(0); timer.set(0); })
    .else(() => { pending.set(pendNext); timer.set(mux(pending.ne(0), timer.addw(1), lit(0, 16))); });
  irqEvent.set(event);

  return { clk, rst, ...qpCtx.ports, irq_mod: irqMod, s_req: req, m_axi: axi, cq_pi_upd: piUpd, qp_error: qpError, irq_event: irqEvent };
}, { doc: 'Completion writer: CQEs into per-QP rings (phase bit, no overwrite), CQ_PI updates, moderated interrupt events', params: { rules: { ctxPort: ctxPortRule, dataWidth: oneOf(64, 128, 256, 512), numQp: intIn(1, 256), idWidth: intIn(1, 16) } } });
