// What a regression folder holds once its runs are decided, written the same way for a
// regression (or one shard) that just ran and for `nicgen regress merge` of shards:
// junit.xml, results.json, the coverage report (coverage/), index.html. Returns the lines
// about coverage that the console report prints.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { coverageLines, firstHitLines } from '../../cli/coverage-print.ts';
import { buildCoverageReport, readFunctional, type CoverageInputs, type CoverageSummary } from '../../coverage/report.ts';
import { reportHtml } from './html.ts';
import { junitXml } from './junit.ts';
import type { RunResult } from './outcome.ts';
import type { BenchId } from './plan.ts';
import { benchTable, failureList, shown, summaryLine } from './report.ts';
import { logPath, writeResultsFile, type RegressFile } from './results-file.ts';
import { previousRun } from './trends.ts';

export interface FinishInput {
  readonly root: string;
  readonly out: string;
  /** Runs in plan order, as stored (with pictures). */
  readonly file: RegressFile;
  /** The same runs with their output (for junit's system-out). */
  readonly results: readonly RunResult[];
  /** Coverage of the passing runs, in plan order; undefined when none was collected. */
  readonly coverage: CoverageInputs | undefined;
  /** `make regress REGRESS_ARGS='...'` (`npx nicgen regress ...`) that replays it. */
  readonly replay: string;
  /** How the nicgen command is typed in this project (default `./bin/nicgen`). */
  readonly command?: string;
}

export interface Finished {
  readonly coverage: CoverageSummary | undefined;
  /** Coverage lines for the console (empty without coverage). */
  readonly lines: readonly string[];
  readonly index: string;
}

export async function finishRegression(i: FinishInput): Promise<Finished> {
  const { out, file } = i;
  fs.writeFileSync(path.join(out, 'junit.xml'), junitXml(i.results, {
    seedBase: file.seedBase, seedsPerBench: file.seedsPerBench, timestamp: new Date(file.started), hostname: file.hostname || os.hostname(),
  }));
  writeResultsFile(out, file);
  const covDir = path.join(out, 'coverage');
  const empty = !i.coverage || (i.coverage.codeFiles.length === 0 && i.coverage.functional.length === 0);
  const coverage = empty ? undefined : await buildCoverageReport(covDir, i.coverage!, `nicgen regress ${file.started}`);
  const functional = coverage?.functional ? readFunctional(covDir) : undefined;
  const lines: string[] = [];
  if (coverage) {
    if (functional) lines.push('functional coverage, bin by bin (hits, first run to hit it in plan order):', ...firstHitLines(functional));
    lines.push(...coverageLines(coverage, covDir, Infinity));
  }
  const index = path.join(out, 'index.html');
  fs.writeFileSync(index, reportHtml({
    file, coverage, functional, previous: previousRun(out, file.started), replay: i.replay, waveDir: shown(i.root, path.join(out, 'waves')), ...(i.command ? { command: i.command } : {}),
  }));
  return { coverage, lines, index };
}

export interface ConsoleContext {
  readonly root: string;
  readonly out: string;
  readonly benches: readonly BenchId[];
  readonly results: readonly RunResult[];
  readonly finished: Finished;
  readonly replay: string;
  /** Lines just before the replay line (interruption, shard notes). */
  readonly notes: readonly string[];
  /** How the nicgen command is typed in this project (default `./bin/nicgen`). */
  readonly command?: string;
}

/** The end-of-regression report on stdout; the last line is the summary CI reads. */
export function consoleReport(c: ConsoleContext): string[] {
  const out = ['', ...benchTable(c.benches, c.results)];
  const waveDir = path.join(c.out, 'waves');
  // nicgen sim does not create the wave file's folder (and then writes no wave, silently),
  // so the folder the replay commands name must exist.
  if (c.results.some(r => r.failCycle !== undefined)) fs.mkdirSync(waveDir, { recursive: true });
  const failures = failureList(c.results, { root: c.root, waveDir, logOf: r => path.join(c.out, logPath(r)), ...(c.command ? { command: c.command } : {}) });
  if (failures.length > 0) out.push('', ...failures);
  if (c.finished.lines.length > 0) out.push('', ...c.finished.lines);
  out.push('', ...c.notes);
  out.push(`regress: replay this regression with: ${c.replay}`, summaryLine(c.results));
  return out;
}
