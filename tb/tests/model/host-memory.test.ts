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
