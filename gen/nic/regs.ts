// nic_regs: the AXI4-Lite register file (stage 1). Every register of regmap.ts for numQp QPs
// and numMr MRs; the address decode, reset values and access rules are generated from it.
//
// Bus rules (one outstanding write and one outstanding read):
// - AW and W are accepted in any order (awready/wready are low while their holding register
//   is full or a write response waits). The write happens at the clock edge that completes
//   the second of the two handshakes (or both, when they come together): the one that
//   arrived first waits in its holding register, the other goes straight through. B follows
//   in the next cycle with OKAY for a mapped address, DECERR for an unmapped one.
//   Writes to ro registers are ignored (OKAY); wstrb selects bytes; addr[1:0] is ignored.
// - A read is taken when no read data waits; R follows one cycle later with OKAY, or with
//   data 0 and DECERR (unmapped) / SLVERR (write-only register).
//
// Datapath interface:
// - doorbell_valid pulses (one cycle, registered) after a write of SQ_PI, with doorbell.qp and
//   doorbell.pi (the new value).
// - cfg shows the global configuration continuously (see ctx.ts for the structs).
// - The QP context is not one output any more (issue 15, "Scale"; gen/nic/ctx-view.ts): STATE
//   and RETRY stay flip-flops, published as per-QP vectors qp_state and qp_retry; every other
//   QP register (SQ_PI too: nic_wqe_fetch takes its writes from qp_wr) is a memory (2^qpIndexWidth rows each, asynchronous
//   reads: LUTRAM), and nic_regs publishes the writes instead of the values: the software lane
//   qp_wr (ctx.ts qpWriteLane: the register written this cycle with its whole new value, the
//   STATE = RESET clear, the reset sweep) beside the hw_<field> lanes it takes, and per
//   datapath field the live bits qp_live_<field> (1: the hardware bank holds the QP's newest
//   value). Each stage keeps its own copy of the fields it reads, written by these lanes at
//   the edge nic_regs writes its own, so every stage sees what the registers showed.
// - Reset: memories have no reset. After `rst` a sweep writes every QP row's reset values
//   through qp_wr (init, one row per cycle, 2^qpIndexWidth cycles, beside the MR table's
//   clear sweep); AW, W and AR wait until both sweeps are done, so neither software nor a
//   stage (every QP is in RESET meanwhile) sees a row from before the reset.
// - AXI read-back of a QP register reads nic_regs' own copy (asynchronously, at the AR
//   handshake, into the R data register as before); a write with byte strobes reads the old
//   value of the register at the write's QP (a second read port) and sends the merged value.
// - The MR table is block RAM (mr-table.ts): nic_tlb reads it through mr_rd_en / mr_rd_addr,
//   the MrEntry word on mr_rd_data one clock later (held while mr_rd_en is low). After reset
//   a clear sweep zeroes it (numMr cycles) while AW, W and AR wait (their readies are low).
// - hw_<field> ports (SQ_CI, CQ_PI, SQ_PSN, EXP_PSN, MSN) and hw_error (STATE := ERROR)
//   write the fields the datapath owns. When software writes the same register in the same
//   cycle, the hardware update wins: the datapath's view (e.g. ERROR) must never be lost,
//   and software must not rewrite those fields of an active QP anyway.
// - Writing STATE = RESET also clears SQ_PI, SQ_CI, CQ_PI, CQ_CI and MSN of that QP (qp_wr's
//   clr; the stages clear their own state while they see RESET), so a QP can be reused.
// - inc.<counter> adds 1 to that counter (32 bits, wrapping); counters ignore writes.
// - irq_event sets IRQ_STATUS bit 0 (an event wins over a same-cycle w1c); irq = IRQ_STATUS.
// - mr_changed {valid, mr} pulses the cycle after any write to MR `mr`'s registers (TLB
//   invalidation); reads of the MR after that edge see the new value.

import { Bool, Struct, UInt, Vec, cat, defineModule, lit, mux, pack, repeat, type ModuleBuilder, type Reg, type UIntShape, type Value, intIn } from '../hdl/index.ts';
import { AXI_RESP, axiLite } from '../lib/interfaces.ts';
import { CFG_REGS, FF_QP_REGS, HW_QP_FIELDS, MrEntry, mrChangeEvent, NicCfg, QP_INDEX_REGS, QP_SLOT_BITS, fieldName, qpErrorEvent, qpRegWidth, qpUpdate, qpWriteLane, regSlots, type QpField } from './ctx.ts';
import { oneHotIf } from './mux-util.ts';
import { ctxMemories, type CtxSources } from './ctx-view.ts';
import { AXIL_ADDR_WIDTH, AXIL_SPACE, GLOBAL_REGS, MR_BASE, MR_STRIDE, QP_BASE, QP_REGS, QP_STATE, QP_STRIDE, type RegField } from './regmap.ts';
import { mrTable } from './mr-table.ts';
import { mrIndexWidth, qpIndexWidth } from './types.ts';

export type RegsParams = { numQp: number; numMr: number };

/** Global ro registers that hold a constant rather than a counter. */
const CONSTANT_REGS: readonly string[] = ['ID'];
/** Global counters: every ro global register but the constants. */
export const COUNTER_REGS = GLOBAL_REGS.filter(r => r.access === 'ro' && !CONSTANT_REGS.includes(r.name));

export function doorbellStruct(numQp: number) {
  return Struct('doorbell', { qp: UInt(qpIndexWidth(numQp)), pi: UInt(qpRegWidth('SQ_PI')) });
}

/** One mapped register instance: where it is and what holds it (null: a constant). */
interface Mapped {
  readonly addr: number;
  readonly reg: RegField;
  readonly store: Reg<UIntShape> | null;
}

const lower = (s: string): string => s.toLowerCase();

export const nicRegs = defineModule('nic_regs', { numQp: 4, numMr: 16 } as RegsParams, (m, p) => {
  if (QP_BASE + p.numQp * QP_STRIDE > MR_BASE) throw new Error(`nic_regs: ${p.numQp} QPs overlap the MR block at 0x${MR_BASE.toString(16)}`);
  if (MR_BASE + p.numMr * MR_STRIDE > AXIL_SPACE) throw new Error(`nic_regs: ${p.numMr} MRs do not fit in ${AXIL_ADDR_WIDTH} address bits`);
  const { clk, rst } = m.clockAndReset();
  const qw = qpIndexWidth(p.numQp);
  const axil = axiLite({ addrWidth: AXIL_ADDR_WIDTH, dataWidth: 32 }).sink(m, 's_axil');
  m.unused(axil.awprot, 'protection attributes are not checked');
  m.unused(axil.arprot, 'protection attributes are not checked');
  m.unused(axil.araddr, 'addr[1:0]: registers are whole 32-bit words');
  m.unused(axil.awaddr, 'addr[1:0]: registers are whole 32-bit words');

  const cfg = m.output('cfg', NicCfg);
  // The QP context as writes (ctx-view.ts): the flip-flop vectors, the software lane, the live bits.
  const qpVecOut: Record<string, ReturnType<typeof m.output<ReturnType<typeof Vec<UIntShape>>>>> = {};
  for (const r of FF_QP_REGS) qpVecOut[r] = m.output(`qp_${lower(r)}`, Vec(UInt(qpRegWidth(r)), p.numQp));
  const qpWrOut = m.output('qp_wr', qpWriteLane(p.numQp));
  const liveOut: Record<string, ReturnType<typeof m.output<UIntShape>>> = {};
  for (const f of HW_QP_FIELDS) liveOut[f] = m.output(`qp_live_${lower(f)}`, UInt(p.numQp));
  const mrRdEn = m.input('mr_rd_en', Bool);
  const mrRdAddr = m.input('mr_rd_addr', UInt(mrIndexWidth(p.numMr)));
  const mrRdData = m.output('mr_rd_data', MrEntry);
  const doorbellValid = m.output('doorbell_valid', Bool);
  const doorbell = m.output('doorbell', doorbellStruct(p.numQp));
  const mrChanged = m.output('mr_changed', mrChangeEvent(p.numMr));
  const irq = m.output('irq', Bool);
  const irqEvent = m.input('irq_event', Bool);
  const hw: Record<string, ReturnType<typeof m.input<ReturnType<typeof qpUpdate>>>> = {};
  for (const f of HW_QP_FIELDS) hw[f] = m.input(`hw_${lower(f)}`, qpUpdate(f, p.numQp));
  const hwError = m.input('hw_error', qpErrorEvent(p.numQp));
  const inc: Record<string, ReturnType<typeof m.input<UIntShape<1>>>> = {};
  for (const r of COUNTER_REGS) inc[fieldName(r.name)] = m.input(`inc_${lower(r.name)}`, Bool);

  // ---- storage: global registers ---------------------------------------------------------------
  const mapped: Mapped[] = [];
  const stores = new Map<string, Reg<UIntShape>>();
  const store = (key: string, r: RegField): Reg<UIntShape> => {
    const s = m.reg(`${key}_reg`, UInt(r.width), { reset: r.reset });
    stores.set(key, s);
    return s;
  };
  for (const r of GLOBAL_REGS) {
    mapped.push({ addr: r.offset, reg: r, store: CONSTANT_REGS.includes(r.name) ? null : store(lower(r.name), r) });
  }
  // QP registers in flip-flops (FF_QP_REGS), one register per QP as before.
  const qpKey = (i: number, name: string): string => `qp${i}_${lower(name)}`;
  const qpRegOf = (name: string): RegField => QP_REGS.find(r => r.name === name)!;
  for (let i = 0; i < p.numQp; i++) for (const n of FF_QP_REGS) store(qpKey(i, n), qpRegOf(n));
  const ffVec = (n: string): Value => cat(...[...Array(p.numQp).keys()].reverse().map(i => stores.get(qpKey(i, n))!));
  const dbValidReg = m.reg('doorbell_valid_reg', Bool);
  const dbReg = m.reg('doorbell_reg', doorbellStruct(p.numQp));

  // ---- write channel -----------------------------------------------------------------------
  // AW and W each either pass straight through (handshake now) or wait in a holding register
  // for the other; the write happens in the cycle the second of them arrives, so a SQ_PI write
  // is on qp_wr (nic_wqe_fetch's has-work bit takes it at that edge) in the cycle of the
  // handshakes, and the doorbell pulse goes out one cycle after them.
  const awHeld = m.reg('aw_held_reg', Bool);
  // Word address only: byte lanes are chosen by wstrb, addr[1:0] is ignored.
  const awHeldAddr = m.reg('aw_word_reg', UInt(AXIL_ADDR_WIDTH - 2));
  const wHeld = m.reg('w_held_reg', Bool);
  const wHeldData = m.reg('w_data_reg', UInt(32));
  const wHeldStrb = m.reg('w_strb_reg', UInt(4));
  const bValid = m.reg('b_valid_reg', Bool);
  const bResp = m.reg('b_resp_reg', UInt(2));
  // The clear sweeps after reset (MR table: mr-table.ts; QP rows: below) hold every channel off.
  const sweeping = m.wire('sweeping', Bool);
  const open = sweeping.lnot();
  // The readies depend on registers only (not on the other channel's valid).
  axil.awready.set(awHeld.lnot().land(bValid.lnot()).land(open));
  axil.wready.set(wHeld.lnot().land(bValid.lnot()).land(open));
  axil.bvalid.set(bValid);
  axil.bresp.set(bResp);
  const awFire = m.let('aw_fire', axil.awvalid.land(awHeld.lnot()).land(bValid.lnot()).land(open));
  const wFire = m.let('w_fire', axil.wvalid.land(wHeld.lnot()).land(bValid.lnot()).land(open));
  const doWrite = m.let('do_write', awHeld.lor(awFire).land(wHeld.lor(wFire)));
  const awAddr = m.let('wr_word', mux(awHeld, awHeldAddr, axil.awaddr.bits(AXIL_ADDR_WIDTH - 1, 2)));
  const wData = m.let('wr_data', mux(wHeld, wHeldData, axil.wdata));
  const wStrb = m.let('wr_strb', mux(wHeld, wHeldStrb, axil.wstrb));
  const rValid = m.reg('r_valid_reg', Bool);
  const arFire = m.let('ar_fire', axil.arvalid.land(rValid.lnot()).land(open));
  const mr = mrTable(m, p.numMr, { doWrite, wrWord: awAddr, wrData: wData, wrStrb: wStrb, arFire, arWord: axil.araddr.bits(AXIL_ADDR_WIDTH - 1, 2), tlbEn: mrRdEn, tlbAddr: mrRdAddr });
  // Hold a channel only while its partner has not arrived (the write below clears both).
  m.if(awFire, () => { awHeld.set(1); awHeldAddr.set(axil.awaddr.bits(AXIL_ADDR_WIDTH - 1, 2)); });
  m.if(wFire, () => { wHeld.set(1); wHeldData.set(axil.wdata); wHeldStrb.set(axil.wstrb); });
  m.if(bValid.land(axil.bready), () => bValid.set(0));

  const wMask = m.let('w_mask', cat(...[3, 2, 1, 0].map(b => repeat(wStrb.bit(b), 8))));
  /** The register's new value: old bytes where wstrb is low, written bytes where high. */
  const merged = (old: Value): Value => old.zext(32).and(wMask.not()).or(wData.and(wMask)).trunc(old.width);
  const wMapped = m.wire('w_mapped', Bool);
  dbValidReg.set(0);
  const qpW = qpDecode(m, 'wr', awAddr, p.numQp);
  m.if(doWrite, () => {
    awHeld.set(0);
    wHeld.set(0);
    bValid.set(1);
    const sw = m.switch(awAddr);
    for (const x of mapped) {
      sw.case(x.addr >> 2, () => {
        wMapped.set(1);
        const s = x.store;
        if (!s) return;
        if (x.reg.access === 'rw' || x.reg.access === 'wo') s.set(merged(s));
        // w1c: written ones clear; the event input below may set the bit again (it wins).
        else if (x.reg.access === 'w1c') s.set(s.and(wData.and(wMask).trunc(s.width).not()));
      });
    }
    bResp.set(mux(wMapped.lor(mr.wrHit).lor(qpW.hit), lit(AXI_RESP.OKAY, 2), AXI_RESP.DECERR));
  });

  // ---- QP registers: the software lane, the sweep, the flip-flop vectors, the live bits -------
  const rows = 2 ** qw;
  const initBusy = m.reg('qp_init_busy_reg', Bool, { reset: 1 });
  const initIdx = m.reg('qp_init_idx_reg', UInt(qw));
  m.if(initBusy, () => {
    initIdx.set(initIdx.addw(1));
    m.if(initIdx.eq(rows - 1), () => initBusy.set(0));
  });
  sweeping.set(mr.busy.lor(initBusy));
  const liveRegs: Record<string, Reg<UIntShape>> = {};
  for (const f of HW_QP_FIELDS) liveRegs[f] = m.reg(`qp_live_${lower(f)}_reg`, UInt(p.numQp));
  const wrLane = m.wire('qp_wr_lane', qpWriteLane(p.numQp));
  const src: CtxSources = { vecs: {}, wr: wrLane, hw: {}, live: {} };
  for (const r of FF_QP_REGS) src.vecs[r] = ffVec(r).as(Vec(UInt(qpRegWidth(r)), p.numQp));
  for (const f of HW_QP_FIELDS) { src.hw[f] = hw[f]!; src.live[f] = liveRegs[f]!; }
  const allFields = [...new Set(regSlots(QP_REGS).map(s => s.field))] as QpField[];
  const own = ctxMemories(m, p.numQp, src, allFields);
  // The register the write names, at the write's QP (for the strobe merge).
  const wrRow = own.at(qpW.qp);
  const regValue = (row: ReturnType<typeof own.at>, r: RegField): Value => {
    const slot = regSlots(QP_REGS).find(s => s.reg.name === r.name)!;
    return row.field(slot.field as QpField).bits(slot.lsb + r.width - 1, slot.lsb);
  };
  const wrOld = m.wire('qp_wr_old', UInt(32), { default: 0 });
  const wrRw = m.wire('qp_wr_rw', Bool, { default: 0 });
  const wsw = m.switch(qpW.slot);
  for (const r of QP_REGS) {
    // Only rw registers are written by software (a write to ro is ignored): they alone need the old value.
    if (r.access === 'rw') wsw.case(r.offset >> 2, () => { wrOld.set(regValue(wrRow, r).zext(32)); wrRw.set(1); });
  }
  const wrNew = m.let('qp_wr_new', merged(wrOld));
  const swWrite = m.let('qp_sw_write', doWrite.land(qpW.hit).land(wrRw));
  const swClr = m.let('qp_sw_clr', swWrite.land(qpW.slot.eq(qpRegOf('STATE').offset >> 2)).land(wrNew.bits(2, 0).eq(QP_STATE.RESET)));
  wrLane.set(pack(qpWriteLane(p.numQp), { valid: swWrite, init: initBusy, clr: swClr, qp: mux(initBusy, initIdx, qpW.qp), reg: qpW.slot, data: wrNew }));
  qpWrOut.set(wrLane);
  const bitOf = (q: Value, on: Value): Value => oneHotIf(p.numQp, q, on);

  // Doorbells and the flip-flop registers, per QP.
  for (let i = 0; i < p.numQp; i++) {
    const here = swWrite.land(qpW.qp.eq(i));
    for (const n of FF_QP_REGS) {
      const s = stores.get(qpKey(i, n))!;
      m.if(here.land(qpW.slot.eq(qpRegOf(n).offset >> 2)), () => s.set(wrNew.trunc(s.width)));
    }
  }
  m.if(swWrite.land(qpW.slot.eq(qpRegOf('SQ_PI').offset >> 2)), () => {
    dbValidReg.set(1);
    dbReg.set(pack(doorbellStruct(p.numQp), { qp: qpW.qp, pi: wrNew.trunc(qpRegWidth('SQ_PI')) }));
  });

  // ---- hardware updates (after the software write: they win) -------------------------------
  // Live bits: a software write (or the clear) of a datapath field makes the software bank the
  // QP's newest value, a hardware update the hardware bank; the update wins. They reset to 0
  // (software bank) and the sweep leaves them alone: an update during the sweep stays, as it
  // did in a register.
  for (const f of HW_QP_FIELDS) {
    const u = hw[f]!;
    const r = qpRegOf(f);
    const swHit = swWrite.land(qpW.slot.eq(r.offset >> 2)).lor((QP_INDEX_REGS as readonly string[]).includes(f) ? swClr : lit(0, 1));
    const live = liveRegs[f]!;
    live.set(live.and(bitOf(qpW.qp, swHit).not()).or(bitOf(u.field('qp'), u.field('valid'))));
    liveOut[f]!.set(live);
  }
  for (let i = 0; i < p.numQp; i++) {
    m.if(hwError.field('valid').land(hwError.field('qp').eq(i)), () => stores.get(qpKey(i, 'STATE'))!.set(QP_STATE.ERROR));
  }
  for (const r of COUNTER_REGS) {
    const s = stores.get(lower(r.name))!;
    m.if(inc[fieldName(r.name)]!, () => s.set(s.addw(1)));
  }
  const irqStatus = stores.get('irq_status')!;
  m.if(irqEvent, () => irqStatus.setBits(0, 0, 1));
  irq.set(irqStatus.bit(0));

  // ---- read channel ------------------------------------------------------------------------
  const rData = m.reg('r_data_reg', UInt(32));
  const rResp = m.reg('r_resp_reg', UInt(2));
  axil.arready.set(rValid.lnot().land(open));
  axil.rvalid.set(rValid);
  axil.rdata.set(mux(mr.rIsMr, mr.rdValue, rData));
  axil.rresp.set(rResp);
  const rdValue = m.wire('rd_value', UInt(32), { default: 0 });
  const rdResp = m.wire('rd_resp', UInt(2), { default: AXI_RESP.DECERR });
  const arWord = axil.araddr.bits(AXIL_ADDR_WIDTH - 1, 2);
  const rsw = m.switch(arWord);
  for (const x of mapped) {
    rsw.case(x.addr >> 2, () => {
      if (x.reg.access === 'wo') { rdResp.set(AXI_RESP.SLVERR); return; }
      rdResp.set(AXI_RESP.OKAY);
      rdValue.set(x.store ? x.store.zext(32) : x.reg.reset);
    });
  }
  // A QP register: nic_regs' own copy, read at the AR's QP (every QP register is rw or ro).
  const qpR = qpDecode(m, 'rd', arWord, p.numQp);
  const rdRow = own.at(qpR.qp);
  m.if(qpR.hit, () => {
    rdResp.set(AXI_RESP.OKAY);
    const qsw = m.switch(qpR.slot);
    for (const r of QP_REGS) qsw.case(r.offset >> 2, () => rdValue.set(regValue(rdRow, r).zext(32)));
  });
  m.if(mr.rdHit, () => rdResp.set(AXI_RESP.OKAY));
  m.if(arFire, () => { rValid.set(1); rData.set(rdValue); rResp.set(rdResp); })
    .elif(axil.rready, () => rValid.set(0));

  // ---- context outputs ---------------------------------------------------------------------
  /** Pack one block's registers into its struct (pairs joined, high half above). */
  const packBlock = (regs: readonly RegField[], key: (name: string) => string, fields: readonly { name: string; width: number }[]): Value => {
    const parts = new Map<string, Value[]>();
    for (const s of regSlots(regs)) {
      const v = stores.get(key(s.reg.name));
      const val: Value = v ?? lit(s.reg.reset, s.reg.width);
      (parts.get(s.field) ?? parts.set(s.field, []).get(s.field)!).unshift(val);
    }
    return cat(...[...fields].reverse().map(f => { const ps = parts.get(f.name)!; return ps.length === 1 ? ps[0]! : cat(...ps); }));
  };
  cfg.set(packBlock(CFG_REGS, lower, NicCfg.fields.map(f => ({ name: f.name, width: f.shape.width }))));
  for (const r of FF_QP_REGS) qpVecOut[r]!.set(ffVec(r));
  mrRdData.set(mr.tlbWord);
  doorbellValid.set(dbValidReg);
  doorbell.set(dbReg);
  mrChanged.set(mr.changed);

  return {
    clk, rst, s_axil: axil, cfg, qp_state: qpVecOut['STATE']!, qp_retry: qpVecOut['RETRY']!, qp_wr: qpWrOut,
    qp_live_sq_ci: liveOut['SQ_CI']!, qp_live_cq_pi: liveOut['CQ_PI']!, qp_live_sq_psn: liveOut['SQ_PSN']!, qp_live_exp_psn: liveOut['EXP_PSN']!, qp_live_msn: liveOut['MSN']!,
    mr_rd_en: mrRdEn, mr_rd_addr: mrRdAddr, mr_rd_data: mrRdData, doorbell_valid: doorbellValid, doorbell, mr_changed: mrChanged,
    irq, irq_event: irqEvent, hw_sq_ci: hw['SQ_CI']!, hw_cq_pi: hw['CQ_PI']!, hw_sq_psn: hw['SQ_PSN']!, hw_exp_psn: hw['EXP_PSN']!,
    hw_msn: hw['MSN']!, hw_error: hwError, inc,
  };
}, { doc: 'Control registers (AXI4-Lite): global config, counters, IRQ, QP contexts (flip-flop vectors, memories and their write lanes), MR table, doorbells', params: { rules: { numQp: intIn(1, (MR_BASE - QP_BASE) / QP_STRIDE), numMr: intIn(1, (AXIL_SPACE - MR_BASE) / MR_STRIDE) } } });

/** An AXI word address decoded against the QP block: is it a QP register, which QP, which slot. */
function qpDecode(m: ModuleBuilder, prefix: string, word: Value, numQp: number): { hit: Value; qp: Value; slot: Value } {
  const base = QP_BASE >> 2;
  const qw = qpIndexWidth(numQp);
  const inBlock = word.ge(base).land(word.lt(base + numQp * (QP_STRIDE >> 2)));
  const slot = m.let(`${prefix}_qp_slot`, word.bits(QP_SLOT_BITS - 1, 0));
  const known = QP_REGS.map(r => slot.eq(r.offset >> 2)).reduce((a, b) => a.lor(b));
  const qp = m.let(`${prefix}_qp_idx`, word.subw(base).bits(word.width - 1, QP_SLOT_BITS).trunc(qw));
  return { hit: m.let(`${prefix}_qp_hit`, inBlock.land(known)), qp, slot };
}

