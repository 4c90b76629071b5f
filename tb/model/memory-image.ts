// What one host's memory must hold once every expected RDMA operation has run, and who may
// touch which byte. The scoreboard feeds it the WQEs in posting order; bytes nobody wrote read
// from the snapshot taken at start. Each byte also remembers the ordering stream (requester host
// + QP) that wrote or read it and the last READ that touched it, so a scenario whose outcome
// depends on timing is rejected when it is planned, not misreported as a NIC bug later.
//
// Ordering facts the rules follow (IB RC, and this NIC):
//  - one stream's requests run at the responder in PSN order, and nic_responder issues a READ's
//    DMA only after the earlier WRITEs' data is in memory: a READ sees the WRITEs posted before
//    it on its QP (read-after-write needs nothing);
//  - nothing orders a READ's memory accesses against LATER requests of its QP: the responder
//    fetches READ data with a second DMA engine while later WRITE packets are already being
//    written, and the requester scatters the responses whenever they arrive. So a later WQE that
//    writes bytes an earlier READ read or wrote, or takes its WRITE source from an earlier READ's
//    destination, is deterministic only with FENCE (it waits until that READ completed);
//  - two streams have no order at all: a byte one stream writes may not be touched by another.

import type { ByteRange, HostMemory, MemorySnapshot } from './host-memory.ts';

const PAGE = 4096;
/** A byte's address from its page number and offset (bigint only here: the per-byte walks run
 *  on numbers, since they visit every planned byte of every WQE). */
const addrOf = (page: number, i: number): bigint => BigInt(page) * BigInt(PAGE) + BigInt(i);
const NONE = -1;
const MANY = -2;

interface PageState {
  readonly data: Uint8Array;
  /** Sequence number of the WQE that wrote the byte last (0: nobody). */
  readonly writer: Int32Array;
  /** Stream that wrote the byte (NONE), one stream that read it, or MANY readers. */
  readonly writerStream: Int16Array;
  readonly readerStream: Int16Array;
  /** Sequence number of the last READ that read or wrote the byte (0: none), and its stream. */
  readonly readSeq: Int32Array;
  readonly readStream: Int16Array;
}

/** Who is accessing: the WQE's global sequence number, its stream, and the latest fence of that
 *  stream at or before it (READs at or before `fenceSeq` are complete when it starts). */
export interface Access {
  readonly seq: number;
  readonly stream: number;
  readonly streamName: string;
  readonly fenceSeq: number;
  readonly what: string;
}

export class RacyScenarioError extends Error {
  override readonly name = 'RacyScenarioError';
}

export class MemoryImage {
  readonly name: string;
  readonly #mem: HostMemory;
  readonly #pages = new Map<number, PageState>();
  readonly #streamNames: string[];
  #snap: MemorySnapshot | null = null;

  constructor(name: string, mem: HostMemory, streamNames: string[]) {
    this.name = name; this.#mem = mem; this.#streamNames = streamNames;
  }

  /** Forget the planned bytes; unwritten bytes read from `snap` (or live memory without one). */
  reset(snap: MemorySnapshot | null): void { this.#pages.clear(); this.#snap = snap; }

  /** The planned contents of `ranges`, concatenated; records the read for the race checks.
   *  `byRead`: a READ's remote source (later writes of its stream need a fence), else a
   *  WRITE's local source (must not be an unfenced earlier READ's destination). */
  read(ranges: readonly ByteRange[], a: Access, byRead: boolean): Uint8Array {
    // Bytes nobody planned keep their value from the snapshot: fetched a range at a time.
    const out = new Uint8Array(ranges.reduce((s, r) => s + r.len, 0));
    let o = 0;
    for (const r of ranges) { out.set(this.#snap ? this.#snap.readBefore(r.addr, r.len) : this.#mem.read(r.addr, r.len), o); o += r.len; }
    o = 0;
    this.#bytes(ranges, (s, i, page) => {
      const ws = s.writerStream[i]!;
      if (ws !== NONE && ws !== a.stream) this.#race(addrOf(page, i), a, `it is written by ${this.#streamNames[ws]}`);
      if (!byRead && this.#unfencedRead(s, i, a)) this.#race(addrOf(page, i), a, `READ #${s.readSeq[i]} of the same QP may still be writing it: FENCE the WQE`);
      const rs = s.readerStream[i]!;
      s.readerStream[i] = rs === NONE || rs === a.stream ? a.stream : MANY;
      if (byRead) { s.readSeq[i] = a.seq; s.readStream[i] = a.stream; }
      if (s.writer[i]) out[o] = s.data[i]!;
      o++;
    });
    return out;
  }

  /** Plans `data` into `ranges` by WQE `a`; `byRead`: a READ's local destination. */
  write(ranges: readonly ByteRange[], data: Uint8Array, a: Access, byRead: boolean): void {
    let o = 0;
    this.#bytes(ranges, (s, i, page) => {
      const ws = s.writerStream[i]!, rs = s.readerStream[i]!;
      if (ws !== NONE && ws !== a.stream) this.#race(addrOf(page, i), a, `${this.#streamNames[ws]} writes it too`);
      if (rs !== NONE && rs !== a.stream) this.#race(addrOf(page, i), a, `${rs === MANY ? 'several streams read' : `${this.#streamNames[rs]} reads`} it`);
      if (this.#unfencedRead(s, i, a)) this.#race(addrOf(page, i), a, `READ #${s.readSeq[i]} of the same QP may still access it: FENCE the WQE`);
      s.data[i] = data[o++]!; s.writer[i] = a.seq; s.writerStream[i] = a.stream;
      if (byRead) { s.readSeq[i] = a.seq; s.readStream[i] = a.stream; }
    });
  }

  /** Bytes of `ranges` whose last planned writer is `seq`, with their planned value. */
  ownedBy(ranges: readonly ByteRange[], seq: number): { index: number; addr: bigint; value: number }[] {
    const out: { index: number; addr: bigint; value: number }[] = [];
    let k = 0;
    this.#bytes(ranges, (s, i, page) => { if (s.writer[i] === seq) out.push({ index: k, addr: addrOf(page, i), value: s.data[i]! }); k++; });
    return out;
  }

  /** Every planned byte, as ranges (for the "nothing else changed" check). */
  writtenRanges(): ByteRange[] {
    const out: { addr: bigint; len: number }[] = [];
    for (const [page, st] of [...this.#pages].sort((x, y) => x[0] - y[0])) {
      for (let i = 0; i < PAGE; i++) {
        if (!st.writer[i]) continue;
        const start = i;
        while (i < PAGE && st.writer[i]) i++;
        const addr = addrOf(page, start), prev = out[out.length - 1];
        if (prev && prev.addr + BigInt(prev.len) === addr) prev.len += i - start;
        else out.push({ addr, len: i - start });
      }
    }
    return out;
  }

  /** The first byte whose memory differs from its planned value, or null. */
  firstMismatch(): { addr: bigint; expected: number; got: number; writer: number } | null {
    for (const [page, st] of this.#pages) {
      const base = BigInt(page) * BigInt(PAGE);
      const now = this.#mem.read(base, PAGE);
      for (let i = 0; i < PAGE; i++) {
        if (st.writer[i] && now[i] !== st.data[i]) return { addr: base + BigInt(i), expected: st.data[i]!, got: now[i]!, writer: st.writer[i]! };
      }
    }
    return null;
  }

  /** An earlier READ of a's own stream touched the byte and no fence since guarantees it is done
   *  (a READ whose SGEs overlap each other is not its own hazard: one DMA writes them in order). */
  #unfencedRead(s: PageState, i: number, a: Access): boolean {
    return s.readSeq[i]! > a.fenceSeq && s.readSeq[i] !== a.seq && s.readStream[i] === a.stream;
  }

  #race(addr: bigint, a: Access, why: string): never {
    throw new RacyScenarioError(`racy scenario: ${a.what} (#${a.seq}, ${a.streamName}) touches ${this.name} byte 0x${addr.toString(16)} but ${why}; `
      + 'its outcome would depend on timing (see tb/model/memory-image.ts)');
  }

  /** Calls `f` for every byte of `ranges` in order, with its page state, offset and page number. */
  #bytes(ranges: readonly ByteRange[], f: (st: PageState, i: number, page: number) => void): void {
    for (const r of ranges) {
      const a = BigInt(r.addr);
      let page = Number(a / BigInt(PAGE)), i = Number(a % BigInt(PAGE));
      let st: PageState | undefined; // fetched on the first byte of each page
      for (let n = 0; n < r.len; n++) {
        st ??= this.#page(page);
        f(st, i, page);
        if (++i === PAGE) { i = 0; page++; st = undefined; }
      }
    }
  }

  #page(page: number): PageState {
    let st = this.#pages.get(page);
    if (!st) {
      st = {
        data: new Uint8Array(PAGE), writer: new Int32Array(PAGE), readSeq: new Int32Array(PAGE),
        readStream: new Int16Array(PAGE).fill(NONE), writerStream: new Int16Array(PAGE).fill(NONE), readerStream: new Int16Array(PAGE).fill(NONE),
      };
      this.#pages.set(page, st);
    }
    return st;
  }
}
