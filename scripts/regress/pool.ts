// Runs the planned runs `jobs` at a time, building each model only once.
//
// The first run of a bench builds (or loads) its Verilator model; the bench's other seeds
// are queued only when that run has finished. Why not simply start everything: sim/cache.ts
// already makes a second process that wants the same model wait on a lock file rather than
// compile it twice, but the waiters each hold a job slot while they poll — twenty seeds of
// one bench would fill the machine with processes sleeping on one build while other
// benches' models could have been compiling. Why not a serial warm-up pass: distinct
// models then build one after another, and the warm-up runs would be thrown away. This way
// the first runs (one per bench) build their distinct models in parallel, count as real
// runs, and at most one extra process per model ever waits (two benches of the same design,
// e.g. selftest/pass and selftest/fail on the skid buffer model, may still meet on the lock).

import type { BenchPlan, PlannedRun } from './plan.ts';
import type { RunResult } from './outcome.ts';

export interface PoolOptions {
  readonly jobs: number;
  /** Nothing new starts once aborted; runs in flight are left to `start` to stop. */
  readonly signal: AbortSignal;
  readonly start: (run: PlannedRun) => Promise<RunResult>;
  readonly onDone: (result: RunResult) => void;
}

/** Results of every run that started, in completion order. */
export function runPool(plan: readonly BenchPlan[], o: PoolOptions): Promise<RunResult[]> {
  const ready: PlannedRun[] = plan.flatMap(b => b.runs.slice(0, 1));
  const rest = new Map(plan.map(b => [b.runs[0], b.runs.slice(1)] as const));
  const results: RunResult[] = [];
  let running = 0;

  return new Promise((resolve, reject) => {
    const pump = (): void => {
      while (running < o.jobs && ready.length > 0 && !o.signal.aborted) {
        const run = ready.shift()!;
        running++;
        o.start(run).then(r => {
          running--;
          results.push(r);
          // Later seeds go behind the first runs still queued, so every model gets built
          // before any bench's seeds take all the slots.
          ready.push(...(rest.get(run) ?? []));
          o.onDone(r);
          pump();
        }, reject);
      }
      if (running === 0 && (ready.length === 0 || o.signal.aborted)) resolve(results);
    };
    pump();
  });
}
