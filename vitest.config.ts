import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['gen/**/*.test.ts', 'synth/**/*.test.ts', 'tb/tests/**/*.test.ts'],
    testTimeout: 300000,
  },
});
