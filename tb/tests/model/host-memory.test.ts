import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { HostMemory, PAGE_BYTES } from '../../model/host-memory.ts';
import { PageAllocator } from '../../model/page-allocator.ts';
import { testRng } from './helpers.ts';

describe('host memory', () => {
  it('reads zero where nothing was written and back what was, across page boundaries', () => {
    const m = new HostMemory();
    expect(m.read(0x1234n, 8)).toEqual(new Uint8Array(8));
    const data = Uint8Array.from({ length: 10_000 }, (_, i) => i & 0xff);
    m.write(0x0fffn, data); // starts 1 byte before a page boundary, spans 4 pages
    expect(m.read(0x0fffn, data.length)).toEqual(data);
    expect(m.read(0x0ffen, 3)).toEqual(Uint8Array.of(0, 0, 1));
    expect(m.pages()).toEqual([0x0000n, 0x1000n, 0x2000n, 0x3000n]);
    m.fill(0x1000, 4, 0xee); // numbers work where they are exact
    expect(m.read(0x0fff, 6)).toEqual(Uint8Array.of(0, 0xee, 0xee, 0xee, 0xee, 5));
  });

  it('handles 64-bit addresses up to the last byte', () => {
    const m = new HostMemory();
    const top = 0xffff_ffff_ffff_fff0n;
    m.write(top, new Uint8Array(16).fill(0x5a));
    expect(m.read(top + 15n, 1)).toEqual(Uint8Array.of(0x5a));
    expect(() => m.write(top, new Uint8Array(17))).toThrow(/past 2\^64/);
    expect(() => m.read(-1n, 1)).toThrow(RangeError);
    expect(() => m.read(2 ** 60, 1)).toThrow(RangeError); // not a safe integer: use bigint
    m.writeU64(0x8000_0000_0000_0008n, 0x0102030405060708n);
    expect(m.read(0x8000_0000_0000_0008n, 8)).toEqual(Uint8Array.of(8, 7, 6, 5, 4, 3, 2, 1));
    expect(m.readU64(0x8000_0000_0000_0008n)).toBe(0x0102030405060708n);
    m.writeU32(0x10, 0xdeadbeef);
    expect(m.readU32(0x10)).toBe(0xdeadbeef);
  });

  it('readInto copies what read returns, into any offset, across pages, unwritten pages as zero', () => {
    const rng = testRng('host-memory readInto');
    const m = new HostMemory();
    const base = 0x1_0000_0000n;
    m.fillRandom(base + 4096n, 3 * 4096, rng);   // the page at `base` stays unwritten
    for (let k = 0; k < 500; k++) {
      const addr = base + BigInt(rng.int(0, 5 * 4096));
      const len = rng.pick([0, 1, 8, 64, rng.int(1, 200), rng.int(1, 9000)]);
      const at = rng.int(0, 16);
      const out = rng.bytes(at + len + rng.int(0, 16));
      const before = out.slice();
      m.readInto(rng.bool() ? addr : Number(addr), out, at, len);
      const where = `readInto(0x${addr.toString(16)}, at ${at}, len ${len})`;
      expect(out.subarray(at, at + len), where).toEqual(m.read(addr, len));
      expect(out.subarray(0, at), `${where}: bytes before the target changed`).toEqual(before.subarray(0, at));
      expect(out.subarray(at + len), `${where}: bytes after the target changed`).toEqual(before.subarray(at + len));
    }
    const top = 0xffff_ffff_ffff_fff0n;   // the bigint path
    m.write(top, Uint8Array.of(1, 2, 3));
    const out = new Uint8Array(4);
    m.readInto(top, out, 1, 3);
    expect(out).toEqual(Uint8Array.of(0, 1, 2, 3));
    expect(() => m.readInto(0n, new Uint8Array(2), 1, 2)).toThrow(RangeError);
  });

  it('fills with seeded random bytes, the same for the same seed', () => {
    const a = new HostMemory();
    const b = new HostMemory();
    a.fillRandom(0x5000n, 5000, new Rng(42));
    b.fillRandom(0x5000n, 5000, new Rng(42));
    expect(a.read(0x5000n, 5000)).toEqual(b.read(0x5000n, 5000));
    expect(new Set(a.read(0x5000n, 5000)).size).toBeGreaterThan(200);
  });

  it('snapshots: finds the first change outside the allowed ranges, with a hex dump', () => {
    const rng = testRng('memory snapshot');
    const m = new HostMemory();
    m.fillRandom(0x10000n, 8 * PAGE_BYTES, rng);
    const snap = m.snapshot();
    const allowed = [{ addr: 0x11ff0n, len: 100 }, { addr: 0x14000n, len: 1 }];
    m.write(0x11ff0n, rng.bytes(100)); // crosses into the next page
    m.write(0x14000n, Uint8Array.of(m.read(0x14000n, 1)[0]! ^ 1));
    m.write(0x17000n, m.read(0x17000n, 64)); // rewriting the same bytes is no change
    expect(snap.firstChangeOutside(allowed)).toBeNull();
    snap.expectUnchangedOutside(allowed);

    const old = m.read(0x12054n, 1)[0]!;
    m.write(0x12054n, Uint8Array.of(old ^ 0xff)); // one byte past the allowed range
    m.write(0x16000n, Uint8Array.of(1, 2, 3));
    const c = snap.firstChangeOutside(allowed);
    expect(c).toMatchObject({ addr: 0x12054n, before: old, after: old ^ 0xff });
    expect(c!.dump).toContain('0x0000000000012050 expected:');
    expect(c!.dump).toContain('^^');
    expect(() => snap.expectUnchangedOutside(allowed, 'QP 3 WRITE')).toThrow(/QP 3 WRITE changed outside the allowed ranges at 0x0000000000012054/);
    expect(snap.readBefore(0x12054n, 1)[0]).toBe(old);
    snap.release();
  });

  it('snapshots: tracks pages created after the snapshot and lists changed runs', () => {
    const m = new HostMemory();
    const snap = m.snapshot();
    m.write(0xdead_0000_0000n, Uint8Array.of(0, 1, 1, 0, 1)); // writing a zero to fresh memory is no change
    m.write(0x2000n, new Uint8Array(PAGE_BYTES + 2).fill(9));
    expect(snap.changedRanges()).toEqual([
      { addr: 0x2000n, len: PAGE_BYTES + 2 },
      { addr: 0xdead_0000_0001n, len: 2 },
      { addr: 0xdead_0000_0004n, len: 1 },
    ]);
    expect(snap.firstChangeOutside([{ addr: 0x2000n, len: PAGE_BYTES + 2 }])?.addr).toBe(0xdead_0000_0001n);
    snap.release();
    snap.release();
  });

  it('snapshots cost only the pages written after them', () => {
    const m = new HostMemory();
    for (let i = 0; i < 2000; i++) m.write(BigInt(i) * 0x10_0000n, Uint8Array.of(1));
    const snap = m.snapshot();
    m.write(0x5000n, Uint8Array.of(1));
    const t0 = performance.now();
    expect(snap.changedRanges()).toEqual([{ addr: 0x5000n, len: 1 }]);
    expect(performance.now() - t0).toBeLessThan(200);
    snap.release();
  });
});

/** Where a run of random accesses lands: around page boundaries low in memory, around 2^53
 *  (where HostMemory switches from number to bigint arithmetic) and at the top of the space. */
const REGIONS = [0x3000n, 2n ** 53n - 0x2000n, 2n ** 64n - 0x4000n];

/** A random access of 0..300 bytes (sometimes a few pages) within 0x4000 bytes of a region. */
function randomAccess(rng: Rng): { addr: bigint; len: number } {
  const base = rng.pick(REGIONS);
  const len = rng.bool(0.1) ? rng.int(0, 3 * PAGE_BYTES) : rng.int(0, 300);
  // A third start or end right at a page edge, where the page walks split.
  const edge = PAGE_BYTES * rng.int(1, 3) + rng.int(-2, 1);
  const last = 0x4000 - 4 - len; // room for an allowed range that overhangs a write by 2 bytes
  const off = !rng.bool(1 / 3) ? rng.int(0, last) : rng.bool() ? Math.min(edge, last) : Math.max(0, edge - len);
  return { addr: base + BigInt(off), len };
}

/** A bigint address half the time, a number the other half when the number is exact. */
const asEither = (rng: Rng, a: bigint): bigint | number => (a < 2n ** 53n && rng.bool() ? Number(a) : a);

describe('host memory against a byte-per-address reference', () => {
  it('reads back what random writes left, across pages and the 2^53 switch', () => {
    const rng = testRng('host memory reference');
    const m = new HostMemory();
    const ref = new Map<bigint, number>();
    for (let step = 0; step < 2000; step++) {
      const { addr, len } = randomAccess(rng);
      if (rng.bool()) {
        const data = rng.bytes(len);
        m.write(asEither(rng, addr), data);
        data.forEach((b, i) => ref.set(addr + BigInt(i), b));
        continue;
      }
      const got = m.read(asEither(rng, addr), len);
      expect(got.length, `step ${step}: read of ${len} bytes at 0x${addr.toString(16)}`).toBe(len);
      for (let i = 0; i < len; i++) {
        const want = ref.get(addr + BigInt(i)) ?? 0;
        if (got[i] !== want) expect.fail(`step ${step}: read(0x${addr.toString(16)}, ${len}) byte ${i} (0x${(addr + BigInt(i)).toString(16)}) is ${got[i]}, expected ${want}`);
      }
    }
  });

  it('rejects ranges past 2^64 and bad lengths on every path', () => {
    const m = new HostMemory();
    expect(() => m.read(2 ** 53 - 1, 2)).not.toThrow(); // crosses 2^53: the bigint path
    expect(() => m.read(2n ** 64n - 1n, 2)).toThrow(/past 2\^64/);
    expect(() => m.read(0x1000, -1)).toThrow(/length/);
    expect(() => m.read(0x1000n, 1.5)).toThrow(/length/);
    expect(() => m.write(0.5, Uint8Array.of(1))).toThrow(RangeError);
    expect(m.read(0x1000, 0)).toEqual(new Uint8Array(0));
    m.write(0x1000, new Uint8Array(0));
    expect(m.pages(), 'an empty write creates no page').toEqual([]);
  });

  it('firstChangeOutside checks the first and last byte of a page', () => {
    const m = new HostMemory();
    const snap = m.snapshot();
    m.write(0x1ffen, Uint8Array.of(1, 2, 3)); // 0x1ffe..0x2000
    expect(snap.firstChangeOutside([{ addr: 0x1ffen, len: 1 }])?.addr).toBe(0x1fffn);
    expect(snap.firstChangeOutside([{ addr: 0x1000n, len: 0x1000 }, { addr: 0x1800n, len: 4 }])?.addr).toBe(0x2000n);
    expect(snap.firstChangeOutside([{ addr: 0x1ffen, len: 2 }, { addr: 0x2000n, len: 1 }])).toBeNull(); // touching ranges
    snap.release();
  });

  it('firstChangeOutside finds the lowest changed byte outside many overlapping allowed ranges', () => {
    const rng = testRng('memory snapshot reference');
    for (let round = 0; round < 100; round++) {
      const m = new HostMemory();
      for (const r of REGIONS) if (rng.bool()) m.fillRandom(r, 0x4000, rng);
      const snap = m.snapshot();
      const written = Array.from({ length: rng.int(0, 30) }, () => randomAccess(rng));
      for (const w of written) m.write(w.addr, rng.bytes(w.len));
      // Allowed: most written ranges give or take a few bytes (so some rounds find no change
      // outside, others one just past an edge), plus random ones, in random order.
      const nearWrites = written.filter(() => rng.bool(0.9)).map(w => ({ addr: w.addr + BigInt(rng.int(0, 2)), len: Math.max(0, w.len + rng.int(-3, 2)) }));
      const allowed = rng.shuffle([...nearWrites, ...Array.from({ length: rng.int(0, 20) }, () => randomAccess(rng))]).map(r => ({ addr: asEither(rng, r.addr), len: r.len }));
      // Reference: every changed byte (changedRanges compares whole pages), the lowest outside all.
      const inAllowed = (a: bigint): boolean => allowed.some(r => a >= BigInt(r.addr) && a < BigInt(r.addr) + BigInt(r.len));
      let want: bigint | null = null;
      for (const c of snap.changedRanges()) {
        for (let i = 0n; i < BigInt(c.len) && want === null; i++) if (!inAllowed(c.addr + i)) want = c.addr + i;
        if (want !== null) break;
      }
      const got = snap.firstChangeOutside(allowed);
      expect(got?.addr ?? null, `round ${round}: first change outside ${allowed.length} allowed ranges`).toBe(want);
      if (got) {
        expect(got.before, `round ${round}: old byte at 0x${got.addr.toString(16)}`).toBe(snap.readBefore(got.addr, 1)[0]);
        expect(got.after, `round ${round}: new byte at 0x${got.addr.toString(16)}`).toBe(m.read(got.addr, 1)[0]);
      }
      snap.release();
    }
  });
});

describe('page allocator', () => {
  it('hands out every page of the pool once, scattered, the same for the same seed', () => {
    const mk = (seed: number): PageAllocator => new PageAllocator({ base: 0x1_0000_0000n, pages: 64, rng: new Rng(seed) });
    const a = mk(7);
    const pages = a.allocMany(64);
    expect(new Set(pages).size).toBe(64);
    expect([...pages].sort((x, y) => (x < y ? -1 : 1))).toEqual(Array.from({ length: 64 }, (_, i) => 0x1_0000_0000n + BigInt(i) * 4096n));
    const adjacent = pages.slice(1).filter((p, i) => p === pages[i]! + 4096n).length;
    expect(adjacent, 'consecutive allocations are rarely physically consecutive').toBeLessThan(8);
    expect(mk(7).allocMany(64)).toEqual(pages);
    expect(mk(8).allocMany(64)).not.toEqual(pages);
    expect(() => a.alloc()).toThrow(/exhausted/);
    a.free(pages[5]!);
    expect(a.available).toBe(1);
    expect(a.alloc()).toBe(pages[5]);
  });

  it('rejects bad pools and bad frees', () => {
    const rng = new Rng(1);
    expect(() => new PageAllocator({ base: 0x1001n, pages: 4, rng })).toThrow(/aligned/);
    const a = new PageAllocator({ base: 0x10000n, pages: 4, rng });
    const p = a.alloc();
    a.free(p);
    expect(() => a.free(p)).toThrow(/twice/);
    expect(() => a.free(0x10001n)).toThrow(/not a page/);
    expect(() => a.free(0x20000n)).toThrow(/not a page/);
    expect(a.allocBytes(1, 4095).length).toBe(1);
    expect(a.allocBytes(2, 4095).length).toBe(2);
    expect(a.allocBytes(0).length).toBe(1);
  });
});
