// Clock domains: each used domain has a clock (and a reset when registers need one), and
// a register is only read by logic of its own domain (crossings need a synchronizer).

import { domainHasReset, domainUsed } from '../hdl/analysis.ts';
import type { Diagnostic } from '../hdl/errors.ts';
import type { Domain, Expr, ModuleIR, Signal, Stmt } from '../hdl/ir.ts';
import { walkExpr } from '../hdl/ir.ts';
import { combGraph } from './comb-loops.ts';

export function checkDomains(m: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const d of m.domains.values()) {
    if (!domainUsed(m, d.name)) continue;
    const names = d.portNames ?? { clock: 'clk', reset: 'rst' };
    if (!d.clock) out.push({ pass: 'domains', message: `module ${m.name} has clocked logic but no input named '${names.clock}'`, hint: 'add the ports with m.clockAndReset() (or create a domain with m.domain)', loc: firstUser(m, d) });
    else if (d.clock.shape.kind !== 'clock') out.push({ pass: 'domains', message: `${d.clock.name}, the clock of domain ${d.name} in ${m.name}, is ${d.clock.shape.kind === 'uint' ? `UInt(${d.clock.shape.width})` : d.clock.shape.kind}, not a Clock`, hint: `declare it with m.input('${d.clock.name}', Clock) (m.clockAndReset() does)`, loc: d.clock.loc });
    if (d.resetKind !== 'none' && !d.reset && domainHasReset(m, d.name)) out.push({ pass: 'domains', message: `module ${m.name} has registers with reset values but no input named '${names.reset}'`, hint: "add the ports with m.clockAndReset(), or give the registers { reset: null }", loc: firstUser(m, d) });
  }
  // A register of domain A that reaches a register of domain B, directly, through
  // combinational wires, or through the conditions and enables guarding the assignment.
  const { deps } = combGraph(m);
  const visit = (stmts: readonly Stmt[], guards: Expr[]): void => {
    for (const s of stmts) {
      if (s.kind === 'assign' && s.target.kind === 'reg') {
        const into = s.target.domain;
        const roots = [s.value, ...guards, ...(s.target.enable ? [s.target.enable] : [])];
        for (const src of regsBehind(roots, deps)) {
          if (src.domain && into && src.domain !== into) {
            out.push({ pass: 'domains', message: `register ${src.name} (domain ${src.domain.name}) is used by register ${s.target.name} (domain ${into.name})`, hint: 'a register used in two domains needs a synchronizer between them', loc: s.loc });
          }
        }
      } else if (s.kind === 'if') {
        let g = guards;
        for (const b of s.branches) { if (b.cond) g = [...g, b.cond]; visit(b.body, g); }
      } else if (s.kind === 'switch') {
        for (const c of s.cases) visit(c.body, [...guards, s.subject]);
      }
    }
  };
  visit(m.body, []);
  return out;
}

/** Registers read by `roots`, looking through combinational signals. */
function regsBehind(roots: readonly Expr[], deps: Map<Signal, Set<Signal>>): Set<Signal> {
  const found = new Set<Signal>();
  const seen = new Set<Signal>();
  const stack: Signal[] = [];
  for (const r of roots) walkExpr(r, x => { if (x.kind === 'ref') stack.push(x.signal); });
  while (stack.length) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    if (s.kind === 'reg') found.add(s);
    else for (const d of deps.get(s) ?? []) stack.push(d);
  }
  return found;
}

function firstUser(m: ModuleIR, d: Domain) {
  return m.signals.find(s => s.kind === 'reg' && s.domain === d)?.loc ?? d.loc;
}
