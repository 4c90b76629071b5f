// The command line's contract: exit 0 on success, 1 on design errors (each at its TS line),
// 2 on misuse with one line of explanation; filelists usable by verilator -f / iverilog -c.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.join(root, 'tb/tests/cli/fixtures');

function nicgen(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(path.join(root, 'bin/nicgen'), args, { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function lineOf(file: string, marker: string): number {
  return fs.readFileSync(file, 'utf8').split('\n').findIndex(l => l.includes(marker)) + 1;
}

describe('nicgen gen', () => {
  it('writes modules, a filelist usable by verilator -f and iverilog -c, and a manifest', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-cli-'));
    const r = nicgen('gen', '--out', out, '--tops', path.join(fixtures, 'good-tops.ts'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(fs.readdirSync(out).sort()).toEqual(['.nicgen-files.json', 'cli_counter_width12.core', 'cli_counter_width12.f', 'cli_counter_width12.ports.json', 'cli_counter_width12.v']);
    const filelist = path.join(out, 'cli_counter_width12.f');
    const v = spawnSync('verilator', ['--lint-only', '-Wall', '-f', filelist], { cwd: root, encoding: 'utf8' });
    expect(v.status, v.stderr).toBe(0);
    const i = spawnSync('iverilog', ['-g2005', '-o', '/dev/null', '-c', filelist], { cwd: root, encoding: 'utf8' });
    expect(i.status, i.stderr).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'cli_counter_width12.ports.json'), 'utf8')) as { top: string; ports: { name: string; width: number }[] };
    expect(manifest.top).toBe('cli_counter_width12');
    expect(manifest.ports.find(p => p.name === 'count')?.width).toBe(12);

    // --check: in sync, then out of date after a hand edit.
    expect(nicgen('gen', '--check', '--out', out, '--tops', path.join(fixtures, 'good-tops.ts')).code).toBe(0);
    fs.appendFileSync(path.join(out, 'cli_counter_width12.v'), '// edited\n');
    const stale = nicgen('gen', '--check', '--out', out, '--tops', path.join(fixtures, 'good-tops.ts'));
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/differs, and is not nicgen's to overwrite: cli_counter_width12\.v/); // edited by hand: gen would refuse
  });

  it('exits 1 and lists every design error at its line of the user\'s TS', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-cli-'));
    const bad = path.join(fixtures, 'bad-tops.ts');
    const r = nicgen('gen', '--out', out, '--tops', bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^2 design errors:/);
    expect(r.stderr).toContain(`tb/tests/cli/fixtures/bad-tops.ts:${lineOf(bad, '@here:narrow')}:`);
    expect(r.stderr).toMatch(/error \[widths\]: assigning a 9-bit value to 8-bit y/);
    expect(r.stderr).toMatch(/error \[drivers\]: output z of module cli_bad is never assigned/);
    expect(r.stderr).toMatch(/hint: /);
    expect(r.stderr).not.toMatch(/at .*node_modules|gen\/hdl\//);
    expect(fs.readdirSync(out)).toEqual([]); // nothing written
  });

  it('exits 2 with one line on misuse', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-cli-')), 'a-file');
    fs.writeFileSync(file, '');
    for (const args of [['frob'], ['gen', '--bogus'], ['lint', '--top', 'no_such_module'], ['gen', '--out', file], ['gen', '--out', '/nonexistent/deep/x'], ['gen', '--tops', '/nonexistent.ts'], ['gen', '--tops', '/nonexistent.ts', '--out', '/tmp']]) {
      const r = nicgen(...args);
      expect(r.code, `nicgen ${args.join(' ')}`).toBe(2);
      expect(r.stderr.trim().split('\n'), `nicgen ${args.join(' ')}`).toHaveLength(1);
      expect(r.stderr).toMatch(/^nicgen: /);
    }
  });

  it('lint --top <module> checks that module only, not every top it sits in', () => {
    // rr_arbiter_n5 is not a top: it sits in nic_top (nic_tlb's client arbiter).
    const r = nicgen('lint', '--top', 'rr_arbiter_n5');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const rows = r.stdout.split('\n').filter(l => /\[\d+\/\d+\]$/.test(l.trim()));
    expect(rows.map(l => l.split(/\s+/)[0]), 'modules linted').toEqual(['rr_arbiter_n5']);
    expect(r.stdout).toMatch(/lint: 1 passed, 0 failed/);
  });

  it('has --help for every command', () => {
    for (const cmd of ['gen', 'lint', 'modules', 'sim']) {
      const r = nicgen(cmd, '--help');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`nicgen ${cmd}`));
    }
  });
});
