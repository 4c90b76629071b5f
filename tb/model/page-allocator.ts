// Physical 4 KiB pages handed out in a seeded random order, so a virtually contiguous buffer
// lands on scattered physical pages, the way a real host's memory looks to the NIC. A DMA engine
// or TLB that assumes physical contiguity then fails in tests instead of on hardware.

import type { Rng } from '../core/rng.ts';
import { formatAddress } from './hexdump.ts';
import { PAGE_BYTES, toAddress, type Address } from './host-memory.ts';

export interface PageAllocatorOptions {
  /** First byte of the pool; page aligned. */
  readonly base: Address;
  /** Pool size in pages. */
  readonly pages: number;
  /** Picks the pages: same seed, same layout. */
  readonly rng: Rng;
}

export class PageAllocator {
  readonly base: bigint;
  readonly pageCount: number;
  readonly #rng: Rng;
  /** Free page indices (relative to base), in no particular order. */
  readonly #free: number[];
  readonly #used = new Set<number>();

  constructor(o: PageAllocatorOptions) {
    this.base = toAddress(o.base);
    if (this.base % BigInt(PAGE_BYTES) !== 0n) throw new RangeError(`page pool base ${formatAddress(this.base)} is not 4 KiB aligned`);
    if (!Number.isSafeInteger(o.pages) || o.pages < 1) throw new RangeError(`page pool of ${o.pages} pages`);
    toAddress(this.base + BigInt(o.pages) * BigInt(PAGE_BYTES) - 1n);
    this.pageCount = o.pages;
    this.#rng = o.rng;
    this.#free = Array.from({ length: o.pages }, (_, i) => i);
  }

  /** Pages still free. */
  get available(): number { return this.#free.length; }

  /** One page, chosen uniformly among the free ones. */
  alloc(): bigint {
    const n = this.#free.length;
    if (n === 0) throw new Error(`page pool at ${formatAddress(this.base)} (${this.pageCount} pages) is exhausted`);
    // Swap a random free page to the end and take it: O(1), and every allocation is a fresh draw.
    const i = this.#rng.int(0, n - 1);
    const page = this.#free[i]!;
    this.#free[i] = this.#free[n - 1]!;
    this.#free.pop();
    this.#used.add(page);
    return this.base + BigInt(page) * BigInt(PAGE_BYTES);
  }

  /** `n` pages, e.g. the backing of an `n`-page buffer: page k of the buffer is result[k]. */
  allocMany(n: number): bigint[] {
    if (n > this.#free.length) throw new Error(`page pool at ${formatAddress(this.base)}: ${n} pages asked, ${this.#free.length} free`);
    return Array.from({ length: n }, () => this.alloc());
  }

  /** Pages that back `bytes` bytes starting `offset` bytes into the first page. */
  allocBytes(bytes: number, offset = 0): bigint[] {
    return this.allocMany(Math.max(1, Math.ceil((offset + bytes) / PAGE_BYTES)));
  }

  free(addr: Address): void {
    const a = toAddress(addr);
    const rel = a - this.base;
    const page = Number(rel / BigInt(PAGE_BYTES));
    if (rel < 0n || rel % BigInt(PAGE_BYTES) !== 0n || page >= this.pageCount) throw new RangeError(`${formatAddress(a)} is not a page of this pool`);
    if (!this.#used.delete(page)) throw new Error(`page ${formatAddress(a)} freed twice (or never allocated)`);
    this.#free.push(page);
  }
}
