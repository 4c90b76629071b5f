// Test helper: emit a module, write its files to a temp dir, and run the Verilog tools on them.
// Used by the gen/lib tests; needs verilator, iverilog and yosys on PATH.

import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { emitTop } from '../emit/index.ts';
import { gateCommands, judge } from '../emit/gates.ts';
import type { IORecord, ModuleDef } from '../hdl/index.ts';

type Params = Readonly<Record<string, unknown>>;

export interface Emitted { dir: string; top: string; files: string[] }

export function emitToDir<P extends Params, IO extends IORecord>(def: ModuleDef<P, IO>, params: Partial<P> = {}): Emitted {
  const e = emitTop(def, params);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `nicgen-${e.top}-`));
  const files: string[] = [];
  for (const [name, text] of e.files) {
    fs.writeFileSync(path.join(dir, name), text);
    files.push(path.join(dir, name));
  }
  return { dir, top: e.top, files };
}

function run(cmd: string, args: string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
}

/** The shared gate (gen/emit/gates.ts) `tool` on these files; throws with its output unless it passes. */
function gate(e: Emitted, tool: 'verilator' | 'yosys', statFile?: string): string {
  const c = gateCommands(e.top, e.files, statFile).find(g => g.tool === tool)!;
  const r = spawnSync(c.tool, c.args, { cwd: e.dir, encoding: 'utf8' });
  const verdict = judge(c.tool, c.args, r.status, `${r.stdout ?? ''}${r.stderr ?? ''}`);
  if (!verdict.ok) throw new Error(`${verdict.command} failed in ${e.dir}:\n${verdict.output}`);
  return verdict.output;
}

/** verilator --lint-only -Wall: throws with the warnings on any. */
export function verilatorLint(e: Emitted): void {
  gate(e, 'verilator');
}
export function iverilogCompile(e: Emitted, extra: string[] = []): string {
  const out = path.join(e.dir, 'a.out');
  run('iverilog', ['-g2005', '-Wall', '-o', out, ...extra, ...e.files], e.dir);
  return out;
}
/** The Yosys gate (synthesis, check -assert, no latches), then `stat` for the caller to inspect. */
export function yosysSynth(e: Emitted): string {
  const statFile = path.join(e.dir, 'yosys-stat.txt');
  gate(e, 'yosys', statFile);
  return fs.readFileSync(statFile, 'utf8');
}
/** Compile `tb` (a Verilog testbench text, top `tb`) with the design and run it; returns stdout. */
export function iverilogRun(e: Emitted, tb: string): string {
  const tbFile = path.join(e.dir, 'tb.v');
  fs.writeFileSync(tbFile, tb);
  const out = iverilogCompile(e, ['-s', 'tb', tbFile]);
  return run('vvp', ['-n', out], e.dir);
}
