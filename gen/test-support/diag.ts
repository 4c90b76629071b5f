// Running the checks over a definition and picking diagnostics apart in tests.

import type { ModuleIR } from '../hdl/ir.ts';
import type { Diagnostic } from '../hdl/errors.ts';
import { runPasses } from '../passes/index.ts';
import { fileLine } from './loc.ts';

/** Every diagnostic of the design rooted at `def` (all passes, all modules). */
export function diagnose(def: { elaborate(): ModuleIR }): Diagnostic[] {
  return runPasses(def.elaborate());
}

/** Diagnostics of one pass. */
export function ofPass(ds: readonly Diagnostic[], pass: string): Diagnostic[] {
  return ds.filter(d => d.pass === pass);
}

/** `pass@file:line: message` per diagnostic, for compact expectations. */
export function summary(ds: readonly Diagnostic[]): string[] {
  return ds.map(d => `${d.pass}@${fileLine(d.loc)}: ${d.message}`);
}
