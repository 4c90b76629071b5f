// `nicgen lint`: emit into a scratch folder and run the three gates on every module.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runGates, gateNames, type ModuleGates, type GateTarget } from './gates.ts';
import type { EmittedTop } from '../gen/emit/index.ts';
import { emitAll, selectTops } from './project.ts';
import { pool } from './tools.ts';

export interface LintOptions {
  readonly tops: readonly string[];
  readonly jobs: number;
  readonly verbose: boolean;
  readonly topsFile?: string;
}

export async function lintCommand(opts: LintOptions): Promise<number> {
  const project = await emitAll(opts.topsFile);
  const selected = selectTops(project, opts.tops);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-lint-'));
  try {
    for (const [f, text] of project.files) fs.writeFileSync(path.join(dir, f), text);
    // Each module once, checked with the files of a top that contains it. A name that is a
    // top selects all of its modules; a name that is only a module selects just that module
    // (its submodules are compiled with it), not every top it sits in (nic_top's lint takes
    // minutes, a stage's seconds).
    const wanted = (top: string, module: string): boolean => !opts.tops.length || opts.tops.includes(top) || opts.tops.includes(module);
    const targets = new Map<string, GateTarget>();
    for (const t of selected) {
      for (const m of t.modules) {
        if (targets.has(m.name) || !wanted(t.top, m.name)) continue;
        targets.set(m.name, { module: m.name, files: filesOf(m.name, t, dir) });
      }
    }
    // Tops first, largest first: nic_top's Yosys run alone takes minutes, and started last (a
    // top comes after its modules) it ran on one core after every other module had finished.
    const list = topsFirst([...targets.values()], new Set(selected.map(t => t.top)));
    const nameWidth = Math.max(6, ...list.map(t => t.module.length));
    console.log(`${'module'.padEnd(nameWidth)}  ${gateNames.map(g => g.padEnd(9)).join('  ')}  time`);
    let done = 0;
    const results = await pool(list, opts.jobs, async t => {
      const r = await runGates(t);
      done++;
      const cells = gateNames.map(g => (r[g].ok ? 'ok' : 'FAIL').padEnd(9));
      const secs = r.seconds.toFixed(1);
      console.log(`${r.module.padEnd(nameWidth)}  ${cells.join('  ')}  ${secs.padStart(5)} s  [${done}/${list.length}]`);
      return r;
    });
    const failed = results.filter(r => !r.ok);
    for (const r of failed) printFailure(r);
    for (const r of results) if (opts.verbose && r.ok) printFailure(r);
    console.log(`lint: ${results.length - failed.length} passed, ${failed.length} failed (${results.length} modules × 3 gates)`);
    return failed.length ? 1 : 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The files of `module` and the modules it instantiates (transitively), in the top's
 *  compile order: a stage's gates parse its own few files, not every file before it. */
function filesOf(module: string, t: EmittedTop, dir: string): string[] {
  const all = t.manifest.files.map(f => path.join(dir, f));
  const own = t.modules.find(m => m.name === module)!.file;
  if (!t.manifest.modules) return all.slice(0, all.indexOf(path.join(dir, own)) + 1);
  const children = new Map(t.manifest.modules.map(m => [m.name, m.instances.map(i => i.module)]));
  const needed = new Set<string>();
  const visit = (name: string): void => {
    if (needed.has(name)) return;
    needed.add(name);
    for (const c of children.get(name) ?? []) visit(c);
  };
  visit(module);
  const files = new Set(t.modules.filter(m => needed.has(m.name)).map(m => m.file));
  return t.manifest.files.filter(f => files.has(f)).map(f => path.join(dir, f));
}

function topsFirst(targets: GateTarget[], tops: ReadonlySet<string>): GateTarget[] {
  const bytes = (t: GateTarget): number => t.files.reduce((n, f) => n + fs.statSync(f).size, 0);
  const first = targets.filter(t => tops.has(t.module)).sort((a, b) => bytes(b) - bytes(a));
  return [...first, ...targets.filter(t => !tops.has(t.module))];
}

function printFailure(r: ModuleGates): void {
  for (const g of gateNames) {
    if (r[g].ok && !r[g].output.trim()) continue;
    console.log(`--- ${r.module}: ${g} ${r[g].ok ? 'ok' : 'FAILED'}`);
    console.log(r[g].output.trim().split('\n').slice(0, 40).join('\n'));
  }
}
