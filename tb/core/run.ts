// The entry point for tests: build (cached) and load the model, wire handles, run the
// test coroutine under the scheduler, and turn any failure into a TestFailure that
// carries the cycle, its dump time, the seed and the commands to replay it where it ran.
//
// Waves: `wave` (or NICGEN_WAVE=FILE.fst, NICGEN_WAVE_FROM/_TO) dumps a window; every dump
// gets a GTKWave savefile beside it (tb/waves/savefile.ts), with a marker at the failing
// cycle when the test failed. Failure pictures: when the test fails, it runs once more with
// the same seed, tracing only the window that covers the cause, and renders the signals
// that matter (tb/waves/failure.ts). A passing test pays nothing for that.
//
// Coverage: with `coverage` (or NICGEN_COVERAGE) the run uses the model's coverage variant and
// writes its code and functional coverage when it ends, pass or fail (coverage/run-data.ts);
// a failure's re-run for the picture writes none.

import * as path from 'node:path';
import { FunctionalCoverage } from '../../coverage/functional.ts';
import { writeRunCoverage } from '../../coverage/run-data.ts';
import type { BuildOptions, DesignSources } from '../../sim/build.ts';
import { ClockTime, DEFAULT_PERIOD_NS } from '../../sim/clock.ts';
import { Model } from '../../sim/model.ts';
import { failureFiles, failureWindow, watchedSignals, writeDumpSavefile } from '../waves/failure.ts';
import { envCoverage, type CoverageOptions } from './coverage-options.ts';
import { causeCycleOf, TestFailure, type FailureDetails } from './errors.ts';
import { buildHandles, portPaths } from './handles.ts';
import { PortMisses } from './port-names.ts';
import { envSeed, randomSeed, Rng } from './rng.ts';
import { Scheduler } from './scheduler.ts';
import { TestBench, type TraceOptions } from './testbench.ts';
import type { DutOf } from './types.ts';
import type { TaskGenerator } from './triggers.ts';
import { replayHints, type ReplayHints } from './where.ts';

/** Design sources that also carry the IO type of their module, for typed handles. */
export type TypedDesign<IO> = DesignSources & { readonly __io?: IO };

/** Tags sources (e.g. hand-written Verilog + manifest) with the IO record type they implement. */
export function typedDesign<IO>(sources: DesignSources): TypedDesign<IO> {
  return sources;
}

export type WaveOption = string | ({ readonly file: string } & TraceOptions);

export interface TestOptions {
  /** RNG seed; default `NICGEN_SEED`, else random. Printed on failure. */
  readonly seed?: number;
  /** Fail if the test needs more rising edges than this (default 1 000 000). */
  readonly maxCycles?: number;
  /** Dump waves for the whole test, or a window (default: NICGEN_WAVE, see waveFromEnv). */
  readonly wave?: WaveOption;
  readonly build?: BuildOptions;
  /** Clock period in ns: cycle N is at N × period in the dump (default NICGEN_PERIOD_NS, else 4). */
  readonly periodNs?: number;
  /**
   * On a failure, run again with the same seed, trace the window of the cause and draw it
   * (default: on, unless NICGEN_PICTURES=0). A string is the folder for the files (default
   * NICGEN_FAILURE_DIR, else out/failures).
   */
  readonly pictures?: boolean | string;
  /** How to replay this test where it runs (the CLI gives its command line; vitest's is found). */
  readonly replay?: ReplayHints;
  /** Collect coverage into this folder (default: NICGEN_COVERAGE, else none). */
  readonly coverage?: CoverageOptions;
}

export interface TestResult {
  readonly seed: number;
  readonly cycles: number;
  readonly nativeCalls: number;
  /** True when this call had to build the model (a cache miss). */
  readonly built: boolean;
  readonly clock: ClockTime;
  /** Wall time spent writing the run's coverage at the end (0 without coverage). */
  readonly coverageWriteSeconds: number;
}

export type TestFn<IO> = (dut: DutOf<IO>, tb: TestBench) => Promise<void>;
/** A test body written as a generator function, yielding triggers (Rising, Cycles(n), ...). */
export type GeneratorTestFn<IO> = (dut: DutOf<IO>, tb: TestBench) => TaskGenerator<void>;

interface RunSetup<IO> {
  readonly design: TypedDesign<IO>;
  readonly fn: TestFn<IO> | GeneratorTestFn<IO>;
  readonly seed: number;
  readonly clock: ClockTime;
  readonly maxCycles: number;
  readonly wave: ({ readonly file: string } & TraceOptions) | undefined;
  /** Includes the coverage variant when code coverage is on. */
  readonly build: BuildOptions | undefined;
  /** Where this run writes its coverage (none for a failure's re-run). */
  readonly coverage: CoverageOptions | undefined;
}

/** One run's failure, before it becomes a TestFailure. */
class RunFailed {
  constructor(readonly error: unknown, readonly cycle: number) {}
}

async function runOnce<IO>(s: RunSetup<IO>): Promise<TestResult> {
  const { model, build } = await Model.load(s.design, s.build);
  model.setClockPeriod(s.clock.periodNs);
  const sched = new Scheduler(model, { maxCycles: s.maxCycles });
  const functional = s.coverage ? new FunctionalCoverage() : undefined;
  const tb = new TestBench(model, sched, new Rng(s.seed), functional);
  // The runtime tree mirrors DutOf<IO> by construction (both follow the manifest paths).
  const misses = new PortMisses(portPaths(model));
  const dut = buildHandles(model, sched, misses) as unknown as DutOf<IO>;
  if (s.wave) tb.startTrace(s.wave.file, s.wave);
  let passed = false;
  let coverageWriteSeconds = 0;
  try {
    const main = sched.spawn('test', () => s.fn(dut, tb));
    await sched.run(main);
    passed = true;
  } catch (err) {
    // `Cannot set properties of undefined` after a misspelt port: say which port.
    throw new RunFailed(misses.explain(err) ?? err, model.cycle);
  } finally {
    try {
      if (s.coverage) coverageWriteSeconds = writeCoverage(s, model, build.sourceDir, passed, functional);
    } catch (err) {
      // A failing run keeps its own error; a passing one fails here.
      if (passed) throw err;
      process.stderr.write(`coverage of the failed run not written: ${(err as Error).message}\n`);
    } finally {
      model.dispose();
    }
  }
  return { seed: s.seed, cycles: model.cycle, nativeCalls: sched.nativeCalls, built: build.built, clock: s.clock, coverageWriteSeconds };
}

/** The run's coverage folder (coverage/run-data.ts); returns the seconds it took. */
function writeCoverage<IO>(s: RunSetup<IO>, model: Model, sourceDir: string, passed: boolean, functional: FunctionalCoverage | undefined): number {
  const t0 = performance.now();
  const code = s.build?.coverage !== undefined;
  const meta = { top: s.design.manifest.top, seed: s.seed, passed, cycles: model.cycle, code, toggle: s.build?.coverage?.toggle === true, sourceDir, files: s.design.manifest.files };
  writeRunCoverage(s.coverage!.dir, meta, { writeCode: file => model.writeCoverage(file), functional: functional?.data() });
  return (performance.now() - t0) / 1000;
}

function envNumber(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new RangeError(`${name} must be a number, got ${raw}`);
  return n;
}

/** NICGEN_WAVE=FILE (.fst, or .vcd for a VCD build), NICGEN_WAVE_FROM / NICGEN_WAVE_TO (cycles). */
export function waveFromEnv(): ({ readonly file: string } & TraceOptions) | undefined {
  const file = process.env['NICGEN_WAVE'];
  if (!file) return undefined;
  const from = envNumber('NICGEN_WAVE_FROM');
  const to = envNumber('NICGEN_WAVE_TO');
  return { file, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

function picturesDir(o: TestOptions): string | undefined {
  const off = o.pictures === false || (o.pictures === undefined && process.env['NICGEN_PICTURES'] === '0');
  if (off) return undefined;
  return typeof o.pictures === 'string' ? o.pictures : process.env['NICGEN_FAILURE_DIR'] || path.join('out', 'failures');
}

export async function runTest<IO>(design: TypedDesign<IO>, fn: TestFn<IO> | GeneratorTestFn<IO>, options: TestOptions = {}): Promise<TestResult> {
  const seed = options.seed ?? envSeed() ?? randomSeed();
  const clock = new ClockTime(options.periodNs ?? envNumber('NICGEN_PERIOD_NS') ?? DEFAULT_PERIOD_NS);
  const given = options.wave ?? waveFromEnv();
  const wave = typeof given === 'string' ? { file: given } : given;
  const coverage = options.coverage ?? envCoverage(design.manifest.top, seed);
  const build = coverage?.code ? { ...options.build, coverage: { toggle: coverage.toggle === true } } : options.build;
  const setup: RunSetup<IO> = { design, fn, seed, clock, maxCycles: options.maxCycles ?? 1_000_000, wave, build, coverage };
  const manifest = design.manifest;
  try {
    const r = await runOnce(setup);
    if (wave) await writeDumpSavefile({ manifest, clock, dump: wave.file, dumped: dumpedCycles(wave, r.cycles) });
    return r;
  } catch (e) {
    if (!(e instanceof RunFailed)) throw e;
    throw await failure(setup, options, e);
  }
}

/** The cycles a wave window actually dumped in a run that ended at `end`. */
function dumpedCycles(w: TraceOptions, end: number): { from: number; to: number } {
  const from = w.from ?? 0;
  return { from, to: Math.max(from, Math.min(w.to ?? Infinity, end)) };
}

/** Turns a failed run into the TestFailure: window, replay commands, savefile, picture. */
async function failure<IO>(s: RunSetup<IO>, o: TestOptions, f: RunFailed): Promise<TestFailure> {
  const manifest = s.design.manifest;
  const hints = replayHints(o.replay, manifest.top);
  const causeCycle = causeCycleOf(f.error);
  const window = failureWindow(f.cycle, causeCycle);
  const message = f.error instanceof Error ? f.error.message : String(f.error);
  const watched = watchedSignals(manifest, message, f.error);
  const marker = { cycle: f.cycle, label: `failure, ${s.clock.at(f.cycle)}` };
  const cause = causeCycle === undefined ? undefined : { cycle: causeCycle, label: `cause, ${s.clock.at(causeCycle)}` };
  let waves: FailureDetails['waves'];
  if (s.wave) {
    const dumped = dumpedCycles(s.wave, f.cycle + 8);
    const savefile = await writeDumpSavefile({ manifest, clock: s.clock, dump: s.wave.file, dumped, marker, ...(cause ? { cause } : {}), highlight: watched });
    waves = { dump: s.wave.file, savefile };
  }
  const dir = picturesDir(o);
  const format = s.build?.trace ?? 'fst';
  const made = dir === undefined
    ? { note: 'pictures are off (NICGEN_PICTURES=0 or pictures: false)' }
    : await failureFiles({
      manifest, clock: s.clock, dir: path.join(dir, `${hints.label}-seed${s.seed}`), name: hints.name, seed: s.seed,
      cycle: f.cycle, message, window, marker, ...(cause ? { cause } : {}), watched, format,
      rerun: async w => {
        try {
          await runOnce({ ...s, wave: w, coverage: undefined });
          return { failed: false, cycle: -1, message: '' };
        } catch (e) {
          if (!(e instanceof RunFailed)) throw e;
          return { failed: true, cycle: e.cycle, message: e.error instanceof Error ? e.error.message : String(e.error) };
        }
      },
    });
  const details: FailureDetails = {
    clock: s.clock,
    replay: hints.command(s.seed),
    replayWithWaves: hints.withWaves(s.seed, `${hints.label}.${format}`, window.from, window.to),
    window,
    ...('files' in made && made.files ? { files: made.files } : {}),
    ...(made.note ? { filesNote: made.note } : {}),
    ...(waves ? { waves } : {}),
  };
  return new TestFailure(f.error, s.seed, f.cycle, details);
}
