// Reference model of nic_ack_tracker. Events (posted ReqEntries, received ACKs/NAKs) are
// applied in the order the DUT accepted them; after each one the QP's FIFO is drained as far
// as it can be decided. Every decision is final once it can be made (acked only grows, a NAK
// stops further ACKs, flush is sticky), so the CQE list does not depend on when the
// hardware's completion engine gets round to an entry.

import { CQE_STATUS } from '../../gen/nic/regmap.ts';
import { AETH } from '../../gen/nic/flow-types.ts';
import { psnAdd, psnCompare } from './psn.ts';
import type { ReqEntryV } from './req-tx.ts';

export interface AckEv { qp: number; psn: number; syndrome: number }
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
}

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

  constructor(numQp: number) {
    this.qps = Array.from({ length: numQp }, () => ({ fifo: [], sentValid: false, lastSent: 0, acked: 0, nak: null, flush: false }));
    this.cqes = Array.from({ length: numQp }, () => []);
    this.decidedAt = Array.from({ length: numQp }, () => []);
    this.qpErrors = Array.from({ length: numQp }, () => 0);
  }

  push(e: ReqEntryV, cycle: number): void {
    const s = this.qps[e.qp]!;
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
    } else if (nakStatus !== undefined && outstanding && !s.nak && !s.flush) {
      this.log.push(`NAK ${a.syndrome.toString(16)} qp ${a.qp} psn ${a.psn}: taken`);
      s.nak = { status: nakStatus, syndrome: a.syndrome };
      if (inWindow) s.acked = psnAdd(a.psn, -1);
      this.qpErrors[a.qp]!++;
    } else {
      this.log.push(`syndrome ${a.syndrome.toString(16)} qp ${a.qp} psn ${a.psn}: ignored`);
    }
    this.drain(a.qp, cycle);
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
      } else if (s.sentValid && psnCompare(s.acked, e.lastPsn) >= 0) status = CQE_STATUS.SUCCESS;
      else if (s.nak) {
        status = s.nak.status; syndrome = s.nak.syndrome;
        s.nak = null; s.flush = true;
      } else return;
      s.fifo.shift();
      if (status !== CQE_STATUS.SUCCESS || e.signaled) {
        this.cqes[qp]!.push({ qp, wrId: e.wrId, byteLen: e.length, opcode: e.opcode, status, syndrome });
        this.decidedAt[qp]!.push(cycle);
      }
    }
  }
}
