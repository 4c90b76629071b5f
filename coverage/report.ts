// A coverage report folder, built from runs (coverage/run-data.ts) or from other reports (the
// shards of a regression):
//   code.dat         merged Verilator counters (verilator_coverage --write)
//   sources/<top>/   the Verilog those counters are about
//   coverage.info    lcov tracefile; html/index.html the line report (genhtml)
//   functional.json  merged cover groups, each bin's count and first hit
//   summary.json     per-module table, totals, user cover points, functional totals and holes
//   uncovered.txt    every code point never hit; holes.txt every functional bin never hit
// Feeding a report's own files back in gives the same counts: merging is associative, so N
// shards merged equal one run over all of them.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { codeTable, summarizeCode, uncoveredLines, type CodeSummary } from './code-report.ts';
import { mergeFunctional, parseFunctional, summarizeFunctional, type FunctionalData, type FunctionalSummary, type RunFunctional } from './functional.ts';
import { genhtml, lcovInfo } from './lcov.ts';
import { mergeCoverageFiles, readCoverage } from './verilator-data.ts';

export interface SourceSet {
  readonly top: string;
  /** Folder with the top's Verilog files. */
  readonly dir: string;
}

export interface CoverageInputs {
  /** Verilator data files to merge (runs' code.dat or reports' code.dat). */
  readonly codeFiles: readonly string[];
  readonly sources: readonly SourceSet[];
  /** Functional data in plan order (runs carry their FirstHit, reports per-bin first hits). */
  readonly functional: readonly RunFunctional[];
}

/** The code summary without the list of points never hit (that is uncovered.txt). */
export type CodeTotals = Omit<CodeSummary, 'uncovered'> & { readonly uncoveredCount: number };

export interface CoverageSummary {
  readonly format: 'nicgen-coverage-summary/1';
  readonly code?: CodeTotals;
  /** Relative to the report folder. */
  readonly html?: string;
  readonly functional?: FunctionalSummary;
}

export const SUMMARY_JSON = 'summary.json';

/** Copies each top's Verilog under `<out>/sources/<top>/` (kept when already there). */
function copySources(out: string, sources: readonly SourceSet[]): void {
  for (const s of sources) {
    const to = path.join(out, 'sources', s.top);
    if (!fs.existsSync(s.dir)) throw new Error(`coverage sources of ${s.top} are gone: ${s.dir} (was the model cache cleared?)`);
    fs.mkdirSync(to, { recursive: true });
    for (const f of fs.readdirSync(s.dir)) {
      if (!f.endsWith('.v') && !f.endsWith('.sv')) continue;
      const dst = path.join(to, f);
      if (!fs.existsSync(dst)) fs.copyFileSync(path.join(s.dir, f), dst);
    }
  }
}

async function codeReport(out: string, inputs: CoverageInputs, title: string): Promise<{ code: CodeSummary; html: string } | undefined> {
  if (inputs.codeFiles.length === 0) return undefined;
  const dat = path.join(out, 'code.dat');
  await mergeCoverageFiles(inputs.codeFiles, dat);
  copySources(out, inputs.sources);
  const points = readCoverage(dat);
  const code = summarizeCode(points);
  fs.writeFileSync(path.join(out, 'uncovered.txt'), `${[...codeTable(code), '', `never hit (${code.uncovered.length}):`, ...uncoveredLines(code)].join('\n')}\n`);
  const info = path.join(out, 'coverage.info');
  fs.writeFileSync(info, lcovInfo(points, path.join(out, 'sources')));
  const index = await genhtml(info, path.join(out, 'html'), title);
  return { code, html: path.relative(out, index) };
}

function functionalReport(out: string, inputs: CoverageInputs): FunctionalSummary | undefined {
  if (inputs.functional.length === 0) return undefined;
  const merged = mergeFunctional(inputs.functional);
  fs.writeFileSync(path.join(out, 'functional.json'), `${JSON.stringify(merged, null, 1)}\n`);
  const summary = summarizeFunctional(merged);
  fs.writeFileSync(path.join(out, 'holes.txt'), `${[`functional coverage: ${summary.hit} of ${summary.supported} supported bins hit (${summary.bins - summary.supported} unsupported)`,
    ...summary.holes.map(h => `never hit: ${h.group}: ${h.bin}`)].join('\n')}\n`);
  return summary;
}

function codeTotals(c: CodeSummary): CodeTotals {
  const { uncovered, ...rest } = c;
  return { ...rest, uncoveredCount: uncovered.length };
}

/** Builds the report folder `out` (created; earlier contents of these files replaced). */
export async function buildCoverageReport(out: string, inputs: CoverageInputs, title: string): Promise<CoverageSummary> {
  fs.mkdirSync(out, { recursive: true });
  const code = await codeReport(out, inputs, title);
  const functional = functionalReport(out, inputs);
  const summary: CoverageSummary = {
    format: 'nicgen-coverage-summary/1',
    ...(code ? { code: codeTotals(code.code), html: code.html } : {}),
    ...(functional ? { functional } : {}),
  };
  fs.writeFileSync(path.join(out, SUMMARY_JSON), `${JSON.stringify(summary, null, 1)}\n`);
  return summary;
}

/** A report folder read back as inputs for another merge (a shard into the whole). */
export function reportAsInputs(dir: string): CoverageInputs {
  const dat = path.join(dir, 'code.dat');
  const fun = path.join(dir, 'functional.json');
  const src = path.join(dir, 'sources');
  return {
    codeFiles: fs.existsSync(dat) ? [dat] : [],
    sources: fs.existsSync(src) ? fs.readdirSync(src).map(top => ({ top, dir: path.join(src, top) })) : [],
    functional: fs.existsSync(fun) ? [{ data: parseFunctional(fs.readFileSync(fun, 'utf8'), fun) }] : [],
  };
}

export function readSummary(dir: string): CoverageSummary | undefined {
  const f = path.join(dir, SUMMARY_JSON);
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) as CoverageSummary : undefined;
}

export function readFunctional(dir: string): FunctionalData | undefined {
  const f = path.join(dir, 'functional.json');
  return fs.existsSync(f) ? parseFunctional(fs.readFileSync(f, 'utf8'), f) : undefined;
}

/** Concatenates inputs (order kept: functional first hits follow it). */
export function joinInputs(parts: readonly CoverageInputs[]): CoverageInputs {
  const sources = new Map<string, SourceSet>();
  for (const p of parts) for (const s of p.sources) if (!sources.has(s.top)) sources.set(s.top, s);
  return { codeFiles: parts.flatMap(p => p.codeFiles), sources: [...sources.values()], functional: parts.flatMap(p => p.functional) };
}
