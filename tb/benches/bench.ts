// A bench: a test function plus the design it runs on, packaged so a registry can hold
// benches of different designs side by side and run any of them by name (`nicgen sim`,
// vitest). The IO type is checked where the bench is defined and erased afterwards.

import type { TestBench, TestFn, TestOptions, TestResult, TypedDesign } from '../core/index.ts';
import { runTest } from '../core/index.ts';

export interface BenchSpec<IO> {
  /** One line for `nicgen sim --list`. */
  readonly about: string;
  /** Emitted on first run, not at import: listing benches should not elaborate every design. */
  readonly design: () => TypedDesign<IO>;
  readonly test: TestFn<IO>;
  /** Cycle budget when the caller gives none; a bench that hangs fails instead. */
  readonly maxCycles?: number;
}

export interface BenchRunOptions extends TestOptions {
  /** Called with the test bench before the bench body starts (the model is built by then). */
  readonly onStart?: (tb: TestBench) => void;
}

/** A bench with its IO type erased. */
export interface Bench {
  readonly about: string;
  readonly maxCycles: number;
  /** The emitted top module's name (builds the design on first call). */
  top(): string;
  run(options?: BenchRunOptions): Promise<TestResult>;
}

const defaultMaxCycles = 2_000_000;

export function defineBench<IO>(spec: BenchSpec<IO>): Bench {
  const maxCycles = spec.maxCycles ?? defaultMaxCycles;
  return {
    about: spec.about,
    maxCycles,
    top: () => spec.design().manifest.top,
    run: (options = {}) => {
      const { onStart, ...testOptions } = options;
      return runTest(spec.design(), async (dut, tb) => {
        onStart?.(tb);
        await spec.test(dut, tb);
      }, { maxCycles, ...testOptions });
    },
  };
}

/** Benches of one top, by test name. */
export type BenchGroup = Readonly<Record<string, Bench>>;

/** The `it` of vitest (or any runner with the same shape), so this file does not import vitest. */
export type CaseRegistrar = (name: string, fn: () => Promise<void>) => unknown;

/**
 * Registers one test case per bench of `group`: `describe('fifo', () => benchCases(it, benches))`.
 * The same benches run under `nicgen sim` and `nicgen regress` (listed in nicgen.config.ts), so a
 * bench is written once. runTest puts the seed and the replay hint into any failure; the seed of a
 * passing run is logged too, so a slow drift can be replayed.
 */
export function benchCases(it: CaseRegistrar, group: BenchGroup): void {
  for (const [name, bench] of Object.entries(group)) {
    it(name, async () => {
      const r = await bench.run();
      console.log(`${bench.top()} ${name}: seed ${r.seed}, ${r.cycles} cycles${r.built ? ' (model built)' : ''}`);
    });
  }
}
