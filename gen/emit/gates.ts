// The three gates every emitted module must pass: Verilator -Wall lint (zero warnings),
// Icarus Verilog -g2005 elaboration, and Yosys synthesis with `check -assert`.
//
// `check -assert` alone misses two things (measured with Yosys 0.23): latches (an
// incomplete `always @*` synthesizes to $dlatch without complaint) and undriven wires
// once `synth` has run (abc replaces them with x before the final check). So the Yosys
// script checks right after `proc` as well, and asserts that no latch cell exists.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export interface GateResult {
  readonly tool: 'verilator' | 'iverilog' | 'yosys';
  /** Tool exited 0 and printed no warning. */
  readonly ok: boolean;
  readonly status: number | null;
  /** stdout + stderr. */
  readonly output: string;
  readonly command: string;
}

export interface GatesResult {
  readonly dir: string;
  readonly files: readonly string[];
  readonly verilator: GateResult;
  readonly iverilog: GateResult;
  readonly yosys: GateResult;
  readonly ok: boolean;
  /** All failing gates' outputs, for an assertion message. */
  readonly report: string;
}

/** Something with emitted Verilog files in compile order (an EmittedTop fits). */
export interface VerilogSet {
  readonly top: string;
  readonly files: ReadonlyMap<string, string>;
}

/** Write the files into a fresh temp folder; returns the folder and the paths in order. */
export function writeVerilog(set: VerilogSet, dir: string = mkdtempSync(path.join(tmpdir(), 'nicgen-gates-'))): { dir: string; paths: string[] } {
  const paths: string[] = [];
  for (const [name, text] of set.files) {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    paths.push(p);
  }
  return { dir, paths };
}

/** What Yosys synthesizes: the whole hierarchy under the top, or only the top's own body with
 *  its submodules read as black boxes (`read_verilog -lib`: their ports only). `nicgen lint`
 *  gates every module of a top once, so there each module's own body is synthesized once; in
 *  `hierarchy` scope nic_top's gate re-synthesized all 50 of its modules (640 s of a 23-minute
 *  `make test`). Verilator and Icarus always elaborate the whole hierarchy: widths across ports
 *  and loops through instances are theirs (and the DSL's `comb-loops` check) either way. */
export type YosysScope = 'hierarchy' | 'module';

/** The three commands for checking `top` (files in compile order). */
export function gateCommands(top: string, paths: readonly string[], statFile?: string, scope: YosysScope = 'hierarchy'): { tool: GateResult['tool']; args: string[] }[] {
  return [
    { tool: 'verilator', args: ['--lint-only', '-Wall', '--top-module', top, ...paths] },
    { tool: 'iverilog', args: ['-g2005', '-o', '/dev/null', '-s', top, ...paths] },
    { tool: 'yosys', args: ['-q', '-p', yosysScript(top, paths, statFile, scope)] },
  ];
}

/** A gate passes when its tool exits 0 and prints no warning or error at all. */
export function judge(tool: GateResult['tool'], args: readonly string[], status: number | null, output: string): GateResult {
  const warned = /%Warning|warning:|Warning:|ERROR|%Error/i.test(output);
  return { tool, ok: status === 0 && !warned, status, output, command: `${tool} ${args.join(' ')}` };
}

function run(tool: GateResult['tool'], args: string[], cwd: string): GateResult {
  const r = spawnSync(tool, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  return judge(tool, args, r.status, `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`);
}

/** `synth`'s `fine:` steps (Yosys 0.23, `yosys -h synth`) without `memory_map`. */
const SYNTH_FINE_WITHOUT_MEMORY_MAP = ['opt -fast -full', 'opt -full', 'techmap', 'opt -fast', 'abc -fast', 'opt -fast'];

export const latchCells = 't:$dlatch t:$adlatch t:$dlatchsr t:$sr t:$_DLATCH_* t:$_DLATCHSR_* t:$_SR_*';

/** `statFile`: also write Yosys's `stat` right after memory inference (`memory -nomap`), where
 *  an inferred block RAM shows as a `$mem_v2` cell.
 *
 *  Synthesis is Yosys's generic `synth` except `memory_map`: inferred memories stay `$mem_v2`
 *  cells, as an FPGA flow keeps them for its block or distributed RAM. Mapping them to
 *  flip-flops proves nothing a RAM primitive needs and dominated the gate's time (8 minutes
 *  for the 256 Kbit RX frame buffer, 17 s without). */
export function yosysScript(top: string, paths: readonly string[], statFile?: string, scope: YosysScope = 'hierarchy'): string {
  return [
    ...readVerilog(top, paths, scope),
    `hierarchy -check -top ${top}`,
    'proc',
    'check -assert',
    `select -assert-none ${latchCells}`,
    ...(statFile ? ['opt_clean', 'memory -nomap', `tee -q -o ${statFile} stat`] : []),
    `synth -top ${top} -run begin:fine`,
    ...SYNTH_FINE_WITHOUT_MEMORY_MAP,
    `hierarchy -check -top ${top}`,
    'check -assert',
    `select -assert-none ${latchCells}`,
  ].join('; ');
}

/** The read commands: every file, or in `module` scope the top's own file (`<top>.v`, one module
 *  per emitted file) and the others as black boxes. A set without `<top>.v` is read whole. */
function readVerilog(top: string, paths: readonly string[], scope: YosysScope): string[] {
  const own = paths.filter(f => path.basename(f) === `${top}.v`);
  if (scope === 'hierarchy' || own.length !== 1) return [`read_verilog -DSYNTHESIS ${paths.join(' ')}`];
  const children = paths.filter(f => f !== own[0]);
  return [...(children.length ? [`read_verilog -DSYNTHESIS -lib ${children.join(' ')}`] : []), `read_verilog -DSYNTHESIS ${own[0]}`];
}

/** Run the three gates over a set of emitted files. */
export function runGates(set: VerilogSet, scope: YosysScope = 'hierarchy'): GatesResult {
  const { dir, paths } = writeVerilog(set);
  const [verilator, iverilog, yosys] = gateCommands(set.top, paths, undefined, scope).map(c => run(c.tool, c.args, dir)) as [GateResult, GateResult, GateResult];
  const failed = [verilator, iverilog, yosys].filter(g => !g.ok);
  const report = failed.map(g => `--- ${g.command}\n${g.output}`).join('\n')
    + (failed.length ? `\n--- files in ${dir}:\n${[...set.files].map(([n, t]) => `// ==== ${n}\n${t}`).join('\n')}` : '');
  return { dir, files: paths, verilator, iverilog, yosys, ok: failed.length === 0, report };
}
