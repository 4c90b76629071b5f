// A bench's own measure of how far it is (messages completed of a total, say), for the
// `nicgen sim` progress bar. The bench registers a reader on its TestBench; the progress
// reporter (cli/sim-progress.ts) calls it when it redraws. Reading it must not change the
// run: it returns counters the bench keeps anyway.

import type { TestBench } from '../core/index.ts';

export interface BenchProgress {
  readonly done: number;
  readonly total: number;
  /** What is counted, plural: 'messages'. */
  readonly unit: string;
}

const readers = new WeakMap<TestBench, () => BenchProgress>();

/** Called by a bench: `read` reports its progress from now on. */
export function reportProgress(tb: TestBench, read: () => BenchProgress): void {
  readers.set(tb, read);
}

/** The bench's progress, or undefined when it reports none (then only cycles are shown). */
export function benchProgress(tb: TestBench): BenchProgress | undefined {
  return readers.get(tb)?.();
}
