// Which runs a regression makes: the selected benches and, for each, its seeds.
//
// A seed is a hash of (seed base, top/test, index), not a draw from one RNG stream, so a
// bench's seed list depends only on the base and its own name: adding a bench to the
// registry, or narrowing a run with --top/--test, leaves every other bench's seeds as they
// were, and `--seed-base S` replays exactly the runs a previous regression made.

import { createHash } from 'node:crypto';
import { UsageError } from './args.ts';

export interface BenchId {
  readonly top: string;
  readonly test: string;
}

export interface PlannedRun extends BenchId {
  readonly seed: number;
  /** Position in the bench's seed list (0 is the run that builds the model). */
  readonly index: number;
  /** Position in the whole regression's plan (bench by bench, then seed index): what shards
   *  split on, what reports sort by, and what "first hit" means for coverage. */
  readonly order: number;
}

export interface BenchPlan extends BenchId {
  readonly runs: readonly PlannedRun[];
}

/** Tops left out unless named with --top (or --test top/name): benches of the tooling itself.
 *  `selftest/fail` fails on purpose and `selftest/long` runs 10 M cycles, so a default
 *  regression including them would always fail and mostly measure a counter. */
export const defaultExcludedTops: readonly string[] = ['selftest'];

/** Seeds are what `nicgen sim --seed` accepts: 0..2^32-1. */
export const maxSeed = 0xffffffff;

export function deriveSeed(base: number, bench: BenchId, index: number): number {
  const h = createHash('sha256').update(`nicgen-regress:${base}:${bench.top}/${bench.test}:${index}`).digest();
  return h.readUInt32BE(0);
}

/** A registry shaped like tb/benches/index.ts (top → test → anything). */
export type Registry = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * The benches matching the filters, in registry order. `--top` values must name tops and
 * `--test` values must name a test of some selected top (either `name` or `top/name`), so
 * a typo is an error rather than a silently empty regression.
 */
export function selectBenches(registry: Registry, tops: readonly string[], tests: readonly string[]): BenchId[] {
  const known = Object.keys(registry);
  for (const t of tops) {
    if (!registry[t]) throw new UsageError(`unknown top '${t}' (known tops: ${known.join(', ')})`);
  }
  const qualifiedTops = tests.filter(t => t.includes('/')).map(t => t.slice(0, t.indexOf('/')));
  const topSelected = (top: string): boolean =>
    tops.length > 0 ? tops.includes(top) : qualifiedTops.includes(top) || !defaultExcludedTops.includes(top);
  const testSelected = (b: BenchId): boolean =>
    tests.length === 0 || tests.includes(b.test) || tests.includes(`${b.top}/${b.test}`);

  const all: BenchId[] = [];
  for (const [top, group] of Object.entries(registry)) {
    if (!topSelected(top)) continue;
    for (const test of Object.keys(group)) all.push({ top, test });
  }
  for (const t of tests) {
    if (!all.some(b => b.test === t || `${b.top}/${b.test}` === t)) {
      const names = all.map(b => `${b.top}/${b.test}`);
      throw new UsageError(`--test '${t}' matches no selected bench (selected: ${names.join(', ') || 'none'})`);
    }
  }
  return all.filter(testSelected);
}

export function planRuns(benches: readonly BenchId[], seedsPerBench: number, seedBase: number): BenchPlan[] {
  return benches.map((b, k) => ({
    ...b,
    runs: Array.from({ length: seedsPerBench }, (_, index) => ({ ...b, index, seed: deriveSeed(seedBase, b, index), order: k * seedsPerBench + index })),
  }));
}

/** Shard `k` of `n` (1-based): the runs whose plan position is k-1 modulo n. Round robin over
 *  the plan, so every shard gets its share of each bench (long NIC benches and short library
 *  ones alike) and the shards together hold every run exactly once. Benches left without a
 *  run in this shard are dropped. */
export function shardPlan(plan: readonly BenchPlan[], shard: { readonly k: number; readonly n: number }): BenchPlan[] {
  return plan
    .map(b => ({ ...b, runs: b.runs.filter(r => r.order % shard.n === shard.k - 1) }))
    .filter(b => b.runs.length > 0);
}
