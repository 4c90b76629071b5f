// A coroutine run by the scheduler: an async function or a generator, plus its bookkeeping.

import { TaskCancelledError } from './errors.ts';

export type TaskState = 'runnable' | 'running' | 'waiting' | 'done' | 'failed' | 'cancelled';

export interface Joiner {
  readonly task: Task;
  /** The joiner's waitGen when it started waiting (stale if it resumed since). */
  readonly gen: number;
  readonly resume: () => void;
  readonly reject: (err: unknown) => void;
  /** The joiner is a generator task: resumed in place, not through a promise. */
  readonly sync?: boolean;
}

/** The scheduler side of a task (kept as an interface so Task stays covariant in T). */
export interface TaskHost {
  cancelTask(task: Task): void;
  joinTask<T>(task: Task<T>): Promise<T>;
}

export class Task<T = unknown> {
  readonly id: number;
  readonly name: string;
  state: TaskState = 'runnable';
  /** Bumped whenever the task resumes: waits registered under an older value are stale. */
  waitGen = 0;
  /** Set once the running task has registered a wait (or ended) in its current run. */
  yielded = false;
  result: T | undefined;
  error: unknown;
  /** Tasks blocked in `join()` on this one, resumed when it ends. */
  readonly joiners: Joiner[] = [];
  /** The scheduler's wait record for this task, re-armed for each trigger it awaits. */
  wait: object | undefined = undefined;
  /** Its body is a generator (yields triggers, resumed in place) rather than an async function. */
  isGenerator = false;
  private readonly host: TaskHost;

  constructor(id: number, name: string, host: TaskHost) {
    this.id = id;
    this.name = name;
    this.host = host;
  }

  get done(): boolean {
    return this.state === 'done' || this.state === 'failed' || this.state === 'cancelled';
  }

  /** Waits for the task to end and returns its result; rejects if it was cancelled. */
  join(): Promise<T> {
    return this.host.joinTask(this);
  }

  /** Stops the task: its pending wait never resumes (finally blocks do not run). */
  cancel(): void {
    this.host.cancelTask(this);
  }

  cancelledError(): TaskCancelledError {
    return new TaskCancelledError(this.name);
  }
}
