// A whole design: the top and every module below it, checked, emitted one file per
// module, identical modules merged, plus the filelist and the port manifest.

import { modulesBelow } from '../hdl/analysis.ts';
import type { IORecord, ModuleDef, Params } from '../hdl/define.ts';
import { callerLoc, DesignErrors, formatLoc, type SourceLoc } from '../hdl/errors.ts';
import type { ModuleIR } from '../hdl/ir.ts';
import { shapeToJson } from '../hdl/shape.ts';
import { runPasses } from '../passes/index.ts';
import { MANIFEST_FORMAT, type Manifest, type ManifestAssert, type ManifestCover } from './manifest.ts';
import { waveModules } from './wave-info.ts';
import { ModuleEmitter } from './module.ts';

export interface EmittedTop {
  /** Verilog name of the top module. */
  readonly top: string;
  /** File name → contents: one `.v` per module (leaves first). */
  readonly files: Map<string, string>;
  /** `<top>.f`: the Verilog files in compile order, for `verilator -f` / `iverilog -c`. */
  readonly filelist: string;
  readonly manifest: Manifest;
  /** Black-box modules whose Verilog the user supplies (file name → text, or null). */
  readonly blackBoxes: readonly string[];
  /** Each emitted module with the IR it came from (merged duplicates appear once). */
  readonly modules: readonly { name: string; file: string; ir: ModuleIR }[];
}

/** Elaborate, check and emit `def` as a top. Throws DesignErrors listing every problem. */
export function emitTop<P extends Params, IO extends IORecord>(def: ModuleDef<P, IO>, params: Partial<P> = {}, at: SourceLoc = callerLoc()): EmittedTop {
  return emitModuleIR(def.elaborate(params, at));
}

export function emitModuleIR(topIR: ModuleIR): EmittedTop {
  const diagnostics = runPasses(topIR);
  if (diagnostics.length) throw new DesignErrors(diagnostics);

  const modules = modulesBelow(topIR);
  const finalName = new Map<ModuleIR, string>();
  const byBody = new Map<string, string>();
  const files = new Map<string, string>();
  const asserts: ManifestAssert[] = [];
  const covers: ManifestCover[] = [];
  const blackBoxes: string[] = [];
  const emittedModules: { name: string; file: string; ir: ModuleIR }[] = [];
  const nameOf = (m: ModuleIR): string => finalName.get(m) ?? m.name;

  checkUniqueNames(modules);
  for (const m of modules) {
    if (m.blackBox) {
      finalName.set(m, m.name);
      if (m.blackBox.source !== null) files.set(`${m.name}.v`, m.blackBox.source);
      else blackBoxes.push(m.name);
      continue;
    }
    const emitted = new ModuleEmitter(m, nameOf).emit();
    // Structurally identical modules (same text but for the name) are emitted once.
    const key = emitted.body.replace(new RegExp(`^module ${emitted.name} \\(`, 'm'), 'module __SELF__ (');
    const existing = byBody.get(key);
    if (existing && m !== topIR) { finalName.set(m, existing); continue; }
    byBody.set(key, emitted.name);
    finalName.set(m, emitted.name);
    const file = `${emitted.name}.v`;
    files.set(file, emitted.header + emitted.body);
    emittedModules.push({ name: emitted.name, file, ir: m });
    const headerLines = emitted.header.split('\n').length - 1;
    for (const a of emitted.asserts) {
      asserts.push({ file, line: headerLines + a.line, module: emitted.name, message: a.stmt.message, loc: formatLoc(a.stmt.loc) });
    }
    for (const c of emitted.covers) {
      covers.push({ file, line: headerLines + c.line, module: emitted.name, name: c.stmt.name, loc: formatLoc(c.stmt.loc) });
    }
  }

  const top = nameOf(topIR);
  const order = [...files.keys()];
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    top,
    files: order,
    params: jsonParams(topIR.params),
    ports: topIR.ports.map(p => ({
      name: p.signal.name, path: p.path, dir: p.signal.kind === 'input' ? 'input' : 'output',
      width: p.signal.shape.width, signed: p.signal.shape.kind === 'sint', shape: shapeToJson(p.signal.shape),
    })),
    asserts,
    fsms: modules.filter(m => !m.blackBox).flatMap(m => m.fsms.map(f => ({ module: nameOf(m), signal: f.signal.name, states: f.states, loc: formatLoc(f.loc) }))),
    domains: [...topIR.domains.values()].filter(d => d.clock !== null).map(d => ({
      name: d.name, clock: d.clock!.name, reset: d.reset?.name ?? null, resetKind: d.reset ? d.resetKind : 'none', resetActive: d.resetActive,
    })),
    ...waveModules(emittedModules.map(e => e.ir), nameOf),
    ...(covers.length ? { covers } : {}),
  };
  return { top, files, filelist: order.join('\n') + '\n', manifest, blackBoxes, modules: emittedModules };
}

/** Two different definitions elaborating to the same Verilog name would overwrite each other. */
function checkUniqueNames(modules: ModuleIR[]): void {
  const seen = new Map<string, ModuleIR>();
  for (const m of modules) {
    const other = seen.get(m.name);
    if (other && other !== m) {
      throw new DesignErrors([{ pass: 'names', message: `two modules are both named '${m.name}' (also defined at ${formatLoc(other.loc)})`, hint: 'give one of the definitions another name', loc: m.loc }]);
    }
    seen.set(m.name, m);
  }
}

function jsonParams(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>;
}
