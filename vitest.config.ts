import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One test file per CPU. vitest's own default is CPUs - 1, which on CI's 2-core machine ran the
// whole suite one file at a time (the files' durations summed to the run's wall time). Most
// files wait on a single-threaded Verilator model, so two at once use both cores.
// NICGEN_TEST_JOBS=<n> overrides it (1 gives the old serial run).
const jobsEnv = process.env['NICGEN_TEST_JOBS'] || undefined; // empty: the default, as NICGEN_SEED= is
if (jobsEnv !== undefined && !/^[1-9][0-9]*$/.test(jobsEnv)) throw new Error(`NICGEN_TEST_JOBS=${jobsEnv}: expected a whole number of test files at once, 1 or more`);
const jobs = jobsEnv ? Number(jobsEnv) : Math.max(availableParallelism(), 1);

export default defineConfig({
  test: {
    include: ['gen/**/*.test.ts', 'synth/**/*.test.ts', 'tb/tests/**/*.test.ts'],
    maxWorkers: jobs,
    testTimeout: 300000,
    // tsc over the whole project first (cached by file hashes): a type error stops the run.
    globalSetup: ['scripts/typecheck.ts'],
    // Tells tb/core which test runs, for replay hints (tb/core/where.ts).
    setupFiles: ['tb/vitest-setup.ts'],
  },
});
