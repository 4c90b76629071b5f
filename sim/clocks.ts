// Several clocks in one model: the model runs in ticks of a timebase, and every clock input
// follows a schedule of whole ticks (period, high time, phase). A model with one clock does
// not use any of this: its step toggles that clock once per cycle, as before.
//
// Level of clock i at tick t: low until its first rising edge, the first tick t >= 1 with
// (t + phase) mod period = 0 (tick period - phase), then high while (t + phase) mod period <
// high. So every clock starts low (no edge at the model's creation) and its first high phase
// is a whole one. The C++ step loop (wrapper.ts) and the JS edge arithmetic below use this one
// formula, so a coroutine waiting for the next rising edge of `rd_clk` wakes at exactly the
// tick the model raises it.
//
// One tick is two native half steps, as a cycle is with one clock: first the inputs written
// since the last tick are applied and settled with no clock moving (half a tick earlier), then
// every clock takes its level for tick t and the design is evaluated (at time t x the period a
// one-clock model's cycle lasts, 4 ns by default). So an input written after an edge of one
// clock is in place before the next edge of any clock.

export interface ClockSchedule {
  /** Ticks per clock period, >= 2. */
  readonly period: number;
  /** Ticks the clock is high in each period, 1..period-1 (default period / 2, rounded down). */
  readonly high: number;
  /** Ticks the schedule is shifted by, 0..period-1: the clock rises at ticks t with
   *  (t + phase) mod period = 0, the first at tick period - phase. */
  readonly phase: number;
}

export class ClockScheduleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClockScheduleError';
  }
}

/** Every clock's schedule until a test sets one: period 2, all in step (like one clock). */
export const defaultSchedule: ClockSchedule = { period: 2, high: 1, phase: 0 };

/** A complete, checked schedule from what a test gives. */
export function schedule(name: string, s: { period: number; high?: number; phase?: number }): ClockSchedule {
  const period = s.period;
  const high = s.high ?? Math.floor(period / 2);
  const phase = s.phase ?? 0;
  const whole = (v: number): boolean => Number.isSafeInteger(v);
  if (!whole(period) || period < 2 || period > 0x7fffffff) throw new ClockScheduleError(`clock ${name}: period must be a whole number of ticks >= 2, got ${period}`);
  if (!whole(high) || high < 1 || high >= period) throw new ClockScheduleError(`clock ${name}: high must be 1..${period - 1} ticks for period ${period}, got ${high}`);
  if (!whole(phase) || phase < 0 || phase >= period) throw new ClockScheduleError(`clock ${name}: phase must be 0..${period - 1} ticks for period ${period}, got ${phase}`);
  return { period, high, phase };
}

/** The clock's level at tick t. */
export function levelAt(s: ClockSchedule, t: number): 0 | 1 {
  const u = t + s.phase;
  return u >= s.period && u % s.period < s.high ? 1 : 0;
}

/** The first tick after `after` at which the clock rises. */
export function nextRise(s: ClockSchedule, after: number): number {
  return nextAt(s, Math.max(after + 1, 1), 0);
}

/** The first tick after `after` at which the clock falls (never before its first rise). */
export function nextFall(s: ClockSchedule, after: number): number {
  return nextAt(s, Math.max(after + 1, s.period - s.phase + s.high), s.high);
}

/** The tick of the n-th rising edge after `after` (n >= 1): one period apart. */
export function nthRise(s: ClockSchedule, after: number, n: number): number {
  return nextRise(s, after) + (n - 1) * s.period;
}

/** The first tick t >= from with (t + phase) mod period = residue. */
function nextAt(s: ClockSchedule, from: number, residue: number): number {
  const r = (from + s.phase) % s.period;
  return from + ((residue - r + s.period) % s.period);
}
