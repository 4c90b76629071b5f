// `nicgen lint`'s gate runner: the commands and verdicts of gen/emit/gates.ts, run
// asynchronously so several modules are checked at once.

import { gateCommands, judge, type GateResult } from '../gen/emit/gates.ts';
import { runTool } from './tools.ts';

export interface GateTarget {
  /** Module to check as the top. */
  readonly module: string;
  /** Every Verilog file it needs (absolute paths), leaves first. */
  readonly files: readonly string[];
}

export interface ModuleGates {
  readonly module: string;
  readonly verilator: GateResult;
  readonly iverilog: GateResult;
  readonly yosys: GateResult;
  readonly ok: boolean;
  readonly seconds: number;
}

export const gateNames = ['verilator', 'iverilog', 'yosys'] as const;

export async function runGates(t: GateTarget): Promise<ModuleGates> {
  const results: GateResult[] = [];
  let seconds = 0;
  // Yosys on the module's own body: lint gates each of a top's modules, children included.
  for (const c of gateCommands(t.module, t.files, undefined, 'module')) {
    const r = await runTool(c.tool, c.args);
    seconds += r.seconds;
    results.push(judge(c.tool, c.args, r.code, r.output));
  }
  const [verilator, iverilog, yosys] = results as [GateResult, GateResult, GateResult];
  return { module: t.module, verilator, iverilog, yosys, ok: results.every(r => r.ok), seconds };
}
