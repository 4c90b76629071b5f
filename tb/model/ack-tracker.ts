// Reference model of nic_ack_tracker. Events (posted ReqEntries, received ACKs/NAKs) are
// applied in the order the DUT accepted them; after each one the QP's FIFO is drained as far
// as it can be decided. Every decision is final once it can be made (acked only grows, a NAK
// stops further ACKs, flush is sticky), so the CQE list does not depend on when the
// hardware's completion engine gets round to an entry.
//
// READ entries (opcode WQE_OPCODE.RDMA_READ or the wire opcode 0x0C, status SUCCESS) ignore
// ACKs and complete with their read_done (see gen/nic/ack-tracker.ts): ok moves rdAcked (and
// acked, when in the window); an error is held for the entry ending at its lastPsn.
// This model covers the tracker without retries (NAK 0x60, RNR NAKs and timeouts outside the
// window or switched off); the retry engine has its own closed-loop bench
// (tb/tests/nic/ack-tracker-retry.test.ts, model tb/model/retry-engine.ts).

import { CQE_STATUS, WQE_OPCODE } from '../../gen/nic/regmap.ts';
import { AETH } from '../../gen/nic/flow-types.ts';
import { psnAdd, psnCompare } from './psn.ts';
import type { ReqEntryV } from './req-tx.ts';

export interface AckEv { qp: number; psn: number; syndrome: number; rdMiss?: number; rdExp?: number }
export interface ReadDoneEv { qp: number; lastPsn: number; ok: boolean; status: number; syndrome: number }
export interface CqeV { qp: number; wrId: bigint; byteLen: number; opcode: number; status: number; syndrome: number }

const NAK_STATUS = new Map<number, number>([
  [AETH.NAK_INVALID_REQ, CQE_STATUS.REMOTE_INVALID_REQUEST],
  [AETH.NAK_REMOTE_ACCESS, CQE_STATUS.REMOTE_ACCESS_ERROR],
  [AETH.NAK_REMOTE_OP, CQE_STATUS.REMOTE_OPERATIONAL_ERROR],
]);

interface QpState {
  fifo: ReqEntryV[];
  sentValid: boolean;
  lastSent: number;
  acked: number;
  nak: { status: number; syndrome: number } | null;
  flush: boolean;
  /** READ entries not yet completed (any status): read_busy. */
  rdCount: number;
  rdAcked: number;
  rdErr: { psn: number; status: number; syndrome: number } | null;
}

/** The ReqEntry opcodes the tracker treats as READ. */
export const isReadOpcode = (op: number): boolean => op === WQE_OPCODE.RDMA_READ || op === 0x0c;
/** read_done statuses that move the QP to ERROR (and flush later entries). */
const FATAL_READ: readonly number[] = [CQE_STATUS.LOCAL_PROTECTION_ERROR, CQE_STATUS.REMOTE_ACCESS_ERROR, CQE_STATUS.REMOTE_INVALID_REQUEST, CQE_STATUS.REMOTE_OPERATIONAL_ERROR];

export class AckTrackerModel {
  readonly qps: QpState[];
  /** Expected CQE requests, per QP, in order. */
  readonly cqes: CqeV[][];
  /** The event cycle at which each expected CQE became decided (the DUT cannot be earlier). */
  readonly decidedAt: number[][];
  /** Expected qp_error events per QP. */
  readonly qpErrors: number[];
  /** What happened to each ACK/NAK, for messages. */
  readonly log: string[] = [];
  /** Ring indices of the entries retired, per QP, in order (SQ_CI is the last one + 1). */
  readonly retired: number[][];

  constructor(numQp: number) {
    this.qps = Array.from({ length: numQp }, () => ({ fifo: [], sentValid: false, lastSent: 0, acked: 0, nak: null, flush: false, rdCount: 0, rdAcked: 0, rdErr: null }));
    this.cqes = Array.from({ length: numQp }, () => []);
    this.decidedAt = Array.from({ length: numQp }, () => []);
    this.qpErrors = Array.from({ length: numQp }, () => 0);
    this.retired = Array.from({ length: numQp }, () => []);
  }

  push(e: ReqEntryV, cycle: number): void {
    const s = this.qps[e.qp]!;
    if (isReadOpcode(e.opcode)) {
      if (e.status === CQE_STATUS.SUCCESS && s.rdCount === 0) s.rdAcked = psnAdd(e.firstPsn, -1);
      s.rdCount++;
    }
    if (e.status === CQE_STATUS.SUCCESS) {
      if (!s.sentValid || s.acked === s.lastSent) s.acked = psnAdd(e.firstPsn, -1);
      s.lastSent = e.lastPsn;
      s.sentValid = true;
    }
    s.fifo.push(e);
    this.drain(e.qp, cycle);
  }

  ack(a: AckEv, cycle: number): void {
    const s = this.qps[a.qp]!;
    const inWindow = s.sentValid && psnCompare(a.psn, s.acked) > 0 && psnCompare(s.lastSent, a.psn) >= 0;
    const outstanding = s.sentValid && s.acked !== s.lastSent;
    const nakStatus = NAK_STATUS.get(a.syndrome);
    if ((a.syndrome >> 5) === 0) {
      const take = inWindow && !s.nak && !s.flush;
      this.log.push(`ACK qp ${a.qp} psn ${a.psn}: ${take ? 'taken' : 'ignored'}`);
      if (take) s.acked = a.psn;
    } else if (nakStatus !== undefined && !inWindow) {
      // A NAK names the request it refuses: one for a PSN never sent (or acknowledged) refuses
      // nothing of ours (a ghost NAK, as rxe treats it). Without rewinds sentHigh = lastSent.
      this.log.push(`NAK ${a.syndrome.toString(16)} qp ${a.qp} psn ${a.psn}: ignored (not sent or acknowledged)`);
    } else if (nakStatus !== undefined && outstanding && !s.nak && !s.flush) {
      this.log.push(`NAK ${a.syndrome.toString(16)} qp ${a.qp} psn ${a.psn}: taken`);
      s.nak = { status: nakStatus, syndrome: a.syndrome };
      s.acked = psnAdd(a.psn, -1);
      this.qpErrors[a.qp]!++;
    } else {
      this.log.push(`syndrome ${a.syndrome.toString(16)} qp ${a.qp} psn ${a.psn}: ignored`);
    }
    this.drain(a.qp, cycle);
  }

  /** A read_done the DUT accepted (an error one only while no earlier error is held). */
  readDone(d: ReadDoneEv, cycle: number): void {
    const s = this.qps[d.qp]!;
    if (s.nak || s.flush) {
      this.log.push(`read_done qp ${d.qp} psn ${d.lastPsn}: ignored (NAK pending or flushing)`);
    } else if (d.ok) {
      const inWindow = s.sentValid && psnCompare(d.lastPsn, s.acked) > 0 && psnCompare(s.lastSent, d.lastPsn) >= 0;
      if (inWindow) s.acked = d.lastPsn;
      s.rdAcked = d.lastPsn;
      this.log.push(`read_done ok qp ${d.qp} psn ${d.lastPsn}`);
    } else {
      if (s.rdErr) throw new Error(`model: read_done error on QP ${d.qp} accepted while an earlier one is held`);
      s.rdErr = { psn: d.lastPsn, status: d.status, syndrome: d.syndrome };
      this.log.push(`read_done status ${d.status} qp ${d.qp} psn ${d.lastPsn}`);
    }
    this.drain(d.qp, cycle);
  }

  /** Retire head entries whose outcome is decided (same rule order as the RTL). */
  drain(qp: number, cycle: number): void {
    const s = this.qps[qp]!;
    for (;;) {
      const e = s.fifo[0];
      if (!e) return;
      let status: number, syndrome = 0;
      if (s.flush) status = CQE_STATUS.FLUSH_ERROR;
      else if (e.status !== CQE_STATUS.SUCCESS) {
        status = e.status;
        if (status === CQE_STATUS.LOCAL_PROTECTION_ERROR) s.flush = true;
      } else if (isReadOpcode(e.opcode)) {
        if (s.rdErr && s.rdErr.psn === e.lastPsn) {
          status = s.rdErr.status; syndrome = s.rdErr.syndrome;
          s.rdErr = null;
          if (FATAL_READ.includes(status)) { s.flush = true; this.qpErrors[qp]!++; }
        } else if (psnCompare(s.rdAcked, e.lastPsn) >= 0) status = CQE_STATUS.SUCCESS;
        else if (s.nak) {
          status = s.nak.status; syndrome = s.nak.syndrome;
          s.nak = null; s.flush = true;
        } else return;
      } else if (s.sentValid && psnCompare(s.acked, e.lastPsn) >= 0) status = CQE_STATUS.SUCCESS;
      else if (s.nak) {
        status = s.nak.status; syndrome = s.nak.syndrome;
        s.nak = null; s.flush = true;
      } else return;
      s.fifo.shift();
      this.retired[qp]!.push(e.ringIndex);
      if (isReadOpcode(e.opcode)) s.rdCount--;
      if (status !== CQE_STATUS.SUCCESS || e.signaled) {
        this.cqes[qp]!.push({ qp, wrId: e.wrId, byteLen: e.length, opcode: e.opcode, status, syndrome });
        this.decidedAt[qp]!.push(cycle);
      }
    }
  }
}
