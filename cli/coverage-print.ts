// Coverage reports on the command line: `nicgen sim --coverage` reports its own run,
// `nicgen coverage DIR...` merges the runs found below some folders (vitest runs with
// NICGEN_COVERAGE, sim runs, regression runs). Both build a report folder (coverage/report.ts)
// and print the per-module table, the cover points, the functional totals and holes.

import * as path from 'node:path';
import { codeTable, percent } from '../coverage/code-report.ts';
import type { FirstHit, FunctionalData } from '../coverage/functional.ts';
import { buildCoverageReport, type CoverageInputs, type CoverageSummary } from '../coverage/report.ts';
import { findRunFolders, readRunCoverage, type RunCoverage } from '../coverage/run-data.ts';
import { POINT_KINDS } from '../coverage/verilator-data.ts';
import { UsageError } from './usage-error.ts';

/** A path as typed from the working directory. */
const shown = (p: string): string => {
  const rel = path.relative(process.cwd(), p);
  return rel && !rel.startsWith('..') ? rel : p;
};

/** Passing runs (a failing run's coverage was not verified), in the order given. */
export function coverageInputs(runs: readonly RunCoverage[], label: (r: RunCoverage, order: number) => FirstHit): CoverageInputs {
  const passed = runs.filter(r => r.meta.passed);
  const sources = new Map<string, string>();
  for (const r of passed) if (r.meta.sourceDir && !sources.has(r.meta.top)) sources.set(r.meta.top, r.meta.sourceDir);
  return {
    codeFiles: passed.flatMap(r => (r.codeFile ? [r.codeFile] : [])),
    sources: [...sources].map(([top, dir]) => ({ top, dir })),
    functional: passed.flatMap((r, i) => (r.functional ? [{ data: r.functional, run: label(r, i) }] : [])),
  };
}

/** The summary as lines: totals, the per-module table, cover point counts, functional holes. */
export function coverageLines(s: CoverageSummary, reportDir: string, maxHoles = 40): string[] {
  const out: string[] = [];
  if (s.code) {
    const t = s.code.total;
    const kind = (k: typeof POINT_KINDS[number]): string => `${k === 'user' ? 'cover points' : k} ${t[k].total === 0 ? '-' : `${t[k].hit}/${t[k].total} (${percent(t[k])})`}`;
    out.push(`code coverage: ${POINT_KINDS.map(kind).join(', ')}`);
    out.push(...codeTable(s.code).map(l => `  ${l}`));
    for (const c of s.code.covers) out.push(`  cover ${c.module}.${c.label} (${c.file}:${c.line}): ${c.count} hit${c.count === 1 ? '' : 's'}`);
    out.push(`  line report: ${shown(path.join(reportDir, s.html ?? 'html/index.html'))}; never hit (${s.code.uncoveredCount}): ${shown(path.join(reportDir, 'uncovered.txt'))}`);
  }
  if (s.functional) {
    const f = s.functional;
    out.push(`functional coverage: ${f.hit} of ${f.supported} supported bins hit (${f.bins - f.supported} unsupported): ${shown(path.join(reportDir, 'functional.json'))}`);
    for (const h of f.holes.slice(0, maxHoles)) out.push(`  never hit: ${h.group}: ${h.bin}`);
    if (f.holes.length > maxHoles) out.push(`  ... and ${f.holes.length - maxHoles} more: ${shown(path.join(reportDir, 'holes.txt'))}`);
  }
  if (!s.code && !s.functional) out.push('coverage: nothing collected (no code coverage, no cover groups)');
  return out;
}

/** `nicgen sim --coverage`: the run's report in `<dir>/report`, printed. */
export async function printRunCoverage(dir: string, label: string, print: (line: string) => void): Promise<void> {
  const run = readRunCoverage(dir);
  if (!run) throw new Error(`coverage: the run wrote no ${path.join(dir, 'run.json')}`);
  const report = path.join(dir, 'report');
  // Its own report counts it even when it failed (said so): a regression would not.
  const inputs = coverageInputs([{ ...run, meta: { ...run.meta, passed: true } }], r => ({ top: r.meta.top, test: label.split('/')[1] ?? '', seed: r.meta.seed, order: 0 }));
  const summary = await buildCoverageReport(report, inputs, `${label} seed ${run.meta.seed}`);
  if (!run.meta.passed) print('coverage of a failed run (a regression does not count it):');
  for (const l of coverageLines(summary, report)) print(l);
}

/** `nicgen coverage DIR... [--out DIR]`: every passing run below the folders, merged. */
export async function coverageCommand(dirs: readonly string[], out: string | undefined, print: (line: string) => void = l => console.log(l)): Promise<number> {
  if (dirs.length === 0) throw new UsageError('name one or more folders holding coverage runs (NICGEN_COVERAGE=DIR, nicgen sim --coverage-dir)');
  const folders = dirs.flatMap(d => {
    const found = findRunFolders(path.resolve(d));
    if (found.length === 0) throw new UsageError(`no coverage runs (run.json) below ${d}`);
    return found;
  });
  const runs = folders.map(f => readRunCoverage(f)!);
  const failed = runs.filter(r => !r.meta.passed).length;
  const reportDir = path.resolve(out ?? path.join(dirs[0]!, 'report'));
  const summary = await buildCoverageReport(reportDir, coverageInputs(runs, (r, order) => ({ top: r.meta.top, test: path.basename(r.dir), seed: r.meta.seed, order })), `nicgen coverage (${runs.length - failed} runs)`);
  print(`coverage: ${runs.length - failed} passing runs merged${failed ? ` (${failed} failed runs left out)` : ''} into ${shown(reportDir)}`);
  for (const l of coverageLines(summary, reportDir)) print(l);
  return 0;
}

/** Every bin with its count and first hit, group by group (what `make regress` prints). */
export function firstHitLines(d: FunctionalData): string[] {
  const out: string[] = [];
  for (const g of d.groups) {
    out.push(`  ${g.name} (${g.bins.filter(b => b.count > 0).length}/${g.bins.length} bins hit): ${g.about}`);
    const w = Math.max(...g.bins.map(b => b.id.length));
    for (const b of g.bins) {
      const first = b.first ? `first ${b.first.top}/${b.first.test} seed ${b.first.seed}` : b.unsupported !== undefined ? `unsupported: ${b.unsupported}` : 'NEVER HIT';
      out.push(`    ${b.id.padEnd(w)}  ${String(b.count).padStart(7)}  ${first}`);
    }
  }
  return out;
}
