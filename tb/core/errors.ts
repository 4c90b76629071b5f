// Testbench failures. Each says what went wrong and at which cycle.

import type { ClockTime } from '../../sim/clock.ts';

/**
 * Failures that know when their cause began (a wait's start, the cycle a scoreboard record
 * was taken) carry it, so the suggested wave window and the failure picture start there
 * rather than a fixed distance before the failing cycle.
 */
export interface HasCauseCycle {
  readonly causeCycle: number;
}

/** The cycle a failure's cause began, if the error says. */
export function causeCycleOf(err: unknown): number | undefined {
  const c = (err as Partial<HasCauseCycle> | null)?.causeCycle;
  return typeof c === 'number' && Number.isInteger(c) && c >= 0 ? c : undefined;
}

/** `until(...)` or `withTimeout` ran out of cycles. */
export class TimeoutError extends Error implements HasCauseCycle {
  readonly cycle: number;
  /** The cycle the wait began. */
  readonly causeCycle: number;
  constructor(what: string, timeout: number, since: number, cycle: number) {
    super(`${what} timed out after ${timeout} cycles (waiting since cycle ${since}, now cycle ${cycle})`);
    this.name = 'TimeoutError';
    this.cycle = cycle;
    this.causeCycle = since;
  }
}

/** The test needed to run past its cycle budget. */
export class CycleLimitError extends Error {
  readonly cycle: number;
  constructor(limit: number, cycle: number) {
    super(`test exceeded its cycle limit of ${limit} (cycle ${cycle}); raise maxCycles if this is expected`);
    this.name = 'CycleLimitError';
    this.cycle = cycle;
  }
}

/** Joining a task that was cancelled. */
export class TaskCancelledError extends Error {
  constructor(task: string) {
    super(`task ${task} was cancelled`);
    this.name = 'TaskCancelledError';
  }
}

/** Every live coroutine waits on another one: nothing can ever happen. */
export class DeadlockError extends Error {
  constructor(cycle: number, detail: string) {
    super(`deadlock at cycle ${cycle}: ${detail}`);
    this.name = 'DeadlockError';
  }
}

/** A trigger used where the scheduler cannot honour it. */
export class TriggerUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TriggerUsageError';
  }
}

/** The files a failure re-run produced (tb/waves/failure.ts). */
export interface FailureFiles {
  /** The picture of the signals that matter around the failure, and a PNG of it. */
  readonly svg: string;
  readonly png: string | undefined;
  /** The re-run's wave dump of the window, its GTKWave savefile. */
  readonly dump: string;
  readonly savefile: string | undefined;
}

/** What a failure report carries besides the cause (built by runTest). */
export interface FailureDetails {
  readonly clock: ClockTime;
  /** Copy-paste commands that run the same test again, here (vitest or nicgen sim). */
  readonly replay: string;
  readonly replayWithWaves: string;
  /** The wave window that covers the cause: cycles [from, to). */
  readonly window: { readonly from: number; readonly to: number };
  /** The failure picture and the re-run's dump, when they were made. */
  readonly files?: FailureFiles;
  /** Why no picture was made (pictures off, no GTKWave, the re-run diverged ...). */
  readonly filesNote?: string;
  /** The test's own wave dump (--wave / NICGEN_WAVE) and its savefile, marker at the failure. */
  readonly waves?: { readonly dump: string; readonly savefile: string | undefined };
}

/** What `runTest` throws: the first failure, with the seed and how to replay it. */
export class TestFailure extends Error {
  readonly seed: number;
  readonly cycle: number;
  /** Time of the failing cycle in the dump, in ns. */
  readonly timeNs: number;
  readonly details: FailureDetails;
  constructor(cause: unknown, seed: number, cycle: number, details: FailureDetails) {
    const msg = details.clock.annotate(cause instanceof Error ? cause.message : String(cause));
    super(`${msg}\n${failureLines(seed, cycle, details).join('\n')}`, { cause });
    this.name = 'TestFailure';
    this.seed = seed;
    this.cycle = cycle;
    this.timeNs = details.clock.ns(cycle);
    this.details = details;
    if (cause instanceof Error && cause.stack) this.stack = `${this.name}: ${this.message}\nCaused by: ${cause.stack}`;
  }

  /** The failure picture (SVG) and the re-run's dump, when made. */
  get files(): FailureFiles | undefined {
    return this.details.files;
  }
}

function failureLines(seed: number, cycle: number, d: FailureDetails): string[] {
  const lines = [
    `  at ${d.clock.at(cycle)}; seed ${seed}`,
    `  replay: ${d.replay}`,
    `  replay with waves: ${d.replayWithWaves}`,
  ];
  if (d.files) {
    lines.push(`  picture: ${d.files.svg}${d.files.png ? ` (and ${d.files.png})` : ''}`);
    lines.push(`  waves of cycles ${d.window.from}..${d.window.to} (${d.clock.time(d.window.from)}..${d.clock.time(d.window.to)}): ${d.files.dump}${d.files.savefile ? `, savefile ${d.files.savefile}: nicgen wave ${d.files.dump}` : ''}`);
    if (d.filesNote) lines.push(`  note: ${d.clock.annotate(d.filesNote)}`);
  } else if (d.filesNote) {
    lines.push(`  no picture: ${d.clock.annotate(d.filesNote)}`);
  }
  if (d.waves) lines.push(`  your waves: ${d.waves.dump}${d.waves.savefile ? ` (savefile ${d.waves.savefile}, marker at the failure)` : ''}`);
  return lines;
}
