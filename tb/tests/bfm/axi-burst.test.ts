// The number-only burst arithmetic the memory model and the checker use on every beat
// (BeatCursor, the closed form of burstBytes) against the reference formulas (beatAddress in
// bigints, beatLanes), on random bursts of every type, size and length, legal or not, at
// addresses below and above 2^32, on power-of-two and odd bus widths.

import { describe, expect, it } from 'vitest';
import { BeatCursor, BURST, beatAddress, beatLanes, burstBytes, type AxiBurst } from '../../bfm/index.ts';
import { testRng } from '../seed.ts';

/** Lanes and bus-aligned address of beat i, all in bigints from beatAddress. */
function reference(b: AxiBurst, i: number, busBytes: number): { lo: number; hi: number; base: number } {
  const a = beatAddress(b, i), n = BigInt(busBytes), bytes = BigInt(1 << b.size);
  return { lo: Number(a % n), hi: Number((a / bytes) * bytes % n) + (1 << b.size) - 1, base: Number(a / n * n) };
}

describe('BeatCursor and burstBytes', () => {
  it('agree with the bigint formulas on random bursts (any type, size, length; odd buses too)', () => {
    const rng = testRng('axi-burst cursor');
    let checked = 0;
    for (let k = 0; k < 3000; k++) {
      const busBytes = rng.pick([1, 2, 4, 8, 16, 64, 128, 24]);
      const size = rng.int(0, 7);
      const burst = rng.pick([BURST.FIXED, BURST.INCR, BURST.WRAP]);
      const len = rng.pick([0, 1, 2, 3, 7, 15, rng.int(0, 255)]);
      const high = rng.pick([0n, 0x1_0000_0000n, 0x7_1234_0000_0000n, 0xf_ffff_ffe0_0000n]);
      const b: AxiBurst = { id: 0, addr: high + BigInt(rng.int(0, 1 << 20)), len, size, burst };
      const c = new BeatCursor(b, busBytes);
      const what = `burst ${JSON.stringify({ ...b, addr: `0x${b.addr.toString(16)}` })} on a ${busBytes}-byte bus`;
      let sum = 0;
      // Beat by beat (index = beat number), compared once per burst: the first differing beat is shown.
      const got: { lo: number; hi: number; base: number }[] = [], want: typeof got = [], lanes: { lo: number; hi: number }[] = [];
      for (let i = 0; i <= len; i++) {
        c.seek(i);
        got.push({ lo: c.lo, hi: c.hi, base: c.base });
        const r = reference(b, i, busBytes);
        want.push(r);
        lanes.push(beatLanes(b, i, busBytes));
        sum += r.hi - r.lo + 1;
        checked++;
      }
      expect(got, `BeatCursor, ${what}`).toEqual(want);
      expect(lanes, `beatLanes, ${what}`).toEqual(want.map(r => ({ lo: r.lo, hi: r.hi })));
      expect(burstBytes(b, busBytes), `burstBytes, ${what}`).toBe(sum);
    }
    expect(checked).toBeGreaterThan(3000);
  });

  it('is refused above 2^52, where addresses are not exact numbers', () => {
    const b: AxiBurst = { id: 0, addr: 1n << 60n, len: 3, size: 3, burst: BURST.INCR };
    expect(BeatCursor.of(b, 8)).toBeNull();
    expect(() => new BeatCursor(b, 8)).toThrow(/above 2\^52/);
  });
});
