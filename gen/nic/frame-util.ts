// Byte-lane helpers shared by the framing stages (packetizer, ICRC insert/check, RX parser).
//
// Convention everywhere (AXI-Stream): byte k of a beat sits at tdata[8k+7:8k], byte 0 is the
// first on the wire; multi-byte header fields are big endian, so the first byte of a field
// is its most significant one.

import { cat, DslError, lit, mux, repeat, type UIntShape, type Value } from '../hdl/index.ts';

/** Byte `i` (wire order) of a little-endian-packed byte vector. */
export function byteAt(v: Value, i: number): Value<UIntShape> {
  return v.bits(8 * i + 7, 8 * i);
}

/** The bytes of a big-endian field, first on the wire first: `beBytes(x16)` = [x[15:8], x[7:0]]. */
export function beBytes(v: Value): Value<UIntShape>[] {
  if (v.width % 8 !== 0) throw new DslError(`beBytes of a ${v.width}-bit value`, 'pass whole bytes');
  const n = v.width / 8;
  return Array.from({ length: n }, (_, i) => v.bits(8 * (n - i) - 1, 8 * (n - i - 1)));
}

/** Pack bytes given in wire order into a vector with byte 0 at the least significant bits. */
export function packBytes(bytes: readonly Value[]): Value<UIntShape> {
  for (const b of bytes) if (b.width !== 8) throw new DslError(`packBytes: a ${b.width}-bit element`, 'every element must be one byte');
  return cat(...[...bytes].reverse());
}

/** A big-endian field read from a byte vector: bytes [off, off + n) of `v`. */
export function beField(v: Value, off: number, n: number): Value<UIntShape> {
  return cat(...Array.from({ length: n }, (_, i) => byteAt(v, off + i)));
}

/** Thermometer code: lane i set when i < n (n may be any width; n >= lanes sets all). */
export function thermo(n: Value, lanes: number): Value<UIntShape> {
  return cat(...Array.from({ length: lanes }, (_, i) => n.gt(i)).reverse());
}

/** Expand a per-byte enable to a per-bit mask. */
export function laneBits(keep: Value): Value<UIntShape> {
  return cat(...Array.from({ length: keep.width }, (_, i) => repeat(keep.bit(keep.width - 1 - i), 8)));
}

/** Constant thermometer code of `n` lanes out of `lanes`. */
export function thermoConst(n: number, lanes: number): Value<UIntShape> {
  return lit(n >= lanes ? (1n << BigInt(lanes)) - 1n : (1n << BigInt(n)) - 1n, lanes) as Value<UIntShape>;
}

/** Select one of several values by a run-time index among a few elaboration-time choices:
 *  `choices[i]` when `sel == keys[i]`, else the last choice (a chain of muxes, written
 *  last-first so the first key has priority). */
export function select(sel: Value, keys: readonly number[], choices: readonly Value[]): Value<UIntShape> {
  if (keys.length !== choices.length || keys.length === 0) throw new DslError('select: keys and choices differ in length', 'give one choice per key');
  let out: Value = choices[choices.length - 1]!;
  for (let i = choices.length - 2; i >= 0; i--) out = mux(sel.eq(keys[i]!), choices[i]!, out);
  return out as Value<UIntShape>;
}

/** Number of bits to hold 0..n. */
export function countWidth(n: number): number {
  return Math.max(1, Math.ceil(Math.log2(n + 1)));
}

/** `v >= n` for a constant n; constant true for n = 0 (no always-true comparison for lint). */
export function atLeast(v: Value, n: number): Value<UIntShape> {
  return n === 0 ? lit(1, 1) as Value<UIntShape> : v.ge(n);
}

/** `ip_left > k` for constants k, where ip_left is `totalLen + offset` in the beat holding the
 *  IPv4 total length (`atLen`) and the register `ipLeft` after it. Timing (docs/synth.md): in
 *  the length beat each decision is a compare of the length bytes themselves with a constant,
 *  side by side, instead of an adder in front of every compare. (A total length that would
 *  wrap the 16-bit sum is not a RoCEv2 frame.) */
export function leftGtOf(atLen: Value, totalLen: Value, offset: number, ipLeft: Value): (k: number) => Value<UIntShape> {
  return k => {
    const t = k - offset;
    return mux(atLen, t < 0 ? lit(1, 1) : totalLen.gt(t), ipLeft.gt(k)) as Value<UIntShape>;
  };
}
