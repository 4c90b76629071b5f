// Interfaces of the message-flow stages: requester TX engine, ACK tracker, responder.
// (Framing and DMA interfaces are in types.ts; QP context and updates in ctx.ts; the
// decoded WQE in wqe.ts; completion requests in cqe-req.ts.)

import { Bool, Struct, UInt } from '../hdl/index.ts';
import { qpIndexWidth } from './types.ts';

/** Local QP numbers: QP index i answers to QPN LOCAL_QPN_BASE + i. QPNs 0 and 1 are the
 *  InfiniBand management QPs, which Wireshark decodes as MADs, so we stay clear of them. */
export const LOCAL_QPN_BASE = 0x100;

/** AETH syndromes (NIC.md). */
export const AETH = { ACK: 0x1f, NAK_PSN_SEQ: 0x60, NAK_INVALID_REQ: 0x61, NAK_REMOTE_ACCESS: 0x62, NAK_REMOTE_OP: 0x63 } as const;

/** One message the requester has started (or failed to start), in posting order per QP.
 *  The ACK tracker completes it when an ACK covers `lastPsn` (or right away, in order,
 *  when `status` is already an error: bad opcode, QP not in RTS, local protection error). */
export function reqEntryStruct(numQp: number) {
  return Struct('req_entry', {
    qp: UInt(qpIndexWidth(numQp)),
    wrId: UInt(64),
    opcode: UInt(8),
    length: UInt(32),
    /** First PSN this transmission sends (the resume PSN of a go-back-N restart inside it). */
    firstPsn: UInt(24),
    lastPsn: UInt(24),
    /** First PSN of the whole message (= firstPsn unless the message resumed inside). */
    msgFirstPsn: UInt(24),
    /** Send-ring index of the WQE: a rewind re-reads the ring from here. */
    ringIndex: UInt(16),
    signaled: Bool,
    /** CQE_STATUS: SUCCESS for a message on the wire, else the error to report. */
    status: UInt(4),
  });
}

/** An ACK/NAK the requester received, or a READ response it took (as an ACK of its PSN) or
 *  found ahead of the expected PSN (as a NAK 0x60), in arrival order: nic_read_resp_rx sees
 *  every ACK and READ response in the order they came and annotates each event for the
 *  ACK tracker. */
export function ackInStruct(numQp: number) {
  return Struct('ack_in', {
    qp: UInt(qpIndexWidth(numQp)),
    psn: UInt(24),
    syndrome: UInt(8),
    msn: UInt(24),
    /** The event acknowledges a PSN whose READ response is missing (an ACK at or past the
     *  expected response PSN, a NAK 0x60 past it, or a response beyond it: an implied NAK):
     *  the tracker treats it as a NAK 0x60 at rdExp. */
    rdMiss: Bool,
    /** The PSN of the first READ response not yet received (the READ's resume point). */
    rdExp: UInt(24),
  });
}
