// Sparse host memory: the 64-bit physical address space the NIC's AXI4 master sees, stored as
// 4 KiB pages created on first write. Untouched memory reads as zero; tests that want the NIC
// to meet garbage fill it with seeded random bytes first.
//
// Addresses: the API takes `bigint | number` and returns bigint, because AXI addresses are 64
// bits and a number loses precision above 2^53. Inside, a page is keyed by its page number
// (address >> 12, at most 2^52: a safe integer) so the map stays fast. Lengths are numbers.
// read/write run on every bus beat, so a range that ends below 2^53 (every real test) takes a
// number-only path with no generator and no allocation but the returned copy; bigint
// arithmetic is left for ranges above it.
//
// Snapshots answer "did anything change outside the ranges the NIC was allowed to write?"
// without copying memory: a snapshot keeps the old contents of a page only when that page is
// first written after the snapshot (copy on write), so checking costs O(pages touched).

import type { Rng } from '../core/rng.ts';
import { formatAddress, hexDiff } from './hexdump.ts';

export const PAGE_BYTES = 4096;
const PAGE_SHIFT = 12n;
const ADDR_LIMIT = 1n << 64n;

export type Address = bigint | number;

/** A byte range [addr, addr + len). */
export interface ByteRange {
  readonly addr: Address;
  readonly len: number;
}

export function toAddress(a: Address): bigint {
  const v = typeof a === 'bigint' ? a : Number.isSafeInteger(a) ? BigInt(a) : NaN;
  if (typeof v !== 'bigint' || v < 0n || v >= ADDR_LIMIT) throw new RangeError(`address ${String(a)} is not a 64-bit unsigned integer`);
  return v;
}

function checkRange(addr: bigint, len: number): void {
  if (!Number.isSafeInteger(len) || len < 0) throw new RangeError(`length ${len} is not a non-negative integer`);
  if (addr + BigInt(len) > ADDR_LIMIT) throw new RangeError(`range ${formatAddress(addr)} + ${len} runs past 2^64`);
}

/** Walks [addr, addr+len) page by page: page number, offset in the page, bytes, offset in the range. */
function* pieces(addr: bigint, len: number): Generator<[page: number, inPage: number, n: number, done: number]> {
  let page = Number(addr >> PAGE_SHIFT);
  let inPage = Number(addr & BigInt(PAGE_BYTES - 1));
  let done = 0;
  while (done < len) {
    const n = Math.min(PAGE_BYTES - inPage, len - done);
    yield [page, inPage, n, done];
    done += n; page++; inPage = 0;
  }
}

const SAFE_END = 2 ** 53;

/** `addr` as a number when [addr, addr+len) ends at or below 2^53 (exact in a double), else -1:
 *  the caller then takes the checked bigint path. Throws for a bad length. */
function fastAddress(addr: Address, len: number): number {
  if (!Number.isSafeInteger(len) || len < 0) throw new RangeError(`length ${len} is not a non-negative integer`);
  if (typeof addr === 'number') return Number.isSafeInteger(addr) && addr >= 0 && addr + len <= SAFE_END ? addr : -1;
  return addr >= 0n && addr < SAFE_END_BIG && Number(addr) + len <= SAFE_END ? Number(addr) : -1;
}
const SAFE_END_BIG = BigInt(SAFE_END);

/** Offset of a safe-integer address in its page. `%` on addresses above 2^31 (host pages
 *  sit at 4 GiB) is a floating-point remainder, a library call on every beat; the low 32 bits
 *  (ToUint32 is exact modulo 2^32) hold the page offset. */
const inPageOf = (a: number): number => (a >>> 0) & (PAGE_BYTES - 1);

export class HostMemory {
  readonly #pages = new Map<number, Uint8Array>();
  /** Live snapshots, in an array: #pageForWrite walks them on every write. */
  #snapshots: MemorySnapshot[] = [];
  /** The page looked up last (a bus model's bursts stay in one page for 64 beats and more).
   *  Pages are created, never replaced or removed, so a cached page stays right. */
  #lastNo = -1;
  #last: Uint8Array | undefined;

  /** The page's bytes, or undefined when it was never written. */
  #page(no: number): Uint8Array | undefined {
    if (no === this.#lastNo) return this.#last;
    const p = this.#pages.get(no);
    if (p) { this.#lastNo = no; this.#last = p; }
    return p;
  }

  /** Copies `len` bytes out. */
  read(addr: Address, len: number): Uint8Array {
    const a = fastAddress(addr, len);
    if (a < 0) return this.#readSlow(addr, len);
    const inPage = inPageOf(a), page = (a - inPage) / PAGE_BYTES;
    if (inPage + len <= PAGE_BYTES) {
      const p = this.#page(page);
      return p ? p.slice(inPage, inPage + len) : new Uint8Array(len);
    }
    const out = new Uint8Array(len);
    for (let done = 0, pg = page, off = inPage; done < len; pg++, off = 0) {
      const n = Math.min(PAGE_BYTES - off, len - done);
      const p = this.#page(pg);
      if (p) out.set(p.subarray(off, off + n), done);
      done += n;
    }
    return out;
  }

  /** Copies `len` bytes at `addr` into `out` from `at`: read() without allocating, for bus
   *  models that reuse one beat buffer. */
  readInto(addr: Address, out: Uint8Array, at = 0, len = out.length - at): void {
    const a = fastAddress(addr, len);
    if (a < 0 || at < 0 || at + len > out.length) { out.set(this.read(addr, len), at); return; }
    const first = inPageOf(a);
    for (let done = 0, pg = (a - first) / PAGE_BYTES, off = first; done < len; pg++, off = 0) {
      const n = Math.min(PAGE_BYTES - off, len - done);
      const p = this.#page(pg);
      if (!p) out.fill(0, at + done, at + done + n);
      // A byte loop for beat-sized pieces: subarray() would allocate a view per call.
      else if (n <= 64) for (let i = 0; i < n; i++) out[at + done + i] = p[off + i]!;
      else out.set(p.subarray(off, off + n), at + done);
      done += n;
    }
  }

  write(addr: Address, data: Uint8Array): void {
    const len = data.length, a = fastAddress(addr, len);
    if (a < 0) return this.#writeSlow(addr, data);
    const inPage = inPageOf(a), page = (a - inPage) / PAGE_BYTES;
    if (inPage + len <= PAGE_BYTES) { if (len) this.#pageForWrite(page).set(data, inPage); return; }
    for (let done = 0, pg = page, off = inPage; done < len; pg++, off = 0) {
      const n = Math.min(PAGE_BYTES - off, len - done);
      this.#pageForWrite(pg).set(data.subarray(done, done + n), off);
      done += n;
    }
  }

  #readSlow(addr: Address, len: number): Uint8Array {
    const a = toAddress(addr);
    checkRange(a, len);
    const out = new Uint8Array(len);
    for (const [page, inPage, n, done] of pieces(a, len)) {
      const p = this.#pages.get(page);
      if (p) out.set(p.subarray(inPage, inPage + n), done);
    }
    return out;
  }

  #writeSlow(addr: Address, data: Uint8Array): void {
    const a = toAddress(addr);
    checkRange(a, data.length);
    for (const [page, inPage, n, done] of pieces(a, data.length)) this.#pageForWrite(page).set(data.subarray(done, done + n), inPage);
  }

  fill(addr: Address, len: number, byte: number): void {
    const a = toAddress(addr);
    checkRange(a, len);
    for (const [page, inPage, n] of pieces(a, len)) this.#pageForWrite(page).fill(byte & 0xff, inPage, inPage + n);
  }

  /** Seeded garbage, so a NIC that reads or leaves stale bytes is caught and the run repeats. */
  fillRandom(addr: Address, len: number, rng: Rng): void {
    this.write(addr, rng.bytes(len));
  }

  /** Little endian, as the host (and the AXI data bus) stores it. */
  readU32(addr: Address): number {
    const b = this.read(addr, 4);
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
  }

  readU64(addr: Address): bigint {
    const b = this.read(addr, 8);
    return new DataView(b.buffer).getBigUint64(0, true);
  }

  writeU32(addr: Address, value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`writeU32: ${value} is not a 32-bit unsigned integer`);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, value, true);
    this.write(addr, b);
  }

  writeU64(addr: Address, value: bigint): void {
    if (value < 0n || value >= ADDR_LIMIT) throw new RangeError(`writeU64: ${value} is not a 64-bit unsigned integer`);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, value, true);
    this.write(addr, b);
  }

  /** Base addresses of the pages that exist (were ever written), ascending. */
  pages(): bigint[] {
    return [...this.#pages.keys()].sort((x, y) => x - y).map(p => BigInt(p) << PAGE_SHIFT);
  }

  /** Starts recording changes. Release it when done, or every later write keeps paying for it. */
  snapshot(): MemorySnapshot {
    const s = new MemorySnapshot(this, () => { this.#snapshots = this.#snapshots.filter(x => x !== s); });
    this.#snapshots.push(s);
    return s;
  }

  /** The current bytes of a page, or undefined when it was never written (reads as zero). */
  pageData(page: number): Uint8Array | undefined {
    return this.#pages.get(page);
  }

  #pageForWrite(page: number): Uint8Array {
    const p = this.#page(page);
    const snaps = this.#snapshots;
    for (let i = 0; i < snaps.length; i++) snaps[i]!.preserve(page, p);
    if (p) return p;
    const fresh = new Uint8Array(PAGE_BYTES);
    this.#pages.set(page, fresh);
    return fresh;
  }
}

/** A byte that differs from the snapshot, with a hex view around it. */
export interface MemoryChange {
  readonly addr: bigint;
  readonly before: number;
  readonly after: number;
  /** 64 bytes around the change, expected (snapshot) over actual, differences marked. */
  readonly dump: string;
}

/** Memory contents at one moment, kept as copies of the pages written since. */
export class MemorySnapshot {
  readonly #mem: HostMemory;
  readonly #release: () => void;
  /** Page number -> contents at snapshot time (null: the page did not exist, i.e. all zero). */
  readonly #saved = new Map<number, Uint8Array | null>();
  /** The page preserve() saw last (it is in #saved). */
  #lastSaved = -1;
  #live = true;

  /** @internal created by HostMemory.snapshot() */
  constructor(mem: HostMemory, release: () => void) {
    this.#mem = mem;
    this.#release = release;
  }

  /** @internal called by HostMemory before the first write to a page after the snapshot. */
  preserve(page: number, current: Uint8Array | undefined): void {
    if (page === this.#lastSaved) return;   // writes come in runs to one page; saved pages stay saved
    if (!this.#saved.has(page)) this.#saved.set(page, current ? current.slice() : null);
    this.#lastSaved = page;
  }

  /** Stops recording; the snapshot can still be queried about changes made before. */
  release(): void {
    if (this.#live) { this.#live = false; this.#release(); }
  }

  /** Contents at snapshot time of `len` bytes at `addr`. */
  readBefore(addr: Address, len: number): Uint8Array {
    const a = toAddress(addr);
    checkRange(a, len);
    const out = this.#mem.read(a, len);
    for (const [page, inPage, n, done] of pieces(a, len)) {
      if (!this.#saved.has(page)) continue;
      const old = this.#saved.get(page);
      if (old) out.set(old.subarray(inPage, inPage + n), done);
      else out.fill(0, done, done + n);
    }
    return out;
  }

  /** Maximal runs of bytes that differ from the snapshot, ascending. */
  changedRanges(): { addr: bigint; len: number }[] {
    const out: { addr: bigint; len: number }[] = [];
    for (const page of [...this.#saved.keys()].sort((x, y) => x - y)) {
      const old = this.#saved.get(page) ?? null;
      const now = this.#mem.pageData(page);
      const base = BigInt(page) << PAGE_SHIFT;
      for (let i = 0; i < PAGE_BYTES; i++) {
        if ((old ? old[i]! : 0) === (now ? now[i]! : 0)) continue;
        const addr = base + BigInt(i);
        const prev = out[out.length - 1];
        if (prev && prev.addr + BigInt(prev.len) === addr) prev.len++;
        else out.push({ addr, len: 1 });
      }
    }
    return out;
  }

  /** The lowest-addressed byte that changed outside `allowed`, or null when there is none.
   *  Only pages written since the snapshot can differ, and of those only the bytes outside the
   *  allowed ranges are compared: the ranges are sorted and merged once, then each page looks
   *  up the few that reach into it, so a large allowed set costs O(log n) per page. */
  firstChangeOutside(allowed: readonly ByteRange[]): MemoryChange | null {
    const ranges = mergedRanges(allowed);
    for (const page of [...this.#saved.keys()].sort((x, y) => x - y)) {
      const old = this.#saved.get(page) ?? null;
      const now = this.#mem.pageData(page);
      const base = BigInt(page) << PAGE_SHIFT;
      let from = 0; // first byte of the page not yet known to be allowed or compared
      for (let k = firstEndingAfter(ranges, base); k < ranges.length && from < PAGE_BYTES; k++) {
        const r = ranges[k]!;
        if (r.lo >= base + BigInt(PAGE_BYTES)) break;
        const lo = r.lo > base ? Number(r.lo - base) : 0;
        const i = firstDifference(old, now, from, lo);
        if (i >= 0) return this.#change(base + BigInt(i), old ? old[i]! : 0, now ? now[i]! : 0);
        from = r.hi - base < BigInt(PAGE_BYTES) ? Number(r.hi - base) : PAGE_BYTES;
      }
      const i = firstDifference(old, now, from, PAGE_BYTES);
      if (i >= 0) return this.#change(base + BigInt(i), old ? old[i]! : 0, now ? now[i]! : 0);
    }
    return null;
  }

  /** Throws, with the address and a hex dump, when anything outside `allowed` changed. */
  expectUnchangedOutside(allowed: readonly ByteRange[], what = 'host memory'): void {
    const c = this.firstChangeOutside(allowed);
    if (c) throw new Error(`${what} changed outside the allowed ranges at ${formatAddress(c.addr)}: 0x${c.before.toString(16).padStart(2, '0')} -> 0x${c.after.toString(16).padStart(2, '0')}\n${c.dump}`);
  }

  #change(addr: bigint, before: number, after: number): MemoryChange {
    const start = (addr & ~0xfn) >= 16n ? (addr & ~0xfn) - 16n : 0n;
    const len = Number(ADDR_LIMIT - start < 64n ? ADDR_LIMIT - start : 64n);
    return { addr, before, after, dump: hexDiff(this.readBefore(start, len), this.#mem.read(start, len), start) };
  }
}

/** `allowed` as sorted, disjoint [lo, hi) ranges: touching or overlapping ones are merged. */
function mergedRanges(allowed: readonly ByteRange[]): { lo: bigint; hi: bigint }[] {
  const rs = allowed.map(r => { const a = toAddress(r.addr); checkRange(a, r.len); return { lo: a, hi: a + BigInt(r.len) }; })
    .filter(r => r.hi > r.lo).sort((x, y) => (x.lo < y.lo ? -1 : x.lo > y.lo ? 1 : 0));
  const out: { lo: bigint; hi: bigint }[] = [];
  for (const r of rs) {
    const prev = out[out.length - 1];
    if (prev && r.lo <= prev.hi) { if (r.hi > prev.hi) prev.hi = r.hi; } else out.push({ ...r });
  }
  return out;
}

/** Index of the first of the sorted, disjoint `ranges` that ends after `addr`. */
function firstEndingAfter(ranges: readonly { hi: bigint }[], addr: bigint): number {
  let lo = 0, hi = ranges.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ranges[mid]!.hi > addr) hi = mid; else lo = mid + 1;
  }
  return lo;
}

/** First index in [from, to) where a page differs from its old contents (null: all zero), or -1. */
function firstDifference(old: Uint8Array | null, now: Uint8Array | undefined, from: number, to: number): number {
  for (let i = from; i < to; i++) if ((old ? old[i]! : 0) !== (now ? now[i]! : 0)) return i;
  return -1;
}
