// The module builder: what a generator function receives as `m`.
//
// A module definition is a named TS function of its parameters. Elaborating it runs the
// function once per distinct parameter set and records ports, signals, statements,
// memories and instances into a ModuleIR. Control flow (`m.if`, `m.switch`, FSM states)
// is built with callbacks, so the statement tree mirrors the code's nesting.

import { callerLoc, DslError, type SourceLoc } from './errors.ts';
import type { AssignStmt, Domain, Expr, IfStmt, Instance, ModuleIR, Signal, SignalKind, Stmt, SwitchStmt } from './ir.ts';
import { Bool, Clock, type ClockShape, type EnumShape, Enum, type Shape, type UIntShape } from './shape.ts';
import { Input, Output, Reg, Sig, SignalValue, type AssignSink } from './signal.ts';
import { constOf, enumMember, toValue, Value, type Operand } from './value.ts';
import { MemoryHandle, type MemoryOptions } from './memory.ts';
import { instantiate, type InstanceIO, type IORecord, type ModuleDef, type Params } from './define.ts';

export interface RegOptions {
  /** Reset value; `null` makes a register without reset. Default 0 (or the first enum member). */
  reset?: number | bigint | string | null;
  /** Clock domain; default the module's `clk`/`rst` domain. */
  domain?: Domain;
  /** When given, the register only updates while this is true. */
  enable?: Value;
  /** Verilog attributes on the declaration: `{ ASYNC_REG: 'TRUE' }` -> `(* ASYNC_REG = "TRUE" *)`. */
  attributes?: Readonly<Record<string, string>>;
}
export interface WireOptions {
  /** Value on paths that do not assign the wire. Default 0. */
  default?: number | bigint | string;
}
export interface DomainOptions {
  clock: SignalValue<ClockShape>;
  reset?: SignalValue | null;
  resetKind?: 'sync' | 'async';
  /** 'low' for an active-low reset (`rst_n`, `aresetn`). Default 'high'. */
  resetActive?: 'high' | 'low';
}

/** Names and kind of the default domain's ports (m.clockAndReset). */
export interface ClockResetOptions {
  /** Clock input name; default `clk` (`aclk` for AXI IP). */
  clock?: string;
  /** Reset input name; default `rst` (`aresetn` for AXI IP). */
  reset?: string;
  /** Default 'sync': the reset is sampled at the clock edge; 'async' adds it to the sensitivity list. */
  resetKind?: 'sync' | 'async';
  /** Default 'high'; 'low' for `aresetn`-style resets. */
  resetActive?: 'high' | 'low';
}

/** How AXI IP names and resets its clock: `m.clockAndReset(axiClockReset)` makes `aclk` and
 *  `aresetn` (asynchronous, active low): `always @(posedge aclk or negedge aresetn)`. */
export const axiClockReset: Readonly<Required<ClockResetOptions>> = { clock: 'aclk', reset: 'aresetn', resetKind: 'async', resetActive: 'low' };

let nextSignalId = 1;

/** Statement chain returned by `m.if`, so `.elif` / `.else` read like the Verilog they become. */
export class IfChain {
  readonly #m: ModuleBuilder;
  readonly #stmt: IfStmt;
  constructor(m: ModuleBuilder, stmt: IfStmt) { this.#m = m; this.#stmt = stmt; }
  elif(cond: Value, body: () => void): IfChain {
    this.#m.extendIf(this.#stmt, cond, body, 'elif');
    return this;
  }
  else(body: () => void): void {
    this.#m.extendIf(this.#stmt, null, body, 'else');
  }
}

export class SwitchChain {
  readonly #m: ModuleBuilder;
  readonly #stmt: SwitchStmt;
  readonly #subject: Value;
  constructor(m: ModuleBuilder, stmt: SwitchStmt, subject: Value) { this.#m = m; this.#stmt = stmt; this.#subject = subject; }
  /** One case; `values` are numbers or enum member names. */
  case(values: Operand | string | readonly (Operand | string)[], body: () => void): SwitchChain {
    const loc = callerLoc();
    const list = Array.isArray(values) ? values : [values];
    const exprs = list.map(v => (typeof v === 'string' ? enumMember(this.#subject.shape, v, loc) : toValue(v as Operand, this.#subject.width, this.#subject.signed, loc)).expr);
    this.#m.extendSwitch(this.#stmt, exprs, body, loc);
    return this;
  }
  default(body: () => void): void {
    this.#m.extendSwitch(this.#stmt, null, body, callerLoc());
  }
}

/** The FSM helper: named states, `goto`, and per-state actions in one `case`. */
export class Fsm<St extends string> {
  readonly state: Reg<EnumShape<St>>;
  readonly #m: ModuleBuilder;
  constructor(m: ModuleBuilder, state: Reg<EnumShape<St>>) { this.#m = m; this.state = state; }
  /** True while in `s`. */
  is(s: St): Value<UIntShape<1>> { return this.state.eq(s); }
  /** Move to `s` at the next clock edge. */
  goto(s: St): void { this.state.set(s); }
  /** Actions per state, emitted as one `case` on the state register. States without actions stay put. */
  states(actions: Partial<Record<St, () => void>>): void {
    const chain = this.#m.switch(this.state);
    for (const [name, body] of Object.entries(actions) as [St, () => void][]) chain.case(name, body);
  }
}

export class ModuleBuilder implements AssignSink {
  readonly ir: ModuleIR;
  #blocks: Stmt[][];
  readonly #names = new Map<string, SourceLoc>();

  constructor(ir: ModuleIR) {
    this.ir = ir;
    this.#blocks = [ir.body];
  }

  get name(): string { return this.ir.name; }

  // ---- declarations ----------------------------------------------------------------------
  input<S extends Shape>(name: string, shape: S): Input<S> {
    const s = this.#signal(name, shape, 'input', {});
    this.ir.ports.push({ signal: s, path: [name] });
    return new Input<S>(s);
  }
  output<S extends Shape>(name: string, shape: S): Output<S> {
    const s = this.#signal(name, shape, 'output', {});
    this.ir.ports.push({ signal: s, path: [name] });
    return new Output<S>(s, this);
  }
  /** The default clock domain's inputs: `clk` and `rst` (synchronous, active high), or the
   *  names and reset kind given (`axiClockReset`: `aclk`, `aresetn`, asynchronous, active low).
   *  Instances get the parent's default clock and reset connected to their own default ones. */
  clockAndReset(opts: ClockResetOptions = {}): { clk: Input<ClockShape>; rst: Input<UIntShape<1>> } {
    const loc = callerLoc();
    const d = this.defaultDomain(loc);
    d.portNames = { clock: opts.clock ?? 'clk', reset: opts.reset ?? 'rst' };
    d.resetKind = opts.resetKind ?? 'sync';
    d.resetActive = opts.resetActive ?? 'high';
    return { clk: this.input(d.portNames.clock, Clock), rst: this.input(d.portNames.reset, Bool) };
  }
  /** The default domain's clock and reset inputs as declared so far (for instance auto-connection). */
  defaultPorts(): { clock: Signal | undefined; reset: Signal | undefined; resetActive: 'high' | 'low' } {
    const d = this.ir.domains.get('sync');
    const names = d?.portNames ?? { clock: 'clk', reset: 'rst' };
    const find = (n: string): Signal | undefined => this.ir.ports.find(p => p.signal.name === n && p.signal.kind === 'input')?.signal;
    return { clock: find(names.clock), reset: find(names.reset), resetActive: d?.resetActive ?? 'high' };
  }
  wire<S extends Shape>(name: string, shape: S, opts: WireOptions = {}): Sig<S> {
    const loc = callerLoc();
    const init = opts.default === undefined ? 0n : constValue(shape, opts.default, loc);
    return new Sig<S>(this.#signal(name, shape, 'wire', { init, loc }), this);
  }
  reg<S extends Shape>(name: string, shape: S, opts: RegOptions = {}): Reg<S> {
    const loc = callerLoc();
    const reset = opts.reset === null ? null
      : opts.reset === undefined ? (shape.kind === 'enum' ? BigInt(Object.values(shape.members)[0] ?? 0) : 0n)
        : constValue(shape, opts.reset, loc);
    const s = this.#signal(name, shape, 'reg', { reset, domain: opts.domain ?? this.defaultDomain(loc), enable: opts.enable?.expr ?? null, loc });
    if (opts.attributes) s.attributes = checkAttributes(opts.attributes, loc);
    return new Reg<S>(s, this);
  }
  /** A wire that holds `value`: names an intermediate result in the Verilog. */
  let<S extends Shape>(name: string, value: Value<S>): SignalValue<S> {
    const w = new Sig<S>(this.#signal(name, value.shape, 'wire', { loc: callerLoc() }), this);
    this.#blocks[0]!.push({ kind: 'assign', target: w.signal, lo: 0, width: w.width, signed: w.signed, value: value.expr, loc: callerLoc() });
    return w;
  }
  memory<S extends Shape>(name: string, shape: S, depth: number, opts: MemoryOptions = {}): MemoryHandle<S> {
    const loc = callerLoc();
    this.#claimName(name, loc);
    return new MemoryHandle<S>(this, name, shape, depth, opts, loc);
  }
  fsm<const St extends string>(name: string, states: readonly St[], opts: { domain?: Domain; reset?: St } = {}): Fsm<St> {
    const loc = callerLoc();
    const shape = Enum(name, states);
    const state = this.reg(name, shape, { reset: opts.reset ?? states[0]!, ...(opts.domain ? { domain: opts.domain } : {}) });
    this.ir.fsms.push({ name, signal: state.signal, states: { ...shape.members }, loc });
    return new Fsm<St>(this, state);
  }
  /** A clock domain other than the default `clk`/`rst` one. */
  domain(name: string, opts: DomainOptions): Domain {
    const loc = callerLoc();
    if (this.ir.domains.has(name)) throw new DslError(`clock domain '${name}' already exists`, 'give each domain its own name', loc);
    const d: Domain = { name, clock: opts.clock.signal, reset: opts.reset?.signal ?? null, resetKind: opts.reset ? opts.resetKind ?? 'sync' : 'none', resetActive: opts.resetActive ?? 'high', portNames: null, loc };
    this.ir.domains.set(name, d);
    return d;
  }
  /** The `clk`/`rst` domain (or the names m.clockAndReset gave); its signals are resolved by
   *  name when the module is finished. */
  defaultDomain(loc: SourceLoc = callerLoc()): Domain {
    let d = this.ir.domains.get('sync');
    if (!d) {
      d = { name: 'sync', clock: null, reset: null, resetKind: 'sync', resetActive: 'high', portNames: { clock: 'clk', reset: 'rst' }, loc };
      this.ir.domains.set('sync', d);
    }
    return d;
  }
  /** Declare that (bits of) a signal are deliberately not read, and why. Emitted as a reasoned lint waiver. */
  unused(v: SignalValue, reason: string): void {
    v.signal.unusedReason = reason;
  }
  /**
   * Declare a deliberate clock-domain crossing: logic of any domain may read `v` (a signal, or
   * a memory written and read in different domains), and the domains check does not follow
   * reads through it. For the rare crossing that none of the synchronizers in nicgen/lib
   * (syncBits, syncHandshake, asyncFifo) fits; `why` says why it is safe and is written beside
   * the declaration in the Verilog.
   */
  crossing(v: SignalValue | MemoryHandle, why: string): void {
    const loc = callerLoc();
    if (typeof why !== 'string' || why.trim() === '') throw new DslError('m.crossing needs a reason', "say why the crossing is safe: m.crossing(sig, 'held stable for 4 cycles after req toggles')", loc);
    if (v instanceof MemoryHandle) v.mem.crossing = why;
    else v.signal.crossing = why;
  }

  // ---- statements ------------------------------------------------------------------------
  record(stmt: AssignStmt): void { this.#current().push(stmt); }
  /** Record any statement (memory writes) under the current conditions. */
  recordStmt(stmt: Stmt): void { this.#current().push(stmt); }

  /** Assign any signal; the typed `.set` on outputs, wires and registers is the usual way. */
  assign(target: SignalValue, value: Operand): void {
    const loc = callerLoc();
    this.#current().push({ kind: 'assign', target: target.signal, lo: 0, width: target.width, signed: target.signed, value: toValue(value, target.width, target.signed, loc).expr, loc });
  }

  if(cond: Value, body: () => void): IfChain {
    const loc = callerLoc();
    const stmt: IfStmt = { kind: 'if', branches: [], loc };
    this.#current().push(stmt);
    this.#branch(stmt, this.#cond(cond, loc), body, loc);
    return new IfChain(this, stmt);
  }
  extendIf(stmt: IfStmt, cond: Value | null, body: () => void, what: string): void {
    const loc = callerLoc();
    const block = this.#current();
    if (block[block.length - 1] !== stmt || stmt.branches[stmt.branches.length - 1]!.cond === null) {
      throw new DslError(`.${what}() must directly follow its m.if(...) or .elif(...)`, 'chain it: m.if(a, ...).elif(b, ...).else(...)', loc);
    }
    this.#branch(stmt, cond === null ? null : this.#cond(cond, loc), body, loc);
  }
  switch(subject: Value): SwitchChain {
    const stmt: SwitchStmt = { kind: 'switch', subject: subject.expr, cases: [], loc: callerLoc() };
    this.#current().push(stmt);
    return new SwitchChain(this, stmt, subject);
  }
  extendSwitch(stmt: SwitchStmt, values: Expr[] | null, body: () => void, loc: SourceLoc): void {
    const block = this.#current();
    if (block[block.length - 1] !== stmt) throw new DslError('.case()/.default() must directly follow its m.switch(...)', 'chain the cases: m.switch(x).case(0, ...).default(...)', loc);
    if (stmt.cases.some(c => c.values === null)) throw new DslError('case after default', 'put .default() last', loc);
    const c = { values, body: [] as Stmt[], loc };
    stmt.cases.push(c);
    this.#inBlock(c.body, body);
  }
  /**
   * A cover point for Verilator coverage (`nicgen sim --coverage`): counts the clock edges of
   * the domain, outside reset, at which `cond` holds (inside `m.if`, the conditions around it
   * too). Synthesis never sees it. `name` labels it in the Verilog and the coverage reports;
   * it must be unique in the module (the names pass reports a clash at your line).
   */
  cover(cond: Value, name: string, domain?: Domain): void {
    const loc = callerLoc();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new DslError(`cover point name '${name}' is not a valid Verilog identifier`, 'use letters, digits and _ and start with a letter', loc);
    this.#current().push({ kind: 'cover', cond: this.#cond(cond, loc), name, loc, domain: domain ?? this.defaultDomain(loc) });
  }
  /** A simulation-only check, evaluated at each clock edge of the domain outside reset. */
  assert(cond: Value, message: string, domain?: Domain): void {
    const loc = callerLoc();
    this.#current().push({ kind: 'assert', cond: this.#cond(cond, loc), message, loc, domain: domain ?? this.defaultDomain(loc) });
  }

  // ---- hierarchy ---------------------------------------------------------------------------
  /** Instantiate another module; `clk`/`rst` connect to this module's own when it has them. */
  instance<P extends Params, IO extends IORecord>(name: string, def: ModuleDef<P, IO>, params: Partial<P> = {}): InstanceIO<IO> {
    return instantiate(this, name, def, params, callerLoc());
  }
  addInstance(inst: Instance): void {
    const loc = inst.loc;
    this.#claimName(inst.name, loc);
    this.ir.instances.push(inst);
  }
  /** A parent-side wire for an instance port (`<inst>_<port>`). */
  instanceWire(inst: Instance, port: Signal): Signal {
    return this.#signal(`${inst.name}_${port.name}`, port.shape, 'wire', { loc: inst.loc, instPort: { inst, port: port.name } });
  }
  newSig<S extends Shape>(signal: Signal): Sig<S> { return new Sig<S>(signal, this); }

  // ---- internals -------------------------------------------------------------------------
  #current(): Stmt[] { return this.#blocks[this.#blocks.length - 1]!; }

  #cond(v: Value, loc: SourceLoc): Expr {
    if (v.width !== 1) throw new DslError(`condition is ${v.width} bits wide`, 'conditions must be one bit: compare (x.ne(0)) or reduce (x.orr())', loc);
    return v.expr;
  }
  #branch(stmt: IfStmt, cond: Expr | null, body: () => void, loc: SourceLoc): void {
    const b = { cond, body: [] as Stmt[], loc };
    stmt.branches.push(b);
    this.#inBlock(b.body, body);
  }
  #inBlock(block: Stmt[], body: () => void): void {
    this.#blocks.push(block);
    try { body(); } finally { this.#blocks.pop(); }
  }

  #claimName(name: string, loc: SourceLoc): void {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new DslError(`'${name}' is not a valid Verilog identifier`, 'use letters, digits and _ and start with a letter', loc);
    // Collisions are collected by the naming pass (so all of them are reported at once);
    // here we only remember the first place each name was used.
    if (!this.#names.has(name)) this.#names.set(name, loc);
  }

  #signal(name: string, shape: Shape, kind: SignalKind,
    o: { init?: bigint; reset?: bigint | null; domain?: Domain | null; enable?: Expr | null; loc?: SourceLoc; instPort?: Signal['instPort'] }): Signal {
    const loc = o.loc ?? callerLoc();
    this.#claimName(name, loc);
    const s: Signal = { id: nextSignalId++, name, shape, kind, loc, init: o.init ?? 0n, reset: o.reset ?? null, domain: o.domain ?? null, enable: o.enable ?? null, unusedReason: null, crossing: null, attributes: null, instPort: o.instPort ?? null };
    this.ir.signals.push(s);
    return s;
  }
}

function checkAttributes(attrs: Readonly<Record<string, string>>, loc: SourceLoc): Readonly<Record<string, string>> {
  for (const [k, v] of Object.entries(attrs)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new DslError(`attribute name '${k}' is not a Verilog identifier`, 'use names such as ASYNC_REG', loc);
    if (/["\\\n]/.test(v)) throw new DslError(`attribute ${k} = ${JSON.stringify(v)} has a quote, backslash or newline`, 'use a plain value such as TRUE', loc);
  }
  return { ...attrs };
}

/** A reset or default value for a shape, from a number or an enum member name. */
function constValue(shape: Shape, v: number | bigint | string, loc: SourceLoc): bigint {
  if (typeof v === 'string') return (enumMember(shape, v, loc).expr as { value: bigint }).value;
  const e = constOf(v, shape.width, shape.kind === 'sint', loc);
  return (e as { value: bigint }).value;
}
