// Which coverage a test run collects and where it writes it (coverage/run-data.ts).
// `nicgen sim --coverage` and `make regress` pass the folder explicitly; under vitest,
// NICGEN_COVERAGE turns it on for every runTest of the process:
//   NICGEN_COVERAGE=1 npx vitest run FILE        runs under out/coverage/vitest/runs/
//   NICGEN_COVERAGE=DIR npx vitest run FILE      runs under DIR/runs/
//   NICGEN_COVERAGE_TOGGLE=1 as well              toggle coverage too
// then `./bin/nicgen coverage DIR` merges them into the tables and the line report.

import * as path from 'node:path';

export interface CoverageOptions {
  /** The run's own coverage folder (created; one run per folder). */
  readonly dir: string;
  /** Verilator code coverage: builds and runs the model's coverage variant (a separate
   *  cached build). Functional coverage is collected either way. */
  readonly code?: boolean;
  /** With `code`: toggle coverage too (another variant; much slower per cycle). */
  readonly toggle?: boolean;
}

/** Where NICGEN_COVERAGE=1 puts the runs (relative to the working directory). */
export const defaultVitestCoverageDir = path.join('out', 'coverage', 'vitest');

let envRuns = 0;

/** The coverage NICGEN_COVERAGE asks of a run of `top` with `seed`, if any (one folder per run). */
export function envCoverage(top: string, seed: number): CoverageOptions | undefined {
  const v = process.env['NICGEN_COVERAGE'];
  if (v === undefined || v === '' || v === '0') return undefined;
  const root = path.resolve(v === '1' ? defaultVitestCoverageDir : v);
  const toggle = (process.env['NICGEN_COVERAGE_TOGGLE'] ?? '') !== '' && process.env['NICGEN_COVERAGE_TOGGLE'] !== '0';
  return { dir: path.join(root, 'runs', `${top}-${seed}-${process.pid}-${++envRuns}`), code: true, toggle };
}
