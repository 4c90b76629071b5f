// What a generator task yields to wait (tb.fork(function* () { yield Rising; ... })).
//
// A generator task is resumed in place by the scheduler (gen.next()), with no promise and no
// microtask per wait: the cheap form for code that waits at every edge. The values below are
// plain records the scheduler reads when the generator yields; `Rising` and `Falling` are
// constants, so waiting for an edge allocates nothing.

import type { Task } from './task.ts';

export type TriggerKind = 'rise' | 'fall' | 'until';

export class Trigger {
  readonly kind: TriggerKind;
  /** rise: rising edges to wait (0: none); until: timeout in rising edges. */
  readonly n: number;
  readonly pred: (() => boolean) | undefined;
  /** Named in errors (timeouts, misuse). */
  readonly what: string;
  constructor(kind: TriggerKind, n: number, what: string, pred?: () => boolean) {
    this.kind = kind;
    this.n = n;
    this.what = what;
    this.pred = pred;
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
