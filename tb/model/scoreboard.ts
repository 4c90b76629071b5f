// The RDMA scoreboard: what verbs promise, checked against host memories and CQEs.
//  - after a WRITE completes successfully, the remote range holds the source bytes (as they
//    were when the WRITE was posted);
//  - nothing outside the allowed ranges changes on any host (rings, WRITE targets), byte for
//    byte (HostMemory snapshots: a failed WRITE may not touch its target either);
//  - each QP's CQEs come in posting order with the expected status, opcode and length;
//    unsignaled successful WQEs give none, errors always give one.

import { CQE_STATUS } from '../../gen/nic/regmap.ts';
import type { CqeFields } from './completion.ts';
import type { ByteRange, HostMemory, MemorySnapshot } from './host-memory.ts';
import type { MemoryRegion } from './mr.ts';
import type { SgeRef, WorkRequest } from './driver.ts';

export interface ExpectedCompletion {
  readonly wr: WorkRequest;
  readonly status: number;
  readonly length: number;
  /** The remote target and the bytes it must hold after success (WRITE). */
  readonly target?: { readonly mr: MemoryRegion; readonly offset: number; readonly data: Uint8Array };
}

interface Host { readonly mem: HostMemory; snap: MemorySnapshot | null; readonly allowed: ByteRange[] }

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
  completions = 0;
  bytesChecked = 0;

  addHost(name: string, mem: HostMemory): void {
    this.#hosts.set(name, { mem, snap: null, allowed: [] });
  }

  /** Snapshot every host; changes are judged from here on. */
  start(): void {
    for (const h of this.#hosts.values()) { h.snap?.release(); h.snap = h.mem.snapshot(); h.allowed.length = 0; }
  }

  allow(host: string, ranges: readonly ByteRange[]): void { this.#host(host).allowed.push(...ranges); }

  /** Record a posted WRITE on `host`'s QP `qp`: the bytes are gathered now. `target` is the
   *  remote MR and offset the WRITE lands at (its host is named for the change check). */
  expectWrite(host: string, qp: number, wr: WorkRequest, status: number, target?: { host: string; mr: MemoryRegion; offset: number }): void {
    const data = gather(wr.sges);
    const length = wr.length ?? data.length;
    if (target && status === CQE_STATUS.SUCCESS) this.allow(target.host, target.mr.ranges(target.offset, length));
    this.#queue(host, qp).push({ wr, status, length, ...(target ? { target: { mr: target.mr, offset: target.offset, data } } : {}) });
  }

  /** Expect a CQE with `status` for a WQE that is not a WRITE with a target (e.g. flushed). */
  expectStatus(host: string, qp: number, wr: WorkRequest, status: number): void {
    this.#queue(host, qp).push({ wr, status, length: wr.length ?? wr.sges.reduce((s, x) => s + x.len, 0) });
  }

  /** A CQE arrived: it must be the next signaled-or-failed entry; unsignaled successes before
   *  it are complete too (completions are in order), so their data is checked as well. */
  onCqe(host: string, qp: number, c: CqeFields): void {
    const q = this.#queue(host, qp);
    const where = `${host} QP ${qp} CQE wr_id=0x${c.wrId.toString(16)}`;
    for (;;) {
      const e = q.shift();
      if (!e) throw new Error(`${where}: no completion was expected`);
      const owesCqe = e.wr.signaled || e.status !== CQE_STATUS.SUCCESS;
      if (!owesCqe) { this.#checkData(host, qp, e); continue; }
      if (c.wrId !== e.wr.wrId) throw new Error(`${where}: expected wr_id 0x${e.wr.wrId.toString(16)} (posting order)`);
      if (c.status !== e.status) throw new Error(`${where}: status ${c.status}, expected ${e.status}`);
      if (c.opcode !== e.wr.opcode) throw new Error(`${where}: opcode ${c.opcode}, expected ${e.wr.opcode}`);
      if (c.qp !== qp) throw new Error(`${where}: CQE names QP ${c.qp}`);
      if (e.status === CQE_STATUS.SUCCESS && c.byteLen !== e.length) throw new Error(`${where}: byte_len ${c.byteLen}, expected ${e.length}`);
      if (e.status === CQE_STATUS.SUCCESS) this.#checkData(host, qp, e);
      this.completions++;
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

  /** Every owed CQE came; no host changed outside the allowed ranges. */
  finish(): void {
    for (const [k, q] of this.#queues) {
      const owed = q.filter(e => e.wr.signaled || e.status !== CQE_STATUS.SUCCESS);
      if (owed.length) throw new Error(`${k}: ${owed.length} completion(s) never arrived (first wr_id 0x${owed[0]!.wr.wrId.toString(16)})`);
    }
    for (const [name, h] of this.#hosts) h.snap?.expectUnchangedOutside(h.allowed, `${name} host memory`);
  }

  #checkData(host: string, qp: number, e: ExpectedCompletion): void {
    if (!e.target) return;
    const got = e.target.mr.read(e.target.offset, e.target.data.length);
    for (let i = 0; i < got.length; i++) {
      if (got[i] !== e.target.data[i]) {
        throw new Error(`${host} QP ${qp} WRITE wr_id=0x${e.wr.wrId.toString(16)} (${e.target.data.length} bytes to MR ${e.target.mr.index}+${e.target.offset}): `
          + `remote byte ${i} is 0x${got[i]!.toString(16)}, expected 0x${e.target.data[i]!.toString(16)}`);
      }
    }
    this.bytesChecked += got.length;
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
