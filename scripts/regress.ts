// `make regress`: many seeds of the registered benches, each a separate `nicgen sim`
// process, run in parallel across the cores. Writes <out>/junit.xml, <out>/results.json and
// one log per run; prints a table per bench and a replay command per failure; the last line
// is `regress: N passed, M failed` (errors — timeouts, crashes — count as failed).
// Exit 0 when everything passed, 1 otherwise, 2 for misuse, 130 when interrupted.
// Usage: docs/regress.md, or --help.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benches } from '../tb/benches/index.ts';
import { parseOptions, replayArgs, usageText, UsageError, type RegressOptions } from './regress/args.ts';
import { junitXml } from './regress/junit.ts';
import type { RunResult } from './regress/outcome.ts';
import { planRuns, selectBenches, type BenchPlan, type PlannedRun } from './regress/plan.ts';
import { runPool } from './regress/pool.ts';
import { RegressProgress } from './regress/progress.ts';
import { benchTable, failureList, replayCommand, shown, summaryLine } from './regress/report.ts';
import { runSim } from './regress/spawn.ts';
import { checkSources, describeCheck } from '../cli/source-check.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** A fresh folder: a default timestamped one gets a suffix rather than mixing two runs' logs. */
function makeOutDir(o: RegressOptions): string {
  let dir = o.out;
  for (let i = 2; !o.outGiven && fs.existsSync(dir); i++) dir = `${o.out}-${i}`;
  try {
    fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  } catch (err) {
    throw new UsageError(`cannot create --out folder ${dir}: ${(err as Error).message}`);
  }
  return dir;
}

function writeResults(out: string, o: RegressOptions, plan: readonly BenchPlan[], results: readonly RunResult[], started: Date): void {
  fs.writeFileSync(path.join(out, 'junit.xml'), junitXml(results, { seedBase: o.seedBase, seedsPerBench: o.seeds, timestamp: started, hostname: os.hostname() }));
  // Machine-readable twin of the report, without the outputs (those are in logs/).
  const runs = results.map(({ output: _output, detail: _detail, ...r }) => r);
  fs.writeFileSync(path.join(out, 'results.json'), `${JSON.stringify({ seedBase: o.seedBase, seedsPerBench: o.seeds, planned: plan.reduce((n, b) => n + b.runs.length, 0), runs }, null, 2)}\n`);
}

async function main(argv: readonly string[]): Promise<number> {
  const o = parseOptions(argv, root);
  if (o.help) {
    process.stdout.write(usageText);
    return 0;
  }
  const selected = selectBenches(benches, o.tops, o.tests);
  if (selected.length === 0) throw new UsageError('no benches selected');
  const plan = planRuns(selected, o.seeds, o.seedBase);
  const total = plan.reduce((n, b) => n + b.runs.length, 0);

  if (o.dryRun) {
    console.log(`regress: seed base ${o.seedBase}, ${selected.length} benches x ${o.seeds} seeds = ${total} runs`);
    for (const b of plan) for (const r of b.runs) console.log(replayCommand(r));
    return 0;
  }

  // One type-check of the benches for the whole regression (tsc and the hardware-value
  // check, as `nicgen sim` does); the runs then skip it (NICGEN_TYPECHECK=0 in spawn.ts), or
  // every child of the first batch would check the same files at once.
  const checked = await checkSources([path.join(root, 'tb/benches/index.ts')]);
  if (!checked.cached) console.log(`regress: ${describeCheck(checked)}`);

  const out = makeOutDir(o);
  const logOf = (r: PlannedRun): string => path.join(out, 'logs', r.top, `${r.test}-${r.seed}.log`);
  const started = new Date();
  console.log(`regress: ${selected.length} benches x ${o.seeds} seeds = ${total} runs, ${o.jobs} at a time, timeout ${o.timeout} s, seed base ${o.seedBase}`);
  console.log(`regress: results in ${shown(root, out)}`);

  // Children run in their own process groups (see regress/spawn.ts), so Ctrl-C is forwarded
  // by aborting; a second Ctrl-C falls through to the default (immediate exit).
  const abort = new AbortController();
  const onSignal = (): void => {
    process.stderr.write('\nregress: interrupted, stopping the runs in flight (Ctrl-C again to quit at once)\n');
    abort.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const progress = new RegressProgress(process.stderr, total);
  const finished = await runPool(plan, {
    jobs: o.jobs,
    signal: abort.signal,
    start: run => runSim(run, { root, timeoutSeconds: o.timeout, signal: abort.signal }),
    onDone: r => {
      const log = logOf(r.run);
      fs.mkdirSync(path.dirname(log), { recursive: true });
      fs.writeFileSync(log, `$ ${replayCommand(r.run)}\n${r.output}`);
      progress.record(r);
    },
  });
  progress.stop();
  const elapsed = progress.elapsed;
  // Reports follow the plan (bench, then seed index), not the order runs happened to finish.
  const byRun = new Map(finished.map(r => [r.run, r]));
  const results = plan.flatMap(b => b.runs.flatMap(r => byRun.get(r) ?? []));

  writeResults(out, o, plan, results, started);
  console.log('');
  for (const line of benchTable(selected, results)) console.log(line);
  const waveDir = path.join(out, 'waves');
  // nicgen sim does not create the wave file's folder (and then writes no wave, silently),
  // so the folder the replay commands name must exist.
  if (results.some(r => r.failCycle !== undefined)) fs.mkdirSync(waveDir, { recursive: true });
  const failures = failureList(results, { root, waveDir, logOf });
  if (failures.length > 0) console.log(['', ...failures].join('\n'));
  console.log('');
  if (abort.signal.aborted) console.log(`regress: interrupted; ${total - results.length} of ${total} runs never started`);
  console.log(`regress: ${results.length} runs in ${elapsed.toFixed(1)} s; junit ${shown(root, path.join(out, 'junit.xml'))}`);
  console.log(`regress: replay this regression with: make regress REGRESS_ARGS='${replayArgs(o)}'`);
  console.log(summaryLine(results));
  if (abort.signal.aborted) return 130;
  return results.every(r => r.status === 'passed') ? 0 : 1;
}

main(process.argv.slice(2)).then(code => { process.exitCode = code; }, (err: unknown) => {
  if (err instanceof UsageError) {
    console.error(`regress: ${err.message}`);
    process.exitCode = 2;
    return;
  }
  console.error(err);
  process.exitCode = 1;
});
