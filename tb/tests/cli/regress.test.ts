// `make regress` end to end (scripts/regress.ts) on the cheap selftest benches, which run on
// the skid buffer model the lib benches build anyway: exit codes, the summary line, the
// JUnit report (well-formed, checked by Python's XML parser), replay commands, timeouts,
// and that a seed base replays the same seeds.

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { junitXml } from '../../../scripts/regress/junit.ts';
import type { RunResult } from '../../../scripts/regress/outcome.ts';

interface Run { code: number | null; stdout: string; stderr: string }

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-regress-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function regress(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'scripts/regress.ts', ...args]);
    let stdout = '', stderr = '';
    p.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    p.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    p.on('error', reject);
    p.on('close', code => resolve({ code, stdout, stderr }));
  });
}

const lastLine = (text: string): string => text.trimEnd().split('\n').pop() ?? '';

/** `[[test, seed], ...]` from a --dry-run listing. */
async function plannedSeeds(...args: string[]): Promise<Array<[string, number]>> {
  const r = await regress('--dry-run', ...args);
  expect(r.code, r.stderr).toBe(0);
  return [...r.stdout.matchAll(/^\.\/bin\/nicgen sim selftest --test (\w+) --seed (\d+)$/gm)].map(m => [m[1]!, Number(m[2])]);
}

/** Python's parser rejects any XML that is not well-formed; prints what the script prints. */
function python(script: string, file: string): string {
  const r = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** Each testcase of a JUnit file as [name, has <failure>, has <error>], via Python's DOM. */
function junitCases(file: string): Array<[string, boolean, boolean]> {
  const out = python(`
import json, sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
print(json.dumps([[t.getAttribute('name'), len(t.getElementsByTagName('failure')) > 0, len(t.getElementsByTagName('error')) > 0]
  for t in d.getElementsByTagName('testcase')]))`, file);
  return JSON.parse(out) as Array<[string, boolean, boolean]>;
}

describe('make regress', () => {
  it('runs passing and failing benches: exit 1, summary, JUnit with one failure per failing seed, replay commands', async () => {
    const out = path.join(tmp, 'mixed');
    const args = ['--top', 'selftest', '--test', 'pass', '--test', 'fail', '--seeds', '3', '--seed-base', '4242'];
    const r = await regress(...args, '--jobs', '2', '--out', out);
    expect(r.code, r.stderr).toBe(1);
    expect(lastLine(r.stdout)).toBe('regress: 3 passed, 3 failed');
    expect(r.stdout).toMatch(/^selftest\/pass +3 +3 +0 +0 +6,006 .*cycles\/s/m);
    expect(r.stdout).toMatch(/^selftest\/fail +3 +0 +3 +0 /m);

    const planned = await plannedSeeds(...args);
    expect(planned).toHaveLength(6);
    const xml = fs.readFileSync(path.join(out, 'junit.xml'), 'utf8');
    const cases = junitCases(path.join(out, 'junit.xml'));
    // The seeds that ran are the planned ones, and exactly the failing bench's cases fail.
    expect(cases).toEqual(planned.map(([test, seed]) => [`${test} seed=${seed}`, test === 'fail', false]));
    expect(xml).toMatch(/<testsuite name="selftest" id="0" tests="6" failures="3" errors="0"/);
    for (const [test, seed] of planned.filter(([t]) => t === 'fail')) {
      expect(xml).toMatch(new RegExp(`<testcase classname="selftest" name="${test} seed=${seed}" time="[0-9.]+">\\s*<failure message="m_data of word \\d+ \\(expectation corrupted on purpose\\)[^"]*" type="TestFailure">FAIL selftest/fail: seed ${seed}, failed at cycle \\d+`));
      expect(r.stdout).toContain(`replay: ./bin/nicgen sim selftest --test fail --seed ${seed}\n`);
      expect(r.stdout).toMatch(new RegExp(`waves: {2}\\./bin/nicgen sim selftest --test fail --seed ${seed} --wave \\S+selftest-fail-${seed}\\.fst --from \\d+ --to \\d+`));
      expect(r.stderr).toContain(`FAIL selftest/fail seed ${seed}: m_data of word`);
    }
    expect(fs.existsSync(path.join(out, 'waves'))).toBe(true);
    expect(fs.readdirSync(path.join(out, 'logs', 'selftest'))).toHaveLength(6);
  });

  it('a seed base gives the same seeds every time; another base other seeds; narrowing the selection keeps a bench\'s seeds', async () => {
    const a = await plannedSeeds('--top', 'selftest', '--seeds', '4', '--seed-base', '77');
    const b = await plannedSeeds('--top', 'selftest', '--seeds', '4', '--seed-base', '77');
    const c = await plannedSeeds('--top', 'selftest', '--seeds', '4', '--seed-base', '78');
    const onlyFail = await plannedSeeds('--test', 'selftest/fail', '--seeds', '4', '--seed-base', '77');
    expect(a).toHaveLength(12);
    expect(b).toEqual(a);
    expect(c.map(([, s]) => s)).not.toEqual(a.map(([, s]) => s));
    expect(onlyFail).toEqual(a.filter(([t]) => t === 'fail'));
  });

  it('all passing: exit 0; the random seed base it prints replays the same seeds', async () => {
    const out = path.join(tmp, 'pass');
    const r = await regress('--test', 'selftest/pass', '--seeds', '2', '--jobs', '2', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(lastLine(r.stdout)).toBe('regress: 2 passed, 0 failed');
    const base = /seed base (\d+)/.exec(r.stdout)?.[1];
    expect(base).toBeDefined();
    expect(r.stdout).toContain(`REGRESS_ARGS='--seed-base ${base} --seeds 2 --test selftest/pass'`);
    const cases = junitCases(path.join(out, 'junit.xml'));
    const planned = await plannedSeeds('--test', 'selftest/pass', '--seeds', '2', '--seed-base', base!);
    expect(cases).toEqual(planned.map(([test, seed]) => [`${test} seed=${seed}`, false, false]));
  });

  it('kills a run that exceeds --timeout and records it as an error', async () => {
    const out = path.join(tmp, 'timeout');
    const t0 = performance.now();
    const r = await regress('--test', 'selftest/long', '--seeds', '1', '--timeout', '2', '--out', out);
    expect((performance.now() - t0) / 1000).toBeLessThan(15);
    expect(r.code).toBe(1);
    expect(lastLine(r.stdout)).toBe('regress: 0 passed, 1 failed');
    expect(r.stdout).toMatch(/ERROR selftest\/long seed \d+: timed out after 2 s/);
    expect(junitCases(path.join(out, 'junit.xml'))).toEqual([[expect.stringMatching(/^long seed=\d+$/), false, true]]);
    expect(fs.readFileSync(path.join(out, 'junit.xml'), 'utf8')).toContain('<error message="timed out after 2 s" type="RunError">');
  });

  it('exits 2 with one line for misuse', async () => {
    const top = await regress('--top', 'nope', '--dry-run');
    expect(top.code).toBe(2);
    expect(top.stderr).toMatch(/^regress: unknown top 'nope' \(known tops: .*selftest.*\)\n$/);
    const test = await regress('--top', 'selftest', '--test', 'nope', '--dry-run');
    expect(test.code).toBe(2);
    const seeds = await regress('--seeds', '0', '--dry-run');
    expect(seeds.code).toBe(2);
    expect(seeds.stderr).toBe("regress: --seeds must be a whole number 1..1000000, got '0'\n");
  });

  it('writes well-formed JUnit XML whatever a run prints', () => {
    const nasty = 'a & b < c > d "quoted" \'single\' ]]> \x1b[31mred\x1b[0m nul\x00 bell\x07 lone\ud800 tab\there\nline 2 \u{1F600}';
    const clean = 'a & b < c > d "quoted" \'single\' ]]> red nul bell lone tab\there\nline 2 \u{1F600}';
    const result = (status: RunResult['status'], seed: number): RunResult => ({
      run: { top: 'x<&>"', test: 't', seed, index: seed, order: seed }, status, seconds: 1.5, cycles: 10, simSeconds: undefined,
      failCycle: status === 'failed' ? 10 : undefined, headline: status === 'passed' ? '' : nasty, detail: nasty, output: nasty,
    });
    const file = path.join(tmp, 'nasty.xml');
    fs.writeFileSync(file, junitXml([result('failed', 1), result('error', 2), result('passed', 3)],
      { seedBase: 1, seedsPerBench: 3, timestamp: new Date(0), hostname: 'h' }));
    const got = JSON.parse(python(`
import json, sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
text = lambda e: ''.join(n.data for n in e.childNodes)
f = d.getElementsByTagName('failure')[0]
print(json.dumps([d.getElementsByTagName('testsuite')[0].getAttribute('name'), f.getAttribute('message'), text(f),
  text(d.getElementsByTagName('system-out')[2]), len(d.getElementsByTagName('error'))]))`, file)) as unknown[];
    expect(got).toEqual(['x<&>"', clean, clean, clean, 1]);
  });
});
