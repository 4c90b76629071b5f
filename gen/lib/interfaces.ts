// Interface bundles: a group of directed signals described once and created in a module as
// either side. A field flows `fwd` (from the source/master to the sink/slave: data, valid)
// or `bwd` (back: ready, responses). `source` makes fwd fields outputs and bwd fields inputs;
// `sink` flips both. Ports are named `<prefix>_<field>`, and the returned record nests into
// the module's IO record, so the manifest path is [prefix-key, field].
//
//   const s = axis.sink(m, 's_axis');      // s.tdata: Input, s.tready: Output
//   const o = axis.source(m, 'm_axis');    // o.tdata: Output, o.tready: Input
//   connect(axis, s, o);                   // pass-through (o.tdata = s.tdata, s.tready = o.tready)

import {
  Bool, UInt, DslError, Input, Output, Sig, Value, markInternalFile,
  type ModuleBuilder, type Shape, type SignalValue, type UIntShape,
} from '../hdl/index.ts';

// A bundle's ports, wires and connections belong to the line that asked for them
// (`stream(T).source(m, 'm_len')`): an undriven port is reported there, not here.
markInternalFile(import.meta.url);

export type Flow = 'fwd' | 'bwd';
/** source = the master side (drives fwd fields); sink = the slave side. */
export type Side = 'source' | 'sink';

export interface Field<S extends Shape = Shape, F extends Flow = Flow> {
  readonly flow: F;
  readonly shape: S;
}
export function fwd<S extends Shape>(shape: S): Field<S, 'fwd'> { return { flow: 'fwd', shape }; }
export function bwd<S extends Shape>(shape: S): Field<S, 'bwd'> { return { flow: 'bwd', shape }; }

/** Field name → field. Optional keys are fields a parameter can leave out (e.g. `tuser`). */
export type BundleSpec = { readonly [name: string]: Field };

type Drives<F extends Flow, Sd extends Side> = F extends 'fwd' ? Sd extends 'source' ? true : false : Sd extends 'source' ? false : true;

/** The port a field becomes on one side. */
export type PortOf<Fd, Sd extends Side> = Fd extends Field<infer S, infer F> ? (Drives<F, Sd> extends true ? Output<S> : Input<S>) : never;
/** The ports of a bundle on one side (optional fields stay optional). */
export type BundleIO<B, Sd extends Side> = { -readonly [K in keyof B]: PortOf<B[K], Sd> };

/** A producer as seen by a connection: fwd fields readable, bwd fields assignable. Covers a
 *  module's own sink ports and an instance's source ports. */
export type ProducerView<B> = { [K in keyof B]: B[K] extends Field<infer S, infer F> ? (F extends 'fwd' ? Value<S> : Sig<S>) : never };
/** A consumer: fwd fields assignable, bwd readable (own source ports, an instance's sink ports). */
export type ConsumerView<B> = { [K in keyof B]: B[K] extends Field<infer S, infer F> ? (F extends 'fwd' ? Sig<S> : Value<S>) : never };
/** Internal wires for both directions (e.g. between two instances). */
export type WireView<B> = { [K in keyof B]: B[K] extends Field<infer S, Flow> ? Sig<S> : never };

/** A described interface; create it in a module as either side. */
export class Bundle<B extends BundleSpec> {
  readonly spec: B;
  constructor(spec: B) { this.spec = spec; }

  /** Ports of the master side (drives fwd fields). */
  source(m: ModuleBuilder, prefix: string): BundleIO<B, 'source'> { return this.create(m, prefix, 'source'); }
  /** Ports of the slave side (drives bwd fields). */
  sink(m: ModuleBuilder, prefix: string): BundleIO<B, 'sink'> { return this.create(m, prefix, 'sink'); }

  create<Sd extends Side>(m: ModuleBuilder, prefix: string, side: Sd): BundleIO<B, Sd> {
    const io: Record<string, Input | Output> = {};
    for (const [key, f] of this.#fields()) {
      const out = (f.flow === 'fwd') === (side === 'source');
      io[key] = out ? m.output(`${prefix}_${key}`, f.shape) : m.input(`${prefix}_${key}`, f.shape);
    }
    return io as BundleIO<B, Sd>;
  }

  /** Plain wires `<prefix>_<field>` for every field, to join two instances inside a module. */
  wires(m: ModuleBuilder, prefix: string): WireView<B> {
    const io: Record<string, Sig> = {};
    for (const [key, f] of this.#fields()) io[key] = m.wire(`${prefix}_${key}`, f.shape);
    return io as WireView<B>;
  }

  /** Field names with their flows, in declaration order (what exists after optional fields are dropped). */
  #fields(): [string, Field][] {
    return Object.entries(this.spec).filter((e): e is [string, Field] => e[1] !== undefined);
  }
}

/** Drive `to` from `from`: fwd fields flow from→to, bwd fields to→from. Both records must
 *  have the same fields (same bundle, same parameters). */
export function connect<B extends BundleSpec>(bundle: Bundle<B>, from: ProducerView<B>, to: ConsumerView<B>): void {
  const f = from as Record<string, Value | undefined>;
  const t = to as Record<string, Value | undefined>;
  for (const [key, field] of Object.entries(bundle.spec)) {
    if (field === undefined) continue;
    const a = f[key], b = t[key];
    if (!a || !b) throw new DslError(`connect: field '${key}' is missing on one side`, 'connect two ends of the same bundle with the same parameters');
    const [src, dst] = field.flow === 'fwd' ? [a, b] : [b, a];
    if (!(dst instanceof Sig)) throw new DslError(`connect: '${key}' on the receiving side is not assignable`, 'pass a producer (own sink ports / instance source ports) first, then a consumer');
    dst.set(src);
  }
}

/** Mark every input of a created bundle that this module does not read (e.g. AXI `awcache`
 *  on a slave that ignores it) as deliberately unused. */
export function unusedFields(m: ModuleBuilder, io: Readonly<Record<string, SignalValue | undefined>>, keys: readonly string[], reason: string): void {
  for (const k of keys) {
    const s = io[k];
    if (!s) throw new DslError(`unusedFields: no field '${k}'`, `fields are: ${Object.keys(io).join(', ')}`);
    m.unused(s, reason);
  }
}

// ---- ready/valid stream ----------------------------------------------------------------

export type StreamSpec<T extends Shape> = { data: Field<T, 'fwd'>; valid: Field<UIntShape<1>, 'fwd'>; ready: Field<UIntShape<1>, 'bwd'> };
/** A ready/valid stream with a typed payload: ports `<p>_data`, `<p>_valid`, `<p>_ready`.
 *  A struct payload stays one port (`<p>_data`) whose layout the manifest records. A
 *  transfer happens on a clock edge where valid and ready are both high; a source must
 *  hold valid and data until then, and must not wait for ready before raising valid. */
export function stream<T extends Shape>(payload: T): Bundle<StreamSpec<T>> {
  return new Bundle({ data: fwd(payload), valid: fwd(Bool), ready: bwd(Bool) });
}
export type Stream<T extends Shape, Sd extends Side> = BundleIO<StreamSpec<T>, Sd>;

// ---- AXI4-Stream -------------------------------------------------------------------------

export interface AxisParams {
  dataWidth: number;
  /** tkeep present (one bit per byte; dataWidth must be whole bytes). Default true. */
  keep?: boolean;
  /** tlast present. Default true. */
  last?: boolean;
  /** tuser width; 0 (default) leaves tuser out. */
  userWidth?: number;
}
export type AxisSpec = {
  tdata: Field<UIntShape, 'fwd'>;
  tkeep?: Field<UIntShape, 'fwd'>;
  tvalid: Field<UIntShape<1>, 'fwd'>;
  tready: Field<UIntShape<1>, 'bwd'>;
  tlast?: Field<UIntShape<1>, 'fwd'>;
  tuser?: Field<UIntShape, 'fwd'>;
};
/** Whether a bundle has an optional field, from the parameters as TypeScript sees them:
 *  'yes' / 'no' when they say so in literals, 'maybe' when only known at elaboration. */
type Has = 'yes' | 'no' | 'maybe';
type FlagHas<P, K extends string, Default extends Has> = K extends keyof P
  ? ([P[K]] extends [true] ? 'yes' : [P[K]] extends [false] ? 'no' : [P[K]] extends [undefined] ? Default : 'maybe')
  : Default;
type WidthHas<P> = 'userWidth' extends keyof P
  ? (P extends { readonly userWidth?: infer W } ? ([W] extends [undefined | 0] ? 'no' : number extends W ? 'maybe' : 'yes') : 'maybe')
  : 'no';
type FieldIf<H extends Has, K extends string, F> = H extends 'yes' ? { [Q in K]: F } : H extends 'no' ? {} : { [Q in K]?: F };
type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * The fields of `axiStream(p)`: tkeep, tlast and tuser are present in the type exactly when the
 * parameters say so (`axiStream({ dataWidth: 64, userWidth: 1 })` has `tuser`, no `!` needed),
 * and optional only when a parameter is not a literal.
 */
export type AxisSpecOf<P extends AxisParams> = Extract<AxisFields<P>, BundleSpec>;
type AxisFields<P extends AxisParams> = Flatten<{
  tdata: Field<UIntShape, 'fwd'>;
  tvalid: Field<UIntShape<1>, 'fwd'>;
  tready: Field<UIntShape<1>, 'bwd'>;
} & FieldIf<FlagHas<P, 'keep', 'yes'>, 'tkeep', Field<UIntShape, 'fwd'>>
  & FieldIf<FlagHas<P, 'last', 'yes'>, 'tlast', Field<UIntShape<1>, 'fwd'>>
  & FieldIf<WidthHas<P>, 'tuser', Field<UIntShape, 'fwd'>>>;

/** AXI4-Stream in verilog-axis port order: tdata tkeep tvalid tready tlast tuser. */
export function axiStream<const P extends AxisParams>(p: P): Bundle<AxisSpecOf<P>> {
  const keep = p.keep ?? true, last = p.last ?? true, user = p.userWidth ?? 0;
  if (keep && p.dataWidth % 8 !== 0) throw new DslError(`AXI-Stream tdata of ${p.dataWidth} bits is not whole bytes, so tkeep has no meaning`, 'use a multiple of 8 or keep: false');
  // Object key order is port order: keep the conventional one.
  return new Bundle<AxisSpecOf<P>>({
    tdata: fwd(UInt(p.dataWidth)),
    ...(keep ? { tkeep: fwd(UInt(p.dataWidth / 8)) } : {}),
    tvalid: fwd(Bool), tready: bwd(Bool),
    ...(last ? { tlast: fwd(Bool) } : {}),
    ...(user > 0 ? { tuser: fwd(UInt(user)) } : {}),
  } as AxisSpecOf<P>);
}
/** Any AXI4-Stream bundle's ports (optional fields optional); `AxiStreamOf` for one configuration. */
export type AxiStream<Sd extends Side> = BundleIO<AxisSpec, Sd>;
export type AxiStreamOf<P extends AxisParams, Sd extends Side> = BundleIO<AxisSpecOf<P>, Sd>;

// ---- AXI4 memory mapped ----------------------------------------------------------------

export interface AxiParams {
  idWidth: number;
  addrWidth: number;
  dataWidth: number;
}
type F<W extends number = number> = Field<UIntShape<W>, 'fwd'>;
type B<W extends number = number> = Field<UIntShape<W>, 'bwd'>;
export type Axi4Spec = {
  awid: F; awaddr: F; awlen: F<8>; awsize: F<3>; awburst: F<2>; awlock: F<1>; awcache: F<4>; awprot: F<3>; awvalid: F<1>; awready: B<1>;
  wdata: F; wstrb: F; wlast: F<1>; wvalid: F<1>; wready: B<1>;
  bid: B; bresp: B<2>; bvalid: B<1>; bready: F<1>;
  arid: F; araddr: F; arlen: F<8>; arsize: F<3>; arburst: F<2>; arlock: F<1>; arcache: F<4>; arprot: F<3>; arvalid: F<1>; arready: B<1>;
  rid: B; rdata: B; rresp: B<2>; rlast: B<1>; rvalid: B<1>; rready: F<1>;
};
/** AXI4 (no qos/region/user, as verilog-axi's axi_ram): five channels AW W B AR R, flat
 *  `m_axi_awaddr`-style names. Burst lengths are len+1 beats (1..256), size is log2 bytes. */
export function axi4(p: AxiParams): Bundle<Axi4Spec> {
  if (p.dataWidth % 8 !== 0) throw new DslError(`AXI data width ${p.dataWidth} is not whole bytes`, 'use 8, 16, 32, ... 1024');
  const id = UInt(p.idWidth), addr = UInt(p.addrWidth), data = UInt(p.dataWidth), strb = UInt(p.dataWidth / 8);
  return new Bundle<Axi4Spec>({
    awid: fwd(id), awaddr: fwd(addr), awlen: fwd(UInt(8)), awsize: fwd(UInt(3)), awburst: fwd(UInt(2)),
    awlock: fwd(UInt(1)), awcache: fwd(UInt(4)), awprot: fwd(UInt(3)), awvalid: fwd(Bool), awready: bwd(Bool),
    wdata: fwd(data), wstrb: fwd(strb), wlast: fwd(Bool), wvalid: fwd(Bool), wready: bwd(Bool),
    bid: bwd(id), bresp: bwd(UInt(2)), bvalid: bwd(Bool), bready: fwd(Bool),
    arid: fwd(id), araddr: fwd(addr), arlen: fwd(UInt(8)), arsize: fwd(UInt(3)), arburst: fwd(UInt(2)),
    arlock: fwd(UInt(1)), arcache: fwd(UInt(4)), arprot: fwd(UInt(3)), arvalid: fwd(Bool), arready: bwd(Bool),
    rid: bwd(id), rdata: bwd(data), rresp: bwd(UInt(2)), rlast: bwd(Bool), rvalid: bwd(Bool), rready: fwd(Bool),
  });
}
export type Axi4<Sd extends Side> = BundleIO<Axi4Spec, Sd>;

/** AXI burst types and responses, for readable constants. */
export const AXI_BURST = { FIXED: 0, INCR: 1, WRAP: 2 } as const;
export const AXI_RESP = { OKAY: 0, EXOKAY: 1, SLVERR: 2, DECERR: 3 } as const;

// ---- AXI4-Lite -------------------------------------------------------------------------

export interface AxiLiteParams {
  addrWidth: number;
  /** 32 or 64. */
  dataWidth: number;
}
export type AxiLiteSpec = {
  awaddr: F; awprot: F<3>; awvalid: F<1>; awready: B<1>;
  wdata: F; wstrb: F; wvalid: F<1>; wready: B<1>;
  bresp: B<2>; bvalid: B<1>; bready: F<1>;
  araddr: F; arprot: F<3>; arvalid: F<1>; arready: B<1>;
  rdata: B; rresp: B<2>; rvalid: B<1>; rready: F<1>;
};
/** AXI4-Lite: single-beat AXI4 without ids, lengths or bursts. */
export function axiLite(p: AxiLiteParams): Bundle<AxiLiteSpec> {
  if (p.dataWidth !== 32 && p.dataWidth !== 64) throw new DslError(`AXI4-Lite data width ${p.dataWidth}`, 'AXI4-Lite data is 32 or 64 bits');
  const addr = UInt(p.addrWidth), data = UInt(p.dataWidth), strb = UInt(p.dataWidth / 8);
  return new Bundle<AxiLiteSpec>({
    awaddr: fwd(addr), awprot: fwd(UInt(3)), awvalid: fwd(Bool), awready: bwd(Bool),
    wdata: fwd(data), wstrb: fwd(strb), wvalid: fwd(Bool), wready: bwd(Bool),
    bresp: bwd(UInt(2)), bvalid: bwd(Bool), bready: fwd(Bool),
    araddr: fwd(addr), arprot: fwd(UInt(3)), arvalid: fwd(Bool), arready: bwd(Bool),
    rdata: bwd(data), rresp: bwd(UInt(2)), rvalid: bwd(Bool), rready: fwd(Bool),
  });
}
export type AxiLite<Sd extends Side> = BundleIO<AxiLiteSpec, Sd>;
