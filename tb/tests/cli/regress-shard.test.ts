// make regress --shard K/N and nicgen regress merge: 4 shards run one after another and
// merged equal the unsharded run: the same cases in the same order, the same verdicts and
// failure messages, the same Verilator coverage counts point by point, the same functional
// counts and first hits. The shards split the plan with no overlap and no gap, and merge
// refuses anything that is not all shards of one regression.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCoverage } from '../../../coverage/verilator-data.ts';
import { readResultsFile } from '../../../scripts/regress/results-file.ts';

interface Run { code: number | null; stdout: string; stderr: string }

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-shard-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function node(script: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', script, ...args]);
    let stdout = '', stderr = '';
    p.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    p.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    p.on('error', reject);
    p.on('close', code => resolve({ code, stdout, stderr }));
  });
}
const regress = (...args: string[]): Promise<Run> => node('scripts/regress.ts', ...args);
const merge = (...args: string[]): Promise<Run> => node('cli/nicgen.ts', 'regress', 'merge', ...args);

// Two tops (selftest_skid with cover points, skid_buffer), passing and failing benches.
const selection = ['--top', 'selftest', '--top', 'skid_buffer', '--test', 'pass', '--test', 'fail', '--test', 'throughput', '--seeds', '3', '--seed-base', '90210', '--coverage-toggle'];
const shardDir = (k: number): string => path.join(tmp, `shard-${k}`);

/** Testcases as [classname, name, failure message or '', has error]: what a CI server shows. */
function junitCases(file: string): string[][] {
  const xml = fs.readFileSync(file, 'utf8');
  return [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)" time="[^"]*">([\s\S]*?)<\/testcase>/g)].map(m => [
    m[1]!, m[2]!, /<failure message="([^"]*)"/.exec(m[3]!)?.[1] ?? '', String(m[3]!.includes('<error')),
  ]);
}

/** Every Verilator point's count, by key. */
function codeCounts(dir: string): Map<string, number> {
  return new Map(readCoverage(path.join(dir, 'coverage', 'code.dat')).map(p => [`${p.kind}|${p.hier}|${p.file}:${p.line}:${p.column}|${p.comment}`, p.count]));
}

/** Points whose counts differ (the first 10), as `key: merged M, unsharded U`. */
function countDiff(merged: Map<string, number>, whole: Map<string, number>): string[] {
  const keys = [...new Set([...merged.keys(), ...whole.keys()])].sort();
  return keys.filter(k => merged.get(k) !== whole.get(k)).slice(0, 10).map(k => `${k}: merged ${merged.get(k)}, unsharded ${whole.get(k)}`);
}

function verdicts(dir: string): unknown[] {
  return readResultsFile(dir).runs.map(r => [r.run.top, r.run.test, r.run.seed, r.run.order, r.status, r.headline, r.cycles, r.failCycle ?? null]);
}

describe('make regress --shard K/N + nicgen regress merge', () => {
  let whole: Run;
  let merged: Run;
  beforeAll(async () => {
    whole = await regress(...selection, '--jobs', '2', '--out', path.join(tmp, 'whole'));
    for (let k = 1; k <= 4; k++) {
      const r = await regress(...selection, '--jobs', '2', '--shard', `${k}/4`, '--out', shardDir(k));
      expect([0, 1]).toContain(r.code);
    }
    merged = await merge('--out', path.join(tmp, 'merged'), ...[4, 2, 1, 3].map(shardDir));
  }, 600_000);

  it('the shards split the plan: disjoint, together every planned run', async () => {
    const listed = async (...extra: string[]): Promise<string[]> => {
      const r = await regress(...selection, '--dry-run', ...extra);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(l => l.startsWith('./bin/nicgen sim '));
    };
    const all = await listed();
    const parts = [];
    for (let k = 1; k <= 4; k++) parts.push(await listed('--shard', `${k}/4`));
    expect(all).toHaveLength(9);
    expect(parts.map(p => p.length)).toEqual([3, 2, 2, 2]);
    expect(parts.flat().sort()).toEqual([...all].sort());
    expect(new Set(parts.flat()).size).toBe(all.length);
  });

  it('merged equals unsharded: cases, verdicts, failure messages, exit code, summary line', () => {
    expect(whole.code).toBe(1);
    expect(merged.code, merged.stderr).toBe(1);
    const last = (r: Run): string => r.stdout.trimEnd().split('\n').pop()!;
    expect(last(whole)).toBe('regress: 6 passed, 3 failed');
    expect(last(merged)).toBe(last(whole));
    expect(junitCases(path.join(tmp, 'merged', 'junit.xml'))).toEqual(junitCases(path.join(tmp, 'whole', 'junit.xml')));
    expect(verdicts(path.join(tmp, 'merged'))).toEqual(verdicts(path.join(tmp, 'whole')));
    // Every run's log came along.
    for (const r of readResultsFile(path.join(tmp, 'merged')).runs) expect(fs.existsSync(path.join(tmp, 'merged', r.log)), r.log).toBe(true);
  });

  it('merged coverage equals unsharded: every Verilator point count, every functional bin and first hit', () => {
    const w = codeCounts(path.join(tmp, 'whole'));
    expect(w.size).toBeGreaterThan(100);
    expect(countDiff(codeCounts(path.join(tmp, 'merged')), w)).toEqual([]);
    const fun = (d: string): unknown => JSON.parse(fs.readFileSync(path.join(tmp, d, 'coverage', 'functional.json'), 'utf8'));
    expect(fun('merged')).toEqual(fun('whole'));
    expect(JSON.stringify(fun('whole'))).toContain('"first"');
    const summary = (d: string): unknown => JSON.parse(fs.readFileSync(path.join(tmp, d, 'coverage', 'summary.json'), 'utf8'));
    expect(summary('merged')).toEqual(summary('whole'));
    expect(fs.existsSync(path.join(tmp, 'merged', 'coverage', 'html', 'index.html'))).toBe(true);
    expect(fs.existsSync(path.join(tmp, 'merged', 'index.html'))).toBe(true);
  });

  it('refuses what is not all shards of one regression, with one line and exit 2', async () => {
    const missing = await merge('--out', path.join(tmp, 'm1'), shardDir(1), shardDir(2), shardDir(3));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('nicgen: shard 4/4 missing\n');
    const twice = await merge('--out', path.join(tmp, 'm2'), shardDir(1), shardDir(1), shardDir(2), shardDir(3));
    expect(twice.stderr).toBe('nicgen: shard 1/4 given twice\n');
    const notShard = await merge('--out', path.join(tmp, 'm3'), path.join(tmp, 'whole'));
    expect(notShard.stderr).toMatch(/is not a shard/);
    const busy = await merge('--out', path.join(tmp, 'merged'), ...[1, 2, 3, 4].map(shardDir));
    expect(busy.stderr).toMatch(/is not empty: merge into a new folder/);
    const noBase = await regress('--top', 'selftest', '--shard', '1/2', '--dry-run');
    expect(noBase.code).toBe(2);
    expect(noBase.stderr).toBe('regress: --shard needs --seed-base: every shard must plan the same seeds\n');
    const bad = await regress('--seed-base', '1', '--shard', '3/2', '--dry-run');
    expect(bad.stderr).toBe("regress: --shard must be K/N with 1 <= K <= N, got '3/2'\n");
  });
});
