// What a generator task yields to wait (tb.fork(function* () { yield Rising; ... })).
//
// A generator task is resumed in place by the scheduler (gen.next()), with no promise and no
// microtask per wait: the cheap form for code that waits at every edge. The values below are
// plain records the scheduler reads when the generator yields; `Rising` and `Falling` are
// constants, so waiting for an edge allocates nothing.

import type { Task } from './task.ts';
import type { ClockHandle } from './types.ts';

export type TriggerKind = 'rise' | 'fall' | 'until';

export class Trigger {
  readonly kind: TriggerKind;
  /** rise: rising edges to wait (0: none); until: timeout in rising edges. */
  readonly n: number;
  readonly pred: (() => boolean) | undefined;
  /** Named in errors (timeouts, misuse). */
  readonly what: string;
  /** rise / fall: edges of this clock of a design with several (undefined: the testbench's). */
  readonly clock: string | undefined;
  constructor(kind: TriggerKind, n: number, what: string, pred?: () => boolean, clock?: string) {
    this.kind = kind;
    this.n = n;
    this.what = what;
    this.pred = pred;
    this.clock = clock;
  }
}

/** `yield Rising`: resumes after the next rising edge (as `await tb.rising()`). */
export const Rising = new Trigger('rise', 1, 'rising()');

/** `yield Falling`: resumes after the next falling edge (as `await tb.falling()`). */
export const Falling = new Trigger('fall', 0, 'falling()');

/** `yield Cycles(n)`: resumes after `n` rising edges (0: at once), as `await tb.clockCycles(n)`. */
export function Cycles(n: number): Trigger {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`Cycles: n must be a non-negative integer, got ${n}`);
  return n === 1 ? Rising : new Trigger('rise', n, 'clockCycles()');
}

/** Per clock handle: its rising and falling edge triggers (made once, so yielding allocates nothing). */
const edgesOf = new WeakMap<ClockHandle, { rising: Trigger; falling: Trigger }>();
function edges(clk: ClockHandle): { rising: Trigger; falling: Trigger } {
  let e = edgesOf.get(clk);
  if (!e) {
    e = { rising: new Trigger('rise', 1, `${clk.name}.rising()`, undefined, clk.name), falling: new Trigger('fall', 0, `${clk.name}.falling()`, undefined, clk.name) };
    edgesOf.set(clk, e);
  }
  return e;
}

/** `yield RisingOf(dut.m_clk)`: resumes after the next rising edge of that clock, as
 *  `await dut.m_clk.rising()` (with one clock, the same as `yield Rising`). */
export function RisingOf(clk: ClockHandle): Trigger {
  return edges(clk).rising;
}

/** `yield FallingOf(dut.m_clk)`: after the next falling edge of that clock (`await dut.m_clk.falling()`). */
export function FallingOf(clk: ClockHandle): Trigger {
  return edges(clk).falling;
}

/** `yield CyclesOf(dut.m_clk, n)`: after `n` rising edges of that clock (0: at once), as `await dut.m_clk.cycles(n)`. */
export function CyclesOf(clk: ClockHandle, n: number): Trigger {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`CyclesOf(${clk.name}): n must be a non-negative integer, got ${n}`);
  return n === 1 ? edges(clk).rising : new Trigger('rise', n, `${clk.name}.cycles()`, undefined, clk.name);
}

export interface UntilTriggerOptions {
  /** Rising edges to wait at most (default 10 000). */
  readonly timeout?: number;
  /** Named in the timeout message. */
  readonly what?: string;
}

/** `yield Until(cond)`: resumes once `cond()` holds, checked now and after every rising edge,
 *  as `await tb.until(cond)`; the TimeoutError is thrown at the `yield`. */
export function Until(cond: () => boolean, options: UntilTriggerOptions = {}): Trigger {
  const timeout = options.timeout ?? 10_000;
  if (!Number.isInteger(timeout) || timeout < 1) throw new RangeError(`Until: timeout must be a positive number of cycles, got ${timeout}`);
  return new Trigger('until', timeout, options.what ? `until(${options.what})` : 'until()', cond);
}

/** What a generator task may yield: a trigger, or a task to join (the `yield` evaluates to its
 *  result, or throws its error, as `await task.join()`). */
export type Yieldable = Trigger | Task<unknown>;

/** The body of a generator task. */
export type TaskGenerator<T> = Generator<Yieldable, T, unknown>;

/** True for the object a generator function returns (not a promise, not any iterator). */
export function isTaskGenerator(x: unknown): x is TaskGenerator<unknown> {
  return typeof x === 'object' && x !== null && Object.prototype.toString.call(x) === '[object Generator]';
}
