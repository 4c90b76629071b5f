// The entry point for tests: build (cached) and load the model, wire handles, run the
// test coroutine under the scheduler, and turn any failure into a TestFailure that
// carries the cycle and the seed to replay it. With coverage on (options.coverage or
// NICGEN_COVERAGE), the run writes its code and functional coverage when it ends, pass or fail.

import { FunctionalCoverage } from '../../coverage/functional.ts';
import { writeRunCoverage } from '../../coverage/run-data.ts';
import type { BuildOptions, DesignSources } from '../../sim/build.ts';
import { Model } from '../../sim/model.ts';
import { envCoverage, type CoverageOptions } from './coverage-options.ts';
import { TestFailure } from './errors.ts';
import { buildHandles } from './handles.ts';
import { envSeed, randomSeed, Rng } from './rng.ts';
import { Scheduler } from './scheduler.ts';
import { TestBench, type TraceOptions } from './testbench.ts';
import type { DutOf } from './types.ts';

/** Design sources that also carry the IO type of their module, for typed handles. */
export type TypedDesign<IO> = DesignSources & { readonly __io?: IO };

/** Tags sources (e.g. hand-written Verilog + manifest) with the IO record type they implement. */
export function typedDesign<IO>(sources: DesignSources): TypedDesign<IO> {
  return sources;
}

export interface TestOptions {
  /** RNG seed; default `NICGEN_SEED`, else random. Printed on failure. */
  readonly seed?: number;
  /** Fail if the test needs more rising edges than this (default 1 000 000). */
  readonly maxCycles?: number;
  /** Dump waves for the whole test, or a window. */
  readonly wave?: string | ({ readonly file: string } & TraceOptions);
  readonly build?: BuildOptions;
  /** Collect coverage into this folder (default: NICGEN_COVERAGE, else none). */
  readonly coverage?: CoverageOptions;
}

export interface TestResult {
  readonly seed: number;
  readonly cycles: number;
  readonly nativeCalls: number;
  /** True when this call had to build the model (a cache miss). */
  readonly built: boolean;
  /** Wall time spent writing the run's coverage at the end (0 without coverage). */
  readonly coverageWriteSeconds: number;
}

export type TestFn<IO> = (dut: DutOf<IO>, tb: TestBench) => Promise<void>;

export async function runTest<IO>(design: TypedDesign<IO>, fn: TestFn<IO>, options: TestOptions = {}): Promise<TestResult> {
  const seed = options.seed ?? envSeed() ?? randomSeed();
  const coverage = options.coverage ?? envCoverage(design.manifest.top, seed);
  const code = coverage?.code === true;
  const toggle = code && coverage?.toggle === true;
  const { model, build } = await Model.load(design, code ? { ...options.build, coverage: { toggle } } : options.build);
  const sched = new Scheduler(model, { maxCycles: options.maxCycles ?? 1_000_000 });
  const functional = coverage ? new FunctionalCoverage() : undefined;
  const tb = new TestBench(model, sched, new Rng(seed), functional);
  // The runtime tree mirrors DutOf<IO> by construction (both follow the manifest paths).
  const dut = buildHandles(model, sched) as unknown as DutOf<IO>;
  if (options.wave) {
    const w = typeof options.wave === 'string' ? { file: options.wave } : options.wave;
    tb.startTrace(w.file, w);
  }
  let passed = false;
  let coverageWriteSeconds = 0;
  try {
    const main = sched.spawn('test', () => fn(dut, tb));
    await sched.run(main);
    passed = true;
  } catch (err) {
    throw new TestFailure(err, seed, model.cycle);
  } finally {
    try {
      if (coverage) {
        const t0 = performance.now();
        writeRunCoverage(coverage.dir, { top: design.manifest.top, seed, passed, cycles: model.cycle, code, toggle, sourceDir: build.sourceDir, files: design.manifest.files }, {
          writeCode: file => model.writeCoverage(file), functional: functional?.data(),
        });
        coverageWriteSeconds = (performance.now() - t0) / 1000;
      }
    } catch (err) {
      // A failing run keeps its own error; a passing one fails here.
      if (passed) throw err;
      process.stderr.write(`coverage of the failed run not written: ${(err as Error).message}\n`);
    } finally {
      model.dispose();
    }
  }
  return { seed, cycles: model.cycle, nativeCalls: sched.nativeCalls, built: build.built, coverageWriteSeconds };
}
