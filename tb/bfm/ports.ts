// What the bus models need from DUT handles, and the handle groups they take.
//
// Models that drive a bus take the typed group `DutOf<...>` of the DSL bundle, so
// `new AxiStreamSource(tb, dut.s_axis)` only compiles for an AXI-Stream input. Passive
// checkers only read, so they take `Readable` fields: any handle (input or output) fits,
// which is what lets them watch both ends of a DUT or an internal bus brought out as ports.

import type { Axi4, AxiLite, AxiStream } from '../../gen/lib/interfaces.ts';
import type { PortValue } from '../../sim/values.ts';
import type { DutOf, TestBench } from '../core/index.ts';

/** A port value of a plain bit vector: number up to 32 bits, bigint above. */
export type Bits = number | bigint;

export interface Readable<V = PortValue> {
  readonly value: V;
  /** Verilog port name, used in error messages. */
  readonly name: string;
}

export interface Drivable<V = Bits> {
  value: V;
  readonly name: string;
}

/** A DUT's AXI-Stream input (`s_axis_*`): an AxiStreamSource drives it. */
export type AxisInPorts = DutOf<AxiStream<'sink'>>;
/** A DUT's AXI-Stream output (`m_axis_*`): an AxiStreamSink takes from it. */
export type AxisOutPorts = DutOf<AxiStream<'source'>>;
/** A DUT's AXI4 slave port (`s_axi_*`): an AxiMaster drives it. */
export type AxiSlavePorts = DutOf<Axi4<'sink'>>;
/** A DUT's AXI4 master port (`m_axi_*`): an AxiRam answers it. */
export type AxiMasterPorts = DutOf<Axi4<'source'>>;
/** A DUT's AXI4-Lite slave port (`s_axil_*`): an AxiLiteMaster drives it. */
export type AxiLiteSlavePorts = DutOf<AxiLite<'sink'>>;

/** Read-only view of any AXI4 bus (either end), for checkers. */
export type AxiWatchPorts = { readonly [K in keyof AxiSlavePorts]: Readable };
export type AxiLiteWatchPorts = { readonly [K in keyof AxiLiteSlavePorts]: Readable };

export function big(v: PortValue): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(v);
  throw new TypeError(`expected a bit vector, got ${show(v)}`);
}

/** For fields that are narrow by protocol (len, size, id, resp): a plain number. */
export function num(v: PortValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(v);
  throw new TypeError(`expected a small bit vector, got ${show(v)}`);
}

export function high(h: Readable): boolean {
  return h.value !== 0 && h.value !== 0n;
}

/** Values as a waveform viewer shows them: hex for bit vectors, JSON for structs. */
export function show(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint') return `0x${v.toString(16)}`;
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `0x${x.toString(16)}` : x));
}

export function sameValue(a: PortValue, b: PortValue): boolean {
  // A port always reads back in the same JS type, so scalars compare directly.
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  return show(a) === show(b);
}

/**
 * Width of a port in bits, looked up in the model's manifest by the handle's name.
 * (Handles do not carry their width yet; see the report on tb/core.)
 */
export function portWidth(tb: TestBench, h: { readonly name: string }): number {
  const p = tb.model.manifest.ports.find(x => x.name === h.name);
  if (!p) throw new RangeError(`no port named ${h.name} in ${tb.model.manifest.top}`);
  return p.width;
}

/** The short field name of a port: `s_axis_tdata` -> `tdata`. */
export function fieldName(h: { readonly name: string }): string {
  const i = h.name.lastIndexOf('_');
  return i < 0 ? h.name : h.name.slice(i + 1);
}

/** A value in the JS type a port of `width` bits takes: number up to 32 bits, bigint above. */
export function forPort(v: bigint, width: number): Bits {
  return width > 32 ? v : Number(v);
}
