// docs/testbench.md is a project: every ```ts block with `file=PATH` is one of its files. This
// test writes them into a fresh folder outside the repository (nicgen linked in as a package),
// type-checks them against nicgen's sources, runs both benches under `nicgen sim` and under
// vitest, and replays the documented failure (the carry dropped) to compare it with the page.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const doc = fs.readFileSync(path.join(root, 'docs/testbench.md'), 'utf8');

interface Block { readonly info: string; readonly body: string }

/** Fenced blocks of a markdown text, with their info strings. */
function blocks(md: string): Block[] {
  const out: Block[] = [];
  const re = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(md); m; m = re.exec(md)) out.push({ info: m[1]!.trim(), body: m[2]! });
  return out;
}

const files = blocks(doc).flatMap(b => {
  const f = /^ts file=(\S+)$/.exec(b.info);
  return f ? [{ file: f[1]!, text: b.body }] : [];
});

function run(cmd: string, args: readonly string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', NICGEN_CACHE: process.env['NICGEN_CACHE'] ?? path.join(root, '.cache') };
  delete env['FORCE_COLOR'];
  delete env['NICGEN_SEED'];
  const r = spawnSync(cmd, [...args], { cwd, env, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

describe('docs/testbench.md', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-tbdoc-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }), 60_000);
  const nicgen = path.join(root, 'bin/nicgen');

  it('has the worked example\'s files', () => {
    expect(files.map(f => f.file)).toEqual(['src/adder.ts', 'tb/adder.bench.ts', 'tb/adder.test.ts', 'nicgen.config.ts']);
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(dir, f.file)), { recursive: true });
      fs.writeFileSync(path.join(dir, f.file), f.text);
    }
    // nicgen (and vitest, which the bench imports) as packages of the project.
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.symlinkSync(root, path.join(dir, 'node_modules/nicgen'));
    fs.symlinkSync(path.join(root, 'node_modules/vitest'), path.join(dir, 'node_modules/vitest'));
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "tbdoc", "private": true, "type": "module" }\n');
  });

  it('type-checks against nicgen\'s sources', () => {
    const paths: Record<string, string[]> = {
      'nicgen/hdl': ['gen/hdl/index.ts'], 'nicgen/lib': ['gen/lib/index.ts'], 'nicgen/emit': ['gen/emit/index.ts'],
      'nicgen/tb': ['tb/index.ts'], 'nicgen/config': ['cli/config.ts'],
    };
    const abs = Object.fromEntries(Object.entries(paths).map(([k, v]) => [k, v.map(p => path.join(root, p))]));
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      extends: path.join(root, 'tsconfig.json'),
      compilerOptions: { paths: { ...abs, vitest: [path.join(root, 'node_modules/vitest')] }, typeRoots: [path.join(root, 'node_modules/@types')] },
      include: ['src', 'tb', 'nicgen.config.ts'],
    }, null, 2));
    const r = run(path.join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('runs both benches under nicgen sim, as the page says', () => {
    const list = run(nicgen, ['sim', '--list'], dir);
    expect(list.stdout).toMatch(/^adder\n {2}random +2000 random sums, 30 % idles, 40 % back-pressure\n {2}full_rate /);
    const r = run(nicgen, ['sim', 'adder', '--test', 'random', '--seed', '4'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const shown = /# (PASS adder\/random: seed 4, \d+ cycles)/.exec(doc)![1]!;
    expect(r.stdout).toContain(shown);
    expect(run(nicgen, ['sim', 'adder', '--test', 'full_rate', '--seed', '4'], dir).code).toBe(0);
  });

  it('runs the same benches under vitest', () => {
    const r = run(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Tests +2 passed/);
  });

  it('fails as documented when the adder drops its carry', () => {
    const src = path.join(dir, 'src/adder.ts');
    const good = fs.readFileSync(src, 'utf8');
    const broken = good.replace(".field('a').add(", ".field('a').addw(");
    expect(broken).not.toBe(good);
    fs.writeFileSync(src, broken);
    try {
      const r = run(nicgen, ['sim', 'adder', '--test', 'random', '--seed', '4'], dir);
      expect(r.code).toBe(1);
      const want = blocks(doc).find(b => b.info === 'text check=broken-carry')!.body.trim().split('\n');
      // Progress lines, and the type-check's line (printed since the design file changed: its
      // file count and times vary), are not in the page.
      const got = [...r.stdout.trim().split('\n'), ...r.stderr.trim().split('\n').filter(l => !l.startsWith('[sim]') && !l.startsWith('sim: type-checked'))];
      // Wall time differs from run to run; everything else is as printed in the page.
      const noTime = (l: string): string => l.replace(/, [\d.]+ s wall$/, '');
      expect(got.map(noTime)).toEqual(want.map(noTime));
    } finally {
      fs.writeFileSync(src, good);
    }
  });
});
