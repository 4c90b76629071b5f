// `nicgen regress merge DIR...`: the folders of the N shards of one regression (make regress
// --seed-base S --shard K/N, run anywhere: CI matrix jobs, cluster array tasks) become one
// folder, as if the regression had run on one machine: the same runs in plan order, the same
// verdicts, junit.xml, results.json, the coverage report with summed counts and first hits,
// index.html. The shards must be of one plan and cover it exactly: every shard 1..N once,
// every planned run in exactly one of them.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { joinInputs, reportAsInputs } from '../../coverage/report.ts';
import { UsageError } from './args.ts';
import { finishRegression, type Finished } from './finish.ts';
import type { RunResult } from './outcome.ts';
import { planRuns } from './plan.ts';
import { regressAgain } from './report.ts';
import { loadRun, readResultsFile, RESULTS_FORMAT, type RegressFile } from './results-file.ts';

export interface MergeOptions {
  readonly root: string;
  readonly dirs: readonly string[];
  /** A new or empty folder. */
  readonly out: string;
  /** How the nicgen command is typed in this project (default `./bin/nicgen`). */
  readonly command?: string;
}

export interface Merged {
  readonly file: RegressFile;
  readonly results: readonly RunResult[];
  readonly finished: Finished;
  readonly replay: string;
}

const samePlan = (a: RegressFile, b: RegressFile): boolean =>
  a.seedBase === b.seedBase && a.seedsPerBench === b.seedsPerBench && a.coverage === b.coverage && a.coverageToggle === b.coverageToggle
  && JSON.stringify(a.benches) === JSON.stringify(b.benches);

/** The shards, checked: one plan, shards 1..N each once, every planned run once. */
function readShards(dirs: readonly string[]): { dir: string; file: RegressFile }[] {
  if (dirs.length === 0) throw new UsageError('name the shard folders to merge');
  const shards = dirs.map(dir => {
    let file: RegressFile;
    try { file = readResultsFile(dir); } catch (err) { throw new UsageError((err as Error).message); }
    if (!file.shard) throw new UsageError(`${dir} is not a shard (it ran the whole plan; run shards with --shard K/N)`);
    return { dir, file };
  });
  const first = shards[0]!.file;
  const n = first.shard!.n;
  for (const s of shards) {
    if (!samePlan(s.file, first)) throw new UsageError(`${s.dir} is a shard of another regression (seed base, seeds, benches or --coverage differ from ${shards[0]!.dir})`);
    if (s.file.shard!.n !== n) throw new UsageError(`${s.dir} is shard ${s.file.shard!.k}/${s.file.shard!.n}, ${shards[0]!.dir} one of ${n}`);
  }
  const ks = shards.map(s => s.file.shard!.k);
  const dup = ks.find((k, i) => ks.indexOf(k) !== i);
  if (dup !== undefined) throw new UsageError(`shard ${dup}/${n} given twice`);
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter(k => !ks.includes(k));
  if (missing.length) throw new UsageError(`shard${missing.length > 1 ? 's' : ''} ${missing.map(k => `${k}/${n}`).join(', ')} missing`);
  const planned = planRuns(first.benches, first.seedsPerBench, first.seedBase).flatMap(b => b.runs);
  const seen = new Map<number, string>();
  for (const s of shards) {
    for (const r of s.file.runs) {
      const p = planned[r.run.order];
      if (!p || p.seed !== r.run.seed || p.top !== r.run.top || p.test !== r.run.test) throw new UsageError(`${s.dir}: run ${r.run.top}/${r.run.test} seed ${r.run.seed} is not in the plan`);
      if (seen.has(r.run.order)) throw new UsageError(`${r.run.top}/${r.run.test} seed ${r.run.seed} is in both ${seen.get(r.run.order)} and ${s.dir}`);
      seen.set(r.run.order, s.dir);
    }
  }
  const gaps = planned.filter(p => !seen.has(p.order));
  if (gaps.length) {
    throw new UsageError(`${gaps.length} planned run(s) in no shard (an interrupted shard?), first ${gaps[0]!.top}/${gaps[0]!.test} seed ${gaps[0]!.seed} (shard ${(gaps[0]!.order % n) + 1}/${n})`);
  }
  return shards.sort((a, b) => a.file.shard!.k - b.file.shard!.k);
}

function copyTree(from: string, to: string): void {
  if (fs.existsSync(from)) fs.cpSync(from, to, { recursive: true, errorOnExist: false, force: false });
}

export async function mergeRegressions(o: MergeOptions): Promise<Merged> {
  const shards = readShards(o.dirs);
  if (fs.existsSync(o.out) && fs.readdirSync(o.out).length > 0) throw new UsageError(`--out ${o.out} is not empty: merge into a new folder`);
  fs.mkdirSync(path.join(o.out, 'logs'), { recursive: true });
  for (const s of shards) {
    copyTree(path.join(s.dir, 'logs'), path.join(o.out, 'logs'));
    copyTree(path.join(s.dir, 'pictures'), path.join(o.out, 'pictures'));
  }
  const runs = shards.flatMap(s => s.file.runs).sort((a, b) => a.run.order - b.run.order);
  const results = runs.map(r => loadRun(o.out, r));
  const first = shards[0]!.file;
  const file: RegressFile = {
    format: RESULTS_FORMAT, seedBase: first.seedBase, seedsPerBench: first.seedsPerBench, benches: first.benches, tops: first.tops, tests: first.tests,
    coverage: first.coverage, coverageToggle: first.coverageToggle, shard: null, mergedFrom: shards.map(s => s.dir), planned: runs.length,
    started: shards.map(s => s.file.started).sort()[0]!, elapsed: Math.max(...shards.map(s => s.file.elapsed)),
    hostname: [...new Set(shards.map(s => s.file.hostname))].join(', '), interrupted: shards.some(s => s.file.interrupted), runs,
  };
  const parts = shards.map(s => path.join(s.dir, 'coverage')).filter(d => fs.existsSync(d)).map(reportAsInputs);
  const selection = [...first.tops.map(t => `--top ${t}`), ...first.tests.map(t => `--test ${t}`)].join(' ');
  const args = `--seed-base ${first.seedBase} --seeds ${first.seedsPerBench}${selection ? ` ${selection}` : ''}${first.coverageToggle ? ' --coverage-toggle' : first.coverage ? ' --coverage' : ''}`;
  const replay = regressAgain(o.command ?? './bin/nicgen', args);
  const finished = await finishRegression({ root: o.root, out: o.out, file, results, coverage: parts.length ? joinInputs(parts) : undefined, replay, ...(o.command ? { command: o.command } : {}) });
  return { file, results, finished, replay };
}
