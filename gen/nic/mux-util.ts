// Small combinational helpers shared by the NIC's muxes and arbiters.

import { lit, mux, repeat, type Value } from '../hdl/index.ts';

/** OR of `items[i]` over the set bits of one-hot `sel`: a mux with no out-of-range index
 *  (any client count, not only powers of two). All items have the same width. */
export function oneHotMux(sel: Value, items: readonly Value[]): Value {
  const w = items[0]!.width;
  return items.map((v, i) => v.and(repeat(sel.bit(i), w))).reduce((a, b) => a.or(b));
}

/** Splits a packed word into fields, low bits first (the reverse of `cat`). */
export function unpack(v: Value, widths: readonly number[]): Value[] {
  const out: Value[] = [];
  let lo = 0;
  for (const w of widths) { out.push(v.bits(lo + w - 1, lo)); lo += w; }
  return out;
}

/** An n-bit mask with bit `index` set when `on`, else 0 (set/clear one QP's bit in a per-QP vector). */
export function oneHotIf(n: number, index: Value, on: Value): Value {
  return mux(on, lit(1, n).shl(index), lit(0, n));
}
