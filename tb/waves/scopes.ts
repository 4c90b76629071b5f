// Maps a dump's scopes to the design's modules through the manifest: the top module's scope
// is TOP.<top> (Verilator puts a copy of the top's ports at TOP), and each instance of a
// module is a child scope named after the instance. For each module scope, its variables
// are sorted into what a reader looks for: interfaces (IO bundles, AXI split by channel),
// FSM state registers, struct/enum/vector signals, and the rest.

import type { Manifest, ManifestFsm, ManifestModule } from '../../gen/emit/manifest.ts';
import type { ShapeJson } from '../../gen/hdl/shape.ts';
import type { VcdHeader, VcdScope, VcdVar } from './vcd.ts';

export interface ModuleScope {
  /** Dotted path in the dump, `TOP.nic_top.u_req_tx`. */
  readonly path: string;
  /** Path below the top module, '' for the top itself, `u_req_tx` for a child. */
  readonly rel: string;
  readonly scope: VcdScope;
  readonly module: ManifestModule | undefined;
  /** The emitted module name, when known. */
  readonly moduleName: string | undefined;
  readonly depth: number;
}

export type InterfaceKind = 'axi' | 'axi-lite' | 'axi-stream' | 'stream' | 'bundle';

export interface InterfaceGroup {
  readonly name: string;
  readonly kind: InterfaceKind;
  /** Channels (AXI: aw, w, b, ar, r) with their variables; one unnamed channel otherwise. */
  readonly channels: readonly { readonly name: string; readonly vars: readonly VcdVar[] }[];
}

export interface TypedVar {
  readonly v: VcdVar;
  readonly shape: ShapeJson;
}

export interface FsmVar {
  readonly v: VcdVar;
  readonly fsm: ManifestFsm;
}

export interface ScopeContents {
  readonly interfaces: readonly InterfaceGroup[];
  readonly fsms: readonly FsmVar[];
  readonly typed: readonly TypedVar[];
  readonly other: readonly VcdVar[];
}

/** Every module scope of the design found in the dump, top first, depth first. */
export function moduleScopes(manifest: Manifest, header: VcdHeader): ModuleScope[] {
  const byName = new Map((manifest.modules ?? []).map(m => [m.name, m]));
  const top = header.root.scopes.get('TOP')?.scopes.get(manifest.top);
  if (!top) return [];
  const out: ModuleScope[] = [];
  const walk = (scope: VcdScope, moduleName: string | undefined, rel: string, depth: number): void => {
    const module = moduleName === undefined ? undefined : byName.get(moduleName);
    out.push({ path: scope.path, rel, scope, module, moduleName, depth });
    const known = new Map((module?.instances ?? []).map(i => [i.name, i.module]));
    // Instances in declaration order first, then any scope the manifest does not name.
    const names = [...known.keys()].filter(n => scope.scopes.has(n));
    for (const n of scope.scopes.keys()) if (!known.has(n)) names.push(n);
    for (const n of names) walk(scope.scopes.get(n)!, known.get(n), rel ? `${rel}.${n}` : n, depth + 1);
  };
  walk(top, manifest.top, '', 0);
  return out;
}

const AXI_CHANNEL = /(?:^|_)(aw|w|b|ar|r)(id|addr|len|size|burst|lock|cache|prot|qos|region|user|valid|ready|data|strb|last|resp)$/;
const AXIS_FIELD = /(?:^|_)t(data|keep|strb|valid|ready|last|user|id|dest)$/;

function interfaceKind(ports: readonly string[], channels: ReadonlyMap<string, unknown>): InterfaceKind {
  if (channels.size >= 2) return ports.some(p => /(?:^|_)(awlen|arlen|wlast|rlast)$/.test(p)) ? 'axi' : 'axi-lite';
  if (ports.some(p => AXIS_FIELD.test(p)) && ports.some(p => /tvalid$/.test(p))) return 'axi-stream';
  if (ports.some(p => /(?:^|_)valid$/.test(p)) && ports.some(p => /(?:^|_)ready$/.test(p))) return 'stream';
  return 'bundle';
}

/** The AXI channel of a port name, or undefined. */
export function axiChannel(port: string): string | undefined {
  return AXI_CHANNEL.exec(port)?.[1];
}

/** Sorts a module scope's variables; each variable lands in one place only. */
export function scopeContents(manifest: Manifest, ms: ModuleScope): ScopeContents {
  const vars = new Map(ms.scope.vars.map(v => [v.name, v]));
  const used = new Set<string>();
  const take = (name: string): VcdVar | undefined => {
    const v = vars.get(name);
    if (!v || used.has(name)) return undefined;
    used.add(name);
    return v;
  };
  const interfaces: InterfaceGroup[] = [];
  for (const itf of ms.module?.interfaces ?? topInterfaces(manifest, ms)) {
    const byChannel = new Map<string, VcdVar[]>();
    for (const p of itf.ports) {
      const ch = axiChannel(p) ?? '';
      let list = byChannel.get(ch);
      if (!list) byChannel.set(ch, list = []);
      const v = take(p);
      if (v) list.push(v);
    }
    const axiLike = [...byChannel.keys()].filter(k => k !== '');
    const kind = interfaceKind(itf.ports, new Map(axiLike.map(k => [k, 1])));
    const order = kind === 'axi' || kind === 'axi-lite' ? ['aw', 'w', 'b', 'ar', 'r', ''] : [...byChannel.keys()];
    const channels = order.filter(k => byChannel.get(k)?.length).map(k => ({ name: k, vars: byChannel.get(k)! }));
    if (kind !== 'axi' && kind !== 'axi-lite') channels.splice(0, channels.length, { name: '', vars: [...byChannel.values()].flat() });
    if (channels.length) interfaces.push({ name: itf.name, kind, channels });
  }
  const fsms: FsmVar[] = [];
  for (const f of manifest.fsms) {
    if (f.module !== ms.moduleName) continue;
    const v = take(f.signal);
    if (v) fsms.push({ v, fsm: f });
  }
  const typed: TypedVar[] = [];
  for (const t of ms.module?.typed ?? []) {
    const shape = manifest.shapes?.[t.shape];
    if (!shape) continue;
    // A struct port stays in its interface; its fields are split there (see typedShape).
    if (used.has(t.name)) continue;
    const v = take(t.name);
    if (v) typed.push({ v, shape });
  }
  // Parameters (FSM state localparams) are constants GTKWave does not list: left out.
  const other = ms.scope.vars.filter(v => !used.has(v.name) && v.type !== 'parameter');
  return { interfaces, fsms, typed, other };
}

/** The shape of a variable of this module scope, when it is a struct, enum or vector. */
export function typedShape(manifest: Manifest, ms: ModuleScope, name: string): ShapeJson | undefined {
  const t = ms.module?.typed.find(x => x.name === name);
  if (t) return manifest.shapes?.[t.shape];
  if (ms.rel === '') {
    const p = manifest.ports.find(x => x.name === name);
    if (p && (p.shape.kind === 'struct' || p.shape.kind === 'enum' || p.shape.kind === 'vec')) return p.shape;
  }
  return undefined;
}

/** Interfaces of a top without module information (hand-written designs): from port paths. */
function topInterfaces(manifest: Manifest, ms: ModuleScope): ManifestModule['interfaces'] {
  if (ms.rel !== '') return [];
  const byPath = new Map<string, string[]>();
  for (const p of manifest.ports) {
    if (p.path.length < 2) continue;
    const key = p.path.slice(0, -1).join('.');
    let list = byPath.get(key);
    if (!list) byPath.set(key, list = []);
    list.push(p.name);
  }
  return [...byPath].map(([name, ports]) => ({ name, ports }));
}
