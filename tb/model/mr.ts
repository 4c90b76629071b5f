// A registered memory region as the host driver sees it: a virtually contiguous buffer backed
// by physically scattered 4 KiB pages, plus the page table the NIC walks. Byte access goes
// through the VA -> PA map, so tests never assume physical contiguity either.

import type { ByteRange, HostMemory } from './host-memory.ts';
import { keyOf } from './tlb.ts';

const PAGE = 4096n;

export interface MrInfo {
  readonly index: number;
  readonly tag: number;
  readonly pd: number;
  /** ACCESS bits 2:0 (local write, remote read, remote write); VALID is added on registration. */
  readonly access: number;
  readonly va: bigint;
  readonly len: number;
  readonly ptBase: bigint;
  /** Physical page of buffer page k (k counted from the page holding `va`). */
  readonly pages: readonly bigint[];
}

export class MemoryRegion implements MrInfo {
  readonly index: number;
  readonly tag: number;
  readonly pd: number;
  readonly access: number;
  readonly va: bigint;
  readonly len: number;
  readonly ptBase: bigint;
  readonly pages: readonly bigint[];
  readonly mem: HostMemory;

  constructor(mem: HostMemory, info: MrInfo) {
    this.mem = mem;
    this.index = info.index; this.tag = info.tag; this.pd = info.pd; this.access = info.access;
    this.va = info.va; this.len = info.len; this.ptBase = info.ptBase; this.pages = info.pages;
  }

  /** The key software hands out: lkey and rkey are the same value here. */
  get key(): number { return keyOf(this.index, this.tag); }

  /** Physical address of the byte at `offset` into the region. */
  pa(offset: number): bigint {
    if (offset < 0 || offset > this.len) throw new RangeError(`MR ${this.index}: offset ${offset} outside 0..${this.len}`);
    const va = this.va + BigInt(offset);
    const k = Number(va / PAGE - this.va / PAGE);
    return this.pages[k]! + (va % PAGE);
  }

  /** Physical pieces of [offset, offset+len), split at page boundaries. */
  ranges(offset: number, len: number): ByteRange[] {
    if (offset < 0 || len < 0 || offset + len > this.len) throw new RangeError(`MR ${this.index}: range ${offset}+${len} outside 0..${this.len}`);
    const out: ByteRange[] = [];
    let done = 0;
    while (done < len) {
      const va = this.va + BigInt(offset + done);
      const n = Math.min(Number(PAGE - (va % PAGE)), len - done);
      out.push({ addr: this.pa(offset + done), len: n });
      done += n;
    }
    return out;
  }

  read(offset: number, len: number): Uint8Array {
    const out = new Uint8Array(len);
    let done = 0;
    for (const r of this.ranges(offset, len)) { out.set(this.mem.read(r.addr, r.len), done); done += r.len; }
    return out;
  }

  write(offset: number, data: Uint8Array): void {
    let done = 0;
    for (const r of this.ranges(offset, data.length)) { this.mem.write(r.addr, data.subarray(done, done + r.len)); done += r.len; }
  }
}
