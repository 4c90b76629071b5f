// One `nicgen sim` run as its own process, with a deadline.
//
// The child gets its own process group (detached) so a timeout or Ctrl-C can kill it *and*
// whatever it started (verilator, make, g++ while it builds a model) with one signal to the
// group. The price is that a terminal's Ctrl-C no longer reaches the children by itself:
// scripts/regress.ts forwards it through the abort signal.
//
// A run killed while it held a model-build lock leaves the lock file behind; sim/cache.ts
// treats a lock whose pid is gone as stale, so the next run takes it over.

import { spawn } from 'node:child_process';
import type { PlannedRun } from './plan.ts';
import { outcome, type RunResult } from './outcome.ts';

export interface SpawnOptions {
  /** Project root: where the runs start and what their relative paths mean. */
  readonly root: string;
  /** The nicgen executable (this package's bin/nicgen). */
  readonly bin: string;
  readonly timeoutSeconds: number;
  /** Aborting kills the run (recorded as an error). */
  readonly signal: AbortSignal;
  /** More `nicgen sim` arguments for this run (its coverage folder). */
  readonly extraArgs?: (run: PlannedRun) => readonly string[];
  /** More environment for this run (where its failure picture goes). */
  readonly extraEnv?: (run: PlannedRun) => Readonly<Record<string, string>>;
}

/** Output kept per stream: a runaway bench printing in a loop must not exhaust memory. */
const maxOutputChars = 1 << 20;
/** After SIGTERM, how long a run has to exit before SIGKILL. */
const graceMs = 3000;

export function simArgs(run: PlannedRun): string[] {
  return ['sim', run.top, '--test', run.test, '--seed', String(run.seed)];
}

function keepTail(text: string): string {
  return text.length > maxOutputChars ? `[... output cut to its last ${maxOutputChars} characters ...]\n${text.slice(-maxOutputChars)}` : text;
}

export function runSim(run: PlannedRun, o: SpawnOptions): Promise<RunResult> {
  return new Promise(resolve => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...(o.extraEnv?.(run) ?? {}) };
    // --seed already wins over NICGEN_SEED; dropping it keeps the logs free of a misleading value.
    delete env['NICGEN_SEED'];
    // The regression type-checked the benches once before the first run.
    env['NICGEN_TYPECHECK'] = '0';
    const t0 = performance.now();
    const child = spawn(o.bin, [...simArgs(run), ...(o.extraArgs?.(run) ?? [])], { cwd: o.root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '', output = '';
    let killedBecause: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let finished = false;

    const kill = (why: string): void => {
      if (killedBecause !== undefined || child.pid === undefined) return;
      killedBecause = why;
      const group = (sig: NodeJS.Signals): void => {
        try { process.kill(-child.pid!, sig); } catch { /* already gone */ }
      };
      group('SIGTERM');
      killTimer = setTimeout(() => group('SIGKILL'), graceMs);
    };
    const deadline = setTimeout(() => kill(`timed out after ${o.timeoutSeconds} s`), o.timeoutSeconds * 1000);
    const onAbort = (): void => kill('interrupted');
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (s: string) => { stdout = keepTail(stdout + s); output = keepTail(output + s); });
    child.stderr.on('data', (s: string) => { stderr = keepTail(stderr + s); output = keepTail(output + s); });

    // A failed spawn can report both 'error' and 'close'.
    const finish = (code: number | null, signal: NodeJS.Signals | null, spawnError?: Error): void => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      if (killTimer) clearTimeout(killTimer);
      o.signal.removeEventListener('abort', onAbort);
      if (spawnError) stderr += `${spawnError.message}\n`;
      const seconds = (performance.now() - t0) / 1000;
      resolve(outcome(run, { code, signal, stdout, stderr, output: spawnError ? output + stderr : output, seconds, killedBecause }));
    };
    child.on('error', err => finish(null, null, err));
    child.on('close', (code, signal) => finish(code, signal));
  });
}
