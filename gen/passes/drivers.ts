// Drivers: every output, wire and register gets a value from exactly one kind of source;
// nothing drives an input.

import { drivers } from '../hdl/analysis.ts';
import type { Diagnostic } from '../hdl/errors.ts';
import { formatLoc } from '../hdl/errors.ts';
import type { ModuleIR, Signal } from '../hdl/ir.ts';

export function checkDrivers(m: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  const all = drivers(m);
  for (const s of m.signals) {
    const ds = all.get(s) ?? [];
    const kinds = [...new Set(ds.map(d => d.kind))];
    if (s.kind === 'input') {
      const bad = ds.find(d => d.kind !== 'port-in');
      if (bad) out.push({ pass: 'drivers', message: `input ${s.name} is assigned inside module ${m.name}`, hint: 'inputs are driven from outside; assign a wire or an output instead', loc: bad.stmt?.loc ?? s.loc });
      continue;
    }
    if (ds.length === 0) {
      out.push(undriven(m, s));
      continue;
    }
    if (kinds.length > 1) {
      const where = ds.filter(d => d.stmt).map(d => formatLoc(d.stmt!.loc));
      out.push({ pass: 'drivers', message: `${s.name} has several drivers (${kinds.join(' and ')}${where.length ? `; assigned at ${where.join(', ')}` : ''})`, hint: 'drive it from one place: one instance output, or assignments of one kind', loc: ds.find(d => d.stmt)?.stmt?.loc ?? s.loc });
    }
    if (s.kind === 'reg' && ds.some(d => d.kind !== 'sync')) {
      out.push({ pass: 'drivers', message: `register ${s.name} is driven by an instance output`, hint: 'connect the instance output to a wire and assign the register from it', loc: s.loc });
    }
  }
  return out;
}

function undriven(m: ModuleIR, s: Signal): Diagnostic {
  if (s.instPort) {
    return { pass: 'drivers', message: `input ${s.instPort.port} of instance ${s.instPort.inst.name} (${s.name}) is not connected`, hint: `assign it: ${s.instPort.inst.name}.${s.instPort.port}.set(...)`, loc: s.instPort.inst.loc };
  }
  const what = s.kind === 'output' ? `output ${s.name}` : s.kind === 'reg' ? `register ${s.name}` : `wire ${s.name}`;
  return { pass: 'drivers', message: `${what} of module ${m.name} is never assigned`, hint: `assign it with ${s.name}.set(...) or remove it`, loc: s.loc };
}
