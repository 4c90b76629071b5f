// Which clocks a value comes from, looking through combinational logic and through instances.
//
// A clock is identified by the signal that clocks it in the module at hand (a clock input, or
// whatever the parent connected to a child's clock port), not by the domain: two domains on
// one clock with different resets are one clock. Registers and memory read ports are where a
// clock starts; a signal marked with m.crossing() stops the walk (reading it is declared safe).
//
// Every module gets a summary for its parents: which of its clocks read each input port, and
// which clocks drive each output port, both through its children as well. A parent maps a
// child's clocks to its own through the instance's clock connections.

import type { Domain, Expr, Instance, Memory, ModuleIR, Signal, Stmt } from '../hdl/ir.ts';
import { walkExpr } from '../hdl/ir.ts';
import { combPaths } from './comb-loops.ts';

/** Where a value of some clock comes from, for messages. */
export interface ClockSource {
  readonly clock: Signal;
  /** `register ra (domain sync)`, `output q of u_sync (clock m_clk)`, `memory mem (read in domain rd)`. */
  readonly what: string;
}

export interface Sources {
  readonly clocked: readonly ClockSource[];
  /** Input ports of the module reached without a register between. */
  readonly inputs: ReadonlySet<Signal>;
}

export interface DomainSummary {
  /** Input port name -> the module's clock signals whose logic reads it. */
  readonly readBy: ReadonlyMap<string, ReadonlySet<Signal>>;
  /** Output port name -> clock signals of the logic that drives it. */
  readonly drivenBy: ReadonlyMap<string, readonly ClockSource[]>;
}

/** Memory read ports a value reads, with the signals. */
interface Deps {
  readonly signals: Set<Signal>;
  readonly reads: Set<{ mem: Memory; port: number }>;
}

/** Combinational dependencies of every comb-driven signal (conditions included), plus the
 *  through-paths of instances (an output wire depends on the inputs it is combinational to). */
export class CombDeps {
  readonly #deps = new Map<Signal, Deps>();
  /** Wires that are another signal under a new name (`assign u_sync_clk = clk_b;`). */
  readonly #alias = new Map<Signal, Signal>();

  constructor(m: ModuleIR) {
    for (const s of m.body) {
      if (s.kind === 'assign' && s.target.kind !== 'reg' && s.value.kind === 'ref' && s.lo === 0 && s.width === s.target.shape.width) this.#alias.set(s.target, s.value.signal);
    }
    const visit = (stmts: readonly Stmt[], guards: readonly Expr[]): void => {
      for (const s of stmts) {
        if (s.kind === 'assign' && s.target.kind !== 'reg') this.#add(s.target, [s.value, ...guards]);
        else if (s.kind === 'if') {
          let g = guards;
          for (const b of s.branches) {
            if (b.cond) g = [...g, b.cond];
            visit(b.body, g);
          }
        } else if (s.kind === 'switch') {
          for (const c of s.cases) visit(c.body, [...guards, s.subject, ...(c.values ?? [])]);
        }
      }
    };
    visit(m.body, []);
    for (const inst of m.instances) {
      for (const [out, ins] of combPaths(inst.module)) {
        const o = inst.connections.get(out);
        if (!o) continue;
        const d = this.#entry(o);
        for (const i of ins) { const src = inst.connections.get(i); if (src) d.signals.add(src); }
      }
    }
  }

  get(s: Signal): Deps | undefined {
    return this.#deps.get(s);
  }

  /** The signal a clock connection really is: an instance's clock wire is the parent's clock. */
  root(s: Signal): Signal {
    const seen = new Set<Signal>();
    let r = s;
    for (let next = this.#alias.get(r); next && !seen.has(next); next = this.#alias.get(r)) { seen.add(r); r = next; }
    return r;
  }

  #entry(s: Signal): Deps {
    let d = this.#deps.get(s);
    if (!d) this.#deps.set(s, d = { signals: new Set(), reads: new Set() });
    return d;
  }

  #add(target: Signal, exprs: readonly Expr[]): void {
    const d = this.#entry(target);
    for (const e of exprs) collect(e, d);
  }
}

function collect(e: Expr, into: Deps): void {
  walkExpr(e, x => {
    if (x.kind === 'ref') into.signals.add(x.signal);
    else if (x.kind === 'memread') into.reads.add({ mem: x.mem, port: x.port });
  });
}

const summaries = new WeakMap<ModuleIR, DomainSummary>();

/** `clock aclk` for the default domain (which users never name), `domain rd, clock m_clk` else. */
export function domainText(d: Domain): string {
  const clock = d.clock?.name ?? '?';
  return d.name === 'sync' ? `clock ${clock}` : `domain ${d.name}, clock ${clock}`;
}

/** The clock sources (and inputs) behind `roots` in module `m`. */
export function sourcesOf(deps: CombDeps, roots: readonly Expr[]): Sources {
  const start: Deps = { signals: new Set(), reads: new Set() };
  for (const r of roots) collect(r, start);
  return walk(deps, start);
}

/** The clock sources behind a signal's value (the signal itself if it is a register). */
export function sourcesOfSignal(deps: CombDeps, s: Signal): Sources {
  return walk(deps, { signals: new Set([s]), reads: new Set() });
}

function walk(deps: CombDeps, start: Deps): Sources {
  const clocked: ClockSource[] = [];
  const inputs = new Set<Signal>();
  const seen = new Set<Signal>();
  const stack = [...start.signals];
  const memReads = (reads: Iterable<{ mem: Memory; port: number }>): void => {
    for (const r of reads) {
      if (r.mem.crossing) continue;
      const p = r.mem.readPorts[r.port]!;
      if (p.async) {
        // The data of an asynchronous read are the contents, of the write clock(s), and it
        // follows the address combinationally.
        for (const w of r.mem.writePorts) if (w.domain.clock) clocked.push({ clock: deps.root(w.domain.clock), what: `memory ${r.mem.name} (written in ${domainText(w.domain)})` });
        stack.push(...addrSignals(p.addr));
      } else if (p.domain.clock) clocked.push({ clock: deps.root(p.domain.clock), what: `memory ${r.mem.name} (read in ${domainText(p.domain)})` });
    }
  };
  memReads(start.reads);
  while (stack.length) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    if (s.crossing) continue;
    if (s.kind === 'reg') {
      if (s.domain?.clock) clocked.push({ clock: deps.root(s.domain.clock), what: `register ${s.name} (${domainText(s.domain)})` });
      continue;
    }
    if (s.kind === 'input') { inputs.add(s); continue; }
    if (s.instPort) clocked.push(...childOutputSources(deps, s.instPort.inst, s.instPort.port));
    const d = deps.get(s);
    if (!d) continue;
    stack.push(...d.signals);
    memReads(d.reads);
  }
  return { clocked, inputs };
}

/** A child output's clocks, as clocks of the parent (through the instance's clock connections). */
function addrSignals(e: Expr): Signal[] {
  const out: Signal[] = [];
  walkExpr(e, x => { if (x.kind === 'ref') out.push(x.signal); });
  return out;
}

function childOutputSources(deps: CombDeps, inst: Instance, port: string): ClockSource[] {
  const child = inst.module;
  if (child.blackBox) return [];
  const out: ClockSource[] = [];
  for (const src of summaryOf(child).drivenBy.get(port) ?? []) {
    const wire = inst.connections.get(src.clock.name);
    const clock = wire && deps.root(wire);
    if (clock) out.push({ clock, what: `output ${port} of ${inst.name} (from ${src.what} inside, clock ${clock.name} here)` });
  }
  return out;
}

/** The parent-side clocks that read a child's input port. */
export function childInputClocks(deps: CombDeps, inst: Instance, port: string): Signal[] {
  const child = inst.module;
  if (child.blackBox) return [];
  const out: Signal[] = [];
  for (const c of summaryOf(child).readBy.get(port) ?? []) {
    const wire = inst.connections.get(c.name);
    const clock = wire && deps.root(wire);
    if (clock && !out.includes(clock)) out.push(clock);
  }
  return out;
}

/** A sink of the module: logic of one clock that reads some expressions. */
export interface Sink {
  readonly clock: Signal;
  readonly roots: readonly Expr[];
  /** What reads, for messages (`register rb (domain other)`). */
  readonly what: string;
  readonly stmt: Stmt | null;
}

/** Every clocked reader in `m`: register assignments (value, guards, enable), memory writes and
 *  read ports. Instance inputs are separate (their clocks come from the child's summary). */
export function sinksOf(m: ModuleIR): Sink[] {
  const out: Sink[] = [];
  const visit = (stmts: readonly Stmt[], guards: readonly Expr[]): void => {
    for (const s of stmts) {
      if (s.kind === 'assign' && s.target.kind === 'reg') {
        const d = s.target.domain;
        if (d?.clock) out.push({ clock: d.clock, roots: [s.value, ...guards, ...(s.target.enable ? [s.target.enable] : [])], what: `register ${s.target.name} (${domainText(d)})`, stmt: s });
      } else if (s.kind === 'memwrite') {
        const d = s.mem.writePorts[s.port]!.domain;
        if (d.clock) out.push({ clock: d.clock, roots: [s.addr, s.data, ...(s.mask ? [s.mask] : []), ...guards], what: `the write port of memory ${s.mem.name} (${domainText(d)})`, stmt: s });
      } else if (s.kind === 'if') {
        let g = guards;
        for (const b of s.branches) { if (b.cond) g = [...g, b.cond]; visit(b.body, g); }
      } else if (s.kind === 'switch') {
        for (const c of s.cases) visit(c.body, [...guards, s.subject, ...(c.values ?? [])]);
      }
    }
  };
  visit(m.body, []);
  for (const mem of m.memories) {
    mem.readPorts.forEach((p, i) => {
      // An asynchronous read port is combinational: its address is followed by the readers of its data.
      if (!p.async && p.domain.clock) out.push({ clock: p.domain.clock, roots: [p.addr, ...(p.enable ? [p.enable] : [])], what: `read port ${i} of memory ${mem.name} (${domainText(p.domain)})`, stmt: null });
    });
  }
  return out;
}

/** The module's summary for its parents (computed once per module). */
export function summaryOf(m: ModuleIR): DomainSummary {
  const hit = summaries.get(m);
  if (hit) return hit;
  const deps = new CombDeps(m);
  const readBy = new Map<string, Set<Signal>>();
  const note = (inputs: ReadonlySet<Signal>, clock: Signal): void => {
    for (const i of inputs) {
      let set = readBy.get(i.name);
      if (!set) readBy.set(i.name, set = new Set());
      set.add(clock);
    }
  };
  for (const sink of sinksOf(m)) note(sourcesOf(deps, sink.roots).inputs, sink.clock);
  for (const inst of m.instances) {
    for (const p of inst.module.ports) {
      if (p.signal.kind !== 'input') continue;
      const sig = inst.connections.get(p.signal.name);
      if (!sig) continue;
      const clocks = childInputClocks(deps, inst, p.signal.name);
      if (!clocks.length) continue;
      const inputs = sourcesOfSignal(deps, sig).inputs;
      for (const c of clocks) note(inputs, c);
    }
  }
  const drivenBy = new Map<string, readonly ClockSource[]>();
  for (const p of m.ports) {
    if (p.signal.kind === 'output') drivenBy.set(p.signal.name, sourcesOfSignal(deps, p.signal).clocked);
  }
  const summary = { readBy, drivenBy };
  summaries.set(m, summary);
  return summary;
}
