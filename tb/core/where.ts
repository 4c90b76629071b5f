// Where a test runs, so a failure says how to run it again *there*: under vitest the replay
// is `NICGEN_SEED=… npx vitest run FILE -t NAME`, under `nicgen sim` it is the nicgen
// command line. The vitest setup file (tb/vitest-setup.ts) records the running test before
// each one; the CLI passes its own hints through TestOptions.replay.

import * as path from 'node:path';

/** How to run one failing test again, with and without a wave window. */
export interface ReplayHints {
  /** The command that runs the same test with `seed`. */
  command(seed: number): string;
  /** The same with a wave dump of cycles [from, to) into `file`. */
  withWaves(seed: number, file: string, from: number, to: number): string;
  /** A short name for files: `selftest-fail`, `fifo-random-w8`. */
  readonly label: string;
  /** What runs, for titles: `selftest/fail`, `fifo.test.ts > random w8`. */
  readonly name: string;
}

export interface VitestTest {
  /** Absolute path of the test file. */
  readonly file: string;
  /** The full name as vitest's -t matches it: suite names and test name joined by spaces. */
  readonly fullName: string;
}

let current: VitestTest | undefined;

/** Called by the vitest setup file before each test (and with undefined after it). */
export function setVitestTest(t: VitestTest | undefined): void {
  current = t;
}

export function vitestTest(): VitestTest | undefined {
  return current;
}

/** Quotes a shell word when it needs it. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A file-name-safe short label. */
export function fileLabel(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '') || 'test';
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function vitestHints(t: VitestTest): ReplayHints {
  const rel = path.relative(process.cwd(), t.file) || t.file;
  const run = `npx vitest run ${shellQuote(rel)} -t ${shellQuote(`^${escapeRegex(t.fullName)}$`)}`;
  return {
    label: fileLabel(`${path.basename(t.file).replace(/\.test\.ts$/, '')}-${t.fullName}`),
    name: `${path.basename(t.file)} > ${t.fullName}`,
    command: seed => `NICGEN_SEED=${seed} ${run}`,
    withWaves: (seed, file, from, to) => `NICGEN_SEED=${seed} NICGEN_WAVE=${shellQuote(file)} NICGEN_WAVE_FROM=${from} NICGEN_WAVE_TO=${to} ${run}`,
  };
}

/** Outside vitest and the CLI (a script calling runTest): the environment variables. */
export function genericHints(label: string): ReplayHints {
  return {
    label: fileLabel(label),
    name: label,
    command: seed => `NICGEN_SEED=${seed} <the same command>`,
    withWaves: (seed, file, from, to) => `NICGEN_SEED=${seed} NICGEN_WAVE=${shellQuote(file)} NICGEN_WAVE_FROM=${from} NICGEN_WAVE_TO=${to} <the same command>`,
  };
}

/** The hints for a test started now: the caller's, else vitest's, else generic ones. */
export function replayHints(given: ReplayHints | undefined, fallbackLabel: string): ReplayHints {
  if (given) return given;
  const t = current;
  return t ? vitestHints(t) : genericHints(fallbackLabel);
}
