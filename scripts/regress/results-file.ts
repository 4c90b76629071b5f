// results.json: everything a regression (or one shard of it) decided, without the runs'
// outputs (those are in logs/). Enough to merge shards, to compare with an earlier run, and
// to rebuild junit.xml and index.html.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunResult } from './outcome.ts';
import type { BenchId, PlannedRun } from './plan.ts';

export const RESULTS_FORMAT = 'nicgen-regress/1';

/** What a regression set out to do: the same in every shard of one regression. */
export interface RegressPlanInfo {
  readonly seedBase: number;
  readonly seedsPerBench: number;
  /** The selected benches in plan order. */
  readonly benches: readonly BenchId[];
  /** --top / --test as given (for the replay arguments). */
  readonly tops: readonly string[];
  readonly tests: readonly string[];
  readonly coverage: boolean;
  readonly coverageToggle: boolean;
}

/** One run as stored: the result without its output, plus where its files are (relative to
 *  the results folder). */
export interface StoredRun extends Omit<RunResult, 'output'> {
  readonly log: string;
  /** Failure pictures, when some were rendered. */
  readonly pictures?: readonly string[];
}

export interface RegressFile extends RegressPlanInfo {
  readonly format: typeof RESULTS_FORMAT;
  /** Set for one shard; a merged or unsharded regression has none. */
  readonly shard: { readonly k: number; readonly n: number } | null;
  /** Shards merged into this one (their folders as given), when merged. */
  readonly mergedFrom?: readonly string[];
  /** Runs this folder was meant to hold (this shard's, or all). */
  readonly planned: number;
  readonly started: string;
  /** Wall time of the regression (a merge: the longest shard). */
  readonly elapsed: number;
  readonly hostname: string;
  readonly interrupted: boolean;
  readonly runs: readonly StoredRun[];
}

export const logPath = (r: PlannedRun): string => path.join('logs', r.top, `${r.test}-${r.seed}.log`);

/** Where a run's coverage goes, relative to the results folder. */
export const coverageRunPath = (r: PlannedRun): string => path.join('coverage', 'runs', r.top, `${r.test}-${r.seed}`);

export function storedRun(r: RunResult, pictures?: readonly string[]): StoredRun {
  const { output: _output, ...rest } = r;
  return { ...rest, log: logPath(r.run), ...(pictures && pictures.length ? { pictures } : {}) };
}

export function writeResultsFile(out: string, file: RegressFile): void {
  fs.writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(file, null, 2)}\n`);
}

export function readResultsFile(dir: string): RegressFile {
  const f = path.join(dir, 'results.json');
  if (!fs.existsSync(f)) throw new Error(`${dir}: no results.json (not a regression folder)`);
  const d = JSON.parse(fs.readFileSync(f, 'utf8')) as RegressFile;
  if (d.format !== RESULTS_FORMAT) throw new Error(`${f}: format ${String(d.format)}, expected ${RESULTS_FORMAT} (written by another version)`);
  return d;
}

/** A stored run back as a RunResult, its output read from its log (the replay line dropped). */
export function loadRun(dir: string, s: StoredRun): RunResult {
  const { log, pictures: _pictures, ...rest } = s;
  const file = path.join(dir, log);
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  return { ...rest, output: text.startsWith('$ ') ? text.slice(text.indexOf('\n') + 1) : text };
}
