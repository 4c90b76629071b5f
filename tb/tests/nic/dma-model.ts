// Reference model for the DMA engines (nic_dma_read / nic_dma_write): memory regions with a
// page table (what the TLB answers), and the exact translation requests, AXI bursts, output
// segments and statuses each engine must produce. Independent of the RTL's structure: it
// walks bytes and pages directly.

import type { Rng } from '../../core/rng.ts';
import type { HostMemory } from '../../model/host-memory.ts';
import type { PageAllocator } from '../../model/page-allocator.ts';
import { XLATE_STATUS } from '../../../gen/nic/types.ts';

export const PAGE = 4096;

export interface XlateRequest { key: number; va: bigint; len: number; pd: number; access: number }
export interface XlateAnswer { status: number; pa: bigint }

/** A registered memory region: VA range, protection, and the physical page of each VA page. */
export interface Region {
  readonly key: number;
  readonly pd: number;
  /** MR ACCESS bits (XLATE_ACCESS values or'ed). */
  readonly access: number;
  readonly va: bigint;
  readonly len: number;
  /** PA of VA page k, counted from the page holding `va`. */
  readonly pages: readonly bigint[];
}

/** The translation service the TLB provides, over regions made here. */
export class XlateModel {
  readonly regions = new Map<number, Region>();

  /** A region of `len` bytes at a random unaligned VA, on scattered physical pages filled with random bytes. */
  addRegion(o: { index: number; tag: number; pd: number; access: number; len: number; vaPage: bigint; offset: number },
    alloc: PageAllocator, mem: HostMemory, rng: Rng): Region {
    const va = o.vaPage * BigInt(PAGE) + BigInt(o.offset);
    const pages = alloc.allocBytes(o.len, o.offset);
    for (const p of pages) mem.fillRandom(p, PAGE, rng);
    const r: Region = { key: (o.index << 8) | o.tag, pd: o.pd, access: o.access, va, len: o.len, pages };
    this.regions.set(o.index, r);
    return r;
  }

  translate(q: XlateRequest): XlateAnswer {
    const r = this.regions.get(q.key >>> 8);
    const fail = (status: number): XlateAnswer => ({ status, pa: 0n });
    if (!r) return fail(XLATE_STATUS.BAD_KEY);
    if (r.key !== q.key) return fail(XLATE_STATUS.BAD_TAG);
    if (r.pd !== q.pd) return fail(XLATE_STATUS.BAD_PD);
    if ((r.access & q.access) !== q.access) return fail(XLATE_STATUS.NO_ACCESS);
    if (q.va < r.va || q.va + BigInt(q.len) > r.va + BigInt(r.len)) return fail(XLATE_STATUS.OUT_OF_BOUNDS);
    return { status: XLATE_STATUS.OK, pa: this.pa(r, q.va) };
  }

  pa(r: Region, va: bigint): bigint {
    const k = Number((va >> 12n) - (r.va >> 12n));
    return r.pages[k]! + (va & 0xfffn);
  }

  /** Physical pieces of [va, va+len) in a region, split at pages. */
  pieces(key: number, va: bigint, len: number): { va: bigint; pa: bigint; len: number }[] {
    const r = this.regions.get(key >>> 8)!;
    const out: { va: bigint; pa: bigint; len: number }[] = [];
    let cur = va, rem = len;
    while (rem > 0) {
      const n = Math.min(rem, PAGE - Number(cur & 0xfffn));
      out.push({ va: cur, pa: this.pa(r, cur), len: n });
      cur += BigInt(n); rem -= n;
    }
    return out;
  }
}

export interface Burst { addr: bigint; len: number }

/** AXI bursts for one physically contiguous piece: cut at `burstBytes` windows, bus aligned. */
export function burstsOf(pa: bigint, len: number, busBytes: number, burstBytes: number): Burst[] {
  const out: Burst[] = [];
  let cur = pa, rem = len;
  while (rem > 0) {
    const n = Math.min(rem, burstBytes - Number(cur % BigInt(burstBytes)));
    const first = cur - (cur % BigInt(busBytes));
    const lastWord = (cur + BigInt(n) - 1n) / BigInt(busBytes);
    out.push({ addr: first, len: Number(lastWord - first / BigInt(busBytes)) });
    cur += BigInt(n); rem -= n;
  }
  return out;
}

export interface Sge { va: bigint; len: number; key: number; pd: number; access: number }

export interface ReadMessage { sges: Sge[]; segLog2: number }

export interface ReadExpectation {
  statuses: number[];
  /** tlast-delimited packets, in order. */
  packets: Uint8Array[];
  xlate: XlateRequest[];
  bursts: Burst[];
  /** Which message each packet belongs to (for messages in failures). */
  packetMsg: number[];
}

/** What nic_dma_read must do for `msgs`, in order. */
export function expectRead(msgs: readonly ReadMessage[], x: XlateModel, mem: HostMemory, busBytes: number, burstBytes: number): ReadExpectation {
  const e: ReadExpectation = { statuses: [], packets: [], xlate: [], bursts: [], packetMsg: [] };
  msgs.forEach((msg, mi) => {
    let status = 0;
    for (const s of msg.sges) {
      if (s.len === 0) continue;
      const q = { key: s.key, va: s.va, len: s.len, pd: s.pd, access: s.access };
      e.xlate.push(q);
      const a = x.translate(q);
      if (status === 0) status = a.status;
    }
    e.statuses.push(status);
    if (status !== 0) return;
    const parts: Uint8Array[] = [];
    // Each SGE's first page reuses its validating translation's address; later pages are translated.
    for (const s of msg.sges) {
      for (const [k, p] of x.pieces(s.key, s.va, s.len).entries()) {
        if (k > 0) e.xlate.push({ key: s.key, va: p.va, len: p.len, pd: s.pd, access: s.access });
        e.bursts.push(...burstsOf(p.pa, p.len, busBytes, burstBytes));
        parts.push(mem.read(p.pa, p.len));
      }
    }
    const total = parts.reduce((n, p) => n + p.length, 0);
    const bytes = new Uint8Array(total);
    let o = 0;
    for (const p of parts) { bytes.set(p, o); o += p.length; }
    const seg = 1 << msg.segLog2;
    for (let off = 0; off < total; off += seg) {
      e.packets.push(bytes.subarray(off, Math.min(total, off + seg)));
      e.packetMsg.push(mi);
    }
  });
  return e;
}

export interface WriteCommand { va: bigint; len: number; key: number; pd: number; access: number; data: Uint8Array }

export interface WriteExpectation {
  statuses: number[];
  xlate: XlateRequest[];
  bursts: Burst[];
  /** Physical ranges written, with the bytes they must hold afterwards. */
  writes: { pa: bigint; data: Uint8Array }[];
}

export function expectWrite(cmds: readonly WriteCommand[], x: XlateModel, busBytes: number, burstBytes: number): WriteExpectation {
  const e: WriteExpectation = { statuses: [], xlate: [], bursts: [], writes: [] };
  for (const c of cmds) {
    if (c.len === 0) { e.statuses.push(0); continue; }
    const q = { key: c.key, va: c.va, len: c.len, pd: c.pd, access: c.access };
    e.xlate.push(q);
    const a = x.translate(q);
    e.statuses.push(a.status);
    if (a.status !== 0) continue;
    let done = 0;
    for (const p of x.pieces(c.key, c.va, c.len)) {
      e.xlate.push({ key: c.key, va: p.va, len: p.len, pd: c.pd, access: c.access });
      e.bursts.push(...burstsOf(p.pa, p.len, busBytes, burstBytes));
      e.writes.push({ pa: p.pa, data: c.data.subarray(done, done + p.len) });
      done += p.len;
    }
  }
  return e;
}

/** First index where two byte arrays differ, or -1. */
export function firstDiff(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
