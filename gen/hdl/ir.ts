// The IR: a small closed set of expression and statement nodes.
//
// Nodes are plain data with a width and signedness; passes and the emitter switch on
// `kind`. Builders (value.ts, module.ts) create them; nothing else mutates them except
// the statement lists while a module body is being built.

import type { SourceLoc } from './errors.ts';
import type { Shape } from './shape.ts';

export type SignalKind = 'input' | 'output' | 'wire' | 'reg';

export interface Domain {
  readonly name: string;
  /** The clock / reset signals; the default domain's are resolved by name when the module is finished. */
  clock: Signal | null;
  reset: Signal | null;
  /** Set by m.clockAndReset for the default domain; fixed for domains made with m.domain. */
  resetKind: 'sync' | 'async' | 'none';
  /** 'low' for resets such as `aresetn`: in reset while the input is 0. */
  resetActive: 'high' | 'low';
  /** The default domain's port names (`clk`/`rst` unless m.clockAndReset names others); null for m.domain ones. */
  portNames: { clock: string; reset: string } | null;
  readonly loc: SourceLoc;
}

export interface Signal {
  readonly id: number;
  name: string;
  readonly shape: Shape;
  readonly kind: SignalKind;
  readonly loc: SourceLoc;
  /** Value a combinational signal takes on paths that do not assign it. */
  readonly init: bigint;
  /** Registers: reset value (null = no reset) and domain. */
  readonly reset: bigint | null;
  domain: Domain | null;
  /** Registers: assignments happen only when this is true. */
  readonly enable: Expr | null;
  /** Set by m.unused(): bits deliberately not read, and why. */
  unusedReason: string | null;
  /** Set by m.crossing(): a deliberate clock-domain crossing point, and why it is safe. The
   *  domains pass does not follow reads through it. */
  crossing: string | null;
  /** Verilog attributes on the declaration, e.g. ASYNC_REG = "TRUE" on synchronizer flops. */
  attributes: Readonly<Record<string, string>> | null;
  /** Instance connection wires point at their instance port. */
  readonly instPort: { inst: Instance; port: string } | null;
}

export type UnaryOp = 'not' | 'neg' | 'andr' | 'orr' | 'xorr' | 'lnot';
export type BinaryOp =
  | 'add' | 'sub' | 'mul'
  | 'and' | 'or' | 'xor'
  | 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge'
  | 'shl' | 'shr' | 'land' | 'lor';

interface ExprBase {
  readonly width: number;
  readonly signed: boolean;
  readonly loc: SourceLoc;
}

export type Expr =
  | ExprBase & { readonly kind: 'const'; readonly value: bigint; /** localparam name when from an enum */ readonly label?: string }
  | ExprBase & { readonly kind: 'ref'; readonly signal: Signal }
  | ExprBase & { readonly kind: 'slice'; readonly arg: Expr; readonly lo: number }
  | ExprBase & { readonly kind: 'part'; readonly arg: Expr; readonly index: Expr; readonly stride: number }
  | ExprBase & { readonly kind: 'unary'; readonly op: UnaryOp; readonly arg: Expr }
  | ExprBase & { readonly kind: 'binary'; readonly op: BinaryOp; readonly a: Expr; readonly b: Expr }
  | ExprBase & { readonly kind: 'mux'; readonly sel: Expr; readonly onTrue: Expr; readonly onFalse: Expr }
  /** Parts listed most significant first, as in Verilog. */
  | ExprBase & { readonly kind: 'concat'; readonly parts: readonly Expr[] }
  | ExprBase & { readonly kind: 'repl'; readonly arg: Expr; readonly count: number }
  /** Zero or sign extension (by arg.signed) to `width`; or a signedness reinterpretation when widths are equal. */
  | ExprBase & { readonly kind: 'ext'; readonly arg: Expr }
  | ExprBase & { readonly kind: 'memread'; readonly mem: Memory; readonly port: number };

export type ExprKind = Expr['kind'];

export interface AssignStmt {
  readonly kind: 'assign';
  readonly target: Signal;
  /** Bits [lo +: width] of the target; the whole signal when lo = 0 and width = its width. */
  readonly lo: number;
  readonly width: number;
  /** Whether the target bits are signed (a signed signal, or a signed struct field). */
  readonly signed: boolean;
  readonly value: Expr;
  readonly loc: SourceLoc;
}
export interface IfStmt {
  readonly kind: 'if';
  readonly branches: { cond: Expr | null; body: Stmt[]; loc: SourceLoc }[];
  readonly loc: SourceLoc;
}
export interface SwitchStmt {
  readonly kind: 'switch';
  readonly subject: Expr;
  /** values = null is the default case. */
  readonly cases: { values: Expr[] | null; body: Stmt[]; loc: SourceLoc }[];
  readonly loc: SourceLoc;
}
export interface MemWriteStmt {
  readonly kind: 'memwrite';
  readonly mem: Memory;
  readonly port: number;
  readonly addr: Expr;
  readonly data: Expr;
  /** Per-byte (or per-lane) write enables, or null for whole words. */
  readonly mask: Expr | null;
  readonly loc: SourceLoc;
}
export interface AssertStmt {
  readonly kind: 'assert';
  readonly cond: Expr;
  readonly message: string;
  readonly loc: SourceLoc;
  readonly domain: Domain;
}
/** A user cover point (`m.cover`): counted by Verilator's coverage at each clock edge of the
 *  domain outside reset while `cond` (and the conditions around it) hold. Not synthesized. */
export interface CoverStmt {
  readonly kind: 'cover';
  readonly cond: Expr;
  /** The point's label in the Verilog and in coverage reports. */
  readonly name: string;
  readonly loc: SourceLoc;
  readonly domain: Domain;
}
export type Stmt = AssignStmt | IfStmt | SwitchStmt | MemWriteStmt | AssertStmt | CoverStmt;

export interface MemReadPort {
  readonly addr: Expr;
  readonly enable: Expr | null;
  /** Asynchronous (combinational) read, as distributed RAM/LUTRAM reads: the word at `addr`
   *  in the same cycle; `enable` is then null. Otherwise the read is registered. */
  readonly async: boolean;
  readonly domain: Domain;
  readonly loc: SourceLoc;
}
export interface MemWritePort {
  readonly domain: Domain;
  readonly laneWidth: number | null;
  readonly loc: SourceLoc;
}
export interface Memory {
  readonly id: number;
  name: string;
  readonly shape: Shape;
  readonly depth: number;
  readonly init: readonly bigint[] | null;
  readonly readPorts: MemReadPort[];
  readonly writePorts: MemWritePort[];
  readonly loc: SourceLoc;
  /** Set by m.crossing(): written and read in different clock domains on purpose, and why. */
  crossing: string | null;
}

export interface Instance {
  readonly name: string;
  readonly module: ModuleIR;
  /** Port name → the parent-side signal connected to it. */
  readonly connections: Map<string, Signal>;
  readonly loc: SourceLoc;
}

export interface FsmInfo {
  readonly name: string;
  readonly signal: Signal;
  readonly states: Record<string, number>;
  readonly loc: SourceLoc;
}

export interface Port {
  readonly signal: Signal;
  readonly path: readonly string[];
}

export interface ModuleIR {
  /** Verilog module name (after parameter mangling). */
  name: string;
  readonly defName: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly doc: string | null;
  readonly ports: Port[];
  readonly signals: Signal[];
  readonly memories: Memory[];
  readonly instances: Instance[];
  readonly body: Stmt[];
  readonly domains: Map<string, Domain>;
  readonly fsms: FsmInfo[];
  /** Set for black boxes: the Verilog is supplied by the user, not emitted by us. */
  readonly blackBox: { source: string | null } | null;
  readonly loc: SourceLoc;
}

export function constExpr(value: bigint, width: number, signed: boolean, loc: SourceLoc, label?: string): Expr {
  return label === undefined ? { kind: 'const', value, width, signed, loc } : { kind: 'const', value, width, signed, loc, label };
}

/** Visit every expression node under `e` (pre-order). */
export function walkExpr(e: Expr, visit: (e: Expr) => void): void {
  visit(e);
  switch (e.kind) {
    case 'const': case 'ref': case 'memread': return;
    case 'slice': case 'unary': case 'repl': case 'ext': walkExpr(e.arg, visit); return;
    case 'part': walkExpr(e.arg, visit); walkExpr(e.index, visit); return;
    case 'binary': walkExpr(e.a, visit); walkExpr(e.b, visit); return;
    case 'mux': walkExpr(e.sel, visit); walkExpr(e.onTrue, visit); walkExpr(e.onFalse, visit); return;
    case 'concat': for (const p of e.parts) walkExpr(p, visit); return;
  }
}

/** Visit every statement in a tree (pre-order), with the guards (conditions) above it. */
export function walkStmts(stmts: readonly Stmt[], visit: (s: Stmt) => void): void {
  for (const s of stmts) {
    visit(s);
    if (s.kind === 'if') for (const b of s.branches) walkStmts(b.body, visit);
    else if (s.kind === 'switch') for (const c of s.cases) walkStmts(c.body, visit);
  }
}

/** Every expression read by a statement tree (conditions, subjects, values, addresses). */
export function stmtExprs(s: Stmt): Expr[] {
  switch (s.kind) {
    case 'assign': return [s.value];
    case 'if': return s.branches.flatMap(b => (b.cond ? [b.cond] : []));
    case 'switch': return [s.subject, ...s.cases.flatMap(c => c.values ?? [])];
    case 'memwrite': return s.mask ? [s.addr, s.data, s.mask] : [s.addr, s.data];
    case 'assert': case 'cover': return [s.cond];
  }
}
