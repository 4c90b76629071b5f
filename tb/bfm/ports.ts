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
  /** Raw words (DUT handles have them): models take the fast path when present. */
  readonly words?: Uint32Array;
}

export interface Drivable<V = Bits> {
  value: V;
  readonly name: string;
  readonly words?: Uint32Array;
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

/** `high(h)` as a closure made once per signal: a plain word read for a one-word DUT port. */
export function highOf(h: Readable): () => boolean {
  const w = h.words;
  if (w && w.length === 1) return () => w[0] !== 0;
  return () => high(h);
}

/** The single word of a DUT port of up to 32 bits, or null (a wider port, a stand-in handle):
 *  bus models that test or set a flag every cycle read and write it in place, without a call. */
export function wordOf(h: Readable | Drivable<number>): Uint32Array | null {
  const w = h.words;
  return w && w.length === 1 ? w : null;
}

/** wordOf for a plain unsigned DUT port of up to 32 bits, whose word is its value (what
 *  num(h.value) returns); null for anything else (signed, enum, wider, a stand-in). */
export function uintWordOf(tb: TestBench, h: Readable): Uint32Array | null {
  const w = wordOf(h);
  const slot = w ? tb.model.layout.byName.get(h.name) : undefined;
  return slot && slot.port.shape.kind === 'uint' && slot.port.width <= 32 ? w : null;
}

/**
 * Stores a small whole number in a port: in place when `word` (wordOf the port) is there and
 * `v` fits in `width` bits, exactly what the port's setter would store; else through the
 * setter, which converts it or reports the misfit. For fields driven on every beat.
 */
export function setNarrow(word: Uint32Array | null, width: number, h: Drivable<Bits>, v: number): void {
  if (word !== null && Number.isInteger(v) && v >= 0 && v <= 0xffffffff >>> (32 - width)) word[0] = v;
  else h.value = width > 32 && Number.isSafeInteger(v) ? BigInt(v) : v;
}

/** Writes 0 or 1 to a one-bit signal: straight into its word for a DUT port. */
export function setterOf(h: Drivable<number>): (v: 0 | 1) => void {
  const w = h.words;
  if (w && w.length === 1) return v => { w[0] = v; };
  return v => { h.value = v; };
}

/** The words of a bit vector value (LSB first), for stand-in handles without `words`. */
export function valueWords(v: PortValue, count: number): Uint32Array {
  const out = new Uint32Array(count);
  let b = big(v);
  for (let i = 0; i < count; i++) { out[i] = Number(b & 0xffffffffn); b >>= 32n; }
  return out;
}

/** The bit vector in `w` as a bigint (for messages and the slow paths). */
export function wordsValue(w: Uint32Array): bigint {
  let v = 0n;
  for (let i = w.length - 1; i >= 0; i--) v = (v << 32n) | BigInt(w[i]!);
  return v;
}

/** Set bits in `w`. */
export function popcount(w: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < w.length; i++) {
    let x = w[i]! - ((w[i]! >>> 1) & 0x55555555);
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    n += (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
  }
  return n;
}

/** True when a bit outside [lo, hi] is set in `w`. */
export function bitsOutside(w: Uint32Array, lo: number, hi: number): boolean {
  for (let i = 0; i < w.length; i++) {
    const x = w[i]!;
    if (x === 0) continue;
    const base = i * 32;
    // The mask of bits lo..hi that fall in this word.
    const a = Math.max(lo - base, 0), b = Math.min(hi - base, 31);
    const inside = a > b ? 0 : (b - a === 31 ? 0xffffffff : (((1 << (b - a + 1)) - 1) << a) >>> 0);
    if (((x & ~inside) >>> 0) !== 0) return true;
  }
  return false;
}

/** Values as a waveform viewer shows them: hex for bit vectors, JSON for structs. */
export function show(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint') return `0x${v.toString(16)}`;
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `0x${x.toString(16)}` : x));
}

/** Bit i of `w`. */
export function bitAt(w: Uint32Array, i: number): boolean {
  return ((w[i >>> 5]! >>> (i & 31)) & 1) === 1;
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
