// Per-bench numbers of a regression, and the same numbers of the previous regression in the
// same parent folder (out/regress/<older timestamp>), for the report's trend columns.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { readSummary, type CoverageSummary } from '../../coverage/report.ts';
import type { BenchId } from './plan.ts';
import { readResultsFile, type RegressFile, type StoredRun } from './results-file.ts';

export interface BenchStats {
  readonly bench: string;
  readonly runs: number;
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
  readonly cycles: number;
  /** Cycles per second of simulation over the passing runs that report it. */
  readonly rate: number | undefined;
  readonly seconds: number;
}

type RunLike = Pick<StoredRun, 'run' | 'status' | 'cycles' | 'simSeconds' | 'seconds'>;

export function benchStats(benches: readonly BenchId[], runs: readonly RunLike[]): BenchStats[] {
  return benches.map(b => {
    const rs = runs.filter(r => r.run.top === b.top && r.run.test === b.test);
    const timed = rs.filter(r => r.simSeconds !== undefined && r.status === 'passed');
    const sim = timed.reduce((t, r) => t + r.simSeconds!, 0);
    return {
      bench: `${b.top}/${b.test}`, runs: rs.length,
      passed: rs.filter(r => r.status === 'passed').length, failed: rs.filter(r => r.status === 'failed').length,
      errors: rs.filter(r => r.status === 'error').length, cycles: rs.reduce((t, r) => t + r.cycles, 0),
      rate: sim > 0 ? timed.reduce((t, r) => t + r.cycles, 0) / sim : undefined, seconds: rs.reduce((t, r) => t + r.seconds, 0),
    };
  }).filter(s => s.runs > 0);
}

export interface Previous {
  readonly dir: string;
  readonly file: RegressFile;
  readonly benches: ReadonlyMap<string, BenchStats>;
  readonly coverage: CoverageSummary | undefined;
}

/** The newest regression folder next to `out` that started before `started`, if any. */
export function previousRun(out: string, started: string): Previous | undefined {
  const parent = path.dirname(path.resolve(out));
  if (!fs.existsSync(parent)) return undefined;
  let best: { dir: string; file: RegressFile } | undefined;
  for (const name of fs.readdirSync(parent)) {
    const dir = path.join(parent, name);
    if (dir === path.resolve(out) || !fs.existsSync(path.join(dir, 'results.json'))) continue;
    let file: RegressFile;
    try { file = readResultsFile(dir); } catch { continue; }
    if (file.started >= started) continue;
    if (!best || file.started > best.file.started) best = { dir, file };
  }
  if (!best) return undefined;
  const stats = benchStats(best.file.benches, best.file.runs);
  return { ...best, benches: new Map(stats.map(s => [s.bench, s])), coverage: readSummary(path.join(best.dir, 'coverage')) };
}
