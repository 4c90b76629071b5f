// The ACK tracker's neighbours in a closed loop, for the retry-engine bench: a sender that
// posts ReqEntries as nic_req_tx does (and restarts from the tracker's rewinds, resuming at
// the PSN its send pointer says), a lossy link, a responder model (in-order acceptance, one
// NAK 0x60 per gap, re-ACK of duplicates, READ responses, duplicate READs answered again) and
// a model of nic_read_resp_rx's event annotation (READ responses as ACKs of their PSN, implied
// NAKs, rdMiss on an ACK past a missing response, read_done at a READ's last response).
// Everything the tracker must get right is checked by the bench from what it observes:
// rewinds at the oldest uncompleted entry, never resuming past what the responder has, CQEs
// exactly once in posting order, ACK timeouts no sooner than the timeout after the last event
// that could restart the timer.

import type { Rng } from '../../../core/index.ts';
import { psnAdd, psnCompare } from '../../../model/psn.ts';

export interface LoopMsg {
  readonly ring: number;
  readonly read: boolean;
  readonly first: number;
  readonly last: number;
  readonly wrId: bigint;
}

/** A delay line that keeps order: items come out at or after their due cycle, FIFO. */
export class Line<T> {
  readonly #q: { due: number; v: T }[] = [];
  #last = 0;
  constructor(readonly rng: Rng, readonly delay: [number, number], readonly loss: number) {}
  /** Queue `v` at cycle `now`; false when it is lost. */
  send(now: number, v: T, lose = this.rng.bool(this.loss)): boolean {
    if (lose) return false;
    this.#last = Math.max(this.#last, now + this.rng.int(this.delay[0], this.delay[1]));
    this.#q.push({ due: this.#last, v });
    return true;
  }
  /** Everything due by `now`. */
  take(now: number): T[] {
    const out: T[] = [];
    while (this.#q.length > 0 && this.#q[0]!.due <= now) out.push(this.#q.shift()!.v);
    return out;
  }
  get length(): number { return this.#q.length; }
}

export type ReqPkt = { qp: number; kind: 'write'; psn: number; last: boolean } | { qp: number; kind: 'read'; psn: number; lastPsn: number };
export type RespPkt = { qp: number; kind: 'ack'; psn: number; syndrome: number } | { qp: number; kind: 'resp'; psn: number };

/** The responder of one QP: EXP_PSN and the one-NAK-per-gap rule (nic_responder's order). */
export class ResponderModel {
  exp: number;
  #nakSent = false;
  constructor(first: number) { this.exp = first; }
  /** Replies to one request packet, in order. */
  onRequest(p: ReqPkt): RespPkt[] {
    const d = psnCompare(p.psn, this.exp);
    if (d === 0) {
      this.#nakSent = false;
      if (p.kind === 'write') { this.exp = psnAdd(this.exp, 1); return p.last ? [{ qp: p.qp, kind: 'ack', psn: p.psn, syndrome: 0x1f }] : []; }
      this.exp = psnAdd(p.lastPsn, 1);
      return this.#responses(p.qp, p.psn, p.lastPsn);
    }
    if (d > 0) {
      if (this.#nakSent) return [];
      this.#nakSent = true;
      return [{ qp: p.qp, kind: 'ack', psn: this.exp, syndrome: 0x60 }];
    }
    // A duplicate: a WRITE is re-ACKed, a READ answered again from its PSN.
    return p.kind === 'write' ? [{ qp: p.qp, kind: 'ack', psn: psnAdd(this.exp, -1), syndrome: 0x1f }] : this.#responses(p.qp, p.psn, p.lastPsn);
  }
  #responses(qp: number, from: number, to: number): RespPkt[] {
    const out: RespPkt[] = [];
    for (let psn = from; ; psn = psnAdd(psn, 1)) { out.push({ qp, kind: 'resp', psn }); if (psn === to) break; }
    return out;
  }
}

export interface AckEvent { qp: number; psn: number; syndrome: number; rdMiss: number; rdExp: number }
export interface DoneEvent { qp: number; lastPsn: number }

/** nic_read_resp_rx's view of one QP's READs: contexts, the expected response PSN, the events. */
export class RespRxModel {
  readonly ctxs: { first: number; last: number; next: number }[] = [];
  push(first: number, last: number): void { this.ctxs.push({ first, last, next: first }); }
  /** A rewind drops the contexts (the sender registers them again). */
  drop(): void { this.ctxs.length = 0; }
  /** The events one arriving packet makes (and a finished READ's lastPsn). */
  onResponse(qp: number, p: RespPkt): { acks: AckEvent[]; done: number | null } {
    const head = this.ctxs[0];
    if (p.kind === 'ack') {
      const e = head?.next ?? 0;
      const ackSyn = (p.syndrome >> 5) === 0, seqOrRnr = p.syndrome === 0x60 || (p.syndrome >> 5) === 1;
      const miss = head !== undefined && (ackSyn ? psnCompare(p.psn, e) >= 0 : seqOrRnr && psnCompare(p.psn, e) > 0);
      return { acks: [{ qp, psn: p.psn, syndrome: p.syndrome, rdMiss: miss ? 1 : 0, rdExp: e }], done: null };
    }
    if (!head) return { acks: [], done: null };
    const d = psnCompare(p.psn, head.next);
    if (d > 0) return { acks: [{ qp, psn: p.psn, syndrome: 0x60, rdMiss: 1, rdExp: head.next }], done: null };
    if (d < 0) return { acks: [], done: null };
    head.next = psnAdd(head.next, 1);
    if (p.psn === head.last) { this.ctxs.shift(); return { acks: [{ qp, psn: p.psn, syndrome: 0x1f, rdMiss: 0, rdExp: 0 }], done: p.psn }; }
    return { acks: [{ qp, psn: p.psn, syndrome: 0x1f, rdMiss: 0, rdExp: 0 }], done: null };
  }
}
