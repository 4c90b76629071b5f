// A stage's view of the QP context (issue 15, "Scale"): `view.at(q).field(f)` reads field `f`
// of QP `q` combinationally, the way `qp_ctx.at(q).field(f)` read nic_regs' flip-flops, from
// one of two sources chosen by the stage's `ctxPort` parameter:
//
// - 'vec' (the default, for the stage tests): the input `qp_ctx`, a `Vec(QpCtx, numQp)` that
//   the test drives directly (`dut.qp_ctx.value = [...]`).
// - 'lanes' (nic_top): the stage's own copy of the fields it reads, built from what nic_regs
//   publishes: STATE and RETRY (FF_QP_REGS) as per-QP flip-flop vectors held in nic_regs
//   (qp_state, qp_retry; the stage's inputs ctx_state, ctx_retry), since stages scan them for
//   every QP in every cycle; every other register (SQ_PI included) in a
//   memory of 2^qpIndexWidth rows (`ctx_<register>_mem`), written by nic_regs' software write
//   lane (qp_wr -> ctx_wr; ctx.ts qpWriteLane: one register per cycle, the STATE = RESET
//   clear, the reset sweep) and read asynchronously (distributed RAM / LUTRAM), so a write at
//   edge e is seen after edge e, exactly as with the registers.
//   A field the datapath writes (HW_QP_FIELDS: SQ_CI, CQ_PI, SQ_PSN, EXP_PSN, MSN) has two
//   memories: the software bank (ctx_wr) and the hardware bank (`ctx_<f>_hw_mem`, written by
//   the same `hw_<f>` update lane nic_regs takes, here `ctx_hw_<f>`), since one LUTRAM has one
//   write port and both lanes may write (different QPs) in one cycle; nic_regs' `qp_live_<f>`
//   (here `ctx_live_<f>`: one flip-flop per QP, a "live value table") says which bank holds
//   the QP's newest value. A hardware update wins over
//   a same-cycle software write of the same QP, as in nic_regs.
//
// Cost: one copy of a register's memory per read port (LUTRAM has one write port and its read
// ports are copies). Every `field()` call with a new address is a new read port; calls with the
// same address Value share one. Reading a memory field at a constant index (a loop over every
// QP) is refused: that is a field for FF_QP_REGS.

import { UInt, Vec, cat, lit, markInternalFile, mux, oneOf, type ModuleBuilder, type Input, type Shape, type StructShape, type Value, type VecShape } from '../hdl/index.ts';
import { FF_QP_REGS, HW_QP_FIELDS, QP_INDEX_REGS, QpCtx, qpRegWidth, qpUpdate, qpWriteLane, regSlots, type HwQpField, type QpField } from './ctx.ts';
import { QP_REGS } from './regmap.ts';
import { qpIndexWidth } from './types.ts';

// Locations in the emitted Verilog name the stage's line that reads the field.
markInternalFile(import.meta.url);

export const CTX_PORTS = ['vec', 'lanes'] as const;
export type CtxPort = typeof CTX_PORTS[number];
/** The `ctxPort` parameter's rule, for a stage's `params.rules`. */
export const ctxPortRule = oneOf(...CTX_PORTS);

export interface QpCtxRow {
  field(name: QpField): Value;
}
export interface QpCtxView {
  at(q: number | Value): QpCtxRow;
}

/** `name`: bit i is 1 while QP i's STATE is `state` (a per-QP mask, e.g. RESET, that logic for
 *  every QP reads; STATE is a flip-flop vector, so this reads no memory). */
export function stateMask(m: ModuleBuilder, view: QpCtxView, numQp: number, state: number, name: string): Value {
  return m.let(name, cat(...Array.from({ length: numQp }, (_, i) => view.at(i).field('state').eq(state)).reverse()));
}

/** The register(s) a field is made of, low half first. */
export function fieldRegs(f: QpField): (typeof QP_REGS[number])[] {
  const slots = regSlots(QP_REGS).filter(s => s.field === f).sort((a, b) => a.lsb - b.lsb);
  if (slots.length === 0) throw new Error(`ctx-view: no QP register makes field '${f}'`);
  return slots.map(s => s.reg as typeof QP_REGS[number]);
}

const snake = (s: string): string => s.toLowerCase();
const isFf = (reg: string): boolean => (FF_QP_REGS as readonly string[]).includes(reg);
const isHw = (reg: string): reg is HwQpField => (HW_QP_FIELDS as readonly string[]).includes(reg);
/** A field of a struct value, an element of a vector value (lanes and vectors carry no static shape here). */
const fld = (v: Value, name: string): Value => (v as Value<StructShape<Record<string, Shape>>>).field(name);
const elem = (v: Value, q: number | Value): Value => (v as Value<VecShape<Shape>>).at(q);

/** What a copy of the context is written and read from. `vecs`: the flip-flop vectors
 *  (STATE, RETRY; Vec of numQp); `wr`: the software lane; `hw` / `live`: per datapath
 *  field, its update lane and its live-value bits (UInt(numQp)). Only those the fields need. */
export interface CtxSources {
  vecs: Partial<Record<typeof FF_QP_REGS[number], Value>>;
  wr?: Value;
  hw: Partial<Record<HwQpField, Value>>;
  live: Partial<Record<HwQpField, Value>>;
}

/** Registers behind `fields`, split into flip-flop ones and memory ones. */
export function regsOf(fields: readonly QpField[]): { ff: (typeof FF_QP_REGS[number])[]; mem: (typeof QP_REGS[number])[] } {
  const regs = [...new Set(fields.flatMap(fieldRegs))];
  return { ff: regs.filter(r => isFf(r.name)).map(r => r.name as typeof FF_QP_REGS[number]), mem: regs.filter(r => !isFf(r.name)) };
}

/**
 * The memories of `fields` written by `src` (the memory form of nic_regs' registers) and the
 * view reading them. Used by the stages in 'lanes' mode and by nic_regs for its own copy
 * (AXI read-back, strobe merge). `prefix` starts every name.
 */
export function ctxMemories(m: ModuleBuilder, numQp: number, src: CtxSources, fields: readonly QpField[], prefix = 'qp'): QpCtxView {
  const qw = qpIndexWidth(numQp);
  const rows = 2 ** qw;
  const { mem } = regsOf(fields);
  const reads = new Map<string, (q: Value) => Value>();
  for (const r of mem) {
    const wr = src.wr;
    if (!wr) throw new Error(`ctx-view: ${r.name} needs the write lane`);
    const w = r.width;
    const swMem = m.memory(`${prefix}_${snake(r.name)}_mem`, UInt(w), rows);
    const hit = fld(wr, 'valid').land(fld(wr, 'reg').eq(r.offset >> 2));
    const clr = (QP_INDEX_REGS as readonly string[]).includes(r.name) ? fld(wr, 'clr') : lit(0, 1);
    m.if(fld(wr, 'init').lor(hit).lor(clr), () => {
      swMem.write(fld(wr, 'qp'), mux(fld(wr, 'init'), lit(r.reset, w), mux(hit, fld(wr, 'data').trunc(w), lit(0, w))));
    });
    if (!isHw(r.name)) { reads.set(r.name, q => swMem.readAsync(q)); continue; }
    const hw = src.hw[r.name], live = src.live[r.name];
    if (!hw || !live) throw new Error(`ctx-view: ${r.name} needs its hardware lane and live bits`);
    const hwMem = m.memory(`${prefix}_${snake(r.name)}_hw_mem`, UInt(w), rows);
    m.if(fld(hw, 'valid'), () => hwMem.write(fld(hw, 'qp'), fld(hw, 'value')));
    reads.set(r.name, q => mux(live.bit(q), hwMem.readAsync(q), swMem.readAsync(q)));
  }
  const cache = new Map<number | Value, Map<QpField, Value>>();
  return {
    at(q: number | Value): QpCtxRow {
      const row = cache.get(q) ?? cache.set(q, new Map()).get(q)!;
      return {
        field(name: QpField): Value {
          const hit = row.get(name);
          if (hit) return hit;
          const regs = fieldRegs(name);
          const parts = regs.map(r => {
            if (isFf(r.name)) {
              const v = src.vecs[r.name as typeof FF_QP_REGS[number]];
              if (!v) throw new Error(`ctx-view: field '${name}' was not declared by this stage`);
              return elem(v, q);
            }
            const rd = reads.get(r.name);
            if (!rd) throw new Error(`ctx-view: field '${name}' was not declared by this stage`);
            if (typeof q === 'number') throw new Error(`ctx-view: field '${name}' of QP ${q} read at a constant index: a loop over every QP cannot read a memory (keep the register in FF_QP_REGS)`);
            const a = q.width > qw ? q.trunc(qw) : q.width < qw ? q.zext(qw) : q;
            return rd(a);
          });
          const v = parts.length === 1 ? parts[0]! : cat(...[...parts].reverse());
          row.set(name, v);
          return v;
        },
      };
    },
  };
}

/** The input ports of a stage in 'lanes' mode for `fields` (nic_top connects them by name). */
function laneInputs(m: ModuleBuilder, numQp: number, fields: readonly QpField[]): { src: CtxSources; ports: Record<string, Input> } {
  const { ff, mem } = regsOf(fields);
  const ports: Record<string, Input> = {};
  const src: CtxSources = { vecs: {}, hw: {}, live: {} };
  for (const r of ff) {
    const name = `ctx_${snake(r)}`;
    const p = m.input(name, Vec(UInt(qpRegWidth(r)), numQp));
    src.vecs[r] = p;
    ports[name] = p;
  }
  if (mem.length > 0) {
    const wr = m.input('ctx_wr', qpWriteLane(numQp));
    m.unused(wr, 'the write lane carries every QP register; this stage keeps a copy of some');
    src.wr = wr;
    ports['ctx_wr'] = wr;
  }
  for (const r of mem) {
    if (!isHw(r.name)) continue;
    const hw = m.input(`ctx_hw_${snake(r.name)}`, qpUpdate(r.name, numQp));
    const live = m.input(`ctx_live_${snake(r.name)}`, UInt(numQp));
    src.hw[r.name] = hw;
    src.live[r.name] = live;
    ports[`ctx_hw_${snake(r.name)}`] = hw;
    ports[`ctx_live_${snake(r.name)}`] = live;
  }
  return { src, ports };
}

/** The ports a stage's view adds to its IO record. Typed as the 'vec' mode's port (the stage
 *  tests drive `qp_ctx`); in 'lanes' mode the record holds the lane ports instead, and
 *  nic_top wires them by name. */
export type QpCtxPorts = { qp_ctx: Input<ReturnType<typeof Vec<typeof QpCtx>>> };

/**
 * A stage's view of the fields `fields` of every QP: the `qp_ctx` input ('vec') or its own
 * memory copy written by nic_regs' lanes ('lanes'). `why` is the reason the rest of the
 * context (or of the lanes) is unused, for the lint waiver.
 */
export function qpCtxView(m: ModuleBuilder, numQp: number, mode: CtxPort, fields: readonly QpField[], why: string): QpCtxView & { ports: QpCtxPorts } {
  if (mode === 'vec') {
    const qpCtx = m.input('qp_ctx', Vec(QpCtx, numQp));
    m.unused(qpCtx, why);
    const declared = new Set(fields);
    return {
      ports: { qp_ctx: qpCtx },
      at: (q: number | Value): QpCtxRow => ({
        field(name: QpField): Value {
          if (!declared.has(name)) throw new Error(`ctx-view: field '${name}' was not declared by this stage`);
          return qpCtx.at(q).field(name);
        },
      }),
    };
  }
  const { src, ports } = laneInputs(m, numQp, fields);
  for (const r of regsOf(fields).ff) m.unused(src.vecs[r]! as Input, `${r}: the flip-flop vector of every QP, read where the stage needs it`);
  const view = ctxMemories(m, numQp, src, fields, 'ctx');
  return { ports: ports as unknown as QpCtxPorts, at: view.at };
}
