// Testbench failures. Each says what went wrong and at which cycle.

/** `until(...)` or `withTimeout` ran out of cycles. */
export class TimeoutError extends Error {
  readonly cycle: number;
  constructor(what: string, timeout: number, since: number, cycle: number) {
    super(`${what} timed out after ${timeout} cycles (waiting since cycle ${since}, now cycle ${cycle})`);
    this.name = 'TimeoutError';
    this.cycle = cycle;
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

/** What `runTest` throws: the first failure, with the seed to replay it. */
export class TestFailure extends Error {
  readonly seed: number;
  readonly cycle: number;
  constructor(cause: unknown, seed: number, cycle: number) {
    const msg = cause instanceof Error ? cause.message : String(cause);
    super(`${msg}\n  at cycle ${cycle}; seed ${seed}: replay with --seed ${seed} (NICGEN_SEED=${seed})`, { cause });
    this.name = 'TestFailure';
    this.seed = seed;
    this.cycle = cycle;
    if (cause instanceof Error && cause.stack) this.stack = `${this.name}: ${this.message}\nCaused by: ${cause.stack}`;
  }
}
