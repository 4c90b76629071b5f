// Seeded generators for tests, shared by every test folder (gen/ tests included): one
// generator (tb/core/rng.ts) and one rule for the seed — NICGEN_SEED when set, a random one
// otherwise — so any failing randomized test replays with `NICGEN_SEED=<seed>`.

import { onTestFailed } from 'vitest';
import { Rng, envSeed, randomSeed } from '../core/rng.ts';

export { Rng };

/** A generator and its seed, for tests that put the seed into their own messages. */
export function seededRandom(): { rng: Rng; seed: number } {
  const seed = envSeed() ?? randomSeed();
  return { rng: new Rng(seed), seed };
}

/** A generator for one test whose seed is printed when the test fails. Call inside a test. */
export function testRng(label: string): Rng {
  const { rng, seed } = seededRandom();
  onTestFailed(() => { console.error(`${label}: replay with NICGEN_SEED=${seed}`); });
  return rng;
}
