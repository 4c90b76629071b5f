// Clock domains: each used domain has a clock (and a reset when registers need one), and
// a register is only read by logic of its own domain (crossings need a synchronizer).

import { domainHasReset, domainUsed } from '../hdl/analysis.ts';
import type { Diagnostic } from '../hdl/errors.ts';
import type { Domain, Expr, ModuleIR, Signal } from '../hdl/ir.ts';
import { walkExpr, walkStmts } from '../hdl/ir.ts';

export function checkDomains(m: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const d of m.domains.values()) {
    if (!domainUsed(m, d.name)) continue;
    if (!d.clock) out.push({ pass: 'domains', message: `module ${m.name} has clocked logic but no input named 'clk'`, hint: 'add the ports with m.clockAndReset() (or create a domain with m.domain)', loc: firstUser(m, d) });
    if (d.resetKind !== 'none' && !d.reset && domainHasReset(m, d.name)) out.push({ pass: 'domains', message: `module ${m.name} has registers with reset values but no input named 'rst'`, hint: "add the ports with m.clockAndReset(), or give the registers { reset: null }", loc: firstUser(m, d) });
  }
  // A register written in domain A and read by a register of domain B crosses domains.
  walkStmts(m.body, s => {
    if (s.kind !== 'assign' || s.target.kind !== 'reg') return;
    const into = s.target.domain;
    for (const src of regsRead(s.value)) {
      if (src.domain && into && src.domain !== into) {
        out.push({ pass: 'domains', message: `register ${src.name} (domain ${src.domain.name}) is used by register ${s.target.name} (domain ${into.name})`, hint: 'a register used in two domains needs a synchronizer between them', loc: s.loc });
      }
    }
  });
  return out;
}

function regsRead(e: Expr): Signal[] {
  const out: Signal[] = [];
  walkExpr(e, x => { if (x.kind === 'ref' && x.signal.kind === 'reg') out.push(x.signal); });
  return out;
}

function firstUser(m: ModuleIR, d: Domain) {
  return m.signals.find(s => s.kind === 'reg' && s.domain === d)?.loc ?? d.loc;
}
