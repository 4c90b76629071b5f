import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['gen/**/*.test.ts', 'synth/**/*.test.ts', 'tb/tests/**/*.test.ts'],
    testTimeout: 300000,
    // tsc over the whole project first (cached by file hashes): a type error stops the run.
    globalSetup: ['scripts/typecheck.ts'],
    // Tells tb/core which test runs, for replay hints (tb/core/where.ts).
    setupFiles: ['tb/vitest-setup.ts'],
  },
});
