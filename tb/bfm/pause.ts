// When a bus model holds back: idle cycles before a valid, or ready low (backpressure).
// Random by default from the test's seeded Rng, so a failing run replays exactly.

import type { Rng } from '../core/index.ts';

/**
 * A probability in [0, 1] that the model pauses in a given cycle, or a function asked once
 * per cycle (true = pause), e.g. `() => tb.cycle % 4 !== 0` for a fixed pattern.
 */
export type Pause = number | ((rng: Rng) => boolean);

/** The pauser of a model that never pauses. Channels compare against it and skip the call
 *  (it has no side effects), since they ask every cycle. */
export const NEVER = (): boolean => false;

export function pauser(p: Pause | undefined, rng: Rng, what: string): () => boolean {
  if (p === undefined || p === 0) return NEVER;
  if (typeof p === 'function') return () => p(rng);
  if (!(p >= 0 && p < 1)) throw new RangeError(`${what}: pause probability must be in [0, 1), got ${p}`);
  return () => rng.bool(p);
}
