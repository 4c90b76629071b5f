// What a test gets next to its DUT handles: time, coroutines, waits, reset, waves, RNG.

import type { FunctionalCoverage } from '../../coverage/functional.ts';
import type { Model } from '../../sim/model.ts';
import { PortValueError } from '../../sim/errors.ts';
import { clockHandle } from './handles.ts';
import type { Rng } from './rng.ts';
import type { Scheduler } from './scheduler.ts';
import type { Task } from './task.ts';
import type { TaskGenerator } from './triggers.ts';
import type { ClockHandle } from './types.ts';

export interface UntilOptions {
  /** Rising edges to wait at most (default 10 000). */
  readonly timeout?: number;
  /** Named in the timeout message. */
  readonly what?: string;
}

export interface TraceOptions {
  /** First cycle in the dump (default: now). */
  readonly from?: number;
  /** Cycle at which the dump closes (default: end of test). */
  readonly to?: number;
}

export interface ResetOptions {
  /** Reset input name (default: the default domain's reset in the manifest, else `rst`). */
  readonly port?: string;
  /** True for an active-low reset such as `rst_n` (default: as the manifest says for that port). */
  readonly activeLow?: boolean;
}

export class TestBench {
  readonly model: Model;
  readonly rng: Rng;
  /** The run's functional coverage when coverage is on (TestOptions.coverage, NICGEN_COVERAGE):
   *  collectors declare their cover groups here; undefined otherwise, so they cost nothing. */
  readonly coverage: FunctionalCoverage | undefined;
  private readonly sched: Scheduler;
  private forks = 0;

  constructor(model: Model, sched: Scheduler, rng: Rng, coverage?: FunctionalCoverage) {
    this.model = model;
    this.sched = sched;
    this.rng = rng;
    this.coverage = coverage;
  }

  get seed(): number {
    return this.rng.seed;
  }

  /** Rising edges so far. */
  get cycle(): number {
    return this.sched.cycle;
  }

  /** Native model calls so far (one per edge, or per batch when fast-forwarding). */
  get nativeCalls(): number {
    return this.sched.nativeCalls;
  }

  /**
   * Starts a coroutine in the current cycle, after the caller yields: an async function
   * (`await tb.rising()`), or a generator function (`function* () { yield Rising; }`), which
   * the scheduler resumes in place, without a promise per wait (docs/testbench.md).
   */
  fork<T>(fn: () => Promise<T> | TaskGenerator<T>, name = `fork${++this.forks}`): Task<T> {
    return this.sched.spawn(name, fn);
  }

  /**
   * Calls `onFalling` at every falling edge and `onRising` after every rising edge, from now
   * on: the task `for (;;) { await tb.falling(); onFalling(); await tb.rising(); onRising(); }`
   * would be, in the same order among the other tasks, but without a promise per edge. A
   * callback that throws ends the task and fails the test. For bus models (ClockPhases).
   */
  everyEdge(onFalling: () => void, onRising: () => void, name = `edges${++this.forks}`): Task<never> {
    return this.sched.spawnEdgeLoop(name, onFalling, onRising);
  }

  rising(): Promise<void> {
    return this.sched.rising();
  }

  falling(): Promise<void> {
    return this.sched.falling();
  }

  /** After `n` rising edges. */
  clockCycles(n: number): Promise<void> {
    return this.sched.cycles(n);
  }

  /** Resolves once `cond()` holds (checked now, then after every rising edge). */
  until(cond: () => boolean, options: UntilOptions = {}): Promise<void> {
    const timeout = options.timeout ?? 10_000;
    if (!Number.isInteger(timeout) || timeout < 1) throw new RangeError(`until: timeout must be a positive number of cycles, got ${timeout}`);
    return this.sched.until(cond, timeout, options.what ? `until(${options.what})` : 'until()');
  }

  /** Settles combinational logic so outputs reflect inputs written since the last edge. */
  settle(): void {
    this.model.eval();
  }

  /**
   * Holds reset for `cycles` rising edges, then releases it. In a design with several clocks,
   * edges of the clock of the reset's domain (as the manifest says; see setClocks).
   */
  async reset(cycles = 2, options: ResetOptions = {}): Promise<void> {
    const domains = this.model.manifest.domains ?? [];
    const name = options.port ?? domains.find(d => d.name === 'sync')?.reset ?? 'rst';
    const domain = domains.find(d => d.reset === name);
    const activeLow = options.activeLow ?? domain?.resetActive === 'low';
    const access = this.model.access(name);
    if (access.slot.port.dir !== 'input') throw new PortValueError(name, 'reset must be an input');
    access.write(activeLow ? 0 : 1);
    if (this.model.multiClock) {
      if (!domain?.clock) throw new PortValueError(name, `resets no clock domain of ${this.model.manifest.top}, so its cycles are not defined: hold it yourself for some ticks`);
      await this.clock(domain.clock).cycles(cycles);
    } else {
      await this.sched.cycles(cycles);
    }
    access.write(activeLow ? 1 : 0);
  }

  /** The handle of a clock input (as `dut.<clock>` is). */
  clock(name: string): ClockHandle {
    return clockHandle(this.model, this.sched, name);
  }

  /**
   * Schedules of a design with several clocks, in ticks (sim/clocks.ts): `tb.setClocks({
   * wr_clk: { period: 7 }, rd_clk: { period: 12, phase: 5 } })`. Call it before the first
   * wait; clocks not named keep period 2. `tb.cycle` and every cycle count of such a design
   * (waves, limits, failures) are ticks.
   */
  setClocks(spec: Readonly<Record<string, { period: number; high?: number; phase?: number }>>): void {
    this.model.setClockSchedules(spec);
  }

  /** Dumps waves (FST unless the model was built for VCD) for a window of cycles. */
  startTrace(file: string, options: TraceOptions = {}): void {
    this.sched.startTrace(file, options.from ?? this.cycle, options.to ?? Infinity);
  }

  stopTrace(): void {
    this.sched.stopTrace();
  }
}

/** cocotb's `ClockCycles(dut.clk, n)`. */
export function clockCycles(clk: ClockHandle, n: number): Promise<void> {
  return clk.cycles(n);
}
