// Reference model of rrArbiter and wrrArbiter (gen/lib/arbiter.ts), written from the
// documented behaviour rather than the RTL's bit tricks: the grant goes to the first
// requester after the last accepted one (wrapping); under WRR the holder keeps it for up
// to max(weight, 1) accepted grants in a row while it keeps asking. Plain RR is WRR with
// every weight 1.

export class RoundRobinModel {
  readonly n: number;
  /** Index of the last accepted grant; -1 after reset. */
  #last = -1;
  /** Accepted grants the holder has had in a row. */
  #used = 0;

  constructor(n: number) { this.n = n; }

  /** Whether the last holder keeps the grant for `req` under `weights`. */
  #stays(req: number, weights: readonly number[] | undefined): boolean {
    if (this.#last < 0 || !((req >> this.#last) & 1)) return false;
    // Documented: a weight of 0 counts as 1 (nobody can be configured into starvation).
    const w = weights ? Math.max(1, weights[this.#last]!) : 1;
    return this.#used < w;
  }

  /** The granted index for request bits `req`, or -1 when nobody asks. */
  pick(req: number, weights?: readonly number[]): number {
    if (req === 0) return -1;
    if (this.#stays(req, weights)) return this.#last;
    // After reset (#last = -1) the search starts at 0.
    for (let k = 0; k < this.n; k++) {
      const idx = (this.#last + 1 + k) % this.n;
      if ((req >> idx) & 1) return idx;
    }
    throw new Error('unreachable: req has a bit set');
  }

  /** A clock edge; `accept` = the parent used this cycle's grant. */
  edge(req: number, accept: boolean, weights?: readonly number[]): void {
    if (!accept) return;
    const g = this.pick(req, weights);
    this.#used = this.#stays(req, weights) ? this.#used + 1 : 1;
    this.#last = g;
  }
}
