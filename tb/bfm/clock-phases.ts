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

//
// A design with several clocks (sim/clocks.ts) has one hub per clock: the sample phase is that
// clock's falling edge and the drive phase its rising edge, so a bus model of the write side
// of an asynchronous FIFO follows s_clk and one of the read side follows m_clk. Such a hub runs
// as a coroutine waiting for its clock's edges (the ticks in between cost nothing).

import { nextFall } from '../../sim/clocks.ts';
import type { ClockHandle, TestBench } from '../core/index.ts';
import { ProtocolError } from './protocol-error.ts';

type Callback = () => void;

const hubs = new WeakMap<TestBench, ClockPhases>();
/** Hubs of the clocks of designs with several, by clock name. */
const clockHubs = new WeakMap<TestBench, Map<string, ClockPhases>>();

/**
 * A sampler that only has work while a one-word signal is high (a valid) or while it says so
 * itself (`hold`, e.g. a checker in the middle of a stall). The hub tests the word and skips
 * the call otherwise: most channels of most buses are idle in most cycles.
 */
export class GatedSampler {
  /** Set by the owner: call it even while the word is zero. */
  hold = false;
  readonly word: Uint32Array | null;
  readonly fn: Callback;
  /** Stops the calls (replaced when registered). */
  stop: () => void = () => {};
  constructor(word: Uint32Array | null, fn: Callback) {
    this.word = word;
    this.fn = fn;
  }
}

/**
 * DUT outputs of one bus, watched for the clock they change with (designs with several clocks
 * only): an output the DUT drives from this hub's clock changes at its rising edges (or through
 * logic from inputs written then), never while it is high. One that changes between one tick
 * after the rising edge and the falling edge comes from another clock: the bus model was given
 * the wrong one.
 */
interface DrivenWatch {
  readonly bus: string;
  readonly handles: readonly { readonly name: string; readonly words: Uint32Array }[];
  /** The words as they were one tick after the rising edge. */
  readonly held: Uint32Array[];
  /** Handles from this index on are payload: judged only while `valid` is high. */
  readonly payloadFrom: number;
  /** The bus's valid (its words), when payload is given. */
  readonly valid: Uint32Array | null;
}

type WatchedHandle = { readonly name: string; readonly words?: Uint32Array; readonly dir?: string };

export class ClockPhases {
  readonly #tb: TestBench;
  /** Null: the model's only clock (the fast edge loop); else one clock of several. */
  readonly #clock: ClockHandle | null;
  /** Every sampler in registration order; plain callbacks have no word (always called). */
  #samplers: GatedSampler[] = [];
  #drivers: Callback[] = [];
  #driven: DrivenWatch[] = [];
  #started = false;

  private constructor(tb: TestBench, clock: ClockHandle | null) {
    this.#tb = tb;
    this.#clock = clock;
  }

  /**
   * The phases of this test bench (created on first use). A design with several clocks needs
   * the clock the bus belongs to (`{ clock: dut.m_clk }` in the bus models' options); with one
   * clock, naming it is allowed and changes nothing.
   */
  static of(tb: TestBench, clock?: ClockHandle): ClockPhases {
    if (tb.model.multiClock) {
      if (!clock) {
        throw new RangeError(`${tb.model.manifest.top} has several clocks (${tb.model.layout.clocks.map(c => c.name).join(', ')}): give the bus model the clock of its bus, e.g. { clock: dut.${tb.model.layout.clocks[0]!.name} }`);
      }
      let byName = clockHubs.get(tb);
      if (!byName) clockHubs.set(tb, byName = new Map());
      let h = byName.get(clock.name);
      if (!h) byName.set(clock.name, h = new ClockPhases(tb, clock));
      return h;
    }
    if (clock && clock.name !== tb.model.layout.clock?.name) throw new RangeError(`${clock.name} is not the clock of ${tb.model.manifest.top}`);
    let h = hubs.get(tb);
    if (!h) {
      h = new ClockPhases(tb, null);
      hubs.set(tb, h);
    }
    return h;
  }

  /** Calls `fn` at every falling edge; returns a function that unregisters it. */
  onSample(fn: Callback): () => void {
    return this.onSampleWhile(null, fn).stop;
  }

  /**
   * Calls `fn` at every falling edge at which `word[0]` is not zero or the returned handle's
   * `hold` is set (always, for a null word), in registration order with every other sampler.
   */
  onSampleWhile(word: Uint32Array | null, fn: Callback): GatedSampler {
    const s = new GatedSampler(word, fn);
    s.stop = () => { this.#samplers = this.#samplers.filter(x => x !== s); };
    this.#samplers.push(s);
    this.#start();
    return s;
  }

  /** Calls `fn` after every rising edge; returns a function that unregisters it. */
  onDrive(fn: Callback): () => void {
    this.#drivers.push(fn);
    this.#start();
    return () => { this.#drivers = this.#drivers.filter(f => f !== fn); };
  }

  /**
   * With several clocks: fails the test when one of `outputs` (DUT outputs of bus `bus`, with
   * their words) changes while this clock is high, i.e. the DUT drives them from another
   * clock (docs/testbench.md). `payload` outputs count only while `valid` is high at the
   * falling edge: a payload nobody may look at (an asynchronous FIFO's memory read while it is
   * empty) may change with the other clock. Nothing with one clock. Checked only on clocks high
   * for at least two ticks (the tick after the rising edge settles what was written at it).
   */
  checkDrivenBy(bus: string, outputs: readonly WatchedHandle[], payload: readonly WatchedHandle[] = [], valid?: WatchedHandle): void {
    if (this.#clock === null) return;
    const driven = (hs: readonly WatchedHandle[]): { name: string; words: Uint32Array }[] =>
      hs.filter((h): h is { name: string; words: Uint32Array; dir: string } => h.dir === 'out' && h.words !== undefined);
    const control = driven(outputs), data = valid?.words ? driven(payload) : [];
    const handles = [...control, ...data];
    if (handles.length === 0) return;
    this.#driven.push({ bus, handles, held: handles.map(h => new Uint32Array(h.words.length)), payloadFrom: control.length, valid: valid?.words ?? null });
    this.#start();
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    const sample = (): void => {
      const ss = this.#samplers;
      for (let i = 0; i < ss.length; i++) {
        const s = ss[i]!, w = s.word;
        if (w === null || w[0] !== 0 || s.hold) { const fn = s.fn; fn(); }
      }
    };
    const drive = (): void => {
      const fs = this.#drivers;
      for (let i = 0; i < fs.length; i++) fs[i]!();
    };
    const clock = this.#clock;
    if (clock === null) {
      // One task for all models; its callbacks run in place, without a promise per edge.
      this.#tb.everyEdge(sample, drive, 'bfm-clock-phases');
      return;
    }
    const tb = this.#tb;
    this.#tb.fork(async () => {
      for (;;) {
        await clock.falling();
        if (this.#driven.length > 0) this.#checkDriven(clock.name);
        sample();
        await clock.rising();
        drive();
        if (this.#driven.length > 0 && nextFall(tb.model.clockSchedule(clock.name), tb.cycle) > tb.cycle + 1) {
          await tb.clockCycles(1);   // one tick: what anyone wrote at the edge has settled
          this.#holdDriven();
        }
      }
    }, `bfm-clock-phases-${clock.name}`);
  }

  #holdDriven(): void {
    for (const d of this.#driven) for (let i = 0; i < d.handles.length; i++) d.held[i]!.set(d.handles[i]!.words);
    this.#heldAt = this.#tb.cycle;
  }

  /** Tick of the last #holdDriven (-1: none yet this high phase). */
  #heldAt = -1;

  #checkDriven(clock: string): void {
    const at = this.#heldAt;
    if (at < 0) return;
    this.#heldAt = -1;
    for (const d of this.#driven) {
      const payloadSeen = d.valid !== null && d.valid[0] !== 0;
      for (let i = 0; i < d.handles.length; i++) {
        if (i >= d.payloadFrom && !payloadSeen) break;
        const w = d.handles[i]!.words, h = d.held[i]!;
        for (let k = 0; k < w.length; k++) {
          if (w[k] === h[k]) continue;
          const others = this.#tb.model.layout.clocks.map(c => c.name).filter(n => n !== clock);
          throw new ProtocolError(d.bus, 'CLOCK_DOMAIN', this.#tb.cycle,
            `${d.handles[i]!.name} changed while ${clock} was high (from tick ${at} to its falling edge at tick ${this.#tb.cycle}), so the DUT does not drive it from ${clock} `
            + `(a register on another clock, or logic from an input written at another clock's edge); this bus model follows ${clock}: `
            + `give each bus model the clock of its bus, e.g. { clock: dut.${others[0] ?? clock} }`);
        }
      }
    }
  }
}
