// The three quality gates every emitted module must pass:
//   1. verilator --lint-only -Wall with zero warnings,
//   2. iverilog -g2005 compiles it,
//   3. yosys synthesizes it with no latches and no undriven nets (check -assert).

import * as path from 'node:path';
import { runTool, type ToolResult } from './tools.ts';

export interface GateTarget {
  /** Module to check as the top. */
  readonly module: string;
  /** Every Verilog file it needs (absolute paths), leaves first. */
  readonly files: readonly string[];
}

export interface GateResult {
  readonly module: string;
  readonly verilator: ToolResult;
  readonly iverilog: ToolResult;
  readonly yosys: ToolResult;
  readonly ok: boolean;
}

export const gateNames = ['verilator', 'iverilog', 'yosys'] as const;

export function verilatorLint(t: GateTarget): Promise<ToolResult> {
  return runTool('verilator', ['--lint-only', '-Wall', '--top-module', t.module, ...t.files]);
}

export function iverilogCompile(t: GateTarget): Promise<ToolResult> {
  return runTool('iverilog', ['-g2005', '-o', '/dev/null', '-s', t.module, ...t.files]);
}

export async function yosysSynth(t: GateTarget): Promise<ToolResult> {
  const script = [
    `read_verilog ${t.files.map(f => JSON.stringify(f)).join(' ')}`,
    `synth -top ${t.module}`,
    'check -assert',
    // A latch anywhere is a generator bug: the DSL cannot express one.
    'select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_*',
  ].join('; ');
  const r = await runTool('yosys', ['-q', '-p', script]);
  // Yosys -q still prints warnings; a warning about undriven or multiple drivers is a failure.
  const bad = /Warning: .*(undriven|multiple|conflict|latch)/i.test(r.output);
  return bad ? { ...r, ok: false } : r;
}

export async function runGates(t: GateTarget): Promise<GateResult> {
  const [verilator, iverilog] = await Promise.all([verilatorLint(t), iverilogCompile(t)]);
  const yosys = await yosysSynth(t);
  // Verilator exits 0 with warnings only when told to; -Wall warnings make it fail, but be explicit.
  const vOk = verilator.ok && !/%Warning/.test(verilator.output);
  const v = vOk ? verilator : { ...verilator, ok: false };
  return { module: t.module, verilator: v, iverilog, yosys, ok: v.ok && iverilog.ok && yosys.ok };
}

export function shortPath(file: string): string {
  return path.relative(process.cwd(), file) || file;
}
