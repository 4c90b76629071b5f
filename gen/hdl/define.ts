// Module definitions, elaboration and instances.
//
// `defineModule(name, defaults, build)` turns a TS function into a module generator. Each
// distinct parameter set elaborates once (cached) into its own ModuleIR, named from the
// parameters that differ from the defaults (`sync_fifo_width32_depth64`), so names are
// stable and tell the reader what they are.

import { callerLoc, DslError, formatLoc, isLibraryLoc, type SourceLoc } from './errors.ts';
import type { Instance, ModuleIR, Signal } from './ir.ts';
import { ModuleBuilder } from './module.ts';
import { checkParams, ParamError, type ElabFrame, type ParamSpec } from './params.ts';
import type { Shape } from './shape.ts';
import { Input, Output, Sig, SignalValue, type AssignSink } from './signal.ts';

export type IOLeaf = Input<Shape> | Output<Shape>;
export interface IORecord { readonly [key: string]: IOLeaf | IORecord }
/** Generator parameters: any plain object (interfaces included). */
export type Params = object;

export interface ModuleDef<P extends Params = Params, IO extends IORecord = IORecord> {
  readonly name: string;
  readonly defaults: P;
  readonly doc: string | null;
  /** The parameters' allowed ranges (checked by every elaboration). */
  readonly params: ParamSpec<P>;
  /** Elaborate with some parameters overridden; the same parameters give the same IR object.
   *  `at` is the user's line that asked for it (parameter errors are reported there). */
  elaborate(params?: Partial<P>, at?: SourceLoc): ModuleIR;
  /** Type-level only: the module's ports, for typed testbench handles. */
  readonly __io?: IO;
}

export type IOOf<D> = D extends ModuleDef<Params, infer IO> ? IO : never;
export type ParamsOf<D> = D extends ModuleDef<infer P, IORecord> ? P : never;

/** What a parent sees of an instance: child inputs are assignable, outputs readable. */
export type InstanceIO<IO> = {
  [K in keyof IO]: IO[K] extends Input<infer S> ? Sig<S> : IO[K] extends Output<infer S> ? SignalValue<S> : InstanceIO<IO[K]>;
};

export interface DefineOptions<P = Params> {
  /** One line shown in the emitted module's header comment. */
  doc?: string;
  /** Allowed parameter values, checked before the generator runs (gen/hdl/params.ts). */
  params?: ParamSpec<P>;
}

/** The elaborations in progress, outermost first, for errors raised inside nested ones. */
const elaborating: ElabFrame[] = [];
const annotated = new WeakSet<Error>();

export function defineModule<P extends Params, IO extends IORecord>(
  name: string, defaults: P, build: (m: ModuleBuilder, p: P) => IO, opts: DefineOptions<P> = {},
): ModuleDef<P, IO> {
  const loc = callerLoc();
  checkModuleName(name, loc);
  const cache = new Map<string, ModuleIR>();
  const spec = opts.params ?? {};
  return {
    name,
    defaults,
    doc: opts.doc ?? null,
    params: spec,
    elaborate(over: Partial<P> = {}, at: SourceLoc = callerLoc()): ModuleIR {
      const merged = { ...defaults, ...over } as P;
      const params = spec.derive ? spec.derive(merged, new Set(Object.keys(over))) : merged;
      const key = stableKey(params);
      let ir = cache.get(key);
      if (!ir) {
        checkParams(name, spec, params, at, elaborating);
        const fresh = newModuleIR(moduleName(name, defaults, params), name, params as Record<string, unknown>, opts.doc ?? null, loc, null);
        withFrame({ module: name, loc: at }, () => {
          const io = build(new ModuleBuilder(fresh), params);
          assignPortPaths(fresh, io as IORecord, loc);
          resolveDefaultDomain(fresh);
        });
        cache.set(key, fresh);
        ir = fresh;
      }
      return ir;
    },
  };
}

/** Runs one elaboration. A plain `Error` its generator throws (the usual way to refuse a
 *  parameter: `throw new Error('nic_x: dataWidth 32 is outside 64..512')`) becomes a one-line
 *  ParamError at the line that asked for the module; the original stays as `cause`. Bugs
 *  (TypeError, ...) and DSL errors, which carry their own location, pass unchanged. */
function withFrame(frame: ElabFrame, run: () => void): void {
  const outer = [...elaborating];
  elaborating.push(frame);
  try {
    run();
  } catch (e) {
    if (e instanceof Error && e.constructor === Error) {
      const text = e.message.startsWith(`${frame.module}: `) ? e.message.slice(frame.module.length + 2) : e.message;
      throw Object.assign(new ParamError(frame.module, text, frame.loc, outer), { cause: e });
    }
    if (e instanceof DslError && !(e instanceof ParamError) && !annotated.has(e) && isLibraryLoc(e.loc)) {
      // An error inside nicgen's own generators: say which module, asked for where by whom.
      annotated.add(e);
      const chain = [frame, ...[...outer].reverse()].map(f => `${f.module} at ${formatLoc(f.loc)}`).join(', inside ');
      e.message += `\n  in ${chain}`;
    }
    throw e;
  } finally {
    elaborating.pop();
  }
}

/** A module whose Verilog exists already (vendor IP, hand-written RTL): ports only. */
export function defineBlackBox<IO extends IORecord>(name: string, ports: (m: ModuleBuilder) => IO, opts: { verilog?: string } = {}): ModuleDef<Params, IO> {
  const loc = callerLoc();
  checkModuleName(name, loc);
  let ir: ModuleIR | null = null;
  return {
    name,
    defaults: {},
    doc: null,
    params: {},
    elaborate(): ModuleIR {
      if (!ir) {
        ir = newModuleIR(name, name, {}, null, loc, { source: opts.verilog ?? null });
        assignPortPaths(ir, ports(new ModuleBuilder(ir)) as IORecord, loc);
      }
      return ir;
    },
  };
}

/** Instantiate `def` inside the module being built by `m`. */
export function instantiate<P extends Params, IO extends IORecord>(
  m: ModuleBuilder, name: string, def: ModuleDef<P, IO>, params: Partial<P> = {}, loc: SourceLoc = callerLoc(),
): InstanceIO<IO> {
  const child = def.elaborate(params, loc);
  const inst: Instance = { name, module: child, connections: new Map(), loc };
  m.addInstance(inst);
  const byPath = new Map<string, Signal>();
  const auto = new Set<Signal>();
  for (const port of child.ports) {
    const connected = autoConnection(m, inst, port.signal);
    if (connected) auto.add(connected);
    const sig = connected ?? m.instanceWire(inst, port.signal);
    inst.connections.set(port.signal.name, sig);
    byPath.set(port.path.join('.'), sig);
  }
  return buildInstanceIO(m, child, byPath, auto) as InstanceIO<IO>;
}

/**
 * The child's default clock gets the parent's default clock, whatever either is called
 * (`clk`, `aclk`); its default reset the parent's default reset, through an inverter when one
 * is active low and the other active high (`assign u_x_rst = ~aresetn;`). Otherwise none.
 */
function autoConnection(m: ModuleBuilder, inst: Instance, port: Signal): Signal | undefined {
  if (port.kind !== 'input') return undefined;
  // A child without a default domain (a black box, say) still has the conventional names.
  const childDomain = inst.module.domains.get('sync');
  const names = childDomain?.portNames ?? { clock: 'clk', reset: 'rst' };
  if (port.name !== names.clock && port.name !== names.reset) return undefined;
  const parent = m.defaultPorts();
  if (port.name === names.clock) return parent.clock?.shape.kind === port.shape.kind ? parent.clock : undefined;
  if (!parent.reset || parent.reset.shape.width !== 1 || port.shape.width !== 1) return undefined;
  if (parent.resetActive === (childDomain?.resetActive ?? 'high')) return parent.reset;
  const wire = m.instanceWire(inst, port);
  const ref = { kind: 'ref' as const, signal: parent.reset, width: 1, signed: false, loc: inst.loc };
  // At the top level of the body, wherever the instance was made: a reset is never conditional.
  m.ir.body.push({ kind: 'assign', target: wire, lo: 0, width: 1, signed: false, value: { kind: 'unary', op: 'not', arg: ref, width: 1, signed: false, loc: inst.loc }, loc: inst.loc });
  return wire;
}

function buildInstanceIO(m: ModuleBuilder, child: ModuleIR, byPath: Map<string, Signal>, auto: ReadonlySet<Signal>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const port of child.ports) {
    let node = root;
    for (const key of port.path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    const sig = byPath.get(port.path.join('.'))!;
    const leaf = port.path[port.path.length - 1]!;
    if (port.signal.kind !== 'input') node[leaf] = new SignalValue(sig);
    else if (!auto.has(sig)) node[leaf] = m.newSig(sig);
    else node[leaf] = new Sig(sig, autoConnected(m, port.signal.name, sig)); // clock/reset: already connected
  }
  return root;
}

/** The assign sink of an automatically connected clk/rst: assigning it is a mistake. */
function autoConnected(m: ModuleBuilder, port: string, parent: Signal): AssignSink {
  return {
    name: m.name,
    record(stmt): void {
      throw new DslError(`${port} of this instance is connected to ${parent.kind === 'input' ? parent.name : `the inverted reset (${parent.name})`} of ${m.name} automatically`, `do not assign it; declare ${port} in the parent after the instance to connect it by hand`, stmt.loc);
    },
  };
}

function newModuleIR(name: string, defName: string, params: Readonly<Record<string, unknown>>, doc: string | null, loc: SourceLoc, blackBox: ModuleIR['blackBox']): ModuleIR {
  return { name, defName, params, doc, ports: [], signals: [], memories: [], instances: [], body: [], domains: new Map(), fsms: [], blackBox, loc };
}

/** Record each port's path in the returned IO record (for nested interfaces). */
function assignPortPaths(ir: ModuleIR, io: IORecord, loc: SourceLoc): void {
  if (typeof io !== 'object' || io === null) throw new DslError(`module ${ir.defName} must return its ports`, 'return an object of the inputs and outputs, e.g. { clk, en, count }', loc);
  const seen = new Set<Signal>();
  const walk = (node: IORecord, path: string[]): void => {
    for (const [key, v] of Object.entries(node)) {
      if (v instanceof Input || v instanceof Output) {
        const port = ir.ports.find(p => p.signal === v.signal);
        if (!port) throw new DslError(`'${path.concat(key).join('.')}' returned by ${ir.defName} is not a port of this module`, 'return only ports made with m.input / m.output', loc);
        (port as { path: readonly string[] }).path = path.concat(key);
        seen.add(v.signal);
      } else if (v instanceof SignalValue) {
        throw new DslError(`'${path.concat(key).join('.')}' returned by ${ir.defName} is ${v.signal.kind} ${v.signal.name}, not a port`, 'return only ports made with m.input / m.output (drive an output from it instead)', loc);
      } else if (typeof v === 'object' && v !== null) walk(v as IORecord, path.concat(key));
    }
  };
  walk(io, []);
  const missing = ir.ports.filter(p => !seen.has(p.signal));
  if (missing.length) throw new DslError(`ports ${missing.map(p => p.signal.name).join(', ')} of ${ir.defName} are not in the returned IO record`, 'return every port so testbenches can reach it', missing[0]!.signal.loc);
}

/** The default domain uses the inputs named `clk` and `rst` (or as m.clockAndReset named them). */
function resolveDefaultDomain(ir: ModuleIR): void {
  const d = ir.domains.get('sync');
  if (!d) return;
  const names = d.portNames ?? { clock: 'clk', reset: 'rst' };
  d.clock = ir.ports.find(p => p.signal.name === names.clock && p.signal.kind === 'input')?.signal ?? null;
  d.reset = ir.ports.find(p => p.signal.name === names.reset && p.signal.kind === 'input')?.signal ?? null;
}

function checkModuleName(name: string, loc: SourceLoc): void {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new DslError(`module name '${name}' is not lower_snake_case`, 'name modules like sync_fifo or nic_top', loc);
}

/** `base` plus the parameters that differ from the defaults, e.g. `sync_fifo_width32_depth64`. */
export function moduleName(base: string, defaults: Params, params: Params): string {
  const parts = [base];
  const d = defaults as Record<string, unknown>, p = params as Record<string, unknown>;
  for (const key of Object.keys(p).sort()) {
    const v = p[key];
    if (stableKey(v) === stableKey(d[key])) continue;
    const k = key.replace(/[A-Z]/g, c => `_${c.toLowerCase()}`).replace(/[^a-z0-9_]/gi, '').toLowerCase();
    parts.push(`${k}${paramText(v)}`);
  }
  return parts.join('_');
}

function paramText(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint') return String(v).replace('-', 'm');
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'string') return v.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  return shortHash(stableKey(v));
}

function shortHash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** JSON with sorted keys and bigints, so equal parameter sets give equal keys. */
export function stableKey(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (Array.isArray(v)) return `[${v.map(stableKey).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map(k => `${k}:${stableKey((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}
