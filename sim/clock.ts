// Real time for cycle numbers: one cycle is one clock period, so cycle N of a test is at
// N × period in the wave dump, and messages can print both (`cycle 424 (1696 ns)`).
//
// The period is given in nanoseconds (default 4 ns, 250 MHz). The model counts time in the
// design's time precision (1 ps under the emitted `timescale 1ns / 1ps`); both half cycles
// must be whole units of it, so the period must be an even number of precision units.

export const DEFAULT_PERIOD_NS = 4;

export class ClockPeriodError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'ClockPeriodError';
  }
}

/** Nanoseconds as a short exact string: 1696, 2713.6, 0.5 (no float noise). */
export function formatNs(ns: number): string {
  return String(Number(ns.toFixed(3)));
}

export class ClockTime {
  readonly periodNs: number;
  /** The period in picoseconds (an integer). */
  readonly periodPs: number;

  constructor(periodNs: number = DEFAULT_PERIOD_NS) {
    if (!(typeof periodNs === 'number' && Number.isFinite(periodNs) && periodNs > 0)) {
      throw new ClockPeriodError(`clock period must be a positive number of nanoseconds, got ${String(periodNs)}`);
    }
    const ps = Math.round(periodNs * 1000);
    if (Math.abs(ps - periodNs * 1000) > 1e-6 || ps % 2 !== 0) {
      throw new ClockPeriodError(`clock period ${periodNs} ns must be an even number of picoseconds (both half cycles whole ps), e.g. 4 or 6.4`);
    }
    this.periodNs = ps / 1000;
    this.periodPs = ps;
  }

  /** The clock frequency in MHz, for messages. */
  get mhz(): number {
    return 1e6 / this.periodPs;
  }

  /** Time of rising edge `cycle` in nanoseconds. */
  ns(cycle: number): number {
    return (cycle * this.periodPs) / 1000;
  }

  /** Time of rising edge `cycle` in whole nanoseconds, rounded down and exact for any cycle
   *  (a bigint, as pcap timestamps take it): the capture and the dump agree at every period. */
  nsFloor(cycle: number | bigint): bigint {
    return (BigInt(cycle) * BigInt(this.periodPs)) / 1000n;
  }

  /** Time of rising edge `cycle` in picoseconds (the unit of the dumps). */
  ps(cycle: number): number {
    return cycle * this.periodPs;
  }

  /** `cycle 424 (1696 ns)`. */
  at(cycle: number): string {
    return `cycle ${cycle} (${formatNs(this.ns(cycle))} ns)`;
  }

  /** `1696 ns`. */
  time(cycle: number): string {
    return `${formatNs(this.ns(cycle))} ns`;
  }

  /** The time of a cycle in a unit that keeps it short, for progress lines: `4.94 ms`. */
  short(cycle: number): string {
    const ns = this.ns(cycle);
    if (ns < 1e3) return `${formatNs(ns)} ns`;
    if (ns < 1e6) return `${(ns / 1e3).toFixed(2)} µs`;
    if (ns < 1e9) return `${(ns / 1e6).toFixed(2)} ms`;
    return `${(ns / 1e9).toFixed(3)} s`;
  }

  /**
   * Adds the dump time to every `cycle N` in a message that does not have it yet, so the
   * messages of bus checkers, scoreboards and benches (which only know cycle numbers) all
   * read `cycle 424 (1696 ns)` by the time a test failure is reported.
   */
  annotate(text: string): string {
    return text
      .replace(/\(cycle (\d+)\)/g, (_m, n: string) => `(cycle ${n}, ${this.time(Number(n))})`)
      .replace(/\bcycle (\d+)\b(?! \(\d[\d.]* ns\)|, \d[\d.]* ns)/g, (_m, n: string) => this.at(Number(n)));
  }

  /** Units of the design's time precision (power of ten, -12 = ps) per period; throws if not even. */
  unitsPerPeriod(precision: number): number {
    const exp = -12 - precision;
    const units = exp >= 0 ? this.periodPs * 10 ** exp : this.periodPs / 10 ** -exp;
    if (!Number.isSafeInteger(units) || units % 2 !== 0) {
      throw new ClockPeriodError(`clock period ${this.periodNs} ns is not an even number of the design's time precision (1e${precision} s)`);
    }
    return units;
  }
}
