// The two moments of a clock cycle every bus model works with, shared by all models of a
// test bench so they agree on them:
//
// - sample, at the falling edge: every driver has written its inputs for this cycle and the
//   model has settled, so valid/ready/payload read now are exactly what the design samples
//   at the next rising edge. Handshakes are decided here.
// - drive, just after the rising edge: models write their inputs for the next cycle.
//
// Reading right after the rising edge instead would see registered outputs already
// updated, and combinational outputs computed from the previous cycle's inputs; sampling
// at the falling edge avoids both without caring in which order the models run.
//
// One task (tb.everyEdge) runs the callbacks of all models, in registration order; a
// callback that throws ends that task and so fails the test with the error.

import type { TestBench } from '../core/index.ts';

type Callback = () => void;

const hubs = new WeakMap<TestBench, ClockPhases>();

export class ClockPhases {
  readonly #tb: TestBench;
  #samplers: Callback[] = [];
  #drivers: Callback[] = [];
  #started = false;

  private constructor(tb: TestBench) {
    this.#tb = tb;
  }

  /** The phases of this test bench (created on first use). */
  static of(tb: TestBench): ClockPhases {
    let h = hubs.get(tb);
    if (!h) {
      h = new ClockPhases(tb);
      hubs.set(tb, h);
    }
    return h;
  }

  /** Calls `fn` at every falling edge; returns a function that unregisters it. */
  onSample(fn: Callback): () => void {
    this.#samplers.push(fn);
    this.#start();
    return () => { this.#samplers = this.#samplers.filter(f => f !== fn); };
  }

  /** Calls `fn` after every rising edge; returns a function that unregisters it. */
  onDrive(fn: Callback): () => void {
    this.#drivers.push(fn);
    this.#start();
    return () => { this.#drivers = this.#drivers.filter(f => f !== fn); };
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    // One task for all models; its callbacks run in place, without a promise per edge.
    this.#tb.everyEdge(() => {
      const fs = this.#samplers;
      for (let i = 0; i < fs.length; i++) fs[i]!();
    }, () => {
      const fs = this.#drivers;
      for (let i = 0; i < fs.length; i++) fs[i]!();
    }, 'bfm-clock-phases');
  }
}
