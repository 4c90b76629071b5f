// Cycle-accurate models of the two FIFO flavours in gen/lib/fifo.ts, stated as queues.
// They predict the port values in every cycle (count, full, empty, m_valid, m_data), given
// this cycle's inputs (with `bypass` the output shows s_valid/s_data while nothing is
// stored), and move at every clock edge with the handshake inputs sampled there. The data
// order is checked separately against a plain queue of accepted words, so a wrong model
// cannot hide a reordering.

export interface FifoModel {
  /** Words stored (the `count` port; a word falling through is never stored). */
  readonly count: number;
  /** No push possible (`full`; s_ready is its inverse). */
  readonly full: boolean;
  /** The `empty` port: nothing to pop from storage (without bypass m_valid is its inverse). */
  readonly empty: boolean;
  /** Most words the FIFO stores. */
  readonly capacity: number;
  /** Words that fell through (taken in the cycle they were offered to an empty FIFO). */
  readonly fellThrough: number;
  /** The word on m_data while m_valid is high this cycle, else undefined. */
  shown(sValid: boolean, sData: bigint): bigint | undefined;
  /** One rising edge with the inputs sampled at it: whether s handshook, the word m took. */
  edge(sValid: boolean, sData: bigint, mReady: boolean): { accepted: boolean; popped: bigint | undefined };
}

/** `syncFifo`: flip-flop storage, a stored word is visible in the next cycle. */
export class RegFifoModel implements FifoModel {
  readonly capacity: number;
  readonly #bypass: boolean;
  readonly #q: bigint[] = [];
  fellThrough = 0;
  constructor(depth: number, bypass: boolean) { this.capacity = depth; this.#bypass = bypass; }
  get count(): number { return this.#q.length; }
  get full(): boolean { return this.#q.length === this.capacity; }
  get empty(): boolean { return this.#q.length === 0; }
  shown(sValid: boolean, sData: bigint): bigint | undefined {
    if (!this.empty) return this.#q[0];
    return this.#bypass && sValid ? sData : undefined;
  }
  edge(sValid: boolean, sData: bigint, mReady: boolean): { accepted: boolean; popped: bigint | undefined } {
    const accepted = sValid && !this.full;
    const popped = mReady ? this.shown(sValid, sData) : undefined;
    const passes = accepted && this.empty && popped !== undefined;
    if (passes) this.fellThrough++;
    else if (popped !== undefined) this.#q.shift();
    if (accepted && !passes) this.#q.push(sData);
    return { accepted, popped };
  }
}

/** `syncFifoRam`: `depth` words in RAM plus an output stage (the RAM's read register). A word
 *  pushed into the RAM reaches the output stage one edge later (the RAM read), so without
 *  bypass a word pushed into an empty FIFO is visible two cycles after the push; `full`
 *  means the RAM is full. With bypass a word with nothing ahead of it (RAM empty, output
 *  stage empty or being emptied) skips the RAM: it falls through, or else it is the output
 *  stage's word from the next cycle on. */
export class RamFifoModel implements FifoModel {
  readonly capacity: number;
  readonly #depth: number;
  readonly #bypass: boolean;
  readonly #ram: bigint[] = [];
  #out: bigint | undefined;
  fellThrough = 0;
  constructor(depth: number, bypass: boolean) { this.#depth = depth; this.capacity = depth + 1; this.#bypass = bypass; }
  get count(): number { return this.#ram.length + (this.#out === undefined ? 0 : 1); }
  get full(): boolean { return this.#ram.length === this.#depth; }
  /** The output stage is empty (the RTL's !out_valid; with bypass the RAM then is too). */
  get empty(): boolean { return this.#out === undefined; }
  shown(sValid: boolean, sData: bigint): bigint | undefined {
    if (this.#out !== undefined) return this.#out;
    return this.#bypass && sValid && this.count === 0 ? sData : undefined;
  }
  edge(sValid: boolean, sData: bigint, mReady: boolean): { accepted: boolean; popped: bigint | undefined } {
    const accepted = sValid && !this.full;
    const popped = mReady ? this.shown(sValid, sData) : undefined;
    const passes = accepted && this.#out === undefined && popped !== undefined;
    const outFree = this.#out === undefined || mReady;
    // The RTL's `load`: read ahead when the output stage is free or being emptied.
    const load = this.#ram.length > 0 && outFree;
    const direct = this.#bypass && accepted && !passes && this.#ram.length === 0 && outFree;
    if (passes) this.fellThrough++;
    if (load) this.#out = this.#ram.shift();
    else if (direct) this.#out = sData;
    else if (mReady) this.#out = undefined;
    if (accepted && !passes && !direct) this.#ram.push(sData);
    return { accepted, popped };
  }
}
