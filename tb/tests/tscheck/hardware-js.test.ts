// The type-aware check (gen/tscheck): every JavaScript construct that takes a hardware value
// as a plain JS value is reported at its file:line:col, in a design outside gen/ (fixtures/
// here, and a design written to a temp folder outside the repository); the same design
// written with the DSL's operators passes. And `nicgen gen` runs it (and tsc) on the user's
// files before anything is elaborated or written.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkHardwareJs } from '../../../gen/tscheck/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const bad = path.join(here, 'fixtures/bad-design.ts');
const good = path.join(here, 'fixtures/good-design.ts');

/** Marker → [the construct the message names, the source text at the reported column]. */
const expected: Record<string, [string, string]> = {
  and: ['`&&`', 'v && w'], or: ['`||`', 'v || w'], not: ['`!`', 'v ? 1 : 0'], nullish: ['`??`', 'v ?? w'],
  conditional: ['`?:`', 'v ? 1 : 0'], if: ['`if`', 'v) y.set(1)'], ifAndFlag: ['`&&`', 'v) y.set(1)'],
  while: ['`while`', 'v) break'], for: ['`for`', 'v;) break'], do: ['`do ... while`', 'v); }'],
  strictEq: ['`===`', 'a === b'], looseEq: ['`==`', 'a == b'], strictNe: ['`!==`', 'a !== b'], looseNe: ['`!=`', 'a != b'],
  less: ['`<`', 'a < b'], plus: ['`+`', 'a + 1'], minus: ['`-`', 'a - 1'], concat: ['string concatenation', "'w_' + a"],
  template: ['template literal', 'a}`'], switch: ['`switch`', 'a) {'], case: ['`case`', 'a: y.set'], inModule: ['`?:`', 'v ? 1 : 0'],
};

function markerLines(file: string): Map<number, string> {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const result = new Map<number, string>();
  lines.forEach((l, i) => { const m = /\/\/ @here:(\w+)/.exec(l); if (m) result.set(i + 1, m[1]!); });
  return result;
}

describe('the hardware-value check', () => {
  it('reports each construct of bad-design.ts at its line and column, and nothing else', () => {
    const r = checkHardwareJs([bad]);
    const lines = fs.readFileSync(bad, 'utf8').split('\n');
    const marks = markerLines(bad);
    expect([...marks.values()].sort()).toEqual(Object.keys(expected).sort());
    const found = r.diagnostics.filter(d => d.loc.file === bad);
    expect(r.diagnostics.length - found.length, 'findings outside the fixture (in gen/)').toBe(0);
    const byLine = new Map(found.map(d => [d.loc.line, d]));
    for (const [line, name] of marks) {
      const d = byLine.get(line);
      expect(d, `${name}: nothing reported at line ${line}`).toBeDefined();
      const [construct, text] = expected[name]!;
      expect(d!.message, name).toContain(construct);
      expect(lines[line - 1]!.slice(d!.loc.col - 1).startsWith(text), `${name}: column ${d!.loc.col} is not at '${text}'`).toBe(true);
      expect(d!.pass).toBe('js-on-hardware');
      expect(d!.hint, name).not.toBe('');
    }
    expect(found.map(d => d.loc.line).sort((a, b) => a - b), 'one finding per marked line').toEqual([...marks.keys()].sort((a, b) => a - b));
  });

  it('passes good-design.ts, the same design written with the DSL operators', () => {
    expect(checkHardwareJs([good]).diagnostics).toEqual([]);
  });
});

describe('nicgen gen checks the user\'s files first', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-tscheck-'));
  fs.writeFileSync(path.join(tmp, 'package.json'), '{ "type": "module" }\n');
  const dsl = path.join(root, 'gen/hdl/index.ts');
  const emit = path.join(root, 'gen/emit/index.ts');
  const design = (body: string): string => [
    `import { Bool, UInt, defineModule } from '${dsl}';`,
    `export const gate = defineModule('user_gate', {}, m => {`,
    `  const a = m.input('a', Bool);`,
    `  const b = m.input('b', Bool);`,
    `  const y = m.output('y', Bool);`,
    `  const n = m.input('n', UInt(4));`,
    body,
    `  return { a, b, y, n };`,
    `});`,
  ].join('\n') + '\n';
  fs.writeFileSync(path.join(tmp, 'tops.ts'), `import { top } from '${emit}';\nimport { gate } from './design.ts';\nexport const tops = [top(gate, {}, 'a gate')];\n`);
  const run = (...args: string[]) => spawnSync(path.join(root, 'bin/nicgen'), args, { cwd: tmp, encoding: 'utf8', timeout: 300_000 });

  it('in a folder outside the repository: each misuse at its line, nothing written; the corrected design is written', () => {
    fs.writeFileSync(path.join(tmp, 'design.ts'), design([
      `  y.set(a && b);`,
      `  if (n === 3) y.set(0);`,
      `  m.unused(m.wire(\`w_\${n}\`, Bool), 'x');`,
    ].join('\n')));
    const r = run('gen', '--tops', 'tops.ts', '--out', 'out');
    expect(r.status, r.stderr).toBe(1);
    // Messages name the user's files relative to the folder nicgen runs in (the project).
    const file = 'design.ts';
    expect(r.stderr).toContain(`${file}:7:9: error [js-on-hardware]: \`&&\` tests a hardware value`);
    expect(r.stderr).toContain(`${file}:8:7: error [js-on-hardware]: \`===\` compares JavaScript objects`);
    expect(r.stderr).toContain(`${file}:9:24: error [js-on-hardware]: a hardware value inside a template literal`);
    expect(r.stderr).toMatch(/hint: use a\.land\(b\)/);
    expect(fs.existsSync(path.join(tmp, 'out')), 'nothing written').toBe(false);
    const lint = run('lint', '--tops', 'tops.ts');
    expect(lint.status, 'nicgen lint runs the check too').toBe(1);
    expect(lint.stderr).toContain(`${file}:7:9: error [js-on-hardware]`);

    fs.writeFileSync(path.join(tmp, 'design.ts'), design([
      `  y.set(a.land(b));`,
      `  m.unused(n, 'only its width matters here');`,
    ].join('\n')));
    const ok = run('gen', '--tops', 'tops.ts', '--out', 'out');
    expect(ok.status, ok.stderr).toBe(0);
    expect(fs.readFileSync(path.join(tmp, 'out/user_gate.v'), 'utf8')).toMatch(/assign y = a && b;/);
  }, 600_000);

  it('every construct of bad-design.ts, copied into that folder: nicgen lint reports each at its line and column', () => {
    const copy = path.join(tmp, 'all-bad.ts');
    fs.writeFileSync(copy, fs.readFileSync(bad, 'utf8').replace("'../../../../gen/hdl/index.ts'", `'${dsl}'`));
    fs.writeFileSync(path.join(tmp, 'all-tops.ts'), `import { top } from '${emit}';\nimport { badDesign } from './all-bad.ts';\nexport const tops = [top(badDesign, {}, 'bad')];\n`);
    const r = run('lint', '--tops', 'all-tops.ts');
    expect(r.status).toBe(1);
    const lines = fs.readFileSync(copy, 'utf8').split('\n');
    for (const [line, name] of markerLines(copy)) {
      const [construct, text] = expected[name]!;
      const col = lines[line - 1]!.indexOf(text) + 1;
      const reported = r.stderr.split('\n').find(l => l.startsWith(`${path.relative(tmp, copy)}:${line}:${col}: error [js-on-hardware]: `));
      expect(reported, `${name} at ${line}:${col}`).toBeDefined();
      expect(reported, name).toContain(construct);
    }
    expect(r.stderr.match(/error \[js-on-hardware\]/g)?.length).toBe(markerLines(copy).size);
  }, 600_000);

  it('a misspelt port is a tsc error at its line, though the user never ran tsc', () => {
    fs.writeFileSync(path.join(tmp, 'design.ts'), design(`  y.set(a.lannd(b));\n  m.unused(n, 'x');`));
    const r = run('gen', '--tops', 'tops.ts', '--out', 'out2');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`design.ts:7:11: error [tsc]: TS2551: Property 'lannd' does not exist`);
    expect(fs.existsSync(path.join(tmp, 'out2'))).toBe(false);
  }, 600_000);
});
