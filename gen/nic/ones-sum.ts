// One's-complement sums of 16-bit words in carry-save form, for checksum checks at full width
// without adders (nic_rx_parser's IPv4 header checksum; timing: docs/synth.md).
//
// In one's-complement arithmetic 2^16 = 1 (mod 2^16 - 1), so a bit carried out of bit 15 is
// worth bit 0: the columns of a sum of words form a ring of 16. Any number of words is reduced
// column by column with counters (a counter of up to six bits of one column is one LUT6 per
// output bit, its outputs go to the next one, two and three columns) until every column holds
// at most two bits: two words X and Y with X + Y = the sum (mod 2^16 - 1). Ten words take three
// counter levels (10 -> 6 -> 3 -> 2 bits a column), no carry chain.
//
// The reduction is written once over an abstract bit type, so tests run the very same network
// on numbers (ones-sum.test.ts) that the hardware gets as Values.

import { cat, lit, Value, type ModuleBuilder } from '../hdl/index.ts';

/** The bit operations the reduction needs. */
export interface BitOps<T> {
  xor(a: T, b: T): T;
  and(a: T, b: T): T;
  or(a: T, b: T): T;
}

/** Popcount of up to six bits of one column as boolean logic, least significant bit first
 *  (each output depends only on these bits: one LUT6 each). */
function count<T>(bits: readonly T[], o: BitOps<T>): T[] {
  const full = (a: T, b: T, c: T): [T, T] => [o.xor(o.xor(a, b), c), o.or(o.and(a, b), o.and(o.xor(a, b), c))];
  const half = (a: T, b: T): [T, T] => [o.xor(a, b), o.and(a, b)];
  switch (bits.length) {
    case 3: return full(bits[0]!, bits[1]!, bits[2]!);
    case 4: case 5: case 6: {
      // Two small counters (2 bits each), then their sum: at most 6, three bits.
      const lo = bits.slice(0, 3), hi = bits.slice(3);
      const [s1, c1] = full(lo[0]!, lo[1]!, lo[2]!);
      if (hi.length === 1) {
        // 4 bits: s1 + 2 c1 + hi0.
        const [b0, k0] = half(s1, hi[0]!);
        const [b1, b2] = half(c1, k0);
        return [b0, b1, b2];
      }
      const [s2, c2] = hi.length === 3 ? full(hi[0]!, hi[1]!, hi[2]!) : half(hi[0]!, hi[1]!);
      const [b0, k0] = half(s1, s2);
      const [b1, b2] = full(c1, c2, k0);
      return [b0, b1, b2];
    }
    default: throw new Error(`count: ${bits.length} bits (expected 3..6)`);
  }
}

/** Columns (16 lists of bits, column i worth 2^i) reduced to at most two bits per column, the
 *  carries out of bit 15 wrapping to bit 0. Returns the two words' bits (missing bits are `zero`).
 *  A word's bit may be `null`: known to be zero, it takes no place in its column (a narrow field
 *  or a constant's zeros cost no counter input). */
export function onesCarrySave<T>(words: readonly (readonly (T | null)[])[], zero: T, o: BitOps<T>, onLevel?: (cols: T[][], level: number) => T[][]): [T[], T[]] {
  for (const w of words) if (w.length !== 16) throw new Error(`onesCarrySave: a ${w.length}-bit word (expected 16)`);
  let cols: T[][] = Array.from({ length: 16 }, (_, i) => words.flatMap(w => (w[i] === null ? [] : [w[i]!])));
  let level = 0;
  while (cols.some(c => c.length > 2)) {
    const next: T[][] = Array.from({ length: 16 }, () => []);
    cols.forEach((c, i) => {
      // Groups of at most six bits; one or two left over pass through to the next level.
      for (let g = 0; g < c.length;) {
        const n = Math.min(6, c.length - g);
        const group = c.slice(g, g + n);
        g += n;
        if (n <= 2) next[i]!.push(...group);
        else count(group, o).forEach((b, k) => next[(i + k) % 16]!.push(b));
      }
    });
    cols = onLevel ? onLevel(next, ++level) : next;
  }
  const word = (k: number): T[] => cols.map(c => c[k] ?? zero);
  return [word(0), word(1)];
}

/** A 16-bit word given bit by bit, least significant first; `null` bits are known zeros. */
export type SparseWord = readonly (Value | null)[];

/** Hardware words: a 16-bit Value (or a SparseWord) per word in, two 16-bit Values out. Each
 *  counter level's bits are one named wire (`<name>_l<level>`), so the emitted Verilog stays one
 *  line per level. */
export function onesCarrySaveHw(m: ModuleBuilder, name: string, words: readonly (Value | SparseWord)[]): [Value, Value] {
  // Constant bits (a constant addend's ones) fold away here, so the Verilog shows no `1'd1 ^ x`.
  const known = (v: Value): bigint | undefined => (v.expr.kind === 'const' ? v.expr.value : undefined);
  const op = (k: (c: bigint, d: bigint) => bigint, f: (c: bigint, x: Value) => Value, g: (a: Value, b: Value) => Value) => (a: Value, b: Value): Value => {
    const ka = known(a), kb = known(b);
    if (ka !== undefined && kb !== undefined) return lit(k(ka, kb), 1);
    if (ka !== undefined) return f(ka, b);
    if (kb !== undefined) return f(kb, a);
    return g(a, b);
  };
  const ops: BitOps<Value> = {
    xor: op((c, d) => c ^ d, (c, x) => (c ? x.not() : x), (a, b) => a.xor(b)),
    and: op((c, d) => c & d, (c, x) => (c ? x : lit(0, 1)), (a, b) => a.and(b)),
    or: op((c, d) => c | d, (c, x) => (c ? lit(1, 1) : x), (a, b) => a.or(b)),
  };
  const bitsOf = (w: Value | SparseWord): SparseWord => (w instanceof Value ? Array.from({ length: 16 }, (_, i) => w.bit(i)) : w);
  const pack = (bs: readonly Value[]): Value => cat(...[...bs].reverse());
  const named = (cols: Value[][], level: number): Value[][] => {
    const wire = m.let(`${name}_l${level}`, pack(cols.flat()));
    let k = 0;
    return cols.map(c => c.map(() => wire.bit(k++)));
  };
  const [x, y] = onesCarrySave(words.map(bitsOf), lit(0, 1), ops, named);
  return [pack(x), pack(y)];
}

/** X + Y = 0 (mod 2^16 - 1) for 16-bit X, Y: X + Y is 0, 0xFFFF or 0x1FFFE, i.e. both zero, Y = ~X,
 *  or both 0xFFFF. No adder: three wide ANDs of bitwise terms. */
export function onesZeroHw(x: Value, y: Value): Value {
  return x.xor(y).andr().lor(x.or(y).orr().lnot()).lor(x.and(y).andr());
}
