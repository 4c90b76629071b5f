// Interfaces of the RDMA READ stages (docs/nic-read.md): the responder's accepted READ
// requests, the requester's registered READ contexts, and the requester's READ completions.

import { Bool, Struct, UInt, Vec } from '../hdl/index.ts';
import { MAX_SGE } from './regmap.ts';
import { qpIndexWidth } from './types.ts';

/** A READ REQUEST that passed the WRITE responder's QP, PSN, sequence and room checks
 *  (nic_responder's `isRead` hook). `msn` already counts this READ (NIC.md: MSN counts
 *  when a READ is accepted); `pd` and `pmtu` are the QP's, latched at acceptance. */
export function readReqStruct(numQp: number) {
  return Struct('read_req', {
    qp: UInt(qpIndexWidth(numQp)),
    psn: UInt(24),
    va: UInt(64),
    rkey: UInt(32),
    len: UInt(32),
    pd: UInt(16),
    /** log2 of the path MTU (8..12). */
    pmtu: UInt(4),
    msn: UInt(24),
    /** A duplicate READ answered again (its PSN behind EXP_PSN): it holds its QP's one
     *  duplicate slot, never one of the QP's READ slots the requester counts (rd_room). */
    dup: Bool,
  });
}

/** One local SGE of a READ: where the response bytes land. */
export const ReadSge = Struct('read_sge', { addr: UInt(64), len: UInt(32), lkey: UInt(32) });

/** A READ the requester sent, registered with nic_read_resp_rx when its request leaves.
 *  Responses carry PSNs firstPsn..lastPsn; `length` is the sum of the first numSge SGEs.
 *  A READ re-requested after a go-back-N rewind (docs/nic-reliability.md) asks only for the
 *  part not yet received: its responses start at firstPsn with the message's byte startOff
 *  (a whole number of path MTUs; 0 for a READ sent from its start). */
export function readCtxStruct(numQp: number) {
  return Struct('read_ctx', {
    qp: UInt(qpIndexWidth(numQp)),
    wrId: UInt(64),
    firstPsn: UInt(24),
    lastPsn: UInt(24),
    length: UInt(32),
    startOff: UInt(32),
    pd: UInt(16),
    pmtu: UInt(4),
    numSge: UInt(3),
    sge: Vec(ReadSge, MAX_SGE),
  });
}

/** A READ finished at the requester: every response byte is in host memory (status
 *  SUCCESS) or it failed (CQE_STATUS, and the NAK's syndrome when a NAK caused it).
 *  The ACK tracker completes the READ entry ending at `lastPsn` with it. */
export function readDoneStruct(numQp: number) {
  return Struct('read_done', {
    qp: UInt(qpIndexWidth(numQp)),
    wrId: UInt(64),
    lastPsn: UInt(24),
    status: UInt(4),
    syndrome: UInt(8),
    /** SUCCESS also acknowledges every PSN up to lastPsn (a response implies it). */
    ok: Bool,
  });
}

/** RC READ RESPONSE opcodes (NIC.md). */
export const READ_RESP = { FIRST: 0x0d, MIDDLE: 0x0e, LAST: 0x0f, ONLY: 0x10 } as const;
