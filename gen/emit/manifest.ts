// The port manifest: everything a testbench needs to know about an emitted top, as JSON.
// Written next to the Verilog as `rtl/<top>.ports.json`; read by sim/ to build the model
// wrapper and by tb/ to lay out typed port handles over the model's word buffer.

import type { ShapeJson } from '../hdl/shape.ts';

export const MANIFEST_FORMAT = 'nicgen-ports/1';

export interface ManifestPort {
  /** Verilog port name, e.g. `s_axis_tdata`. */
  readonly name: string;
  /** Path of the port in the DSL module's IO record, e.g. ["s_axis", "tdata"]. */
  readonly path: readonly string[];
  readonly dir: 'input' | 'output';
  readonly width: number;
  readonly signed: boolean;
  readonly shape: ShapeJson;
}

export interface ManifestAssert {
  /** Emitted file and the line of the `$stop` that fires for this assertion. */
  readonly file: string;
  readonly line: number;
  /** Hierarchical module name that holds it. */
  readonly module: string;
  readonly message: string;
  /** TS location of the user's `assert(...)` call, `gen/x.ts:12:5`. */
  readonly loc: string;
}

/** A user cover point (`m.cover`) and where its `cover` statement is. */
export interface ManifestCover {
  readonly file: string;
  readonly line: number;
  readonly module: string;
  readonly name: string;
  /** TS location of the `m.cover(...)` call. */
  readonly loc: string;
}

export interface ManifestFsm {
  readonly module: string;
  /** State register name inside `module`. */
  readonly signal: string;
  readonly states: Readonly<Record<string, number>>;
  readonly loc: string;
}

/** A clock domain of the top: which input clocks it and which resets it (tb.reset's default). */
export interface ManifestDomain {
  /** `sync` for the default domain (m.clockAndReset), else the m.domain name. */
  readonly name: string;
  readonly clock: string | null;
  readonly reset: string | null;
  readonly resetKind: 'sync' | 'async' | 'none';
  readonly resetActive: 'high' | 'low';
}

/** A port or signal whose shape is more than a bit vector: struct fields, enum names, vectors. */
export interface ManifestTypedSignal {
  readonly name: string;
  /** Index into `Manifest.shapes` (shapes are shared: one struct type is used by many signals). */
  readonly shape: number;
}

/** An interface of a module (a bundle in its IO record): its name and Verilog ports. */
export interface ManifestInterface {
  /** The IO path of the bundle, e.g. `xlateReq` or `axi`. */
  readonly name: string;
  readonly ports: readonly string[];
}

/** What a wave viewer needs to know about one emitted module (docs/waves.md). */
export interface ManifestModule {
  readonly name: string;
  /** Child instances in declaration order: instance name (the scope in a dump) and module. */
  readonly instances: readonly { readonly name: string; readonly module: string }[];
  readonly interfaces: readonly ManifestInterface[];
  readonly typed: readonly ManifestTypedSignal[];
}

export interface Manifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly top: string;
  /** Verilog files of this top, leaves first, names relative to the manifest's folder. */
  readonly files: readonly string[];
  /** Elaboration parameters of the top. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly ports: readonly ManifestPort[];
  readonly asserts: readonly ManifestAssert[];
  readonly fsms: readonly ManifestFsm[];
  /** The top's clock domains (absent in manifests written before they were recorded). */
  readonly domains?: readonly ManifestDomain[];
  /** Present when some module has cover points (so designs without any keep their manifest). */
  readonly covers?: readonly ManifestCover[];
  /** Every emitted module below the top (optional: hand-written designs have none). */
  readonly modules?: readonly ManifestModule[];
  /** Shapes referred to by `modules[].typed`. */
  readonly shapes?: readonly ShapeJson[];
}
