// `nicgen sim <top> --test <name>`: runs one bench of the project's registry (the `benches`
// of nicgen.config.ts; here tb/benches/index.ts) on its Verilator model, with progress on
// stderr and a one-line summary. Exit codes: 0 pass,
// 1 the bench failed (message with seed and replay command), 2 misuse (unknown top/test).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { ClockTime } from '../sim/clock.ts';
import type { Bench, BenchGroup } from '../tb/benches/index.ts';
import { envSeed, randomSeed, TestFailure, type TestOptions } from '../tb/core/index.ts';
import { benchHints } from '../tb/benches/failure-pictures.ts';
import { currentProject } from './config.ts';
import { printRunCoverage } from './coverage-print.ts';
import { formatRate, SimProgress, type ProgressStream } from './sim-progress.ts';
import { checkSources, describeCheck } from './source-check.ts';
import { UsageError } from './usage-error.ts';

export interface SimArgs {
  readonly top: string | undefined;
  readonly test: string | undefined;
  readonly list: boolean;
  readonly seed: number | undefined;
  readonly wave: string | undefined;
  readonly from: number | undefined;
  readonly to: number | undefined;
  readonly maxCycles: number | undefined;
  /** Capture file for benches with a link (sets NICGEN_PCAP; others ignore it). */
  readonly pcap?: string | undefined;
  /** Clock period in ns (default 4: cycle N is at N x 4 ns in the dump). */
  readonly periodNs?: number | undefined;
  /** False: no failure re-run and picture. */
  readonly pictures?: boolean | undefined;
  /** Verilator code coverage (the model's coverage variant) and functional coverage. */
  readonly coverage?: boolean;
  /** Toggle coverage too (implies coverage). */
  readonly coverageToggle?: boolean;
  /** The run's coverage folder (default out/coverage/<top>-<test>-<seed> with --coverage);
   *  given alone, functional coverage only. */
  readonly coverageDir?: string | undefined;
  /** Build and print the coverage report of this run (default true; regress turns it off and
   *  merges the runs itself). */
  readonly coverageReport?: boolean;
}

/** Where the command writes; the real process streams unless a test swaps them. */
export interface SimIO {
  readonly out: (line: string) => void;
  readonly err: ProgressStream;
}

const defaultIO: SimIO = { out: line => console.log(line), err: process.stderr };

type Registry = Readonly<Record<string, BenchGroup>>;

function listBenches(benches: Registry, io: SimIO): void {
  for (const [top, group] of Object.entries(benches)) {
    io.out(top);
    const names = Object.keys(group);
    const w = Math.max(...names.map(n => n.length));
    for (const [name, b] of Object.entries(group)) io.out(`  ${name.padEnd(w)}  ${b.about}`);
  }
}

function pick(benches: Registry, top: string | undefined, test: string | undefined): Bench {
  const tops = Object.keys(benches);
  if (tops.length === 0) throw new UsageError('this project has no benches: list them under `benches` in nicgen.config.ts');
  if (top === undefined) throw new UsageError(`name a top, or --list (tops: ${tops.join(', ')})`);
  const group = benches[top];
  if (!group) throw new UsageError(`unknown top '${top}' (known tops: ${tops.join(', ')})`);
  const tests = Object.keys(group);
  if (test === undefined) throw new UsageError(`name a test with --test (tests of ${top}: ${tests.join(', ')})`);
  const bench = group[test];
  if (!bench) throw new UsageError(`unknown test '${test}' for ${top} (known tests: ${tests.join(', ')})`);
  return bench;
}

function cycleOption(name: string, v: number | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || v < min) throw new UsageError(`--${name} must be a whole number >= ${min}, got ${v}`);
  return v;
}

function options(a: SimArgs, bench: Bench, command: string): TestOptions {
  if (a.seed !== undefined && (!Number.isInteger(a.seed) || a.seed < 0 || a.seed > 0xffffffff)) {
    throw new UsageError(`--seed must be a whole number 0..4294967295, got ${a.seed}`);
  }
  const from = cycleOption('from', a.from, 0);
  const to = cycleOption('to', a.to, 1);
  const maxCycles = cycleOption('max-cycles', a.maxCycles, 1) ?? bench.maxCycles;
  if ((from !== undefined || to !== undefined) && a.wave === undefined) throw new UsageError('--from/--to choose the cycles of a wave dump: add --wave FILE');
  if (from !== undefined && to !== undefined && to <= from) throw new UsageError(`--to (${to}) must be after --from (${from})`);
  if (a.wave !== undefined && !fs.existsSync(path.dirname(path.resolve(a.wave)))) {
    throw new UsageError(`--wave ${a.wave}: folder ${path.dirname(a.wave)} does not exist`);
  }
  if (a.pcap !== undefined && !fs.existsSync(path.dirname(path.resolve(a.pcap)))) {
    throw new UsageError(`--pcap ${a.pcap}: folder ${path.dirname(a.pcap)} does not exist`);
  }
  if (a.periodNs !== undefined) {
    try { new ClockTime(a.periodNs); } catch (err) { throw new UsageError(`--period: ${(err as Error).message}`); }
  }
  const wave = a.wave === undefined ? undefined : { file: a.wave, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
  // The seed is settled here, not in runTest, so the coverage folder can be named after it.
  const seed = a.seed ?? envSeed() ?? randomSeed();
  const coverage = coverageDir(a, seed);
  const code = a.coverage === true || a.coverageToggle === true;
  return {
    maxCycles, replay: benchHints(a.top!, a.test!, a.periodNs, command), seed, ...(wave ? { wave } : {}),
    ...(a.periodNs === undefined ? {} : { periodNs: a.periodNs }), ...(a.pictures === false ? { pictures: false } : {}),
    ...(coverage ? { coverage: { dir: coverage, code, toggle: a.coverageToggle === true } } : {}),
  };
}

/** The run's coverage folder, when coverage is on. */
function coverageDir(a: SimArgs, seed: number): string | undefined {
  if (a.coverage !== true && a.coverageToggle !== true && a.coverageDir === undefined) return undefined;
  const dir = path.resolve(a.coverageDir ?? path.join('out', 'coverage', `${a.top}-${a.test}-${seed}`));
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new UsageError(`--coverage-dir ${a.coverageDir ?? dir}: ${(err as Error).message}`);
  }
  return dir;
}

/** The run's own coverage report (unless the caller merges runs itself). */
async function reportCoverage(a: SimArgs, opts: TestOptions, io: SimIO): Promise<void> {
  if (!opts.coverage || a.coverageReport === false) return;
  await printRunCoverage(opts.coverage.dir, `${a.top}/${a.test}`, io.out);
}

export async function simCommand(a: SimArgs, io: SimIO = defaultIO): Promise<number> {
  const project = await currentProject();
  const benches = project.benches;
  if (a.list) {
    if (a.top !== undefined || a.test !== undefined) throw new UsageError('--list takes no top or --test');
    listBenches(benches, io);
    return 0;
  }
  const bench = pick(benches, a.top, a.test);
  const opts = options(a, bench, project.command);
  // The project's benches and the designs they test (everything nicgen.config.ts imports)
  // are type-checked (and checked for JavaScript operators on hardware values) before
  // anything is built.
  const checked = await checkSources([project.configFile]);
  if (!checked.cached) io.err.write(`sim: ${describeCheck(checked)}\n`);
  // Benches with a link (nic_pair) read their capture file from the environment.
  if (a.pcap !== undefined) process.env['NICGEN_PCAP'] = a.pcap;
  const label = `${a.top}/${a.test}`;
  const progress = new SimProgress(io.err, label);
  const t0 = performance.now();
  progress.building();
  let simStart = 0;
  try {
    const r = await bench.run({ ...opts, onStart: tb => { simStart = performance.now(); progress.attach(tb); } });
    progress.done();
    const wall = (performance.now() - t0) / 1000;
    const sim = simStart ? (performance.now() - simStart) / 1000 : wall;
    const wave = opts.wave ? `, wave ${typeof opts.wave === 'string' ? opts.wave : opts.wave.file} (savefile beside it: nicgen wave FILE)` : '';
    const pcap = a.pcap !== undefined && fs.existsSync(a.pcap) ? `, pcap ${a.pcap}` : '';
    io.out(`PASS ${label}: seed ${r.seed}, ${r.cycles} cycles, ${wall.toFixed(2)} s wall (${(wall - sim).toFixed(2)} s ${r.built ? 'building' : 'loading'} the model), ${formatRate(r.cycles / Math.max(sim, 1e-6))}, ${r.clock.short(r.cycles)} simulated at ${r.clock.periodNs} ns${wave}${pcap}`);
    await reportCoverage(a, opts, io);
    return 0;
  } catch (err) {
    progress.done();
    if (!(err instanceof TestFailure)) throw err;
    const wall = (performance.now() - t0) / 1000;
    io.out(`FAIL ${label}: seed ${err.seed}, failed at ${err.details.clock.at(err.cycle)}, ${wall.toFixed(2)} s wall`);
    io.err.write(`${err.message}\n`);
    await reportCoverage(a, opts, io);
    return 1;
  }
}
