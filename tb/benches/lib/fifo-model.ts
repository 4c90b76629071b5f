// Cycle-accurate models of the two FIFO flavours in gen/lib/fifo.ts, stated as queues.
// They predict the port values after every clock edge (count, full, empty, m_valid,
// m_data), given the handshake inputs the design sampled at that edge. The data order is
// checked separately against a plain queue of accepted words, so a wrong model cannot
// hide a reordering.

export interface FifoModel {
  /** Words held (the `count` port). */
  readonly count: number;
  /** No push possible (`full`; s_ready is its inverse). */
  readonly full: boolean;
  /** Nothing to pop (`empty`; m_valid is its inverse). */
  readonly empty: boolean;
  /** The word on m_data while not empty. */
  readonly head: bigint | undefined;
  /** Most words the FIFO holds. */
  readonly capacity: number;
  /** One rising edge with the inputs sampled at it; returns the popped word, if any. */
  edge(sValid: boolean, sData: bigint, mReady: boolean): { pushed: boolean; popped: bigint | undefined };
}

/** `syncFifo`: flip-flop storage, a pushed word is visible in the next cycle. */
export class RegFifoModel implements FifoModel {
  readonly capacity: number;
  readonly #q: bigint[] = [];
  constructor(depth: number) { this.capacity = depth; }
  get count(): number { return this.#q.length; }
  get full(): boolean { return this.#q.length === this.capacity; }
  get empty(): boolean { return this.#q.length === 0; }
  get head(): bigint | undefined { return this.#q[0]; }
  edge(sValid: boolean, sData: bigint, mReady: boolean): { pushed: boolean; popped: bigint | undefined } {
    const pushed = sValid && !this.full;
    const popped = mReady && !this.empty ? this.#q.shift() : undefined;
    if (pushed) this.#q.push(sData);
    return { pushed, popped };
  }
}

/** `syncFifoRam`: `depth` words in RAM plus the RAM's read register as the output stage.
 *  A word pushed into an empty FIFO reaches the output register one edge later (the RAM
 *  read), so it is visible two cycles after the push; `full` means the RAM is full. */
export class RamFifoModel implements FifoModel {
  readonly capacity: number;
  readonly #depth: number;
  readonly #ram: bigint[] = [];
  #out: bigint | undefined;
  constructor(depth: number) { this.#depth = depth; this.capacity = depth + 1; }
  get count(): number { return this.#ram.length + (this.#out === undefined ? 0 : 1); }
  get full(): boolean { return this.#ram.length === this.#depth; }
  get empty(): boolean { return this.#out === undefined; }
  get head(): bigint | undefined { return this.#out; }
  edge(sValid: boolean, sData: bigint, mReady: boolean): { pushed: boolean; popped: bigint | undefined } {
    const popped = mReady ? this.#out : undefined;
    // The RTL's `load`: read ahead when the output register is free or being emptied.
    const load = this.#ram.length > 0 && (this.#out === undefined || mReady);
    const pushed = sValid && !this.full;
    if (load) this.#out = this.#ram.shift();
    else if (popped !== undefined) this.#out = undefined;
    if (pushed) this.#ram.push(sData);
    return { pushed, popped };
  }
}
