// Queries over a finished ModuleIR, shared by the passes and the emitter so that what the
// checks assume and what the Verilog does cannot disagree.

import type { CoverStmt, Expr, Memory, ModuleIR, Signal, Stmt } from './ir.ts';
import { stmtExprs, walkStmts } from './ir.ts';

/** Operations whose low result bits depend only on the operands' low bits. The emitter
 *  narrows slices of these instead of naming an intermediate (see emit/expr.ts). */
export const lowBitOps: ReadonlySet<string> = new Set(['add', 'sub', 'mul', 'and', 'or', 'xor']);

/** Bits of each signal that some expression reads (a bit mask per signal). */
export class ReadBits {
  readonly #bits = new Map<Signal, bigint>();

  get(s: Signal): bigint { return this.#bits.get(s) ?? 0n; }

  markSignal(s: Signal, lo: number, width: number): void {
    const mask = ((1n << BigInt(width)) - 1n) << BigInt(lo);
    this.#bits.set(s, this.get(s) | mask);
  }

  /** Mark what reading bits [lo +: width] of `e` reads, mirroring how the emitter prints it. */
  mark(e: Expr, lo = 0, width = e.width): void {
    switch (e.kind) {
      case 'const': case 'memread': return;
      case 'ref': this.markSignal(e.signal, lo, width); return;
      case 'slice': this.mark(e.arg, e.lo + lo, width); return;
      case 'concat': {
        let base = 0;
        for (const part of [...e.parts].reverse()) {
          const pLo = Math.max(lo, base), pHi = Math.min(lo + width, base + part.width);
          if (pLo < pHi) this.mark(part, pLo - base, pHi - pLo);
          base += part.width;
        }
        return;
      }
      case 'ext': {
        const argW = e.arg.width;
        if (argW === e.width || lo + width <= argW) { this.mark(e.arg, lo, Math.min(width, argW - lo)); return; }
        if (!e.arg.signed && lo >= argW) return;
        if (!e.arg.signed) { this.mark(e.arg, lo, argW - lo); return; }
        this.mark(e.arg); return;
      }
      case 'mux': this.mark(e.sel); this.mark(e.onTrue, lo, width); this.mark(e.onFalse, lo, width); return;
      case 'binary':
        if (lo === 0 && width < e.width && lowBitOps.has(e.op)) { this.mark(e.a, 0, width); this.mark(e.b, 0, width); return; }
        this.mark(e.a); this.mark(e.b); return;
      case 'unary':
        if (lo === 0 && width < e.width && (e.op === 'not' || e.op === 'neg')) { this.mark(e.arg, 0, width); return; }
        this.mark(e.arg); return;
      case 'part':
        // A part as wide as its argument is the argument itself; the emitter drops the index.
        this.mark(e.arg);
        if (e.arg.width !== e.width) this.mark(e.index);
        return;
      case 'repl': this.mark(e.arg); return;
    }
  }
}

/** Everything a module's own logic reads. */
export function readBits(ir: ModuleIR): ReadBits {
  const r = new ReadBits();
  walkStmts(ir.body, s => { for (const e of stmtExprs(s)) r.mark(e); });
  for (const s of ir.signals) if (s.enable) r.mark(s.enable);
  for (const mem of ir.memories) for (const p of mem.readPorts) { r.mark(p.addr); if (p.enable) r.mark(p.enable); }
  // Clocks and resets are read by the always blocks of the domains that use them.
  for (const d of ir.domains.values()) {
    if (!domainUsed(ir, d.name)) continue;
    if (d.clock) r.markSignal(d.clock, 0, 1);
    if (d.reset && domainHasReset(ir, d.name)) r.markSignal(d.reset, 0, d.reset.shape.width);
  }
  // A parent-side signal connected to a child input is read by the instance.
  for (const inst of ir.instances) {
    for (const port of inst.module.ports) {
      if (port.signal.kind !== 'input') continue;
      const sig = inst.connections.get(port.signal.name);
      if (sig) r.markSignal(sig, 0, sig.shape.width);
    }
  }
  return r;
}

/** True when some register, memory port, assertion or cover point is clocked by domain `name`. */
export function domainUsed(ir: ModuleIR, name: string): boolean {
  if (ir.signals.some(s => s.kind === 'reg' && s.domain?.name === name)) return true;
  if (ir.memories.some(m => m.readPorts.some(p => p.domain.name === name) || m.writePorts.some(p => p.domain.name === name))) return true;
  let found = false;
  walkStmts(ir.body, s => { if ((s.kind === 'assert' || s.kind === 'cover') && s.domain.name === name) found = true; });
  return found;
}

/** Reset is read when a register of the domain has a reset value, or an assertion or cover
 *  point is gated by it. */
export function domainHasReset(ir: ModuleIR, name: string): boolean {
  if (ir.signals.some(s => s.kind === 'reg' && s.domain?.name === name && s.reset !== null)) return true;
  let found = false;
  walkStmts(ir.body, s => { if ((s.kind === 'assert' || s.kind === 'cover') && s.domain.name === name) found = true; });
  return found;
}

/** How a signal gets its value. */
export type DriverKind = 'comb' | 'sync' | 'instance' | 'port-in';

export interface Driver {
  readonly kind: DriverKind;
  readonly stmt: Stmt | null;
  readonly domain: string | null;
}

/** All drivers of every signal in the module. */
export function drivers(ir: ModuleIR): Map<Signal, Driver[]> {
  const map = new Map<Signal, Driver[]>();
  const add = (s: Signal, d: Driver): void => { let l = map.get(s); if (!l) map.set(s, l = []); l.push(d); };
  for (const p of ir.ports) if (p.signal.kind === 'input') add(p.signal, { kind: 'port-in', stmt: null, domain: null });
  walkStmts(ir.body, s => {
    if (s.kind !== 'assign') return;
    if (s.target.kind === 'reg') add(s.target, { kind: 'sync', stmt: s, domain: s.target.domain?.name ?? null });
    else add(s.target, { kind: 'comb', stmt: s, domain: null });
  });
  for (const inst of ir.instances) {
    for (const port of inst.module.ports) {
      if (port.signal.kind !== 'output') continue;
      const sig = inst.connections.get(port.signal.name);
      if (sig) add(sig, { kind: 'instance', stmt: null, domain: null });
    }
  }
  return map;
}

/** Statement-tree targets: the signals (and memories) a statement can write. */
export function stmtTargets(s: Stmt): (Signal | Memory)[] {
  const out: (Signal | Memory)[] = [];
  walkStmts([s], x => {
    if (x.kind === 'assign') out.push(x.target);
    else if (x.kind === 'memwrite') out.push(x.mem);
  });
  return out;
}

/** Modules reachable from `top` (itself included), children before parents. */
export function modulesBelow(top: ModuleIR): ModuleIR[] {
  const out: ModuleIR[] = [];
  const seen = new Set<ModuleIR>();
  const visit = (m: ModuleIR): void => {
    if (seen.has(m)) return;
    seen.add(m);
    for (const i of m.instances) visit(i.module);
    out.push(m);
  };
  visit(top);
  return out;
}

/** The module's cover points (`m.cover`), in statement order. */
export function coverPoints(m: ModuleIR): CoverStmt[] {
  const out: CoverStmt[] = [];
  walkStmts(m.body, s => { if (s.kind === 'cover') out.push(s); });
  return out;
}
