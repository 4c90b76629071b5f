// Random traffic shapes shared by the stream benches.

import type { Rng } from '../../core/index.ts';

/** Probabilities that a source offers a word / a sink is ready in a cycle. */
export interface Rates {
  readonly valid: number;
  readonly ready: number;
}

/** Rates that change every 50..300 cycles between idle, trickle, bursty and flat-out on
 *  each side independently, so a FIFO fills up, drains, and sits at full and at empty. */
export class PhasedRates {
  readonly #rng: Rng;
  #left = 0;
  #rates: Rates = { valid: 1, ready: 1 };
  static readonly levels = [0, 0.1, 0.5, 0.9, 1] as const;

  constructor(rng: Rng) { this.#rng = rng; }

  /** The rates for this cycle. */
  next(): Rates {
    if (this.#left-- <= 0) {
      this.#left = this.#rng.int(50, 300);
      this.#rates = { valid: this.#rng.pick(PhasedRates.levels), ready: this.#rng.pick(PhasedRates.levels) };
    }
    return this.#rates;
  }
}

/** A ready/valid source that obeys the protocol: once it offers a word it keeps offering
 *  the same word until the handshake, and only idles between words. */
export class HoldingSource {
  readonly #rng: Rng;
  readonly #width: number;
  #pending: bigint | undefined;
  /** Words offered so far (the index of the pending one, while one is pending). */
  offered = 0;

  constructor(rng: Rng, width: number) {
    this.#rng = rng;
    this.#width = width;
  }

  /** The word to put on the bus this cycle, or undefined to idle; `p` = chance of a new word. */
  offer(p: number): bigint | undefined {
    if (this.#pending === undefined && p > 0 && this.#rng.bool(p)) {
      this.#pending = this.#rng.bigint(this.#width);
      this.offered++;
    }
    return this.#pending;
  }

  /** The pending word was taken at this edge. */
  accepted(): void {
    this.#pending = undefined;
  }
}
