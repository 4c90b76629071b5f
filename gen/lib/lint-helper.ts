// Test helper: emit a module, write its files to a temp dir, and run the Verilog tools on them.
// Used by the gen/lib tests; needs verilator, iverilog and yosys on PATH.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { emitTop } from '../emit/index.ts';
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

/** verilator --lint-only -Wall: throws with the warnings on any. */
export function verilatorLint(e: Emitted): void {
  run('verilator', ['--lint-only', '-Wall', '--top-module', e.top, ...e.files], e.dir);
}
export function iverilogCompile(e: Emitted, extra: string[] = []): string {
  const out = path.join(e.dir, 'a.out');
  run('iverilog', ['-g2005', '-Wall', '-o', out, ...extra, ...e.files], e.dir);
  return out;
}
export function yosysSynth(e: Emitted): string {
  return run('yosys', ['-p', `read_verilog ${e.files.join(' ')}; synth -top ${e.top}; check -assert; stat`], e.dir);
}
/** Compile `tb` (a Verilog testbench text, top `tb`) with the design and run it; returns stdout. */
export function iverilogRun(e: Emitted, tb: string): string {
  const tbFile = path.join(e.dir, 'tb.v');
  fs.writeFileSync(tbFile, tb);
  const out = iverilogCompile(e, ['-s', 'tb', tbFile]);
  return run('vvp', ['-n', out], e.dir);
}
