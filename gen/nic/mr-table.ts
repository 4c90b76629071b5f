// The MR table of nic_regs in block RAM: one MrEntry word per MR (tag, pd, access, va, len,
// ptBase), written by AXI4-Lite through byte lanes and read by nic_tlb through a registered
// read port, so the TLB's cost does not grow with numMr (no mux over every MR's flip-flops).
//
// - Write: an AXI4-Lite write of one MR register writes that register's bytes of the MR's word
//   (byte-lane mask = the register's lanes AND wstrb), at the same edge a flip-flop register
//   would have taken it.
// - Read ports: `tlbRead` (address and enable from nic_tlb, the word one clock later, held
//   while the enable is low) and an AXI read port (the word of the MR an AR names, read at the
//   AR handshake; R shows that register's bits of it). Both read the old word when a write to
//   the same MR lands at the same edge, as the flip-flop registers did.
// - Reset: block RAM has no reset, so after `rst` a clear sweep writes zero to every word
//   (numMr cycles); `busy` is high meanwhile and nic_regs holds AW, W and AR off, so software
//   never sees a word from before the reset. Every MR register resets to 0 (regmap.ts): an MR
//   is invalid (ACCESS bit 31 clear) until software writes it.

import { Bool, lit, mux, pack, repeat, UInt, type ModuleBuilder, type Value } from '../hdl/index.ts';
import { log2Exact } from '../lib/util.ts';
import { mrChangeEvent, MrEntry, regSlots } from './ctx.ts';
import { MR_BASE, MR_REGS, MR_STRIDE } from './regmap.ts';
import { mrIndexWidth } from './types.ts';

/** One byte lane per 8 bits of the word (every MR field is a whole number of bytes). */
const LANES = MrEntry.width / 8;

/** Where register `r` of an MR sits in the MrEntry word (its field's offset + its half). */
function regPositions(): { name: string; slot: number; pos: number; width: number }[] {
  return regSlots(MR_REGS).map(s => {
    const f = MrEntry.fields.find(x => x.name === s.field)!;
    return { name: s.reg.name, slot: s.reg.offset >> 2, pos: f.offset + s.lsb, width: s.reg.width };
  });
}

/** An AXI word address decoded against the MR block: is it an MR register, which MR, which register. */
function decode(m: ModuleBuilder, prefix: string, word: Value, numMr: number): { hit: Value; idx: Value; slot: Value } {
  const slotBits = log2Exact(MR_STRIDE / 4, 'MR_STRIDE / 4');
  const base = MR_BASE >> 2;
  const mw = mrIndexWidth(numMr);
  const inBlock = word.ge(base).land(word.lt(base + numMr * (MR_STRIDE >> 2)));
  const slot = m.let(`${prefix}_mr_slot`, word.bits(slotBits - 1, 0));
  const known = regPositions().map(r => slot.eq(r.slot)).reduce((a, b) => a.lor(b));
  const idx = m.let(`${prefix}_mr_idx`, word.subw(base).bits(word.width - 1, slotBits).trunc(mw));
  return { hit: m.let(`${prefix}_mr_hit`, inBlock.land(known)), idx, slot };
}

export interface MrTableBus {
  /** The write of this cycle (AW and W both here) and its word address, data and strobes. */
  doWrite: Value; wrWord: Value; wrData: Value; wrStrb: Value;
  /** AR handshake of this cycle and its word address. */
  arFire: Value; arWord: Value;
  /** nic_tlb's read port: enable and MR index. */
  tlbEn: Value; tlbAddr: Value;
}

export function mrTable(m: ModuleBuilder, numMr: number, bus: MrTableBus) {
  const mw = mrIndexWidth(numMr);
  const mem = m.memory('mr_mem', UInt(MrEntry.width), Math.max(2, numMr));
  const regs = regPositions();

  // ---- clear sweep after reset ---------------------------------------------------------------
  const busy = m.reg('mr_clr_busy_reg', Bool, { reset: 1 });
  const clrIdx = m.reg('mr_clr_idx_reg', UInt(mw));
  m.if(busy, () => {
    clrIdx.set(clrIdx.addw(1));
    m.if(clrIdx.eq(numMr - 1), () => busy.set(0));
  });

  // ---- writes: the register's bytes, under wstrb ------------------------------------------------
  const wr = decode(m, 'wr', bus.wrWord, numMr);
  const wrLanes = m.wire('mr_wr_lanes', UInt(LANES), { default: 0 });
  const wrBits = m.wire('mr_wr_bits', UInt(MrEntry.width), { default: 0 });
  const sw = m.switch(wr.slot);
  for (const r of regs) {
    sw.case(r.slot, () => {
      const strb = bus.wrStrb.bits(r.width / 8 - 1, 0);
      wrLanes.set(strb.zext(LANES).shl(r.pos / 8));
      wrBits.set(bus.wrData.trunc(r.width).zext(MrEntry.width).shl(r.pos));
    });
  }
  const wrHit = m.let('mr_wr_hit', bus.doWrite.land(wr.hit));
  m.if(busy.lor(wrHit), () => {
    mem.write(mux(busy, clrIdx, wr.idx), mux(busy, lit(0, MrEntry.width), wrBits), { enable: mux(busy, repeat(lit(1, 1), LANES), wrLanes), laneWidth: 8 });
  });

  // ---- reads -------------------------------------------------------------------------------------
  const tlbWord = mem.read(bus.tlbAddr, { enable: bus.tlbEn });
  const rd = decode(m, 'rd', bus.arWord, numMr);
  const rdWord = mem.read(rd.idx, { enable: bus.arFire.land(rd.hit) });
  const rSlot = m.reg('r_mr_slot_reg', UInt(rd.slot.width), { reset: null });
  const rIsMr = m.reg('r_is_mr_reg', Bool);
  m.if(bus.arFire, () => { rIsMr.set(rd.hit); rSlot.set(rd.slot); });
  const rdValue = m.wire('mr_rd_value', UInt(32), { default: 0 });
  const rsw = m.switch(rSlot);
  for (const r of regs) rsw.case(r.slot, () => rdValue.set(rdWord.bits(r.pos + r.width - 1, r.pos).zext(32)));

  const changed = m.reg('mr_changed_reg', Bool);
  const changedIdx = m.reg('mr_changed_idx_reg', UInt(mw), { reset: null });
  changed.set(wrHit);
  m.if(wrHit, () => changedIdx.set(wr.idx));

  return {
    busy,
    /** The write is an MR register (for the B response). */
    wrHit: wr.hit,
    /** The AR names an MR register (for the R response). */
    rdHit: rd.hit,
    /** R data when the read was an MR register (rIsMr). */
    rIsMr, rdValue,
    tlbWord: tlbWord.as(MrEntry),
    changed: pack(mrChangeEvent(numMr), { valid: changed, mr: changedIdx }),
  };
}
