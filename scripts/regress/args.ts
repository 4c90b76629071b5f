// Command-line parsing for scripts/regress.ts. Misuse is a UsageError: one line, exit 2,
// the same convention as `nicgen`.

import { randomInt } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface RegressOptions {
  readonly seeds: number;
  readonly tops: readonly string[];
  readonly tests: readonly string[];
  readonly seedBase: number;
  /** True when --seed-base was given (the base is printed either way). */
  readonly seedBaseGiven: boolean;
  readonly jobs: number;
  /** Per run, seconds. */
  readonly timeout: number;
  /** Absolute. */
  readonly out: string;
  /** False for the default timestamped folder, which gets a suffix instead of being reused. */
  readonly outGiven: boolean;
  readonly dryRun: boolean;
  readonly help: boolean;
  /** Verilator code coverage (coverage model variants); functional coverage is always on. */
  readonly coverage: boolean;
  /** Toggle coverage too (implies coverage). */
  readonly coverageToggle: boolean;
  /** Run only shard k of n (1-based) of the plan. */
  readonly shard: { readonly k: number; readonly n: number } | undefined;
  /** Failures to re-run for failure pictures (0: none). */
  readonly pictures: number;
}

export const usageText = `usage: nicgen regress [options]   (in this repository also: make regress REGRESS_ARGS='...')

Runs many seeds of the project's benches (the \`benches\` of nicgen.config.ts), each as its
own \`nicgen sim\` process, in parallel; writes <out>/junit.xml; exit 1 if any run failed.

  --seeds N         seeds per bench (default 20)
  --top X           only benches of top X (repeatable; the selftest top only runs when named)
  --test Y          only benches named Y or X/Y (repeatable)
  --seed-base S     derive every seed from S (0..4294967295; default random, always printed)
  --jobs N          runs at once (default: number of CPUs)
  --timeout SEC     kill a run after SEC seconds and record it as an error (default 600)
  --out DIR         results folder (default out/regress/<timestamp>)
  --coverage        Verilator line/branch/cover-point coverage, merged (functional
                    coverage is always collected)
  --coverage-toggle toggle coverage too (implies --coverage; much slower per cycle)
  --shard K/N       run only shard K of N of the plan (needs --seed-base; merge the shards'
                    folders with ./bin/nicgen regress merge)
  --pictures N      failure pictures for at most N failed runs (default 10; 0: none)
  --dry-run         print the planned runs (bench and seed) and exit
`;

const defaultSeeds = 20;
const defaultTimeout = 600;

function wholeNumber(name: string, raw: string | undefined, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be a whole number ${min}..${max}, got '${raw}'`);
  }
  return n;
}

/** `out/regress/2025-01-31T12-34-56` (local time; no colons, so it is a valid name everywhere). */
function defaultOut(root: string, now: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}T${p(now.getHours())}-${p(now.getMinutes())}-${p(now.getSeconds())}`;
  return path.join(root, 'out', 'regress', stamp);
}

export function parseOptions(argv: readonly string[], root: string, now = new Date()): RegressOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        seeds: { type: 'string' },
        top: { type: 'string', multiple: true },
        test: { type: 'string', multiple: true },
        'seed-base': { type: 'string' },
        jobs: { type: 'string' },
        timeout: { type: 'string' },
        out: { type: 'string' },
        'dry-run': { type: 'boolean' },
        coverage: { type: 'boolean' },
        'coverage-toggle': { type: 'boolean' },
        shard: { type: 'string' },
        pictures: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const seedBaseRaw = values['seed-base'];
  const shard = parseShard(values.shard);
  if (shard && seedBaseRaw === undefined) throw new UsageError('--shard needs --seed-base: every shard must plan the same seeds');
  const cpus = os.availableParallelism();
  return {
    seeds: wholeNumber('seeds', values.seeds, 1, 1_000_000, defaultSeeds),
    tops: values.top ?? [],
    tests: values.test ?? [],
    // randomInt's upper bound is exclusive.
    seedBase: wholeNumber('seed-base', seedBaseRaw, 0, 0xffffffff, seedBaseRaw === undefined ? randomInt(0, 0x100000000) : 0),
    seedBaseGiven: seedBaseRaw !== undefined,
    jobs: wholeNumber('jobs', values.jobs, 1, 4096, cpus),
    timeout: wholeNumber('timeout', values.timeout, 1, 7 * 24 * 3600, defaultTimeout),
    out: values.out !== undefined ? path.resolve(values.out) : defaultOut(root, now),
    outGiven: values.out !== undefined,
    dryRun: values['dry-run'] ?? false,
    help: values.help ?? false,
    coverage: (values.coverage ?? false) || (values['coverage-toggle'] ?? false),
    coverageToggle: values['coverage-toggle'] ?? false,
    shard,
    pictures: wholeNumber('pictures', values.pictures, 0, 1_000_000, 10),
  };
}

/** `K/N` with 1 <= K <= N. */
export function parseShard(raw: string | undefined): { k: number; n: number } | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(raw.trim());
  const k = m ? Number(m[1]) : NaN, n = m ? Number(m[2]) : NaN;
  if (!m || n < 1 || k < 1 || k > n || n > 100_000) throw new UsageError(`--shard must be K/N with 1 <= K <= N, got '${raw}'`);
  return { k, n };
}

/** The arguments that reproduce this regression's selection and seeds. */
export function replayArgs(o: RegressOptions): string {
  const parts = [`--seed-base ${o.seedBase}`, `--seeds ${o.seeds}`];
  for (const t of o.tops) parts.push(`--top ${t}`);
  for (const t of o.tests) parts.push(`--test ${t}`);
  if (o.coverageToggle) parts.push('--coverage-toggle');
  else if (o.coverage) parts.push('--coverage');
  if (o.shard) parts.push(`--shard ${o.shard.k}/${o.shard.n}`);
  return parts.join(' ');
}
