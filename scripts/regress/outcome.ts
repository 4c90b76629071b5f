// Reading a finished `nicgen sim` process: its exit and its summary line become a RunResult.
// Kept apart from the spawning so the rules can be read (and tested) on their own.
//
// `nicgen sim` exits 0 with `PASS <label>: seed S, N cycles, W s wall (L s building|loading
// the model), ...` or 1 with `FAIL <label>: seed S, failed at cycle C, W s wall` and the
// failure message on stderr (cli/sim-command.ts). Anything else — a timeout, a signal, exit 2,
// exit 1 without a FAIL line (an exception outside the bench: build error, crash) — is an
// *error*: the bench did not get to say pass or fail.

import type { PlannedRun } from './plan.ts';

export type RunStatus = 'passed' | 'failed' | 'error';

export interface RunResult {
  readonly run: PlannedRun;
  readonly status: RunStatus;
  /** Wall time of the whole process, seconds. */
  readonly seconds: number;
  /** Cycles simulated (the failing cycle for a failure; 0 when unknown). */
  readonly cycles: number;
  /** Time spent simulating, seconds (wall less model build/load), when the run reports it:
   *  only a PASS line splits the two, and a FAIL line's wall time is mostly model loading
   *  for a short bench, which would make cycles/s meaningless. */
  readonly simSeconds: number | undefined;
  /** The cycle a failure names, for the wave window of its replay command. */
  readonly failCycle: number | undefined;
  /** One line: what failed or went wrong. Empty for a pass. */
  readonly headline: string;
  /** The failure output (stderr without progress lines); empty for a pass. */
  readonly detail: string;
  /** Everything the process wrote, stdout and stderr in arrival order. */
  readonly output: string;
}

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly output: string;
  readonly seconds: number;
  /** Set when the regression killed the process, saying why. */
  readonly killedBecause: string | undefined;
}

const passLine = /^PASS \S+: seed \d+, (\d+) cycles, ([0-9.]+) s wall \(([0-9.]+) s (?:building|loading) the model\), ([0-9.]+) (M |k |)cycles\/s/m;
const rateUnit: Readonly<Record<string, number>> = { 'M ': 1e6, 'k ': 1e3, '': 1 };
const failLine = /^FAIL \S+: seed \d+, failed at cycle (\d+).*$/m;

/** stderr without the periodic `<top>/<test>: cycle N, ...` progress lines and the
 *  `[sim] built <model>` notice of a run that built its model, so the first line left is
 *  what went wrong. */
export function failureText(run: PlannedRun, stderr: string): string {
  const progress = `${run.top}/${run.test}: cycle `;
  return stderr.split('\n').filter(l => !l.startsWith(progress) && !l.startsWith('[sim] ')).join('\n').trim();
}

function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join('\n');
}

export function outcome(run: PlannedRun, p: ProcessExit): RunResult {
  const base = { run, seconds: p.seconds, output: p.output };
  const pass = passLine.exec(p.stdout);
  if (!p.killedBecause && p.code === 0 && pass) {
    const cycles = Number(pass[1]);
    const rate = Number(pass[4]) * rateUnit[pass[5]!]!;
    // The printed rate has four significant digits; wall less load is rounded to 10 ms,
    // which is most of a short bench's simulation time.
    const simSeconds = rate > 0 ? cycles / rate : Math.max(Number(pass[2]) - Number(pass[3]), 0);
    return { ...base, status: 'passed', cycles, simSeconds, failCycle: undefined, headline: '', detail: '' };
  }
  const fail = failLine.exec(p.stdout);
  if (!p.killedBecause && p.code === 1 && fail) {
    const detail = failureText(run, p.stderr);
    const cycle = Number(fail[1]);
    return { ...base, status: 'failed', cycles: cycle, simSeconds: undefined, failCycle: cycle, headline: detail.split('\n')[0] || fail[0], detail: `${fail[0]}\n${detail}` };
  }
  const why = p.killedBecause
    ?? (p.signal ? `killed by ${p.signal}` : `exit code ${p.code}${p.code === 0 || p.code === 1 ? ' without a PASS/FAIL line' : ''}`);
  const text = failureText(run, p.stderr);
  const tail = lastLines(text, 40);
  // A crash's first stderr line (`Error: ...`) says more than its exit code.
  const headline = !p.killedBecause && text ? `${why}: ${text.split('\n')[0]}` : why;
  return { ...base, status: 'error', cycles: 0, simSeconds: undefined, failCycle: undefined, headline, detail: tail ? `${why}\n${tail}` : why };
}
