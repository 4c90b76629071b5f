// Combinational loops: a signal that depends on itself through combinational logic,
// inside a module or through instances (using each child's input→output paths).

import type { Diagnostic, SourceLoc } from '../hdl/errors.ts';
import { formatLoc } from '../hdl/errors.ts';
import type { Expr, ModuleIR, Signal, Stmt } from '../hdl/ir.ts';
import { walkExpr } from '../hdl/ir.ts';

export interface Graph {
  readonly deps: Map<Signal, Set<Signal>>;
  readonly where: Map<Signal, SourceLoc>;
}

/** Edges target ← source for combinational assignments (conditions included). */
export function combGraph(m: ModuleIR): Graph {
  const deps = new Map<Signal, Set<Signal>>();
  const where = new Map<Signal, SourceLoc>();
  const edge = (t: Signal, src: Signal): void => { let s = deps.get(t); if (!s) deps.set(t, s = new Set()); s.add(src); };
  // An asynchronous memory read depends combinationally on its address.
  const refs = (e: Expr): Signal[] => {
    const out: Signal[] = [];
    walkExpr(e, x => {
      if (x.kind === 'ref') out.push(x.signal);
      else if (x.kind === 'memread' && x.mem.readPorts[x.port]!.async) out.push(...refs(x.mem.readPorts[x.port]!.addr));
    });
    return out;
  };
  const visit = (stmts: readonly Stmt[], guards: Signal[]): void => {
    for (const s of stmts) {
      if (s.kind === 'assign' && s.target.kind !== 'reg') {
        if (!where.has(s.target)) where.set(s.target, s.loc);
        for (const src of [...refs(s.value), ...guards]) edge(s.target, src);
      } else if (s.kind === 'if') {
        let g = guards;
        for (const b of s.branches) {
          if (b.cond) g = [...g, ...refs(b.cond)];
          visit(b.body, g);
        }
      } else if (s.kind === 'switch') {
        visit(s.cases.flatMap(c => c.body), [...guards, ...refs(s.subject), ...s.cases.flatMap(c => (c.values ?? []).flatMap(refs))]);
      }
    }
  };
  visit(m.body, []);
  for (const inst of m.instances) {
    const through = combPaths(inst.module);
    for (const [out, ins] of through) {
      const o = inst.connections.get(out);
      if (!o) continue;
      if (!where.has(o)) where.set(o, inst.loc);
      for (const i of ins) { const src = inst.connections.get(i); if (src) edge(o, src); }
    }
  }
  return { deps, where };
}

const pathCache = new WeakMap<ModuleIR, Map<string, Set<string>>>();

/** For each output port of `m`, the input ports it depends on without a register between. */
export function combPaths(m: ModuleIR): Map<string, Set<string>> {
  const cached = pathCache.get(m);
  if (cached) return cached;
  const result = new Map<string, Set<string>>();
  pathCache.set(m, result);
  if (m.blackBox) return result; // unknown inside: assume registered outputs
  const { deps } = combGraph(m);
  for (const p of m.ports) {
    if (p.signal.kind !== 'output') continue;
    const found = new Set<string>();
    const seen = new Set<Signal>();
    const stack = [p.signal];
    while (stack.length) {
      const s = stack.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      if (s.kind === 'input') found.add(s.name);
      for (const d of deps.get(s) ?? []) stack.push(d);
    }
    result.set(p.signal.name, found);
  }
  return result;
}

export function checkCombLoops(m: ModuleIR): Diagnostic[] {
  const { deps, where } = combGraph(m);
  const out: Diagnostic[] = [];
  const state = new Map<Signal, 'open' | 'done'>();
  const stack: Signal[] = [];
  const reported = new Set<string>();
  const dfs = (s: Signal): void => {
    state.set(s, 'open');
    stack.push(s);
    for (const d of deps.get(s) ?? []) {
      const st = state.get(d);
      if (st === 'open') report(stack.slice(stack.indexOf(d)));
      else if (st === undefined) dfs(d);
    }
    stack.pop();
    state.set(s, 'done');
  };
  const report = (cycle: Signal[]): void => {
    // A loop is printed in dependency order: each signal is computed from the next.
    const names = cycle.map(s => s.name);
    const key = [...names].sort().join(',');
    if (reported.has(key)) return;
    reported.add(key);
    const steps = cycle.map(s => `${s.name} (${formatLoc(where.get(s) ?? s.loc)})`);
    out.push({ pass: 'comb-loops', message: `combinational loop in ${m.name}: ${[...steps, cycle[0]!.name].join(' <- ')}`, hint: 'break the loop with a register (m.reg) or restructure the logic', loc: where.get(cycle[0]!) ?? cycle[0]!.loc });
  };
  for (const s of deps.keys()) if (!state.has(s)) dfs(s);
  return out;
}
