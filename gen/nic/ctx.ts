// Register-backed context structs, generated from regmap.ts: what nic_regs publishes to the
// other stages (one QpCtx per QP, one MrEntry per MR, the global NicCfg) and the update
// ports through which the datapath writes the fields it owns.
//
// Field names come from register names: `_LO`/`_HI` pairs are joined into one field
// (DEST_MAC_LO + DEST_MAC_HI → destMac, 48 bits), the rest are camel-cased
// (SQ_SIZE_LOG2 → sqSizeLog2). Widths are the registers' widths, so a change in regmap.ts
// changes the structs, the decode and the tests together.

import { Bool, Struct, UInt, type StructShape, type UIntShape } from '../hdl/index.ts';
import { GLOBAL_REGS, MR_REGS, QP_REGS, QP_STRIDE, type RegField } from './regmap.ts';
import { mrIndexWidth, qpIndexWidth } from './types.ts';

type Camel<S extends string> = S extends `${infer A}_${infer B}` ? `${Lowercase<A>}${Capitalize<Camel<B>>}` : Lowercase<S>;
type Base<S extends string> = S extends `${infer A}_LO` ? A : S extends `${infer A}_HI` ? A : S;
/** The struct field a register lands in, at the type level. */
export type FieldName<S extends string> = Camel<Base<S>>;

/** The struct field a register lands in. */
export function fieldName(reg: string): string {
  const base = reg.replace(/_(LO|HI)$/, '');
  return base.toLowerCase().replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** Where a register's bits sit: field `field`, starting at bit `lsb` of that field. */
export interface RegSlot {
  readonly reg: RegField;
  readonly field: string;
  readonly lsb: number;
}

/** Slots of `regs`, in order. An `_HI` register sits above its `_LO` partner. */
export function regSlots(regs: readonly RegField[]): RegSlot[] {
  return regs.map(reg => {
    if (!reg.name.endsWith('_HI')) return { reg, field: fieldName(reg.name), lsb: 0 };
    const lo = regs.find(r => r.name === reg.name.replace(/_HI$/, '_LO'));
    if (!lo) throw new Error(`regmap: ${reg.name} has no _LO partner`);
    return { reg, field: fieldName(reg.name), lsb: lo.width };
  });
}

/** Field name → width for a list of registers (pairs joined). */
function fieldWidths(regs: readonly RegField[]): Map<string, number> {
  const widths = new Map<string, number>();
  for (const s of regSlots(regs)) widths.set(s.field, Math.max(widths.get(s.field) ?? 0, s.lsb + s.reg.width));
  return widths;
}

type CtxFields<R extends RegField> = { [K in FieldName<R['name']>]: UIntShape };

function ctxStruct<R extends RegField>(name: string, regs: readonly R[]): StructShape<CtxFields<R>> {
  const fields: Record<string, UIntShape> = {};
  for (const [f, w] of fieldWidths(regs)) fields[f] = UInt(w);
  return Struct(name, fields) as StructShape<CtxFields<R>>;
}

/** Global registers software sets (rw); counters, ID and IRQ_STATUS are not configuration. */
export const CFG_REGS = GLOBAL_REGS.filter((r): r is Extract<typeof GLOBAL_REGS[number], { access: 'rw' }> => r.access === 'rw');

/** Per-QP context: every QP register (software's and the datapath's fields). */
export const QpCtx = ctxStruct('qp_ctx', QP_REGS);
/** One MR table entry: every MR register. */
export const MrEntry = ctxStruct('mr_entry', MR_REGS);
/** Global configuration: config, mac (48), ipAddr, ipCfg, irqMod. */
export const NicCfg = ctxStruct('nic_cfg', CFG_REGS);

export type QpCtxShape = typeof QpCtx;
export type MrEntryShape = typeof MrEntry;

/** Fields of QpCtx the datapath writes (one update port each in nic_regs). STATE is
 *  written only as "go to ERROR", through `hw_error`. */
export const HW_QP_FIELDS = ['SQ_CI', 'CQ_PI', 'SQ_PSN', 'EXP_PSN', 'MSN'] as const;
export type HwQpField = typeof HW_QP_FIELDS[number];

/** Width of a QP register, looked up in the map (never retyped). */
export function qpRegWidth(name: typeof QP_REGS[number]['name']): number {
  return QP_REGS.find(r => r.name === name)!.width;
}

/** An update of one QP field by the datapath: takes effect at the clock edge where valid is
 *  high. One port per field; each field has one owner stage. */
export function qpUpdate(field: HwQpField, numQp: number) {
  return Struct(`upd_${field.toLowerCase()}`, { valid: Bool, qp: UInt(qpIndexWidth(numQp)), value: UInt(qpRegWidth(field)) });
}
/** A one-cycle event about one QP (e.g. an ACK timeout that expired). */
export function qpPulse(name: string, numQp: number) {
  return Struct(name, { valid: Bool, qp: UInt(qpIndexWidth(numQp)) });
}
/** "Move this QP to ERROR" from the datapath. */
export function qpErrorEvent(numQp: number) {
  return Struct('qp_error_event', { valid: Bool, qp: UInt(qpIndexWidth(numQp)) });
}
/** "MR `mr` changed" (a software write to one of its registers), from nic_regs to nic_tlb:
 *  one MR per cycle at most, since AXI4-Lite writes one register per cycle. */
export function mrChangeEvent(numMr: number) {
  return Struct('mr_change', { valid: Bool, mr: UInt(mrIndexWidth(numMr)) });
}

/** A QpCtx field name (`state`, `destMac`, ...). */
export type QpField = FieldName<typeof QP_REGS[number]['name']>;

/** QP registers kept in per-QP flip-flop vectors instead of memories: stages scan them for every
 *  QP in every cycle (STATE: RESET clears per-QP bits everywhere; RETRY: the ACK tracker's
 *  per-QP timeout). SQ_PI is a memory: nic_wqe_fetch keeps a "has work" bit per QP, updated
 *  by the SQ_PI writes on the software lane (wqe-fetch.ts). ctx-view.ts. */
export const FF_QP_REGS = ['STATE', 'RETRY'] as const;
/** QP registers a software write of STATE = RESET clears (so a QP can be reused). */
export const QP_INDEX_REGS = ['SQ_PI', 'SQ_CI', 'CQ_PI', 'CQ_CI', 'MSN'] as const;
/** Word slots of a QP's register block (QP_STRIDE / 4). */
export const QP_SLOT_BITS = Math.log2(QP_STRIDE / 4);

/**
 * nic_regs' software write lane (ctx-view.ts): at most one QP register per cycle (AXI4-Lite).
 * - `valid`: register `reg` (word slot: offset / 4) of QP `qp` becomes `data` (the whole new
 *   value, byte strobes already merged with the old one) at the coming edge.
 * - `clr`: with a write of STATE = RESET, the QP's SQ_PI, SQ_CI, CQ_PI, CQ_CI and MSN become 0.
 * - `init`: every register of QP `qp` takes its reset value (regmap.ts): the sweep after `rst`.
 */
export function qpWriteLane(numQp: number) {
  return Struct('qp_wr', { valid: Bool, init: Bool, clr: Bool, qp: UInt(qpIndexWidth(numQp)), reg: UInt(QP_SLOT_BITS), data: UInt(32) });
}
