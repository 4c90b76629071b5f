// `make regress` / `nicgen regress`: many seeds of the project's benches (nicgen.config.ts),
// each a separate `nicgen sim` process, run in parallel across the cores (or one shard of
// them: --shard K/N). Writes <out>/junit.xml, <out>/results.json, one log per run, the
// coverage report (<out>/coverage: functional always, Verilator code coverage with
// --coverage) and <out>/index.html; prints a table per bench, a replay command per failure,
// the coverage summary and the functional holes; the last line is `regress: N passed, M
// failed` (errors — timeouts, crashes — count as failed).
// Exit 0 when everything passed, 1 otherwise, 2 for misuse, 130 when interrupted.
// Usage: docs/regress.md, or --help.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { coverageInputs } from '../../cli/coverage-print.ts';
import { checkSources, describeCheck } from '../../cli/source-check.ts';
import type { CoverageInputs } from '../../coverage/report.ts';
import { CODE_DAT, readRunCoverage } from '../../coverage/run-data.ts';
import { parseOptions, replayArgs, usageText, UsageError, type RegressOptions } from './args.ts';
import { CodeAccumulator } from './code-accumulator.ts';
import { consoleReport, finishRegression } from './finish.ts';
import type { RunResult } from './outcome.ts';
import { failurePictures } from './pictures.ts';
import { planRuns, selectBenches, shardPlan, type BenchPlan, type PlannedRun, type Registry } from './plan.ts';
import { runPool } from './pool.ts';
import { RegressProgress } from './progress.ts';
import { regressAgain, replayCommand, shown } from './report.ts';
import { coverageRunPath, logPath, RESULTS_FORMAT, storedRun, type RegressFile } from './results-file.ts';
import { runSim } from './spawn.ts';

/** The project a regression runs in (cli/config.ts's Project, reduced to what is used here). */
export interface RegressProject {
  /** Where the runs start, and where out/regress/ goes. */
  readonly root: string;
  readonly benches: Registry;
  /** The project's nicgen.config.ts: type-checked once, with everything it imports, before the runs. */
  readonly configFile: string;
  /** The nicgen executable the runs are spawned with. */
  readonly bin: string;
  /** How the user types it in replay lines (`./bin/nicgen`, `npx nicgen`). */
  readonly command: string;
}

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

/** Every run's coverage folder gets `--coverage-dir`; code coverage only with --coverage. */
function coverageArgs(out: string, o: RegressOptions): (run: PlannedRun) => string[] {
  const code = o.coverageToggle ? ['--coverage-toggle'] : o.coverage ? ['--coverage'] : [];
  return run => ['--coverage-dir', path.join(out, coverageRunPath(run)), '--no-coverage-report', ...code];
}

/** Passing runs' coverage in plan order (a run that never wrote its folder has none); their
 *  Verilator counters were folded into `codeFile` as they finished. */
function collectCoverage(out: string, results: readonly RunResult[], codeFile: string | undefined): CoverageInputs {
  const runs = results.flatMap(r => {
    const c = r.status === 'passed' ? readRunCoverage(path.join(out, coverageRunPath(r.run))) : undefined;
    return c ? [{ c, r }] : [];
  });
  const byDir = new Map(runs.map(x => [x.c.dir, x.r.run]));
  const inputs = coverageInputs(runs.map(x => x.c), c => {
    const run = byDir.get(c.dir)!;
    return { top: run.top, test: run.test, seed: run.seed, order: run.order };
  });
  return { ...inputs, codeFiles: codeFile ? [codeFile] : [] };
}

/** Runs the regression `argv` asks for; returns the exit code (UsageError for misuse). */
export async function regressMain(argv: readonly string[], project: RegressProject): Promise<number> {
  const { root, benches, command } = project;
  const o = parseOptions(argv, root);
  if (o.help) {
    process.stdout.write(usageText);
    return 0;
  }
  const selected = selectBenches(benches, o.tops, o.tests);
  if (selected.length === 0) throw new UsageError('no benches selected');
  const whole = planRuns(selected, o.seeds, o.seedBase);
  const plan: BenchPlan[] = o.shard ? shardPlan(whole, o.shard) : whole;
  const total = plan.reduce((n, b) => n + b.runs.length, 0);
  const shardText = o.shard ? ` (shard ${o.shard.k}/${o.shard.n}: ${total} of ${whole.reduce((n, b) => n + b.runs.length, 0)} runs)` : '';

  if (o.dryRun) {
    console.log(`regress: seed base ${o.seedBase}, ${selected.length} benches x ${o.seeds} seeds = ${total} runs${shardText}`);
    for (const b of plan) for (const r of b.runs) console.log(replayCommand(r, command));
    return 0;
  }

  // One type-check of the benches for the whole regression (tsc and the hardware-value
  // check, as `nicgen sim` does); the runs then skip it (NICGEN_TYPECHECK=0 in spawn.ts), or
  // every child of the first batch would check the same files at once.
  const checked = await checkSources([project.configFile]);
  if (!checked.cached) console.log(`regress: ${describeCheck(checked)}`);

  const out = makeOutDir(o);
  const logOf = (r: PlannedRun): string => path.join(out, logPath(r));
  const started = new Date();
  const codeText = o.coverageToggle ? ', code coverage on (with toggles)' : o.coverage ? ', code coverage on' : '';
  console.log(`regress: ${selected.length} benches x ${o.seeds} seeds = ${total} runs${shardText}, ${o.jobs} at a time, timeout ${o.timeout} s, seed base ${o.seedBase}${codeText}`);
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

  // A failing run draws its own failure picture (re-running its seed with waves of the
  // cause) into <out>/pictures, until --pictures failures have one; later ones skip it.
  let failedSoFar = 0;
  const pictureEnv = (): Record<string, string> => (failedSoFar < o.pictures
    ? { NICGEN_FAILURE_DIR: path.join(out, 'pictures') } : { NICGEN_PICTURES: '0' });
  const progress = new RegressProgress(process.stderr, total);
  fs.mkdirSync(path.join(out, 'coverage'), { recursive: true });
  const code = new CodeAccumulator(path.join(out, 'coverage', 'runs.dat'));
  const finished = await runPool(plan, {
    jobs: o.jobs,
    signal: abort.signal,
    start: run => runSim(run, { root, bin: project.bin, timeoutSeconds: o.timeout, signal: abort.signal, extraArgs: coverageArgs(out, o), extraEnv: () => pictureEnv() }),
    onDone: r => {
      const log = logOf(r.run);
      fs.mkdirSync(path.dirname(log), { recursive: true });
      fs.writeFileSync(log, `$ ${replayCommand(r.run, command)}\n${r.output}`);
      if (r.status === 'passed' && o.coverage) code.add(path.join(out, coverageRunPath(r.run), CODE_DAT));
      if (r.status === 'failed') failedSoFar++;
      progress.record(r);
    },
  });
  progress.stop();
  const elapsed = progress.elapsed;
  // Reports follow the plan (bench, then seed index), not the order runs happened to finish.
  const byRun = new Map(finished.map(r => [r.run, r]));
  const results = plan.flatMap(b => b.runs.flatMap(r => byRun.get(r) ?? []));

  const pictures = abort.signal.aborted ? new Map<number, string[]>() : await failurePictures(out, results, o.pictures);
  const file: RegressFile = {
    format: RESULTS_FORMAT, seedBase: o.seedBase, seedsPerBench: o.seeds, benches: selected, tops: o.tops, tests: o.tests, coverage: o.coverage, coverageToggle: o.coverageToggle,
    shard: o.shard ?? null, planned: total, started: started.toISOString(), elapsed, hostname: os.hostname(), interrupted: abort.signal.aborted,
    runs: results.map(r => storedRun(r, pictures.get(r.run.order))),
  };
  const replay = regressAgain(command, replayArgs(o));
  const runsDat = await code.file();
  const done = await finishRegression({ root, out, file, results, coverage: collectCoverage(out, results, runsDat), replay, command });
  if (runsDat) fs.rmSync(runsDat);   // coverage/code.dat holds the same counts

  const notes = [
    ...(abort.signal.aborted ? [`regress: interrupted; ${total - results.length} of ${total} runs never started`] : []),
    `regress: ${results.length} runs in ${elapsed.toFixed(1)} s; junit ${shown(root, path.join(out, 'junit.xml'))}; report ${shown(root, done.index)}`,
    ...(o.shard ? [`regress: shard ${o.shard.k}/${o.shard.n}; merge all shards' folders with: ${command} regress merge --out DIR <folders>`] : []),
  ];
  console.log(consoleReport({ root, out, benches: selected, results, finished: done, replay, notes, command }).join('\n'));
  if (abort.signal.aborted) return 130;
  return results.every(r => r.status === 'passed') ? 0 : 1;
}
