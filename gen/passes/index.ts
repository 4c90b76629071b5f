// The checks, run as a list over every module of a design. Each pass looks at one kind of
// mistake and returns diagnostics with the user's source location; all of them are
// collected and reported together, so one run shows every problem.

import { modulesBelow } from '../hdl/analysis.ts';
import type { Diagnostic } from '../hdl/errors.ts';
import type { ModuleIR } from '../hdl/ir.ts';
import { checkWidths } from './widths.ts';
import { checkDrivers } from './drivers.ts';
import { checkCombLoops } from './comb-loops.ts';
import { checkDomains } from './domains.ts';
import { checkNames } from './names.ts';
import { checkUnused } from './unused.ts';

export interface Pass {
  readonly name: string;
  run(m: ModuleIR): Diagnostic[];
}

export const passes: readonly Pass[] = [
  { name: 'names', run: checkNames },
  { name: 'widths', run: checkWidths },
  { name: 'drivers', run: checkDrivers },
  { name: 'domains', run: checkDomains },
  { name: 'comb-loops', run: checkCombLoops },
  { name: 'unused', run: checkUnused },
];

export function runPasses(top: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const m of modulesBelow(top)) {
    if (m.blackBox) continue;
    for (const p of passes) out.push(...p.run(m));
  }
  return out;
}
