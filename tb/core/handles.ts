// Runtime port handles over the model's word buffer, nested by each port's IO path
// (manifest `path`), matching the `DutOf<IO>` type.

import type { Model } from '../../sim/model.ts';
import type { Codec, PortValue } from '../../sim/values.ts';
import { codecFor } from '../../sim/values.ts';
import { nextFall, nextRise, nthRise } from '../../sim/clocks.ts';
import { PortValueError } from '../../sim/errors.ts';
import { PortMisses, recordingPrototype, strictHandlePrototype } from './port-names.ts';
import type { Scheduler } from './scheduler.ts';
import type { ClockHandle } from './types.ts';

class PortHandle {
  readonly name: string;
  /** The port's raw words in the model's buffer, LSB word first (see InputHandle.words). */
  readonly words: Uint32Array;
  protected readonly buf: Uint32Array;
  protected readonly offset: number;
  protected readonly codec: Codec;
  constructor(name: string, buf: Uint32Array, offset: number, words: number, codec: Codec) {
    this.name = name;
    this.buf = buf;
    this.offset = offset;
    this.codec = codec;
    this.words = buf.subarray(offset, offset + words);
  }
}

// A misspelt property of a port handle (`valu`) fails at once (port-names.ts).
Object.setPrototypeOf(PortHandle.prototype, strictHandlePrototype(Object.create(Object.prototype) as object, 'value, words, name, dir'));

export class InputPort extends PortHandle {
  readonly dir = 'in' as const;
  constructor(name: string, buf: Uint32Array, offset: number, words: number, codec: Codec) {
    super(name, buf, offset, words, codec);
    Object.preventExtensions(this);
  }
  get value(): PortValue {
    return this.codec.read(this.buf, this.offset);
  }
  set value(v: PortValue) {
    this.codec.write(this.buf, this.offset, v);
  }
}

export class OutputPort extends PortHandle {
  readonly dir = 'out' as const;
  constructor(name: string, buf: Uint32Array, offset: number, words: number, codec: Codec) {
    super(name, buf, offset, words, codec);
    Object.preventExtensions(this);
  }
  get value(): PortValue {
    return this.codec.read(this.buf, this.offset);
  }
  set value(_v: PortValue) {
    throw new PortValueError(this.name, 'is an output and cannot be written');
  }
}

/** An unsigned output of at most 32 bits: its value is its buffer word, read in place (the
 *  commonest port, read by monitors every cycle; the codec call cost more than the read). */
export class NarrowOutputPort extends OutputPort {
  override get value(): PortValue {
    return this.buf[this.offset]!;
  }
  override set value(_v: PortValue) {
    throw new PortValueError(this.name, 'is an output and cannot be written');
  }
}

export class Clock implements ClockHandle {
  readonly name: string;
  private readonly sched: Scheduler;
  constructor(name: string, sched: Scheduler) {
    this.name = name;
    this.sched = sched;
  }
  rising(): Promise<void> {
    return this.sched.rising();
  }
  falling(): Promise<void> {
    return this.sched.falling();
  }
  cycles(n: number): Promise<void> {
    return this.sched.cycles(n);
  }
}

/**
 * One clock of a model with several (sim/clocks.ts): its edges are ticks computed from its
 * schedule, so waiting for one is a wait for that tick, and the scheduler still runs every
 * idle stretch in one native call.
 */
export class ScheduledClock implements ClockHandle {
  readonly name: string;
  private readonly sched: Scheduler;
  private readonly model: Model;
  constructor(name: string, model: Model, sched: Scheduler) {
    this.name = name;
    this.model = model;
    this.sched = sched;
  }
  rising(): Promise<void> {
    return this.sched.untilCycle(nextRise(this.model.clockSchedule(this.name), this.model.cycle));
  }
  falling(): Promise<void> {
    return this.sched.untilCycle(nextFall(this.model.clockSchedule(this.name), this.model.cycle));
  }
  cycles(n: number): Promise<void> {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`${this.name}.cycles: n must be a non-negative integer, got ${n}`);
    if (n === 0) return Promise.resolve();
    return this.sched.untilCycle(nthRise(this.model.clockSchedule(this.name), this.model.cycle, n));
  }
}

/** The handle of clock input `name`: the model's only clock, or one of several. */
export function clockHandle(model: Model, sched: Scheduler, name: string): Clock | ScheduledClock {
  if (model.multiClock) {
    model.clockSchedule(name); // throws for a name that is not a clock
    return new ScheduledClock(name, model, sched);
  }
  if (model.layout.clock?.name !== name) throw new PortValueError(name, `is not the clock of ${model.manifest.top}`);
  return new Clock(name, sched);
}

export type AnyHandle = InputPort | OutputPort | Clock | ScheduledClock;
export interface HandleTree { [key: string]: AnyHandle | HandleTree }

/** Every port's IO path as a test writes it: `m_len.ready`. */
export function portPaths(model: Model): string[] {
  return model.manifest.ports.map(p => (p.path.length > 0 ? p.path : [p.name]).join('.'));
}

/**
 * Builds the nested handle object for all ports of the model. Names the tree does not have
 * are recorded in `misses` (port-names.ts), which runTest uses to explain a failure.
 */
export function buildHandles(model: Model, sched: Scheduler, misses?: PortMisses): HandleTree {
  const recorder = misses ?? new PortMisses(portPaths(model));
  const node0 = (at: string): HandleTree => Object.create(recordingPrototype(at, recorder)) as HandleTree;
  const root: HandleTree = node0('dut');
  for (const port of model.manifest.ports) {
    const parts = port.path.length > 0 ? port.path : [port.name];
    let node = root;
    let at = 'dut';
    for (const p of parts.slice(0, -1)) {
      at = `${at}.${p}`;
      const next = Object.hasOwn(node, p) ? node[p] : undefined;
      if (next === undefined) node = node[p] = node0(at);
      else if (next instanceof PortHandle || next instanceof Clock || next instanceof ScheduledClock) throw new PortValueError(port.name, `path ${parts.join('.')} collides with port ${next.name}`);
      else node = next;
    }
    const leaf = parts[parts.length - 1]!;
    if (model.layout.clocks.includes(port)) {
      node[leaf] = clockHandle(model, sched, port.name);
      continue;
    }
    const slot = model.layout.byName.get(port.name)!;
    const codec = codecFor(port.name, port.shape);
    const narrow = (port.shape.kind === 'uint' || port.shape.kind === 'enum') && port.width <= 32;
    node[leaf] = port.dir === 'input'
      ? new InputPort(port.name, model.buffer, slot.offset, slot.words, codec)
      : narrow ? new NarrowOutputPort(port.name, model.buffer, slot.offset, slot.words, codec)
        : new OutputPort(port.name, model.buffer, slot.offset, slot.words, codec);
  }
  return root;
}
