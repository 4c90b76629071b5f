// Emitting several tops into one folder (rtl/): shared modules are written once, and two
// tops that disagree about a module of the same name are an error, not a silent overwrite.

import { moduleName, type IORecord, type ModuleDef, type Params } from '../hdl/define.ts';
import { callerLoc, type SourceLoc } from '../hdl/errors.ts';
import type { ModuleIR } from '../hdl/ir.ts';
import { emitTop, type EmittedTop } from './design.ts';
import { coreFile } from './fusesoc.ts';

/** One top of the project: how to emit it, and a line saying what it is. */
export interface TopEntry {
  readonly about: string;
  emit(): EmittedTop;
  /** The generator's full parameter set for this top (defaults with the entry's overrides);
   *  absent for hand-made entries. */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Emit with some parameters changed (`nicgen synth --set k=v`). */
  emitWith?(over: Readonly<Record<string, unknown>>): EmittedTop;
  /** The definition, the parameters the entry gives (not the defaults: `nicgen gen <top>
   *  --set k=v` re-elaborates with some changed, and defaults derived from others, such as
   *  nic_top's readsPerQp, still follow), and the line of the `top(...)` call. */
  readonly def?: ModuleDef;
  readonly given?: Readonly<Record<string, unknown>>;
  readonly at?: SourceLoc;
}

/** A typed entry: the parameters are checked against the definition here. */
export function top<P extends Params, IO extends IORecord>(def: ModuleDef<P, IO>, params: Partial<P>, about: string): TopEntry {
  const at = callerLoc(); // parameter errors point at this line of the tops file
  return {
    about,
    emit: () => emitTop(def, params, at),
    params: { ...def.defaults, ...params },
    emitWith: over => emitTop(def, { ...params, ...over } as Partial<P>, at),
    def: def as unknown as ModuleDef,
    given: params as Record<string, unknown>,
    at,
  };
}

/** The same top with some parameters changed; errors in them are reported at `at`. */
export function reconfigure(entry: TopEntry, changes: Readonly<Record<string, unknown>>, at: SourceLoc): TopEntry {
  const def = entry.def;
  if (!def) throw new Error('reconfigure: this top was not made with top(...), so its parameters are unknown');
  const given = { ...entry.given, ...changes };
  return { about: entry.about, emit: () => emitTop(def, given, at), params: { ...def.defaults, ...given }, emitWith: over => emitTop(def, { ...given, ...over }, at), def, given, at };
}

/** The Verilog name a top's module gets (without elaborating it). */
export function topName(entry: TopEntry): string | null {
  return entry.def ? moduleName(entry.def.name, entry.def.defaults, { ...entry.def.defaults, ...entry.given }) : null;
}

export interface ModuleStats {
  readonly module: string;
  readonly file: string;
  readonly lines: number;
  readonly ports: number;
  readonly portBits: number;
  readonly registers: number;
  readonly registerBits: number;
  readonly memories: number;
  readonly memoryBits: number;
  readonly instances: number;
}

export interface EmittedProject {
  readonly tops: readonly EmittedTop[];
  /** File name → contents for the whole folder: modules, filelists, port manifests, cores. */
  readonly files: Map<string, string>;
  readonly stats: readonly ModuleStats[];
}

export interface ProjectOptions {
  /** Version in each FuseSoC core's name (nicgen's own version). */
  readonly coreVersion?: string;
}

export function emitProject(entries: readonly TopEntry[], opts: ProjectOptions = {}): EmittedProject {
  const files = new Map<string, string>();
  const origin = new Map<string, string>();
  const stats: ModuleStats[] = [];
  const tops: EmittedTop[] = [];
  for (const entry of entries) {
    const t = entry.emit();
    tops.push(t);
    for (const [file, text] of t.files) {
      const prev = files.get(file);
      if (prev !== undefined && prev !== text) {
        throw new Error(`tops ${origin.get(file)} and ${t.top} both emit ${file} with different contents; give the generators distinct names`);
      }
      if (prev === undefined) {
        files.set(file, text);
        origin.set(file, t.top);
        const mod = t.modules.find(m => m.file === file);
        if (mod) stats.push(moduleStats(mod.name, file, text, mod.ir));
      }
    }
    files.set(`${t.top}.f`, t.filelist);
    files.set(`${t.top}.ports.json`, JSON.stringify(t.manifest, null, 2) + '\n');
    files.set(`${t.top}.core`, coreFile(t, { version: opts.coreVersion ?? '0', description: entry.about }));
  }
  return { tops, files, stats };
}

function moduleStats(module: string, file: string, text: string, ir: ModuleIR): ModuleStats {
  const regs = ir.signals.filter(s => s.kind === 'reg');
  return {
    module, file,
    lines: text.split('\n').length - 1,
    ports: ir.ports.length,
    portBits: ir.ports.reduce((n, p) => n + p.signal.shape.width, 0),
    registers: regs.length,
    registerBits: regs.reduce((n, s) => n + s.shape.width, 0) + ir.memories.reduce((n, m) => n + m.readPorts.filter(p => !p.async).length * m.shape.width, 0),
    memories: ir.memories.length,
    memoryBits: ir.memories.reduce((n, m) => n + m.depth * m.shape.width, 0),
    instances: ir.instances.length,
  };
}
