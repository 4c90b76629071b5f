// ones-sum.ts's carry-save reduction run on numbers (the same network the hardware gets):
// X + Y must equal the words' sum modulo 2^16 - 1 for any number of words, random and
// extreme (all 0xFFFF, all zero, one bit), and each output word must be 16 bits.

import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../tb/tests/seed.ts';
import { onesCarrySave, type BitOps } from './ones-sum.ts';

// Strict bits: a missing operand (undefined, which `^` would silently take as 0) throws.
const bit = (v: number): number => {
  if (v !== 0 && v !== 1) throw new Error(`not a bit: ${String(v)}`);
  return v;
};
const ops: BitOps<number> = { xor: (a, b) => bit(a) ^ bit(b), and: (a, b) => bit(a) & bit(b), or: (a, b) => bit(a) | bit(b) };
const bitsOf = (w: number): number[] => Array.from({ length: 16 }, (_, i) => (w >> i) & 1);
const wordOf = (bs: number[]): number => bs.reduce((v, b, i) => v | (b << i), 0);

function reduce(words: number[]): { x: number; y: number } {
  const [x, y] = onesCarrySave(words.map(bitsOf), 0, ops);
  expect(x.length).toBe(16);
  expect(y.length).toBe(16);
  return { x: wordOf(x), y: wordOf(y) };
}

function expectSum(words: number[], what: string): void {
  const { x, y } = reduce(words);
  const want = words.reduce((s, w) => s + w, 0) % 0xffff;
  expect((x + y) % 0xffff, `${what}: ${words.length} words [${words.map(w => w.toString(16)).join(' ')}] -> x ${x.toString(16)} y ${y.toString(16)}`).toBe(want);
}

describe('one\'s-complement carry-save sum', () => {
  it('keeps the sum modulo 0xFFFF for 1..16 words', () => {
    const { rng, seed } = seededRandom();
    console.log(`ones-sum random test seed=${seed} (NICGEN_SEED=${seed} to repeat)`);
    for (let n = 1; n <= 16; n++) {
      expectSum(Array(n).fill(0xffff), 'all ones');
      expectSum(Array(n).fill(0), 'all zero');
      for (let b = 0; b < 16; b++) expectSum([1 << b, ...Array(n - 1).fill(0xffff)], `bit ${b}`);
      for (let t = 0; t < 300; t++) expectSum(Array.from({ length: n }, () => rng.int(0, 0xffff)), `seed=${seed} case ${t}`);
    }
  });

  // Words with known-zero bits (`null`, as nic_packetizer passes narrow fields and a constant):
  // those bits take no place in their column, and the sum is that of the words with zeros there.
  it('keeps the sum with known-zero (null) bits left out of the columns', () => {
    const { rng, seed } = seededRandom();
    console.log(`ones-sum sparse test seed=${seed} (NICGEN_SEED=${seed} to repeat)`);
    for (let n = 1; n <= 12; n++) {
      for (let t = 0; t < 300; t++) {
        const words = Array.from({ length: n }, () => rng.int(0, 0xffff));
        const known = Array.from({ length: n }, () => rng.int(0, 0xffff)); // bit set: known zero
        const sparse = words.map((w, k) => bitsOf(w).map((b, i) => ((known[k]! >> i) & 1 ? null : b)));
        const [xs, ys] = onesCarrySave(sparse, 0, ops);
        const x = wordOf(xs), y = wordOf(ys);
        const want = words.reduce((s, w, k) => s + (w & ~known[k]! & 0xffff), 0) % 0xffff;
        expect((x + y) % 0xffff, `seed=${seed} n=${n} case ${t}`).toBe(want);
      }
    }
  });
});
