// Reference model of address translation (NIC.md §3, gen/nic/tlb.ts): key, PD, access and
// bounds checks, then VA -> PA through the MR's page table in host memory. Also builds MRs
// with physically scattered pages and a page table at any 8-byte-aligned address.

import type { Rng } from '../core/rng.ts';
import type { HostMemory } from './host-memory.ts';
import type { PageAllocator } from './page-allocator.ts';

export const XLATE = { OK: 0, BAD_KEY: 1, BAD_TAG: 2, BAD_PD: 3, NO_ACCESS: 4, OUT_OF_BOUNDS: 5, PT_ERROR: 6 } as const;
export const XLATE_NAMES = ['OK', 'BAD_KEY', 'BAD_TAG', 'BAD_PD', 'NO_ACCESS', 'OUT_OF_BOUNDS', 'PT_ERROR'] as const;

export interface MrDesc {
  valid: boolean;
  tag: number;
  pd: number;
  /** Bits 2:0: local write, remote read, remote write. */
  access: number;
  va: bigint;
  len: bigint;
  ptBase: bigint;
}

export interface XlateRequest { key: number; va: bigint; len: number; pd: number; access: number }
export interface XlateResult { status: number; pa: bigint }

const PAGE = 4096n;

export function keyOf(index: number, tag: number): number { return ((index << 8) | (tag & 0xff)) >>> 0; }

/** Pages of the MR's page table: one per 4 KiB page touched by [va, va+len). */
export function pageCount(mr: Pick<MrDesc, 'va' | 'len'>): number {
  if (mr.len === 0n) return 0;
  return Number((mr.va + mr.len - 1n) / PAGE - mr.va / PAGE + 1n);
}

/** Physical address of the PTE that maps `va` (va inside the MR). */
export function pteAddress(mr: MrDesc, va: bigint): bigint {
  return (mr.ptBase & ~7n) + 8n * (va / PAGE - mr.va / PAGE);
}

/** What the TLB must answer. `ptError(addr)` says whether reading that PTE fails on the bus. */
export function translate(mrs: readonly MrDesc[], mem: HostMemory, r: XlateRequest, ptError: (pteAddr: bigint) => boolean = () => false): XlateResult {
  const index = r.key >>> 8;
  const mr = mrs[index];
  if (!mr || !mr.valid) return { status: XLATE.BAD_KEY, pa: 0n };
  if ((r.key & 0xff) !== mr.tag) return { status: XLATE.BAD_TAG, pa: 0n };
  if (r.pd !== mr.pd) return { status: XLATE.BAD_PD, pa: 0n };
  if ((r.access & ~mr.access & 7) !== 0) return { status: XLATE.NO_ACCESS, pa: 0n };
  if (r.va < mr.va || r.va + BigInt(r.len) > mr.va + mr.len) return { status: XLATE.OUT_OF_BOUNDS, pa: 0n };
  if (r.len === 0) return { status: XLATE.OK, pa: 0n };
  const pte = pteAddress(mr, r.va);
  if (ptError(pte)) return { status: XLATE.PT_ERROR, pa: 0n };
  return { status: XLATE.OK, pa: (mem.readU64(pte) & ~0xfffn) | (r.va & 0xfffn) };
}

/** Writes a page table for `mr` at `mr.ptBase`: entry k = a fresh scattered physical page
 *  (low 12 bits filled with junk the hardware must ignore). Returns the pages. */
export function writePageTable(mem: HostMemory, alloc: PageAllocator, mr: MrDesc, rng: Rng): bigint[] {
  const pages = alloc.allocMany(pageCount(mr));
  pages.forEach((pa, k) => mem.writeU64((mr.ptBase & ~7n) + 8n * BigInt(k), pa | BigInt(rng.int(0, 0xfff))));
  return pages;
}

export function describeRequest(r: XlateRequest): string {
  return `key=0x${r.key.toString(16)} va=0x${r.va.toString(16)} len=${r.len} pd=${r.pd} access=${r.access}`;
}
