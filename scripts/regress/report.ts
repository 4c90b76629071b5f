// The end-of-regression report on stdout: a table per bench, then every failure and error
// with its seed and the command that replays it alone.

import * as path from 'node:path';
import { formatRate } from '../../cli/sim-progress.ts';
import type { RunResult } from './outcome.ts';
import type { BenchId, PlannedRun } from './plan.ts';

/** `./bin/nicgen sim <top> --test <t> --seed <s>`, as typed from the project root
 *  (`command` is `npx nicgen` in a user's project). */
export function replayCommand(run: PlannedRun, command = './bin/nicgen'): string {
  return `${command} sim ${run.top} --test ${run.test} --seed ${run.seed}`;
}

/** The command that runs a regression again with `args`: `make regress REGRESS_ARGS='...'`
 *  in this repository, `npx nicgen regress ...` in a user's project. */
export function regressAgain(command: string, args: string): string {
  return command === './bin/nicgen' ? `make regress REGRESS_ARGS='${args}'` : `${command} regress ${args}`;
}

/** The replay with a wave dump around the failing cycle: the same window `nicgen sim`
 *  suggests (200 cycles before, 10 after), but one file per seed so replays of several
 *  failures do not overwrite each other. */
export function waveReplayCommand(run: PlannedRun, cycle: number, waveDir: string, command?: string): string {
  const file = path.join(waveDir, `${run.top}-${run.test}-${run.seed}.fst`);
  return `${replayCommand(run, command)} --wave ${file} --from ${Math.max(0, cycle - 200)} --to ${cycle + 10}`;
}

/** A path as the user should type it from `root` (relative when inside). */
export function shown(root: string, p: string): string {
  const rel = path.relative(root, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}

interface Row {
  readonly bench: string;
  readonly cells: readonly string[];
}

function benchRow(b: BenchId, rs: readonly RunResult[]): Row {
  const n = (s: RunResult['status']): number => rs.filter(r => r.status === s).length;
  const cycles = rs.reduce((t, r) => t + r.cycles, 0);
  // The rate counts only runs that report their simulation time (see RunResult.simSeconds).
  const timed = rs.filter(r => r.simSeconds !== undefined);
  const timedCycles = timed.reduce((t, r) => t + r.cycles, 0);
  const sim = timed.reduce((t, r) => t + r.simSeconds!, 0);
  const slowest = rs.reduce<RunResult | undefined>((m, r) => (m && m.seconds >= r.seconds ? m : r), undefined);
  return {
    bench: `${b.top}/${b.test}`,
    cells: [
      String(rs.length), String(n('passed')), String(n('failed')), String(n('error')),
      cycles.toLocaleString('en-US'),
      sim > 0 ? formatRate(timedCycles / sim) : '-',
      slowest ? `${slowest.seconds.toFixed(1)} s (seed ${slowest.run.seed})` : '-',
    ],
  };
}

const headers = ['runs', 'passed', 'failed', 'errors', 'cycles', 'cycles/s', 'slowest run'];

/** One row per bench that ran (in plan order), numbers right-aligned, the last column left. */
export function benchTable(benches: readonly BenchId[], results: readonly RunResult[]): string[] {
  const rows = benches
    .map(b => benchRow(b, results.filter(r => r.run.top === b.top && r.run.test === b.test)))
    .filter(r => r.cells[0] !== '0');
  const w0 = Math.max('bench'.length, ...rows.map(r => r.bench.length));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map(r => r.cells[i]!.length)));
  const line = (first: string, cells: readonly string[]): string =>
    [first.padEnd(w0), ...cells.map((c, i) => (i === cells.length - 1 ? c : c.padStart(widths[i]!)))].join('  ').trimEnd();
  return [line('bench', headers), ...rows.map(r => line(r.bench, r.cells))];
}

export interface FailureContext {
  readonly root: string;
  readonly waveDir: string;
  readonly logOf: (run: PlannedRun) => string;
  /** How the nicgen command is typed in this project (default `./bin/nicgen`). */
  readonly command?: string;
}

/** Each failure and error, in the order given: what happened, the replay commands and the log. */
export function failureList(results: readonly RunResult[], ctx: FailureContext): string[] {
  const bad = results.filter(r => r.status !== 'passed');
  if (bad.length === 0) return [];
  const out = [`failures and errors (${bad.length}):`];
  for (const r of bad) {
    out.push(`  ${r.status === 'failed' ? 'FAIL' : 'ERROR'} ${r.run.top}/${r.run.test} seed ${r.run.seed}: ${r.headline}`);
    out.push(`    replay: ${replayCommand(r.run, ctx.command)}`);
    if (r.failCycle !== undefined) out.push(`    waves:  ${waveReplayCommand(r.run, r.failCycle, shown(ctx.root, ctx.waveDir), ctx.command)}`);
    out.push(`    log:    ${shown(ctx.root, ctx.logOf(r.run))}`);
  }
  return out;
}

/** The last line of the output, which CI and people read: errors count as failed. */
export function summaryLine(results: readonly RunResult[]): string {
  const passed = results.filter(r => r.status === 'passed').length;
  return `regress: ${passed} passed, ${results.length - passed} failed`;
}
