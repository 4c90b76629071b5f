// The RDMA scoreboard: what verbs promise, checked against host memories and CQEs.
//  - after a WRITE completes successfully, the remote range holds the source bytes;
//  - after a READ completes successfully, its local SGEs hold the remote source bytes as they
//    were when the responder read them: the WRITEs posted before it on its QP included, later
//    ones not (tb/model/memory-image.ts plans every byte in posting order and rejects, when a
//    WQE is recorded, a scenario whose bytes would depend on timing: cross-QP overlap, or a
//    WQE that needs a FENCE behind a READ and has none);
//  - at the end every planned byte holds its planned value, and nothing outside the allowed
//    ranges (rings, planned bytes) changed on any host, byte for byte (a failed WRITE or READ
//    may not touch its target or local destination either);
//  - each QP's CQEs come in posting order with the expected status, opcode and length;
//    unsignaled successful WQEs give none, errors always give one.

import { CQE_STATUS } from '../../gen/nic/regmap.ts';
import type { CqeFields } from './completion.ts';
import { WQE_OPCODE } from '../../gen/nic/regmap.ts';
import type { ByteRange, HostMemory, MemorySnapshot } from './host-memory.ts';
import { MemoryImage, type Access } from './memory-image.ts';
import type { MemoryRegion } from './mr.ts';
import type { SgeRef, WorkRequest } from './driver.ts';

/** Bytes a completed WQE must have produced: the planned ones still owned by it (a later WQE
 *  of the same QP may overwrite some before the CQE is seen; those are checked at finish). */
interface DataCheck { readonly host: string; readonly what: string; readonly ranges: readonly ByteRange[] }

export interface ExpectedCompletion {
  readonly wr: WorkRequest;
  readonly status: number;
  readonly length: number;
  /** Global posting sequence number (1, 2, ...): the planned bytes' owner. */
  readonly seq: number;
  readonly checks: readonly DataCheck[];
  /** The AETH syndrome the error CQE must carry (e.g. 0x62); unchecked when absent. */
  readonly syndrome?: number;
  /** Why an error is expected (e.g. 'bad-pd'), for functional coverage; not checked. */
  readonly cause?: string;
  /** When the record was taken, by the scoreboard's clock (`now`), if it has one. */
  readonly recorded?: number;
}

/** Sees what the scoreboard has verified (functional coverage, tb/coverage/nic-collector.ts). */
export interface ScoreboardObserver {
  /** A completion was checked: its CQE matched (`cqe`), or, unsignaled and successful, a
   *  later CQE of its QP completed it (`cqe` undefined); its data was checked either way. */
  completed(host: string, qp: number, e: ExpectedCompletion, cqe: CqeFields | undefined): void;
  /** finish() passed; `qps` per host: the QPs that had work. */
  finished(qps: ReadonlyMap<string, number>): void;
}

/** A CQE or a byte that differs from its record: `causeCycle` is when the record was taken,
 *  where a wave window that explains the mismatch starts (tb/core HasCauseCycle). */
export class ScoreboardMismatch extends Error {
  readonly causeCycle?: number;
  constructor(message: string, recorded: number | undefined) {
    super(recorded === undefined ? message : `${message} (recorded at cycle ${recorded})`);
    this.name = 'ScoreboardMismatch';
    if (recorded !== undefined) this.causeCycle = recorded;
  }
}

/** Where a WRITE lands or a READ reads: an MR on the named peer host and an offset into it. */
export interface RemoteRef { readonly host: string; readonly mr: MemoryRegion; readonly offset: number }

interface Host { readonly mem: HostMemory; snap: MemorySnapshot | null; readonly allowed: ByteRange[]; readonly image: MemoryImage }

const statusName = (v: number): string => `${v} (${Object.entries(CQE_STATUS).find(([, x]) => x === v)?.[0] ?? 'unknown'})`;
const opName = (v: number): string => (v === WQE_OPCODE.RDMA_READ ? 'READ' : v === WQE_OPCODE.RDMA_WRITE ? 'WRITE' : `opcode ${v}`);
const sgeRanges = (sges: readonly SgeRef[]): ByteRange[] => sges.flatMap(s => s.mr.ranges(s.offset, s.len));

export function gather(sges: readonly SgeRef[]): Uint8Array {
  const out = new Uint8Array(sges.reduce((s, x) => s + x.len, 0));
  let off = 0;
  for (const s of sges) { out.set(s.mr.read(s.offset, s.len), off); off += s.len; }
  return out;
}

export class RdmaScoreboard {
  readonly #hosts = new Map<string, Host>();
  /** Per "host/qp": completions still owed, in posting order. */
  readonly #queues = new Map<string, ExpectedCompletion[]>();
  /** Ordering streams ("host/qpN": one requester's QP) by id, and each one's latest FENCE. */
  readonly #streams: string[] = [];
  readonly #fenceSeq: number[] = [];
  #seq = 0;
  #observer: ScoreboardObserver | undefined;
  completions = 0;
  /** WQEs completed so far, signaled or not (progress of a long run). */
  retired = 0;
  bytesChecked = 0;
  /** The caller's clock (a testbench's cycle count): each record is dated with it. */
  now: (() => number) | undefined;

  /** Tells `o` about everything verified from now on (one observer). */
  observe(o: ScoreboardObserver): void { this.#observer = o; }

  addHost(name: string, mem: HostMemory): void {
    this.#hosts.set(name, { mem, snap: null, allowed: [], image: new MemoryImage(`${name} host memory`, mem, this.#streams) });
  }

  /** Snapshot every host; changes are judged from here on. */
  start(): void {
    for (const h of this.#hosts.values()) {
      h.snap?.release(); h.snap = h.mem.snapshot(); h.allowed.length = 0; h.image.reset(h.snap);
    }
  }

  allow(host: string, ranges: readonly ByteRange[]): void { this.#host(host).allowed.push(...ranges); }

  /** Record a posted WRITE on `host`'s QP `qp`: the bytes are gathered now. `target` is the
   *  remote MR and offset the WRITE lands at (its host is named for the change check). */
  expectWrite(host: string, qp: number, wr: WorkRequest, status: number, target?: RemoteRef): void {
    const a = this.#access(host, qp, wr, 'WRITE');
    const length = wr.length ?? wr.sges.reduce((s, x) => s + x.len, 0);
    const checks: DataCheck[] = [];
    if (target && status === CQE_STATUS.SUCCESS) {
      const ranges = target.mr.ranges(target.offset, length);
      const data = this.#host(host).image.read(sgeRanges(wr.sges), a, false);
      this.#host(target.host).image.write(ranges, data, a, false);
      checks.push({ host: target.host, what: `remote target (MR ${target.mr.index}+${target.offset} on ${target.host})`, ranges });
    }
    this.#queue(host, qp).push({ wr, status, length, seq: a.seq, checks, ...this.#dated() });
  }

  /** Record a posted READ on `host`'s QP `qp` from `source` (the peer's MR and offset) into the
   *  WQE's local SGEs. On SUCCESS the SGEs must end up holding the source bytes as planned; on
   *  any other status no byte of them may change (nothing is allowed there). */
  expectRead(host: string, qp: number, wr: WorkRequest, status: number, source: RemoteRef, syndrome?: number, cause?: string): void {
    if (wr.opcode !== WQE_OPCODE.RDMA_READ) throw new Error(`scoreboard: expectRead given opcode ${wr.opcode}`);
    const a = this.#access(host, qp, wr, 'READ');
    const length = wr.length ?? wr.sges.reduce((s, x) => s + x.len, 0);
    const checks: DataCheck[] = [];
    if (status === CQE_STATUS.SUCCESS) {
      const data = this.#host(source.host).image.read(source.mr.ranges(source.offset, length), a, true);
      const ranges = sgeRanges(wr.sges);
      this.#host(host).image.write(ranges, data, a, true);
      checks.push({ host, what: `local destination (READ of MR ${source.mr.index}+${source.offset} on ${source.host})`, ranges });
    }
    this.#queue(host, qp).push({ wr, status, length, seq: a.seq, checks, ...(syndrome !== undefined ? { syndrome } : {}), ...(cause !== undefined ? { cause } : {}), ...this.#dated() });
  }

  /** Expect a CQE with `status` for a WQE that is not a WRITE with a target (e.g. flushed);
   *  `cause` says why it fails, for coverage. */
  expectStatus(host: string, qp: number, wr: WorkRequest, status: number, cause?: string): void {
    const a = this.#access(host, qp, wr, 'WQE');
    this.#queue(host, qp).push({ wr, status, length: wr.length ?? wr.sges.reduce((s, x) => s + x.len, 0), seq: a.seq, checks: [], ...(cause !== undefined ? { cause } : {}), ...this.#dated() });
  }

  /** A CQE arrived: it must be the next signaled-or-failed entry; unsignaled successes before
   *  it are complete too (completions are in order), so their data is checked as well. */
  onCqe(host: string, qp: number, c: CqeFields): void {
    const q = this.#queue(host, qp);
    let where = `${host} QP ${qp} CQE wr_id=0x${c.wrId.toString(16)}`;
    const skipped: string[] = [];
    for (;;) {
      const e = q.shift();
      if (!e) throw new Error(`${where}: no completion was expected`);
      this.retired++;
      const owesCqe = e.wr.signaled || e.status !== CQE_STATUS.SUCCESS;
      // An unsignaled WQE gets a CQE only when it did not succeed (wr_ids are unique in a run).
      if (!owesCqe && c.wrId === e.wr.wrId) throw new ScoreboardMismatch(`${where} (${opName(e.wr.opcode)}, unsignaled): status ${statusName(c.status)}, expected ${statusName(e.status)} and no CQE`, e.recorded);
      if (!owesCqe) {
        this.#checkData(host, qp, e, ` [unsignaled; checked at the CQE of wr_id 0x${c.wrId.toString(16)} status ${statusName(c.status)}]`);
        this.#observer?.completed(host, qp, e, undefined);
        skipped.push(`0x${e.wr.wrId.toString(16)} (${opName(e.wr.opcode)}, ${e.length} bytes)`);
        where = `${host} QP ${qp} CQE wr_id=0x${c.wrId.toString(16)} [unsignaled before it, taken as successful: ${skipped.join(', ')}]`;
        continue;
      }
      if (c.wrId !== e.wr.wrId) throw new ScoreboardMismatch(`${where}: expected wr_id 0x${e.wr.wrId.toString(16)} (posting order)`, e.recorded);
      if (c.status !== e.status) throw new ScoreboardMismatch(`${where} (${opName(e.wr.opcode)}): status ${statusName(c.status)}, expected ${statusName(e.status)}`, e.recorded);
      if (c.opcode !== e.wr.opcode) throw new ScoreboardMismatch(`${where}: opcode ${c.opcode}, expected ${e.wr.opcode}`, e.recorded);
      if (c.qp !== qp) throw new ScoreboardMismatch(`${where}: CQE names QP ${c.qp}`, e.recorded);
      if (e.syndrome !== undefined && c.syndrome !== e.syndrome) throw new ScoreboardMismatch(`${where}: syndrome 0x${c.syndrome.toString(16)}, expected 0x${e.syndrome.toString(16)}`, e.recorded);
      if (e.status === CQE_STATUS.SUCCESS && c.byteLen !== e.length) throw new ScoreboardMismatch(`${where}: byte_len ${c.byteLen}, expected ${e.length}`, e.recorded);
      if (e.status === CQE_STATUS.SUCCESS) this.#checkData(host, qp, e);
      this.completions++;
      this.#observer?.completed(host, qp, e, c);
      return;
    }
  }

  /** Completions still owed by `host`'s QP (signaled or failed ones). */
  owed(host: string, qp: number): number {
    return this.#queue(host, qp).filter(e => e.wr.signaled || e.status !== CQE_STATUS.SUCCESS).length;
  }
  get totalOwed(): number {
    let n = 0;
    for (const q of this.#queues.values()) n += q.filter(e => e.wr.signaled || e.status !== CQE_STATUS.SUCCESS).length;
    return n;
  }

  /** Every byte of `host` a recorded WQE plans to write (for checks of their own, e.g. over
   *  more traffic than the scoreboard's). */
  plannedRanges(host: string): ByteRange[] {
    return this.#host(host).image.writtenRanges();
  }

  /** Every owed CQE came; no host changed outside the allowed ranges. */
  finish(): void {
    for (const [k, q] of this.#queues) {
      const owed = q.filter(e => e.wr.signaled || e.status !== CQE_STATUS.SUCCESS);
      if (owed.length) throw new Error(`${k}: ${owed.length} completion(s) never arrived (first wr_id 0x${owed[0]!.wr.wrId.toString(16)})`);
    }
    for (const [name, h] of this.#hosts) {
      const m = h.image.firstMismatch();
      if (m) throw new Error(`${name} host memory at 0x${m.addr.toString(16)} is 0x${m.got.toString(16)}, expected 0x${m.expected.toString(16)} (last planned by WQE #${m.writer})`);
      h.snap?.expectUnchangedOutside([...h.allowed, ...h.image.writtenRanges()], `${name} host memory`);
    }
    if (this.#observer) {
      const qps = new Map<string, number>();
      for (const k of this.#streams) { const host = k.slice(0, k.indexOf('/')); qps.set(host, (qps.get(host) ?? 0) + 1); }
      this.#observer.finished(qps);
    }
  }

  #checkData(host: string, qp: number, e: ExpectedCompletion, at = ''): void {
    const op = opName(e.wr.opcode);
    for (const c of e.checks) {
      const h = this.#host(c.host);
      for (const b of h.image.ownedBy(c.ranges, e.seq)) {
        const got = h.mem.read(b.addr, 1)[0]!;
        if (got !== b.value) {
          throw new ScoreboardMismatch(`${host} QP ${qp} ${op} wr_id=0x${e.wr.wrId.toString(16)} (#${e.seq}, ${e.length} bytes)${at}: ${c.what} byte ${b.index} `
            + `(${c.host} 0x${b.addr.toString(16)}) is 0x${got.toString(16)}, expected 0x${b.value.toString(16)}`, e.recorded);
        }
        this.bytesChecked++;
      }
    }
  }

  /** The next sequence number, as an access of `host`'s QP `qp` (a FENCE flag moves the
   *  stream's fence to it: every earlier READ of the QP is complete when it starts). */
  #access(host: string, qp: number, wr: WorkRequest, what: string): Access {
    const name = `${host}/qp${qp}`;
    let stream = this.#streams.indexOf(name);
    if (stream < 0) { stream = this.#streams.push(name) - 1; this.#fenceSeq.push(0); }
    const seq = ++this.#seq;
    if (wr.fence) this.#fenceSeq[stream] = seq;
    return { seq, stream, streamName: name, fenceSeq: this.#fenceSeq[stream]!, what: `${what} wr_id=0x${wr.wrId.toString(16)}` };
  }

  #dated(): { recorded?: number } {
    return this.now ? { recorded: this.now() } : {};
  }

  #host(name: string): Host {
    const h = this.#hosts.get(name);
    if (!h) throw new Error(`scoreboard: unknown host ${name}`);
    return h;
  }
  #queue(host: string, qp: number): ExpectedCompletion[] {
    const k = `${host}/qp${qp}`;
    let q = this.#queues.get(k);
    if (!q) this.#queues.set(k, q = []);
    return q;
  }
}
