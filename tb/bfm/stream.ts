// Bus models for a plain ready/valid stream (`stream(T)` of gen/lib/interfaces.ts) with any
// payload shape, a struct included (its value is an object of fields):
//
//   const src = new StreamSource(tb, dut.s, { pause: 0.3 });          // random idle cycles
//   const sink = new StreamSink(tb, dut.m, { pause: 0.5 });           // random back-pressure
//   src.send({ op: 3, len: 100 });
//   const { data, cycle } = await sink.recv();
//   const mon = new StreamMonitor(tb, dut.dbg, { onTransfer: (d, c) => model.check(d, c) });
//
// The source holds valid and data until the handshake and never waits for ready before raising
// valid (the rule stream() documents); the sink's ready is random and independent of valid.
// Both attach the protocol checker (channel-checker.ts: VALID_STABLE, DATA_STABLE) unless
// `check: false`, so a DUT that drops valid or changes data while stalled fails at that cycle.
// In a design with several clocks, pass the stream's clock: `{ clock: dut.m_clk }`.

import type { PortValue } from '../../sim/values.ts';
import type { ClockHandle, TestBench } from '../core/index.ts';
import { watchChannel, type ChannelWatch } from './channel-checker.ts';
import { ChannelDriver } from './channel-driver.ts';
import { ChannelReceiver } from './channel-receiver.ts';
import { ClockPhases } from './clock-phases.ts';
import { pauser, type Pause } from './pause.ts';
import type { Readable } from './ports.ts';

/** A DUT's stream input (`stream(T).sink(m, 's')`, the handles `dut.s`): a StreamSource drives
 *  it. `V` is the payload's value: a number or bigint, or an object for a struct. */
export interface StreamInPorts<V extends PortValue> {
  readonly data: { value: V; readonly name: string; readonly words?: Uint32Array; readonly dir: 'in' };
  readonly valid: { value: number; readonly name: string; readonly words?: Uint32Array; readonly dir: 'in' };
  readonly ready: Readable & { readonly dir: 'out' };
}
/** A DUT's stream output (`stream(T).source(m, 'm')`): a StreamSink takes from it. */
export interface StreamOutPorts<V extends PortValue> {
  readonly data: Readable<V> & { readonly dir: 'out' };
  readonly valid: Readable & { readonly dir: 'out' };
  readonly ready: { value: number; readonly name: string; readonly words?: Uint32Array; readonly dir: 'in' };
}
/** Either end, read only: what a monitor watches. */
export interface StreamWatchPorts<V extends PortValue> {
  readonly data: Readable<V>;
  readonly valid: Readable;
  readonly ready: Readable;
}

export interface StreamOptions {
  /** Name in messages (default: the data port's prefix). */
  readonly name?: string;
  /** Source: idle cycles before each word; sink: ready low. Probability per cycle, or a function. Default 0. */
  readonly pause?: Pause;
  /** The stream's clock, needed in a design with several clocks. */
  readonly clock?: ClockHandle;
  /** Attach the protocol checker (default true). */
  readonly check?: boolean;
  /** The checker pauses while this reset is active (default: none). */
  readonly reset?: Readable;
  readonly resetActiveLow?: boolean;
}

/** A transfer as a monitor saw it. */
export interface StreamItem<V extends PortValue> {
  readonly data: V;
  /** The cycle (tick, with several clocks) of the edge that transferred it. */
  readonly cycle: number;
}

const prefix = (h: { readonly name: string }): string => h.name.replace(/_data$/, '');

function checker<V extends PortValue>(tb: TestBench, ports: StreamWatchPorts<V>, name: string, o: StreamOptions & { onTransfer?: (data: V, cycle: number) => void }): ChannelWatch {
  const onTransfer = o.onTransfer;
  return watchChannel(tb, { valid: ports.valid, ready: ports.ready, payload: { data: ports.data } }, name, {
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.reset ? { reset: o.reset, resetActiveLow: o.resetActiveLow ?? false } : {}),
    ...(onTransfer ? { onHandshake: (cycle: number) => onTransfer(ports.data.value, cycle) } : {}),
  });
}

/** Drives a DUT's stream input with queued words, holding each until the handshake. */
export class StreamSource<V extends PortValue> {
  readonly name: string;
  readonly watch: ChannelWatch | null;
  readonly stats = { transfers: 0 };
  readonly #tb: TestBench;
  readonly #driver: ChannelDriver<V>;

  constructor(tb: TestBench, ports: StreamInPorts<V>, options: StreamOptions = {}) {
    this.#tb = tb;
    this.name = options.name ?? prefix(ports.data);
    const rng = tb.rng.fork();
    this.#driver = new ChannelDriver<V>({ valid: ports.valid, ready: ports.ready }, v => { ports.data.value = v; }, pauser(options.pause, rng, `${this.name} pause`));
    this.watch = options.check === false ? null : checker(tb, ports, `${this.name} (source side)`, options);
    const phases = ClockPhases.of(tb, options.clock);
    phases.onSample(() => this.#driver.sample(tb.cycle));
    phases.onDrive(() => this.#driver.drive());
  }

  /** Queues a word; `done` runs at the cycle of its handshake. Returns at once (see wait()). */
  send(data: V, done?: (cycle: number) => void): void {
    this.#driver.push(data, (cycle) => {
      this.stats.transfers++;
      done?.(cycle);
    });
  }

  /** Words queued or on the bus. */
  get pending(): number {
    return this.#driver.pending;
  }

  /** Waits (in rising edges / ticks) until every queued word has been transferred. */
  async wait(timeout = 100_000): Promise<void> {
    await this.#tb.until(() => this.#driver.pending === 0, { timeout, what: `${this.name} source idle` });
  }
}

/** Takes a DUT's stream output with random back-pressure and keeps what it received. */
export class StreamSink<V extends PortValue> {
  readonly name: string;
  readonly watch: ChannelWatch | null;
  readonly #tb: TestBench;
  readonly #items: StreamItem<V>[] = [];
  #head = 0;
  received = 0;

  constructor(tb: TestBench, ports: StreamOutPorts<V>, options: StreamOptions & { readonly onTransfer?: (data: V, cycle: number) => void } = {}) {
    this.#tb = tb;
    this.name = options.name ?? prefix(ports.data);
    const rng = tb.rng.fork();
    const receiver = new ChannelReceiver<V>({ valid: ports.valid, ready: ports.ready }, () => ports.data.value, pauser(options.pause, rng, `${this.name} pause`));
    const take = (data: V, cycle: number): void => {
      this.received++;
      this.#items.push({ data, cycle });
      options.onTransfer?.(data, cycle);
    };
    const phases = ClockPhases.of(tb, options.clock);
    if (options.check === false) {
      this.watch = null;
      phases.onSample(() => {
        const d = receiver.sample();
        if (d !== undefined) take(d, tb.cycle);
      });
    } else {
      // The checker sees every handshake (the receiver only drives ready), so checking and
      // collecting read the same sample.
      this.watch = checker(tb, ports, this.name, { ...options, onTransfer: take });
    }
    phases.onDrive(() => receiver.drive());
  }

  /** Words received and not yet taken by recv(). */
  get available(): number {
    return this.#items.length - this.#head;
  }

  /** The next word received (waiting for it, at most `timeout` edges / ticks). */
  async recv(timeout = 100_000): Promise<StreamItem<V>> {
    if (this.available === 0) await this.#tb.until(() => this.available > 0, { timeout, what: `a word on ${this.name}` });
    return this.#items[this.#head++]!;
  }
}

/** Watches a stream without driving it (either end, or an internal stream brought out as
 *  ports): checks the protocol and reports every transfer. */
export class StreamMonitor<V extends PortValue> {
  readonly name: string;
  readonly watch: ChannelWatch;

  constructor(tb: TestBench, ports: StreamWatchPorts<V>, options: Omit<StreamOptions, 'pause' | 'check'> & { readonly onTransfer: (data: V, cycle: number) => void }) {
    this.name = options.name ?? prefix(ports.data);
    this.watch = checker(tb, ports, this.name, options);
  }
}
