// The deterministic coroutine scheduler.
//
// Time only moves when every live coroutine waits on a trigger (an edge, a cycle count,
// a condition, a join). Coroutines resume one at a time, in the order they started
// waiting, so the scheduler always knows which task is running; that is what makes
// cancel() exact and lets it tell when all tasks are blocked without polling.
//
// Semantics (as in cocotb): inputs written after `await rising()` are applied at the next
// falling edge and sampled by the design at the next rising edge; outputs read after
// `await rising()` show the values just after that edge. When every waiting task waits
// only for a later rising edge (clockCycles(n), or a single task's rising()), the model
// runs all cycles up to the earliest one in a single native step(n) call: fast-forward.
// Trace windows and the cycle limit split such batches so they land exactly.

import type { Model } from '../../sim/model.ts';
import { CycleLimitError, DeadlockError, TimeoutError, TriggerUsageError } from './errors.ts';
import { Task, type TaskHost } from './task.ts';
import { nextFall, nthRise } from '../../sim/clocks.ts';
import { isTaskGenerator, Rising, Trigger, type TaskGenerator } from './triggers.ts';

type WaitKind = 'rise' | 'fall' | 'until' | 'join';

/** Something that resumes a task: a fired wait, a task start, a join hand-over. */
interface Runnable {
  readonly task: Task;
  /** Skipped unless the task's waitGen still equals this (it may have resumed meanwhile). */
  readonly gen: number;
  readonly resume: () => void;
  /** An edge loop's step: runs to its next wait synchronously, no promise involved. */
  readonly sync?: boolean;
}

/** A registered wait. A class with fixed fields (one hidden class, filled in by the
 *  promise executor). Each task keeps its last one and re-arms it for its next wait (a task
 *  waits for one trigger at a time, and a wait has left the wait list and the runnable queue
 *  by the time its task runs again), so waiting allocates only the promise. */
class Wait implements Runnable {
  readonly task: Task;
  gen: number;
  kind: WaitKind;
  /** rise: the rising edge number to reach; fall: the rising edge the fall precedes; until: deadline. */
  target: number;
  pred: (() => boolean) | undefined;
  what: string;
  since: number;
  /** Registration order (the scheduler's counter): waits fire in this order. */
  seq = 0;
  /** Resolves the task's wait promise (set by the executor), or an edge loop's step. */
  resume: () => void = noop;
  reject: (err: unknown) => void = noop;
  readonly sync: boolean;
  constructor(task: Task, kind: WaitKind, target: number, what: string, pred: (() => boolean) | undefined, since: number, sync = false) {
    this.sync = sync;
    this.task = task;
    this.gen = task.waitGen;
    this.kind = kind;
    this.target = target;
    this.what = what;
    this.pred = pred;
    this.since = since;
  }
}

const noop = (): void => {};

/** The wait whose promise is being created: the executor below fills in its resolvers. One
 *  constant executor instead of a closure per wait. */
let arming: Wait | undefined;
function armExecutor(resolve: () => void, reject: (err: unknown) => void): void {
  arming!.resume = resolve;
  arming!.reject = reject;
}

interface TraceWindow {
  readonly file: string;
  readonly from: number;
  readonly to: number;
  open: boolean;
}

const resolved = Promise.resolve();

/** Periods a failed run's dump is extended by (no value changes; see run()). */
const HOLD_AFTER_FAILURE = 8;

export interface SchedulerOptions {
  /** Fail when the test needs to go past this many cycles. */
  readonly maxCycles: number;
}

export class Scheduler implements TaskHost {
  readonly model: Model;
  private readonly maxCycles: number;
  /** Registered waits in registration order: the first `nWaits` slots (the array never
   *  shrinks; setting an array's length is a runtime call, and wake() runs every edge). */
  private readonly waits: (Wait | null)[] = [];
  private nWaits = 0;
  /** The next-edge list: waits for exactly the next rising edge (rising(), `yield Rising`, an
   *  edge loop's rise), the commonest by far, in registration order. They all fire at that
   *  edge, so they are neither scanned to find the next instant nor tested to wake: the edge
   *  hands the whole list to the runnable queue (merged with `waits` by registration order,
   *  so the wake order is what one list gave). Slots [0, nNext); `spare` is the other buffer. */
  private nextRise: (Wait | null)[] = [];
  private nNext = 0;
  private spare: (Wait | null)[] = [];
  /** Registration counter (Wait.seq). */
  private seq = 0;
  /** Scratch of wake(): the waits of `waits` that fire, and their runnables. */
  private readonly firedSeq: number[] = [];
  private readonly fired: (Runnable | undefined)[] = [];
  /** FIFO of tasks to resume in this instant: slots [head, tail) (no Array.shift, and no
   *  length changes: truncating the array every instant made every push grow it again). */
  private readonly runnable: (Runnable | undefined)[] = [];
  private head = 0;
  private tail = 0;
  private current: Task | null = null;
  /** Set while run() is in progress: the task it waits for and how it ends. */
  private main: Task | null = null;
  private settle: ((err?: { error: unknown }) => void) | null = null;

  private nextId = 0;
  /** True between a falling edge and the following rising edge. */
  private clockLow = false;
  private failure: { error: unknown } | null = null;
  private trace: TraceWindow | null = null;
  /** Native calls made, for tests of fast-forward. */
  nativeCalls = 0;
  private readonly dispatchNext = (): void => this.dispatch();

  constructor(model: Model, options: SchedulerOptions) {
    this.model = model;
    this.maxCycles = options.maxCycles;
  }

  get cycle(): number {
    return this.model.cycle;
  }

  /** The first error raised by a task or by the model, if any. */
  get failed(): unknown {
    return this.failure?.error;
  }

  // ---- tasks ------------------------------------------------------------------------

  /** Starts `fn` as a coroutine; it runs once the current task yields, in this cycle. An
   *  `fn` that returns a generator (a `function*`) makes a generator task (see stepGen). */
  spawn<T>(name: string, fn: () => Promise<T> | TaskGenerator<T>): Task<T> {
    const task = new Task<T>(this.nextId++, name, this);
    this.enqueue({ task, gen: task.waitGen, resume: () => this.start(task, fn) });
    return task;
  }

  private start<T>(task: Task<T>, fn: () => Promise<T> | TaskGenerator<T>): void {
    let p: Promise<T> | TaskGenerator<T>;
    try {
      p = fn();
    } catch (err) {
      this.finish(task, 'failed', undefined, err);
      return;
    }
    if (isTaskGenerator(p)) { this.startGen(task, p); return; }
    p.then(v => this.finish(task, 'done', v, undefined), (err: unknown) => this.finish(task, 'failed', undefined, err));
  }

  /**
   * A task that is exactly `for (;;) { await falling(); onFall(); await rising(); onRise(); }`
   * (same wake order, same failure handling) but runs its callbacks in place: no promise,
   * wait or microtask per edge. The bus models' clock phases run every cycle, so this is the
   * scheduler's hottest path.
   */
  spawnEdgeLoop(name: string, onFall: () => void, onRise: () => void): Task<never> {
    const task = new Task<never>(this.nextId++, name, this);
    // Its two waits are re-armed rather than allocated per edge: each is out of the wait
    // list and the runnable queue by the time it is armed again (it has fired and run).
    const fallWait = new Wait(task, 'fall', 0, 'falling()', undefined, 0, true);
    const riseWait = new Wait(task, 'rise', 0, 'rising()', undefined, 0, true);
    const armFall = (): void => this.arm(fallWait, this.model.cycle + (this.clockLow ? 2 : 1));
    fallWait.resume = () => { onFall(); this.arm(riseWait, this.model.cycle + 1); };
    riseWait.resume = () => { onRise(); armFall(); };
    this.enqueue({ task, gen: task.waitGen, resume: armFall, sync: true });
    return task;
  }

  // ---- generator tasks ----------------------------------------------------------------
  //
  // A generator task yields what it waits for; the scheduler registers the same wait record an
  // `await` would, and when it fires calls gen.next() in place (a sync runnable, as the edge
  // loops are): same wake order, deadlock, timeout and cycle-limit checks, no promise and no
  // microtask per wait. The microtask an async task needs before the next task may run (to
  // reach its `await`) is not needed: gen.next() returns only once the body has yielded.

  private startGen<T>(task: Task<T>, it: TaskGenerator<T>): void {
    task.isGenerator = true;
    const w = new Wait(task, 'rise', 0, 'rising()', undefined, 0, true);
    task.wait = w;
    w.resume = () => this.stepGen(task, it, w, undefined, undefined, false);
    w.reject = (err: unknown) => this.stepGen(task, it, w, undefined, err, true);
    this.stepGen(task, it, w, undefined, undefined, false);
  }

  /** Resumes the generator with `input` (or throws `err` into it) until it waits or ends. */
  private stepGen<T>(task: Task<T>, it: TaskGenerator<T>, w: Wait, input: unknown, err: unknown, threw: boolean): void {
    for (;;) {
      let r: IteratorResult<unknown, T>;
      try {
        r = threw ? it.throw(err) : it.next(input);
      } catch (e) {
        this.finish(task, 'failed', undefined, e);
        return;
      }
      if (r.done === true) { this.finish(task, 'done', r.value, undefined); return; }
      const y = r.value;
      const now = this.model.cycle;
      if (y === Rising) {   // the commonest wait by far: no kind dispatch
        this.armGen(w, 'rise', now + 1, now, 'rising()', undefined);
        return;
      }
      input = undefined;
      threw = false;
      if (y instanceof Trigger) {
        if (y.clock !== undefined && this.model.multiClock) {   // one clock of several: its edge's tick
          let target: number;
          try {
            target = this.clockTarget(y, now);
          } catch (e) {
            threw = true; err = e;
            continue;
          }
          if (target <= now) continue;
          this.armGen(w, 'rise', target, now, y.what, undefined);
          return;
        }
        if (y.clock !== undefined && y.clock !== this.model.layout.clock?.name) {
          threw = true; err = new TriggerUsageError(`${y.what}: ${y.clock} is not the clock of ${this.model.manifest.top}`);
          continue;
        }
        if (y.kind === 'rise') {
          if (y.n === 0) continue;
          this.armGen(w, 'rise', now + y.n, now, y.what, undefined);
          return;
        }
        if (y.kind === 'fall') {
          this.armGen(w, 'fall', now + (this.clockLow ? 2 : 1), now, y.what, undefined);
          return;
        }
        let ok: boolean;
        try {
          ok = y.pred!();
        } catch (e) {
          threw = true; err = e;
          continue;
        }
        if (ok) continue;
        this.armGen(w, 'until', now + y.n, now, y.what, y.pred);
        return;
      }
      if (y instanceof Task) {
        const t = y as Task<unknown>;
        if (t.state === 'done') { input = t.result; continue; }
        if (t.state === 'failed' || t.state === 'cancelled') { threw = true; err = t.state === 'failed' ? t.error : t.cancelledError(); continue; }
        if (t === task) { threw = true; err = new TriggerUsageError(`task ${task.name} cannot join itself`); continue; }
        t.joiners.push({
          task, gen: task.waitGen, sync: true,
          resume: () => { if (t.state === 'done') this.stepGen(task, it, w, t.result, undefined, false); else this.stepGen(task, it, w, undefined, t.error, true); },
          reject: (e: unknown) => this.stepGen(task, it, w, undefined, e, true),
        });
        this.block(task);
        return;
      }
      // A promise here is most likely an async helper's: its own misuse error (running()) has
      // failed the test already; keep its rejection from also being reported as unhandled.
      if (y instanceof Promise) y.catch(noop);
      threw = true;
      err = new TriggerUsageError(`generator task ${task.name} yielded ${y instanceof Promise ? 'a promise' : String(y)}: a generator task `
        + 'yields Rising, Falling, Cycles(n), Until(cond) or a task to join; run async code as its own task: yield tb.fork(async () => ...)');
    }
  }

  /** The tick a per-clock trigger of a design with several clocks wakes at (as ScheduledClock). */
  private clockTarget(y: Trigger, now: number): number {
    const s = this.model.clockSchedule(y.clock!);
    if (y.kind === 'fall') return nextFall(s, now);
    if (y.n === 0) return now;
    return Math.max(nthRise(s, now, y.n), now + 1);
  }

  private armGen(w: Wait, kind: WaitKind, target: number, now: number, what: string, pred: (() => boolean) | undefined): void {
    w.gen = w.task.waitGen;
    w.target = target;
    w.since = now;
    // Pointer fields only when they change (a store into an old object pays a write barrier).
    if (w.kind !== kind) w.kind = kind;
    if (w.what !== what) w.what = what;
    if (w.pred !== pred) w.pred = pred;
    this.pushWait(w);
    this.block(w.task);
  }

  private arm(w: Wait, target: number): void {
    w.gen = w.task.waitGen;
    w.target = target;
    w.since = this.model.cycle;
    this.pushWait(w);
    w.task.state = 'waiting';
  }

  private pushWait(w: Wait): void {
    w.seq = this.seq++;
    if (w.kind === 'rise' && w.target === this.model.cycle + 1) this.nextRise[this.nNext++] = w;
    else this.waits[this.nWaits++] = w;
  }

  /** True when some wait of the next-edge list is not stale (the first one, nearly always). */
  private nextLive(): boolean {
    const q = this.nextRise;
    for (let i = 0; i < this.nNext; i++) {
      const w = q[i]!;
      if (w.gen === w.task.waitGen && !w.task.done) return true;
    }
    return false;
  }

  /** Runs an edge loop's step for the current task; a throw fails the task as a rejected coroutine would. */
  private runSync(task: Task, step: () => void): void {
    task.yielded = true;   // it never yields through a microtask
    task.state = 'running';
    try {
      step();
    } catch (err) {
      this.finish(task, 'failed', undefined, err);
    }
  }

  private finish<T>(task: Task<T>, state: 'done' | 'failed', value: T | undefined, err: unknown): void {
    if (task.state === 'cancelled') return;
    task.state = state;
    task.result = value;
    task.error = err;
    if (state === 'failed' && !this.failure) this.failure = { error: err };
    for (const j of task.joiners) this.enqueue({ task: j.task, gen: j.gen, resume: j.resume, sync: j.sync === true });
    task.joiners.length = 0;
    this.yielded(task);
  }

  cancelTask(task: Task): void {
    if (task.done) return;
    if (task === this.current) throw new TriggerUsageError(`task ${task.name} cannot cancel itself; return from it instead`);
    task.state = 'cancelled';
    task.waitGen++;
    // Its queued resumptions are skipped by dispatch() (state 'cancelled').
    const err = task.cancelledError();
    for (const j of task.joiners) {
      this.enqueue({ task: j.task, gen: j.gen, resume: () => j.reject(err), sync: j.sync === true });
    }
    task.joiners.length = 0;
  }

  joinTask<T>(task: Task<T>): Promise<T> {
    if (task.state === 'done') return Promise.resolve(task.result as T);
    if (task.state === 'failed') return Promise.reject(task.error);
    if (task.state === 'cancelled') return Promise.reject(task.cancelledError());
    const me = this.running('join()');
    if (me === task) throw new TriggerUsageError(`task ${task.name} cannot join itself`);
    return new Promise<T>((resolve, reject) => {
      task.joiners.push({
        task: me, gen: me.waitGen, reject,
        resume: () => { if (task.state === 'done') resolve(task.result as T); else reject(task.error); },
      });
      this.block(me);
    });
  }

  // ---- triggers ---------------------------------------------------------------------

  private running(what: string): Task {
    const t = this.current;
    if (!t) {
      throw new TriggerUsageError(`${what} awaited outside a testbench coroutine; `
        + 'await triggers only inside the runTest callback or a function started with tb.fork()');
    }
    if (t.isGenerator) {
      // Most likely an async helper called from the generator: its promise would be dropped and
      // the wait lost, so this fails the test even if nobody looks at that promise.
      const err = new TriggerUsageError(`${what} awaited in generator task ${t.name}: a generator task yields `
        + 'its triggers (yield Rising, Falling, Cycles(n), Until(cond), or a task to join); run async code as '
        + 'its own task and join it: yield tb.fork(async () => ...)');
      if (!this.failure) this.failure = { error: err };
      throw err;
    }
    return t;
  }

  private addWait(kind: WaitKind, target: number, what: string, pred?: () => boolean): Promise<void> {
    const task = this.running(what);
    // Two waits registered before yielding (e.g. Promise.all of two triggers) would leave
    // one of them unresumed and the test hung: say so instead.
    if (task.state === 'waiting') {
      const pending = [...this.waits.slice(0, this.nWaits), ...this.nextRise.slice(0, this.nNext)].find(w => w!.task === task)?.what ?? 'another trigger';
      throw new TriggerUsageError(`task ${task.name} awaits ${what} while already waiting for ${pending}; `
        + 'a coroutine waits for one trigger at a time: fork a task per concurrent wait');
    }
    let w = task.wait as Wait | undefined;
    if (w === undefined) {
      w = new Wait(task, kind, target, what, pred, this.model.cycle);
      task.wait = w;
    } else {
      w.gen = task.waitGen; w.kind = kind; w.target = target; w.what = what; w.pred = pred; w.since = this.model.cycle;
    }
    arming = w;
    const p = new Promise<void>(armExecutor);
    arming = undefined;
    this.pushWait(w);
    this.block(task);
    return p;
  }

  /** Resolves after rising edge number `cycle` (now if already passed). */
  untilCycle(cycle: number): Promise<void> {
    return this.addWait('rise', Math.max(cycle, this.model.cycle + 1), 'rising()');
  }

  rising(): Promise<void> {
    return this.addWait('rise', this.model.cycle + 1, 'rising()');
  }

  falling(): Promise<void> {
    return this.addWait('fall', this.model.cycle + (this.clockLow ? 2 : 1), 'falling()');
  }

  /** After `n` rising edges. */
  cycles(n: number): Promise<void> {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`clockCycles: n must be a non-negative integer, got ${n}`);
    if (n === 0) return Promise.resolve();
    return this.addWait('rise', this.model.cycle + n, 'clockCycles()');
  }

  /** Checks `pred` now and after each rising edge; rejects with TimeoutError after `timeout` edges. */
  until(pred: () => boolean, timeout: number, what: string): Promise<void> {
    if (pred()) return Promise.resolve();
    return this.addWait('until', this.model.cycle + timeout, what, pred);
  }

  /** The running task registered a wait: let the next runnable task go after it yields. */
  private block(task: Task): void {
    task.state = 'waiting';
    this.yielded(task);
  }

  private yielded(task: Task): void {
    if (task !== this.current || task.yielded) return;
    task.yielded = true;
    // A microtask, not a direct call: the task must finish its synchronous part (reach its
    // `await`) before the next one runs, or triggers it creates would be misattributed.
    // (Promise.then rather than queueMicrotask, which pays for async_hooks bookkeeping.)
    void resolved.then(this.dispatchNext);
  }


  private dispatch(): void {
    for (;;) {
      const next = this.failure || this.head >= this.tail ? undefined : this.runnable[this.head++];
      if (!next) {
        this.endInstant();
        this.pump();
        return;
      }
      const t = next.task;
      if (t.state === 'cancelled' || t.waitGen !== next.gen) continue;
      this.current = t;
      t.waitGen++;
      if (next.sync === true) { this.runSync(t, next.resume); continue; }
      t.yielded = false;
      if (t.state !== 'done' && t.state !== 'failed') t.state = 'running';
      next.resume();
      return;
    }
  }

  /**
   * Runs the edge loops at the head of the queue in place. True when that empties the queue
   * (or a task failed): the instant is over without a single promise. False when a coroutine
   * is next; dispatch() takes over from there.
   */
  private drainSync(): boolean {
    for (;;) {
      const next = this.failure || this.head >= this.tail ? undefined : this.runnable[this.head];
      if (!next) { this.endInstant(); return true; }
      const t = next.task;
      if (t.state === 'cancelled' || t.waitGen !== next.gen) { this.head++; continue; }
      if (next.sync !== true) return false;
      this.head++;
      this.current = t;
      t.waitGen++;
      this.runSync(t, next.resume);
    }
  }

  private enqueue(r: Runnable): void {
    this.runnable[this.tail++] = r;
  }

  private endInstant(): void {
    const q = this.runnable;
    for (let i = 0; i < this.tail; i++) q[i] = undefined;   // let fired waits and closures go
    this.head = 0;
    this.tail = 0;
    this.current = null;
  }

  // ---- the loop ---------------------------------------------------------------------

  /** Runs until `main` ends; rejects with the first failure. */
  run(main: Task): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.main = main;
      this.settle = err => {
        this.settle = null;
        this.main = null;
        try {
          // A failed run's dump goes on for a few periods without changes (the clock stops), so
          // a viewer can show the failing cycle with room on its right.
          if (err && this.trace?.open) this.model.traceHold(HOLD_AFTER_FAILURE);
          this.closeTrace();
        } catch (closeErr) {
          if (!err) err = { error: closeErr };
        }
        if (err) reject(err.error); else resolve();
      };
      this.pump();
    });
  }

  /**
   * The loop of run(): instants, one after another, until a coroutine has to run. Then it
   * returns, and dispatch() calls it again when that instant is over. No promise per instant
   * (the loop used to await one): when only edge loops run, instants follow each other here
   * without a microtask; otherwise the coroutines' own promises carry it along.
   */
  private pump(): void {
    const finish = this.settle;
    if (!finish) return;
    try {
      for (;;) {
        if (this.head < this.tail && !this.drainSync()) {
          this.dispatch();
          return;
        }
        if (this.failure) { finish(this.failure); return; }
        if (this.main!.done) { finish(); return; }
        this.advance();
      }
    } catch (err) {
      finish({ error: err });
    }
  }

  /** Moves the clock to the next instant anyone waits for and queues the woken tasks. */
  private advance(): void {
    // With the clock low the next instant is the rising edge whatever anyone waits for: the
    // scan below is only needed to tell a deadlock, and one live wait is enough for that.
    if (this.clockLow) {
      if (!this.anyLive()) throw new DeadlockError(this.model.cycle, 'every coroutine waits for another one to end (join)');
      this.checkLimit(1);
      this.syncTrace();
      this.nativeCalls++;
      this.model.half(1);
      this.clockLow = false;
      this.wake('rise');
      return;
    }
    const next = this.model.cycle + 1;
    let fall = false;
    let minRise = Infinity;
    let until = false;
    let live = 0;
    for (let i = 0; i < this.nWaits; i++) {
      const w = this.waits[i]!;
      if (w.gen !== w.task.waitGen || w.task.done) continue;   // stale, dropped by wake()
      live++;
      if (w.kind === 'fall' && w.target === next) fall = true;
      else if (w.kind === 'until') until = true;
      if (w.kind === 'rise') minRise = Math.min(minRise, w.target);
      else minRise = Math.min(minRise, next);
    }
    if (this.nNext > 0 && (live > 0 || this.nextLive())) { live++; minRise = next; }
    if (live === 0) throw new DeadlockError(this.model.cycle, 'every coroutine waits for another one to end (join)');
    if (fall) {
      this.checkLimit(1);
      this.syncTrace();
      this.nativeCalls++;
      this.model.half(0);
      this.clockLow = true;
      this.wake('fall');
      return;
    }
    let n = until ? 1 : minRise - this.model.cycle;
    n = this.checkLimit(n);
    n = this.syncTrace(n);
    this.nativeCalls++;
    this.model.step(n);
    this.wake('rise');
  }

  /** True when some registered wait is not stale. */
  private anyLive(): boolean {
    if (this.nextLive()) return true;
    for (let i = 0; i < this.nWaits; i++) {
      const w = this.waits[i]!;
      if (w.gen === w.task.waitGen && !w.task.done) return true;
    }
    return false;
  }

  /** Clamps a batch to the cycle budget; fails when no cycle is left. */
  private checkLimit(n: number): number {
    const left = this.maxCycles - this.model.cycle;
    if (left <= 0) throw new CycleLimitError(this.maxCycles, this.model.cycle);
    return Math.min(n, left);
  }

  private wake(edge: 'rise' | 'fall'): void {
    const c = this.model.cycle;
    const waits = this.waits, n = this.nWaits;
    // Only a rising edge takes the next-edge list; it goes after those of `waits` that fire and
    // were registered before it (a merge by seq). With nothing else waiting, no test at all.
    const nNext = edge === 'rise' ? this.nNext : 0;
    const fired = this.fired, firedSeq = this.firedSeq;
    const direct = nNext === 0;   // nothing to merge: fire straight into the runnable queue
    let nFired = 0;
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const w = waits[i]!;
      if (w.gen !== w.task.waitGen || w.task.done) continue;   // stale: drop
      let r: Runnable | null = null;
      if (w.kind === 'rise') {
        if (edge === 'rise' && w.target <= c) r = w;
      } else if (w.kind === 'fall') {
        if (edge === 'fall' && w.target === c + 1) r = w;
      } else if (w.kind === 'until' && edge === 'rise') {
        let ok: boolean;
        try {
          ok = w.pred!();
        } catch (err) {
          ok = false;
          r = { task: w.task, gen: w.gen, resume: () => w.reject(err), sync: w.sync };
        }
        if (ok) r = w;
        else if (r === null && c >= w.target) {
          const err = new TimeoutError(w.what, w.target - w.since, w.since, c);
          r = { task: w.task, gen: w.gen, resume: () => w.reject(err), sync: w.sync };
        }
      }
      if (r !== null) {
        if (direct) this.enqueue(r);
        else { fired[nFired] = r; firedSeq[nFired++] = w.seq; }
        continue;
      }
      if (kept !== i) waits[kept] = w;   // (a store into an object array costs a write barrier)
      kept++;
    }
    for (let i = kept; i < n; i++) waits[i] = null;   // let fired waits go
    this.nWaits = kept;
    if (direct) return;
    // The list is swapped out first: the tasks it wakes register their next waits in the other.
    const q = this.nextRise;
    this.nextRise = this.spare;
    this.spare = q;
    this.nNext = 0;
    let f = 0;
    for (let i = 0; i < nNext; i++) {
      const w = q[i]!;
      q[i] = null;
      while (f < nFired && firedSeq[f]! < w.seq) { this.enqueue(fired[f]!); fired[f++] = undefined; }
      // Stale ones too: dispatch skips them, as it does any resumption whose task moved on.
      this.enqueue(w);
    }
    while (f < nFired) { this.enqueue(fired[f]!); fired[f++] = undefined; }
  }

  // ---- tracing ----------------------------------------------------------------------

  /** Dumps waves to `file` for rising edges from `from` up to `to` (cycle numbers). */
  startTrace(file: string, from: number, to: number): void {
    this.closeTrace();
    this.trace = { file, from, to, open: false };
    this.syncTrace();
  }

  stopTrace(): void {
    this.closeTrace();
  }

  /** Opens or closes the dump at window edges; returns `n` clamped to the next boundary. */
  private syncTrace(n = 1): number {
    const t = this.trace;
    if (!t) return n;
    const c = this.model.cycle;
    if (!t.open && c >= t.from && c < t.to) {
      this.model.traceOpen(t.file);
      t.open = true;
    } else if (t.open && c >= t.to) {
      this.closeTrace();
      return n;
    }
    if (!t.open && t.from > c) return Math.min(n, t.from - c);
    if (t.open) return Math.min(n, t.to - c);
    return n;
  }

  private closeTrace(): void {
    if (this.trace?.open) this.model.traceClose();
    this.trace = null;
  }
}
