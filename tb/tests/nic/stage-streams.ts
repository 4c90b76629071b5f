// The NIC stage benches' struct streams and event pulses on tb/bfm. tb/bfm models AXI-Stream
// and AXI; the NIC's internal command and header streams are one `data` struct with
// valid/ready, so these wrap tb/bfm's channel driver, receiver and checker for them. Every
// stream gets the ready/valid checker (VALID_STABLE, DATA_STABLE) on the side the DUT drives
// and on the side the bench drives. All run in tb/bfm's clock phases (clock-phases.ts): a
// cycle number here is the sample phase's, i.e. the handshake completes at the next edge.

import { AxiStreamSink, ChannelDriver, ChannelReceiver, ClockPhases, watchChannel, type AxisPacket, type ChannelWatch, type Pause, type Readable } from '../../bfm/index.ts';
import { pauser } from '../../bfm/pause.ts';
import type { TestBench } from '../../core/index.ts';

/** A DUT's struct stream input (`s_*`): the bench drives data and valid. */
export interface StructInPorts<T> {
  readonly data: { value: T; readonly name: string; readonly words?: Uint32Array };
  readonly valid: { value: number; readonly name: string; readonly words?: Uint32Array };
  readonly ready: Readable;
}

/** A DUT's struct stream output (`m_*`): the bench drives ready. */
export interface StructOutPorts<T> {
  readonly data: { readonly value: T; readonly name: string; readonly words?: Uint32Array };
  readonly valid: Readable;
  readonly ready: { value: number; readonly name: string; readonly words?: Uint32Array };
}

/** Drives a struct stream from a queue; an item may wait for a cycle (`at`), in order. */
export class StructSource<T> {
  readonly name: string;
  readonly watch: ChannelWatch;
  /** Items transferred, with the cycle of each handshake. */
  readonly sent: { value: T; cycle: number }[] = [];
  readonly #driver: ChannelDriver<T>;
  /** Items not yet handed to the driver, each with the first cycle it may be offered in. */
  readonly #later: { value: T; at: number }[] = [];
  readonly #tb: TestBench;

  constructor(tb: TestBench, ports: StructInPorts<T>, name: string, options: { pause?: Pause } = {}) {
    this.#tb = tb;
    this.name = name;
    const rng = tb.rng.fork();
    this.#driver = new ChannelDriver<T>({ valid: ports.valid, ready: ports.ready }, v => { ports.data.value = v; }, pauser(options.pause, rng, `${name} pause`));
    this.watch = watchChannel(tb, { valid: ports.valid, ready: ports.ready, payload: { data: ports.data as Readable } }, `${name} (source side)`);
    const phases = ClockPhases.of(tb);
    const taken = (cycle: number, value: T): void => { this.sent.push({ value, cycle }); };
    phases.onSample(() => this.#driver.sample(tb.cycle));
    phases.onDrive(() => {
      // Only the head may wait for its cycle: items leave in the order they were pushed.
      while (this.#later.length > 0 && this.#later[0]!.at <= tb.cycle) this.#driver.push(this.#later.shift()!.value, taken);
      this.#driver.drive();
    });
  }

  /** Queues an item; with `at`, it is offered no earlier than the drive phase of cycle `at`. */
  push(value: T, at = 0): void {
    this.#later.push({ value, at });
  }

  /** Items queued or on the bus. */
  get pending(): number {
    return this.#later.length + this.#driver.pending;
  }

  get idle(): boolean {
    return this.pending === 0;
  }

  async wait(timeout = 100_000): Promise<void> {
    await this.#tb.until(() => this.idle, { timeout, what: `${this.name} idle` });
  }

  /** Queues one item and waits until it is transferred (the queue must be empty before);
   *  returns the cycle of its handshake. For a bench that decides its next item on what
   *  has been transferred so far. Called from a task resumed by a rising edge, the item is
   *  offered in that cycle (tasks resume before the edge loop's drive phase), so transfers
   *  one after another are back to back. */
  async transfer(value: T, timeout = 100_000): Promise<number> {
    if (!this.idle) throw new Error(`${this.name}: transfer() while ${this.pending} items are queued`);
    this.push(value);
    await this.wait(timeout);
    return this.sent.at(-1)!.cycle;
  }
}

/** Takes a struct stream with random backpressure, keeping every item and its cycle. */
export class StructSink<T> {
  readonly name: string;
  readonly watch: ChannelWatch;
  readonly items: { value: T; cycle: number }[] = [];

  /** `room` holds ready low while false; `onItem` sees each item in the cycle it is taken. */
  constructor(tb: TestBench, ports: StructOutPorts<T>, name: string, options: { pause?: Pause; room?: () => boolean; onItem?: (value: T, cycle: number) => void } = {}) {
    this.name = name;
    const rng = tb.rng.fork();
    const rx = new ChannelReceiver<T>({ valid: ports.valid, ready: ports.ready }, () => ports.data.value, pauser(options.pause, rng, `${name} pause`), options.room);
    this.watch = watchChannel(tb, { valid: ports.valid, ready: ports.ready, payload: { data: ports.data as Readable } }, name);
    const phases = ClockPhases.of(tb);
    const onItem = options.onItem;
    phases.onSample(() => {
      const v = rx.sample();
      if (v === undefined) return;
      this.items.push({ value: v, cycle: tb.cycle });
      onItem?.(v, tb.cycle);
    });
    phases.onDrive(() => rx.drive());
  }
}

/** Cycles in which a one-cycle event output is high, with the value of its qualifier. */
export class PulseMonitor {
  readonly events: { cycle: number; value: number }[] = [];
  constructor(tb: TestBench, valid: Readable, value: Readable | null) {
    ClockPhases.of(tb).onSample(() => {
      if (Number(valid.value) !== 0) this.events.push({ cycle: tb.cycle, value: value ? Number(value.value) : 1 });
    });
  }
}

/** An AxiStreamSink's packets as they complete, with the sink's cycle of the last beat.
 *  (A coroutine on recv(): it sees a packet right after the edge that completed it.) */
export function onPackets(tb: TestBench, sink: AxiStreamSink, take: (p: AxisPacket) => void): void {
  tb.fork(async () => {
    // No deadline of its own: the test's cycle limit ends a run that stalls.
    for (;;) take(await sink.recv({ timeout: 1_000_000_000 }));
  }, `${sink.name} packets`);
}

/** Every packet an AxiStreamSink holds now, oldest first. */
export async function drain(sink: AxiStreamSink): Promise<AxisPacket[]> {
  const out: AxisPacket[] = [];
  while (sink.count > 0) out.push(await sink.recv());
  return out;
}
