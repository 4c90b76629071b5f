// A number derived from a contiguous byte enable (tkeep = 0...01...1), without an adder.
//
// A contiguous keep of K lanes with n valid bytes has exactly one 1 -> 0 edge (at lane n, or
// none when n = K), so any f(n) is the OR, per output bit, of the one-hot edges whose n has
// that bit set: one LUT level for the edges and a shallow OR tree, where a population count
// is a log2(K)-deep adder tree (timing at 512 bits: docs/synth.md).

import { cat, lit, type UIntShape, type Value } from '../hdl/index.ts';

/** `f(n)` as `width` bits for a contiguous `keep` with n >= 1 valid lanes. Only meaningful
 *  when keep is contiguous from lane 0 (AXI-Stream's last beat). */
export function keepCode(keep: Value, width: number, f: (n: number) => number): Value<UIntShape> {
  const K = keep.width;
  const edge = (n: number): Value => (n === K ? keep.bit(K - 1) : keep.bit(n - 1).land(keep.bit(n).lnot()));
  const bits: Value[] = [];
  for (let b = width - 1; b >= 0; b--) {
    const terms = Array.from({ length: K }, (_, i) => i + 1).filter(n => (f(n) >> b) & 1).map(edge);
    bits.push(terms.length === 0 ? lit(0, 1) : terms.reduce((a, t) => a.lor(t)));
  }
  return cat(...bits);
}
