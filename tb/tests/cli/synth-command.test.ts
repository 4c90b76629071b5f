// `nicgen synth` on small modules: the numbers have the structure the designs imply (a
// register chain of N bits has N flip-flops per stage; the register FIFO infers LUTRAM), the
// worst paths name real designer signals at their TS lines, the JSON report has its schema,
// repeated runs come from the cache, and misuse is one line with exit 2.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ModuleResult, PathReport, SynthReport } from '../../../synth/result.ts';
import { checkSynthReport } from '../../../synth/schema.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixture = path.join(root, 'tb/tests/cli/fixtures/synth-tops.ts');
const fixtureRel = path.relative(root, fixture);
// A fresh cache per run, so the tools really run here (a run takes seconds on these modules).
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-synth-test-'));

function synth(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(path.join(root, 'bin/nicgen'), ['synth', '--cache', cache, ...args], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function report(args: string[]): { run: ReturnType<typeof synth>; json: SynthReport } {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-synth-json-')), 'r.json');
  const run = synth(...args, '--json', file);
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  expect(checkSynthReport(json)).toEqual([]);
  return { run, json: json as SynthReport };
}

const lineOf = (marker: string): number => fs.readFileSync(fixture, 'utf8').split('\n').findIndex(l => l.includes(marker)) + 1;
const mod = (r: SynthReport, name: string): ModuleResult => r.modules.find(m => m.module === name)!;
const proxy = (m: ModuleResult, p: PathReport['proxy']): PathReport => m.paths.find(x => x.proxy === p)!;

describe('nicgen synth', () => {
  it('a two-stage register chain of 24 bits: 48 flip-flops, the worst path between its named registers at their TS lines', () => {
    const { run, json } = report(['--tops', fixture, '--top', 'synth_chain_width24']);
    const m = mod(json, 'synth_chain_width24');
    expect(m.resources!.ffs).toBe(48);
    expect(m.resources!.lutram).toBe(0);
    expect(m.resources!.carry).toBeGreaterThan(0); // the 24-bit adder
    const a = proxy(m, 'a');
    expect(a.delayNs).toBeGreaterThan(0);
    expect(a.carryChains).toBe(1);
    // The adder's carry runs from first_reg/sum_reg into sum_reg.
    expect(a.end?.signal).toMatch(/^sum_reg\[\d+\]$/);
    expect(a.end?.loc).toMatch(new RegExp(`^${fixtureRel}:${lineOf('SYNTH-SUM')}:\\d+$`));
    expect(a.start?.signal).toMatch(/^(first_reg|sum_reg)\[\d+\]$/);
    expect([lineOf('SYNTH-FIRST'), lineOf('SYNTH-SUM')].map(l => `${fixtureRel}:${l}:`)).toContain(a.start!.loc!.replace(/\d+$/, ''));
    for (const p of ['b_prime', 'b'] as const) expect(proxy(m, p).levels).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/^synth_chain_width24 +\d+ +48 /m);
    expect(run.stdout).toMatch(/\(a\) cell delay: [\d.]+ ns, \d+ LUT \+ \d+ MUXF \+ 1 carry chains: (first|sum)_reg\[\d+\] \(tb\/tests\/cli\/fixtures\/synth-tops.ts:\d+:\d+\)/);
    expect(run.stderr).toMatch(/synth: \[3\/3\]/); // progress

    // The same run again comes from the cache, with the same figures.
    const again = report(['--tops', fixture, '--top', 'synth_chain_width24']);
    expect(again.run.stdout).toMatch(/\(1 from the cache\)/);
    expect(again.json.modules.map(x => ({ ...x, seconds: 0, cached: false }))).toEqual(json.modules.map(x => ({ ...x, seconds: 0, cached: false })));
  });

  it('--set changes the generator parameter: 16 bits give 32 flip-flops', () => {
    const { json } = report(['--tops', fixture, '--top', 'synth_chain_width24', '--set', 'width=16', '--target', 'generic']);
    expect(json.params).toEqual({ width: 16 });
    expect(mod(json, 'synth_chain_width16').resources!.ffs).toBe(32);
  });

  it('a top: a row per module and the whole top, with hierarchical names', () => {
    const { json } = report(['--tops', fixture, '--top', 'synth_pair', '--target', 'generic']);
    expect(json.modules.map(m => m.module)).toEqual(['synth_chain', 'synth_pair']);
    expect(mod(json, 'synth_chain').resources!.ffs).toBe(16);
    expect(mod(json, 'synth_pair').resources!.ffs).toBe(16);
    const b = proxy(mod(json, 'synth_pair'), 'b');
    expect([b.start?.signal, b.end?.signal].join(' ')).toMatch(/u_chain\.(first|sum)_reg/);
  });

  it('iCE40: a routed Fmax and the critical path in designer names', () => {
    const { json } = report(['--tops', fixture, '--top', 'synth_chain_width24', '--target', 'ice40']);
    const m = mod(json, 'synth_chain_width24');
    expect(m.resources!.ffs).toBe(48);
    const c = proxy(m, 'c');
    expect(c.fmaxMhz).toBeGreaterThan(20);
    // nextpnr names a logic cell after the LUT packed in it, so an end is a register of the
    // module or a net next to it, not always the flip-flop itself.
    expect(`${c.start?.signal} ${c.end?.signal}`).toMatch(/(first|sum)_reg/);
  });

  it('the register FIFO (sync_fifo 64 x 16) infers LUTRAM: no 1,000 flip-flops', () => {
    const { json } = report(['--top', 'sync_fifo_width64']);
    const m = mod(json, 'sync_fifo_width64');
    expect(m.resources!.lutram).toBeGreaterThan(0);
    expect(m.resources!.ffs).toBeLessThan(64);
    expect(m.resources!.luts).toBeLessThan(100);
    expect(proxy(m, 'a').start?.loc).toMatch(/^gen\/lib\/fifo\.ts:\d+:\d+$/);
  });

  it('misuse is one line and exit 2 (a bad parameter exit 1, as nicgen gen); --json never replaces a file that is not a report', () => {
    const one = (args: string[], pattern: RegExp): void => {
      const r = synth(...args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
    };
    one(['--top', 'no_such_module'], /unknown module 'no_such_module'/);
    const param = (args: string[], pattern: RegExp): void => {
      const r = synth(...args);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
    };
    param(['--tops', fixture, '--top', 'synth_chain_width24', '--set', 'depth=4'], /error \[params\]: synth_chain: no parameter 'depth' \(parameters: width\)/);
    param(['--tops', fixture, '--top', 'synth_chain_width24', '--set', 'width=wide'], /error \[params\]: synth_chain: --set width=wide: width is a number/);
    one([], /--top NAME/);
    one(['--tops', fixture, '--top', 'synth_chain_width24', '--set', 'width'], /write --set name=value \(parameters of synth_chain: width\)/);
    one(['--tops', fixture, '--top', 'synth_chain', '--set', 'width=4'], /--set needs a top: 'synth_chain' is a module inside a top/);
    one(['--tops', fixture, '--top', 'synth_chain_width24', '--target', 'virtex2'], /--target virtex2: expected one of xcup, ice40, generic/);
    const precious = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-synth-keep-')), 'notes.json');
    fs.writeFileSync(precious, '{"mine": true}\n');
    one(['--tops', fixture, '--top', 'synth_chain_width24', '--json', precious], /not a nicgen synth report: not overwriting/);
    expect(fs.readFileSync(precious, 'utf8')).toBe('{"mine": true}\n');
  });
});
