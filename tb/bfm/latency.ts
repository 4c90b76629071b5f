// How long a model takes to answer a request: a fixed part plus a uniformly random part,
// drawn per request from the model's seeded Rng.

import type { Rng } from '../core/index.ts';

/** Cycles: a number (fixed), or `{ fixed, random }` for fixed + U[0, random]. */
export type Latency = number | { readonly fixed?: number; readonly random?: number };

export function latencyOf(l: Latency | undefined, rng: Rng, what: string): () => number {
  const fixed = typeof l === 'number' ? l : l?.fixed ?? 0;
  const random = typeof l === 'number' ? 0 : l?.random ?? 0;
  if (!Number.isInteger(fixed) || fixed < 0 || !Number.isInteger(random) || random < 0) {
    throw new RangeError(`${what}: latency must be whole non-negative cycles, got ${JSON.stringify(l)}`);
  }
  return random === 0 ? () => fixed : () => fixed + rng.int(0, random);
}
