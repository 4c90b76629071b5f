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
      const filesOf = moduleFiles(t, dir);
      for (const m of t.modules) {
        if (targets.has(m.name) || !wanted(t.top, m.name)) continue;
        targets.set(m.name, { module: m.name, files: filesOf(m.name) });
      }
    }
    // Tops first, largest first: a large top's Verilator and Icarus runs elaborate its whole
    // hierarchy (Yosys only its own body, gates.ts), and started last (a top comes after its
    // modules) it would run on one core after every other module had finished.
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

/** For one top: the files of a module and of the modules it instantiates (transitively), in
 *  the top's compile order, so a stage's gates parse its own few files, not every file before
 *  it. A manifest without instance lists gives every file up to the module's own. */
function moduleFiles(t: EmittedTop, dir: string): (module: string) => string[] {
  const fileOf = new Map(t.modules.map(m => [m.name, m.file]));
  const inOrder = (files: ReadonlySet<string>): string[] => t.manifest.files.filter(f => files.has(f)).map(f => path.join(dir, f));
  const instances = t.manifest.modules;
  if (!instances) return module => inOrder(new Set(t.manifest.files.slice(0, t.manifest.files.indexOf(fileOf.get(module)!) + 1)));
  const children = new Map(instances.map(m => [m.name, m.instances.map(i => i.module)]));
  return module => {
    const needed = new Set<string>();
    const visit = (name: string): void => {
      if (needed.has(name)) return;
      needed.add(name);
      for (const c of children.get(name) ?? []) visit(c);
    };
    visit(module);
    return inOrder(new Set([...needed].map(n => fileOf.get(n)!)));
  };
}

/** Tops first, largest first (bytes of Verilog each compiles, read once); the rest in order. */
function topsFirst(targets: GateTarget[], tops: ReadonlySet<string>): GateTarget[] {
  const bytes = new Map(targets.filter(t => tops.has(t.module)).map(t => [t, t.files.reduce((n, f) => n + fs.statSync(f).size, 0)]));
  const first = [...bytes.keys()].sort((a, b) => bytes.get(b)! - bytes.get(a)!);
  return [...first, ...targets.filter(t => !bytes.has(t))];
}

function printFailure(r: ModuleGates): void {
  for (const g of gateNames) {
    if (r[g].ok && !r[g].output.trim()) continue;
    console.log(`--- ${r.module}: ${g} ${r[g].ok ? 'ok' : 'FAILED'}`);
    console.log(r[g].output.trim().split('\n').slice(0, 40).join('\n'));
  }
}
