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
// - cfg / qp_ctx show the registers continuously (see ctx.ts for the structs).
// - The MR table is block RAM (mr-table.ts): nic_tlb reads it through mr_rd_en / mr_rd_addr,
//   the MrEntry word on mr_rd_data one clock later (held while mr_rd_en is low). After reset
//   a clear sweep zeroes it (numMr cycles) while AW, W and AR wait (their readies are low).
// - hw_<field> ports (SQ_CI, CQ_PI, SQ_PSN, EXP_PSN, MSN) and hw_error (STATE := ERROR)
//   write the fields the datapath owns. When software writes the same register in the same
//   cycle, the hardware update wins: the datapath's view (e.g. ERROR) must never be lost,
//   and software must not rewrite those fields of an active QP anyway.
// - Writing STATE = RESET also clears SQ_PI, SQ_CI, CQ_PI, CQ_CI and MSN of that QP (the
//   stages clear their own copies while they see RESET), so a QP can be reused.
// - inc.<counter> adds 1 to that counter (32 bits, wrapping); counters ignore writes.
// - irq_event sets IRQ_STATUS bit 0 (an event wins over a same-cycle w1c); irq = IRQ_STATUS.
// - mr_changed {valid, mr} pulses the cycle after any write to MR `mr`'s registers (TLB
//   invalidation); reads of the MR after that edge see the new value.

import { Bool, Struct, UInt, Vec, cat, defineModule, lit, mux, pack, repeat, type Reg, type UIntShape, type Value, intIn } from '../hdl/index.ts';
import { AXI_RESP, axiLite } from '../lib/interfaces.ts';
import { CFG_REGS, HW_QP_FIELDS, MrEntry, mrChangeEvent, NicCfg, QpCtx, fieldName, qpErrorEvent, qpRegWidth, qpUpdate, regSlots } from './ctx.ts';
import { AXIL_ADDR_WIDTH, AXIL_SPACE, GLOBAL_REGS, MR_BASE, MR_STRIDE, QP_BASE, QP_REGS, QP_STATE, QP_STRIDE, type RegField } from './regmap.ts';
import { mrTable } from './mr-table.ts';
import { mrIndexWidth, qpIndexWidth } from './types.ts';

export type RegsParams = { numQp: number; numMr: number };

/** Global ro registers that hold a constant rather than a counter. */
const CONSTANT_REGS: readonly string[] = ['ID'];
/** Global counters: every ro global register but the constants. */
export const COUNTER_REGS = GLOBAL_REGS.filter(r => r.access === 'ro' && !CONSTANT_REGS.includes(r.name));
/** QP registers cleared by a software write of STATE = RESET. */
const QP_INDEX_REGS: readonly string[] = ['SQ_PI', 'SQ_CI', 'CQ_PI', 'CQ_CI', 'MSN'];

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
  const axil = axiLite({ addrWidth: AXIL_ADDR_WIDTH, dataWidth: 32 }).sink(m, 's_axil');
  m.unused(axil.awprot, 'protection attributes are not checked');
  m.unused(axil.arprot, 'protection attributes are not checked');
  m.unused(axil.araddr, 'addr[1:0]: registers are whole 32-bit words');
  m.unused(axil.awaddr, 'addr[1:0]: registers are whole 32-bit words');

  const cfg = m.output('cfg', NicCfg);
  const qpCtx = m.output('qp_ctx', Vec(QpCtx, p.numQp));
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

  // ---- storage ---------------------------------------------------------------------------
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
  const qpKey = (i: number, name: string): string => `qp${i}_${lower(name)}`;
  const dbValidReg = m.reg('doorbell_valid_reg', Bool);
  const dbReg = m.reg('doorbell_reg', doorbellStruct(p.numQp));
  for (let i = 0; i < p.numQp; i++) for (const r of QP_REGS) mapped.push({ addr: QP_BASE + i * QP_STRIDE + r.offset, reg: r, store: store(qpKey(i, r.name), r) });

  // ---- write channel -----------------------------------------------------------------------
  // AW and W each either pass straight through (handshake now) or wait in a holding register
  // for the other; the write happens in the cycle the second of them arrives, so SQ_PI
  // reaches nic_wqe_fetch (and the doorbell pulse goes out) one cycle after the handshakes.
  const awHeld = m.reg('aw_held_reg', Bool);
  // Word address only: byte lanes are chosen by wstrb, addr[1:0] is ignored.
  const awHeldAddr = m.reg('aw_word_reg', UInt(AXIL_ADDR_WIDTH - 2));
  const wHeld = m.reg('w_held_reg', Bool);
  const wHeldData = m.reg('w_data_reg', UInt(32));
  const wHeldStrb = m.reg('w_strb_reg', UInt(4));
  const bValid = m.reg('b_valid_reg', Bool);
  const bResp = m.reg('b_resp_reg', UInt(2));
  // The MR table's clear sweep after reset (mr-table.ts) holds every channel off.
  const sweeping = m.wire('mr_sweeping', Bool);
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
  sweeping.set(mr.busy);
  // Hold a channel only while its partner has not arrived (the write below clears both).
  m.if(awFire, () => { awHeld.set(1); awHeldAddr.set(axil.awaddr.bits(AXIL_ADDR_WIDTH - 1, 2)); });
  m.if(wFire, () => { wHeld.set(1); wHeldData.set(axil.wdata); wHeldStrb.set(axil.wstrb); });
  m.if(bValid.land(axil.bready), () => bValid.set(0));

  const wMask = m.let('w_mask', cat(...[3, 2, 1, 0].map(b => repeat(wStrb.bit(b), 8))));
  /** The register's new value: old bytes where wstrb is low, written bytes where high. */
  const merged = (old: Value): Value => old.zext(32).and(wMask.not()).or(wData.and(wMask)).trunc(old.width);
  const wMapped = m.wire('w_mapped', Bool);
  dbValidReg.set(0);
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
    bResp.set(mux(wMapped.lor(mr.wrHit), lit(AXI_RESP.OKAY, 2), AXI_RESP.DECERR));
  });

  // Doorbells and the QP-reset side effect, per QP.
  for (let i = 0; i < p.numQp; i++) {
    const piAddr = QP_BASE + i * QP_STRIDE + QP_REGS.find(r => r.name === 'SQ_PI')!.offset;
    const stAddr = QP_BASE + i * QP_STRIDE + QP_REGS.find(r => r.name === 'STATE')!.offset;
    const wordIs = (a: number): Value => doWrite.land(awAddr.eq(a >> 2));
    m.if(wordIs(piAddr), () => {
      dbValidReg.set(1);
      dbReg.set(pack(doorbellStruct(p.numQp), { qp: i, pi: merged(stores.get(qpKey(i, 'SQ_PI'))!) }));
    });
    m.if(wordIs(stAddr).land(merged(stores.get(qpKey(i, 'STATE'))!).eq(QP_STATE.RESET)), () => {
      for (const n of QP_INDEX_REGS) stores.get(qpKey(i, n))!.set(0);
    });
  }

  // ---- hardware updates (after the software write: they win) -------------------------------
  for (const f of HW_QP_FIELDS) {
    const u = hw[f]!;
    for (let i = 0; i < p.numQp; i++) {
      m.if(u.field('valid').land(u.field('qp').eq(i)), () => stores.get(qpKey(i, f))!.set(u.field('value')));
    }
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
  const rdValue = m.wire('rd_value', UInt(32));
  const rdResp = m.wire('rd_resp', UInt(2), { default: AXI_RESP.DECERR });
  const rsw = m.switch(axil.araddr.bits(AXIL_ADDR_WIDTH - 1, 2));
  for (const x of mapped) {
    rsw.case(x.addr >> 2, () => {
      if (x.reg.access === 'wo') { rdResp.set(AXI_RESP.SLVERR); return; }
      rdResp.set(AXI_RESP.OKAY);
      rdValue.set(x.store ? x.store.zext(32) : x.reg.reset);
    });
  }
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
  const fieldsOf = (shape: typeof QpCtx | typeof NicCfg) => shape.fields.map(f => ({ name: f.name, width: f.shape.width }));
  cfg.set(packBlock(CFG_REGS, lower, fieldsOf(NicCfg)));
  for (let i = 0; i < p.numQp; i++) qpCtx.setBits((i + 1) * QpCtx.width - 1, i * QpCtx.width, packBlock(QP_REGS, n => qpKey(i, n), fieldsOf(QpCtx)));
  mrRdData.set(mr.tlbWord);
  doorbellValid.set(dbValidReg);
  doorbell.set(dbReg);
  mrChanged.set(mr.changed);

  return {
    clk, rst, s_axil: axil, cfg, qp_ctx: qpCtx, mr_rd_en: mrRdEn, mr_rd_addr: mrRdAddr, mr_rd_data: mrRdData, doorbell_valid: doorbellValid, doorbell, mr_changed: mrChanged,
    irq, irq_event: irqEvent, hw_sq_ci: hw['SQ_CI']!, hw_cq_pi: hw['CQ_PI']!, hw_sq_psn: hw['SQ_PSN']!, hw_exp_psn: hw['EXP_PSN']!,
    hw_msn: hw['MSN']!, hw_error: hwError, inc,
  };
}, { doc: 'Control registers (AXI4-Lite): global config, counters, IRQ, QP contexts, MR table, doorbells', params: { rules: { numQp: intIn(1, (MR_BASE - QP_BASE) / QP_STRIDE), numMr: intIn(1, (AXIL_SPACE - MR_BASE) / MR_STRIDE) } } });
