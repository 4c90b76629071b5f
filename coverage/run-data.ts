// What one run writes into its coverage folder, and reading it back:
//   run.json         who ran (top, seed, passed or not, cycles), which model, its sources
//   code.dat         Verilator's counters (only when the run had code coverage on)
//   functional.json  the testbench's cover groups (when some collector declared one)
// Runs write it whether they pass or fail; merges count passing runs only (a failing run's
// coverage was not verified).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFunctional, type FunctionalData } from './functional.ts';

export const RUN_META = 'run.json';
export const CODE_DAT = 'code.dat';
export const FUNCTIONAL_JSON = 'functional.json';
export const RUN_FORMAT = 'nicgen-run-coverage/1';

export interface RunCoverageMeta {
  readonly format: typeof RUN_FORMAT;
  readonly top: string;
  readonly seed: number;
  readonly passed: boolean;
  readonly cycles: number;
  /** Verilator code coverage was on (code.dat is there). */
  readonly code: boolean;
  /** It counted toggles too. */
  readonly toggle: boolean;
  /** Folder holding the Verilog the model was built from (the model cache). */
  readonly sourceDir: string | undefined;
  /** The design's Verilog files, compile order. */
  readonly files: readonly string[];
}

export interface RunCoverage {
  readonly dir: string;
  readonly meta: RunCoverageMeta;
  readonly codeFile: string | undefined;
  readonly functional: FunctionalData | undefined;
}

export interface RunCoverageWriter {
  /** Writes Verilator's counters to the given file (Model.writeCoverage). */
  readonly writeCode?: (file: string) => void;
  readonly functional?: FunctionalData | undefined;
}

export function writeRunCoverage(dir: string, meta: Omit<RunCoverageMeta, 'format'>, w: RunCoverageWriter): void {
  fs.mkdirSync(dir, { recursive: true });
  if (meta.code && w.writeCode) w.writeCode(path.join(dir, CODE_DAT));
  if (w.functional && w.functional.groups.length > 0) fs.writeFileSync(path.join(dir, FUNCTIONAL_JSON), `${JSON.stringify(w.functional)}\n`);
  // run.json last: a folder with it is complete.
  fs.writeFileSync(path.join(dir, RUN_META), `${JSON.stringify({ format: RUN_FORMAT, ...meta }, null, 2)}\n`);
}

/** A run's folder, or undefined when the run never finished writing it. */
export function readRunCoverage(dir: string): RunCoverage | undefined {
  const metaFile = path.join(dir, RUN_META);
  if (!fs.existsSync(metaFile)) return undefined;
  const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as RunCoverageMeta;
  if (meta.format !== RUN_FORMAT) throw new Error(`${metaFile}: not a run coverage file (format ${String(meta.format)})`);
  const code = path.join(dir, CODE_DAT);
  const fun = path.join(dir, FUNCTIONAL_JSON);
  return {
    dir, meta,
    codeFile: meta.code && fs.existsSync(code) ? code : undefined,
    functional: fs.existsSync(fun) ? parseFunctional(fs.readFileSync(fun, 'utf8'), fun) : undefined,
  };
}

/** Every run folder at or below `root` (a folder holding run.json), sorted by path. */
export function findRunFolders(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    if (fs.existsSync(path.join(d, RUN_META))) { out.push(d); return; }
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
  };
  if (fs.existsSync(root)) walk(root);
  return out.sort();
}
