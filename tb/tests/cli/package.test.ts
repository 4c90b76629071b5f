// nicgen as a user gets it: `npm pack` this repository, install the tarball into a fresh folder
// outside it, `nicgen init` a project, then in that project type-check, gen, lint, sim, run the
// same bench under vitest, break the design and follow the failing run's replay line, and run
// a small regression. Nothing here touches this repository except the pack (and the shared
// model cache, so Verilator's runtime is not rebuilt).
//
// npm runs with --prefer-offline: the packages are in npm's cache after scripts/setup.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const npmFlags = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

interface Run { code: number | null; stdout: string; stderr: string }

function run(cmd: string, args: readonly string[], cwd: string, timeoutMs = 240_000): Run {
  // Shared model cache: the project's own .cache would rebuild Verilator's runtime (30 s).
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', NICGEN_CACHE: process.env['NICGEN_CACHE'] ?? path.join(root, '.cache') };
  delete env['NICGEN_SEED'];
  const r = spawnSync(cmd, [...args], { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status, stdout: r.stdout ?? '', stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

function ok(r: Run, what: string): Run {
  expect(r.code, `${what} failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
}

/** The command part of a replay hint, split for spawn: `npx nicgen sim counter --test random --seed 5`. */
function replayArgs(line: string): string[] {
  const m = /(npx nicgen sim .*?)(?: --wave|$)/.exec(line);
  if (!m) throw new Error(`no replay command in: ${line}`);
  return m[1]!.trim().split(/\s+/);
}

describe('the packed nicgen in a project of its own', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-pkg-'));
  const tool = path.join(work, 'tool');
  const app = path.join(work, 'app');
  let tarball = '';

  beforeAll(() => {
    const packed = ok(run('npm', ['pack', '--pack-destination', work, '--loglevel=error'], root), 'npm pack');
    tarball = path.join(work, packed.stdout.trim().split('\n').pop()!);
    fs.mkdirSync(tool);
    ok(run('npm', ['install', ...npmFlags, tarball], tool), 'npm install of the tarball');
  }, 600_000);
  // Two installed projects: removing them takes a while on a loaded machine.
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }), 120_000);

  it('packs sources and types, not tests', () => {
    const list = run('tar', ['-tzf', tarball], work).stdout.split('\n');
    expect(list).toContain('package/gen/hdl/index.ts');
    expect(list).toContain('package/types/gen/hdl/index.d.ts');
    expect(list).toContain('package/types/tb/index.d.ts');
    expect(list.filter(f => /\.test\.ts$|\/tb\/tests\//.test(f))).toEqual([]);
  });

  it('leaves no declarations in the checkout (a file: dependency on a clone reads its sources, never stale .d.ts)', () => {
    expect(fs.existsSync(path.join(root, 'types')), `${path.join(root, 'types')} after npm pack`).toBe(false);
  });

  it('init scaffolds a project, and refuses to overwrite any file of it', () => {
    const nicgen = path.join(tool, 'node_modules/.bin/nicgen');
    const r = ok(run(nicgen, ['init', 'app', '--nicgen', `file:${tarball}`], work), 'nicgen init');
    for (const f of ['package.json', 'tsconfig.json', 'vitest.config.ts', 'nicgen.config.ts', 'src/counter.ts', 'tb/counter.bench.ts', 'tb/counter.test.ts', 'README.md']) {
      expect(fs.existsSync(path.join(app, f)), f).toBe(true);
      expect(r.stdout).toContain(f);
    }
    const readme = fs.readFileSync(path.join(app, 'README.md'), 'utf8');
    expect(readme).toContain('npx nicgen gen');
    expect(readme).toContain('npx nicgen sim counter --test random');

    // A second init into the same folder: one line, exit 2, every file as it was.
    fs.appendFileSync(path.join(app, 'README.md'), 'my notes\n');
    const again = run(nicgen, ['init', 'app'], work);
    expect(again.code).toBe(2);
    expect(again.stderr.trim().split('\n')).toEqual([`nicgen: ${path.join('app', 'package.json')} already exists: nothing written (nicgen init never overwrites a file)`]);
    expect(fs.readFileSync(path.join(app, 'README.md'), 'utf8')).toBe(`${readme}my notes\n`);
    // Even when only a file deep inside exists.
    const other = path.join(work, 'other');
    fs.mkdirSync(path.join(other, 'tb'), { recursive: true });
    fs.writeFileSync(path.join(other, 'tb/counter.test.ts'), 'mine\n');
    expect(run(nicgen, ['init', 'other'], work).code).toBe(2);
    expect(fs.readdirSync(other)).toEqual(['tb']);
    expect(fs.readFileSync(path.join(other, 'tb/counter.test.ts'), 'utf8')).toBe('mine\n');
  });

  it('installs, type-checks against the shipped .d.ts, and runs gen, lint, sim and vitest', () => {
    ok(run('npm', ['install', ...npmFlags], app), 'npm install in the project');
    ok(run('npx', ['tsc', '-p', 'tsconfig.json'], app), 'tsc');

    const gen = ok(run('npx', ['nicgen', 'gen'], app), 'nicgen gen');
    // The design was type-checked first: tsc and the hardware-value check (its TypeScript 5.9
    // came with nicgen, as a dependency of the installed package).
    expect(gen.stdout).toMatch(/wrote 1 tops, 4 files to rtl .*; type-checked \d+ files/);
    expect(fs.existsSync(path.join(app, 'node_modules/typescript5/package.json'))).toBe(true);
    expect(fs.readdirSync(path.join(app, 'rtl')).sort()).toEqual(['.nicgen-files.json', 'counter.core', 'counter.f', 'counter.ports.json', 'counter.v']);
    // Locations are the user's files, relative to the project.
    expect(fs.readFileSync(path.join(app, 'rtl/counter.v'), 'utf8')).toMatch(/^\/\/ Generated by nicgen from src\/counter\.ts \(counter\)/);
    ok(run('npx', ['nicgen', 'gen', '--check'], app), 'nicgen gen --check');
    // One top with other parameters, into a new folder below the project: the template's rules
    // refuse a bad value on one line, with nothing written.
    const bad = run('npx', ['nicgen', 'gen', 'counter', '--set', 'width=4', '--out', 'build/c4'], app);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('nicgen gen counter --set width=4 --out build/c4: error [params]: counter: limit = 99 is not allowed with these parameters (allowed: 1..15 with width 4)');
    expect(fs.existsSync(path.join(app, 'build'))).toBe(false);
    ok(run('npx', ['nicgen', 'gen', 'counter', '--set', 'width=16', '--set', 'limit=1000', '--out', 'build/c16'], app), 'nicgen gen --set');
    expect(fs.readdirSync(path.join(app, 'build/c16')).sort()).toEqual(['.nicgen-files.json', 'counter_limit1000_width16.core', 'counter_limit1000_width16.f', 'counter_limit1000_width16.ports.json', 'counter_limit1000_width16.v']);

    // A JavaScript operator on hardware values: refused at the user's line, nothing written.
    const src = path.join(app, 'src/counter.ts');
    const good = fs.readFileSync(src, 'utf8');
    fs.writeFileSync(src, good.replace('wrap.set(en.land(atLimit));', 'wrap.set(en && atLimit);'));
    try {
      const line = good.split('\n').findIndex(l => l.includes('wrap.set(en.land(atLimit));')) + 1;
      const bad = run('npx', ['nicgen', 'gen', '--out', 'build/bad'], app);
      expect(bad.code, bad.stdout + bad.stderr).toBe(1);
      expect(bad.stderr).toMatch(new RegExp(`src/counter\\.ts:${line}:\\d+: error`));
      expect(fs.existsSync(path.join(app, 'build/bad'))).toBe(false);
    } finally {
      fs.writeFileSync(src, good);
    }

    const lint = ok(run('npx', ['nicgen', 'lint'], app), 'nicgen lint');
    expect(lint.stdout).toMatch(/lint: 1 passed, 0 failed/);

    expect(ok(run('npx', ['nicgen', 'sim', '--list'], app), 'sim --list').stdout).toMatch(/^counter\n {2}random +random enables/);
    const sim = ok(run('npx', ['nicgen', 'sim', 'counter', '--test', 'random', '--seed', '5'], app), 'nicgen sim');
    expect(sim.stdout).toMatch(/^PASS counter\/random: seed 5, 2002 cycles/);

    // npm test: the project's vitest.config.ts (from init) type-checks first, then runs the bench.
    const vt = ok(run('npm', ['test'], app), 'npm test');
    const checked = /typecheck: type-checked \d+ files.*/.exec(vt.stdout);
    expect(checked, vt.stdout).not.toBeNull();
    console.log(`npm test in the project: ${checked![0]}`); // what the type-check adds, measured
    expect(vt.stdout).toMatch(/1 passed/);
    // The model was built under NICGEN_CACHE, never inside node_modules.
    expect(fs.existsSync(path.join(app, 'node_modules/nicgen/.cache'))).toBe(false);
  });

  it('npm test stops before any test on a misspelt port or a JavaScript operator on hardware values', () => {
    /** Runs `npm test` with `file` edited, and returns the run and the edited line's number. */
    const testWith = (rel: string, from: string, to: string): { r: Run; line: number } => {
      const file = path.join(app, rel);
      const good = fs.readFileSync(file, 'utf8');
      const line = good.split('\n').findIndex(l => l.includes(from)) + 1;
      expect(line, `${from} in ${rel}`).toBeGreaterThan(0);
      fs.writeFileSync(file, good.replace(from, to));
      try {
        return { r: run('npm', ['test'], app), line };
      } finally {
        fs.writeFileSync(file, good);
      }
    };
    const noTestRan = (r: Run): void => {
      expect(r.code, r.stdout + r.stderr).not.toBe(0);
      const all = r.stdout + r.stderr;
      expect(all).toContain('type-check failed');
      expect(all).not.toMatch(/\d+ passed|✓|counter > random/);
      // No stack trace, and none of vitest's "No test files found" / "Unhandled Error".
      expect(all).not.toMatch(/\n\s+at |No test files|Unhandled/);
    };

    // A misspelt port of the DUT in the bench: tsc's message at the bench's line.
    const port = testWith('tb/counter.bench.ts', 'dut.count.value', 'dut.cuont.value');
    noTestRan(port.r);
    expect(port.r.stdout + port.r.stderr).toMatch(new RegExp(`tb/counter\\.bench\\.ts:${port.line}:\\d+: error \\[tsc\\]: TS\\d+: Property 'cuont' does not exist`));

    // `&&` on hardware values in the design: the hardware-value check's message at its line.
    const and = testWith('src/counter.ts', 'wrap.set(en.land(atLimit));', 'wrap.set(en && atLimit);');
    noTestRan(and.r);
    expect(and.r.stdout + and.r.stderr).toMatch(new RegExp(`src/counter\\.ts:${and.line}:\\d+: error \\[js-on-hardware\\]`));
  });

  it('a broken design fails with its seed and a replay line that fails the same way', () => {
    const src = path.join(app, 'src/counter.ts');
    const good = fs.readFileSync(src, 'utf8');
    fs.writeFileSync(src, good.replace('value.eq(p.limit)', 'value.eq(p.limit - 1)'));
    try {
      const bad = run('npx', ['nicgen', 'sim', 'counter', '--test', 'random', '--seed', '11'], app);
      expect(bad.code).toBe(1);
      const fail = /^FAIL counter\/random: seed 11, failed at cycle (\d+)/m.exec(bad.stdout);
      expect(fail, bad.stdout + bad.stderr).not.toBeNull();
      expect(bad.stderr).toMatch(/wrap at cycle \d+ \([\d.]+ ns\): expected 1 to be \+0/);
      // The picture of the failure, inside the project.
      expect(bad.stderr).toMatch(/picture: out\/failures\/counter-random-seed11\/failure\.svg/);
      expect(fs.existsSync(path.join(app, 'out/failures/counter-random-seed11/failure.svg'))).toBe(true);
      const hint = bad.stderr.split('\n').find(l => l.includes('replay with waves:'))!;
      const args = replayArgs(hint);
      expect(args.slice(0, 2)).toEqual(['npx', 'nicgen']);
      const again = run(args[0]!, args.slice(1), app);
      expect(again.code).toBe(1);
      expect(again.stdout).toContain(`FAIL counter/random: seed 11, failed at cycle ${fail![1]}`);

      // A regression of the broken design: every seed fails, each with its replay line.
      const reg = run('npx', ['nicgen', 'regress', '--seeds', '2', '--jobs', '2', '--seed-base', '7'], app);
      expect(reg.code, reg.stdout + reg.stderr).toBe(1);
      expect(reg.stdout).toMatch(/regress: 0 passed, 2 failed$/m);
      expect(reg.stdout).toMatch(/replay: npx nicgen sim counter --test random --seed \d+/);
      expect(reg.stdout).toContain('npx nicgen regress --seed-base 7 --seeds 2');
      // Its HTML report, in the project.
      const runDir = /regress: results in (\S+)/.exec(reg.stdout)![1]!;
      expect(fs.readFileSync(path.join(app, runDir, 'index.html'), 'utf8')).toContain('npx nicgen sim counter --test random --seed');
    } finally {
      fs.writeFileSync(src, good);
    }
  });
});
