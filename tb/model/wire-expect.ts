// What the NICs must put on the wire (NIC.md §5, docs/nic-read.md):
//  - RDMA WRITE: the message cut at the path MTU into ONLY or FIRST/MIDDLE.../LAST, consecutive
//    24-bit PSNs, a RETH on FIRST and ONLY, AckReq on the last packet (and at least every 64);
//  - RDMA READ REQUEST: one packet with a RETH and no payload; it uses max(1, ceil(len/MTU))
//    PSNs of the requester's sequence;
//  - READ RESPONSE from the responder: ONLY or FIRST/MIDDLE.../LAST at the requester's PMTU,
//    PSNs from the request's, AETH (ACK 0x1F, the responder's MSN counting this READ) on
//    FIRST/LAST/ONLY and none on MIDDLE.
// Requests and responses travel the same direction to the same QPN in a bidirectional run, in
// an order the model cannot predict, so they are listed apart (responseKey).

import { psnAdd } from './psn.ts';

export const RC_OP = {
  WRITE_FIRST: 0x06, WRITE_MIDDLE: 0x07, WRITE_LAST: 0x08, WRITE_ONLY: 0x0a,
  READ_REQUEST: 0x0c, READ_RESPONSE_FIRST: 0x0d, READ_RESPONSE_MIDDLE: 0x0e, READ_RESPONSE_LAST: 0x0f, READ_RESPONSE_ONLY: 0x10,
  ACK: 0x11,
} as const;

/** AETH syndrome of a positive ACK, carried by READ RESPONSE FIRST/LAST/ONLY. */
export const AETH_ACK = 0x1f;

/** READ RESPONSE opcodes: listed under responseKey, not the request key. */
export function isReadResponse(opcode: number): boolean {
  return opcode >= RC_OP.READ_RESPONSE_FIRST && opcode <= RC_OP.READ_RESPONSE_ONLY;
}

/** The list of READ responses sent under the request key `requestKey` (same sender and QPN). */
export function responseKey(requestKey: string): string { return `${requestKey} responses`; }

export interface ExpectedPacket {
  readonly opcode: number;
  readonly destQp: number;
  readonly psn: number;
  readonly payloadLen: number;
  readonly reth: { va: bigint; rkey: number; dmaLen: number } | null;
  /** True: AckReq must be set; false: may be set (every <= 64 packets rule is checked apart). */
  readonly ackReq: boolean;
  /** The AETH it must carry (READ RESPONSE FIRST/LAST/ONLY); absent: it must carry none. */
  readonly aeth?: { readonly syndrome: number; readonly msn: number };
  /** READ REQUEST: the path MTU of its responses (how far a partial re-request advances). */
  readonly pmtu?: number;
}

/** Packets of one WRITE of `len` bytes starting at `psn`; returns them and the next PSN. */
export function writePackets(len: number, mtu: number, psn: number, destQp: number, va: bigint, rkey: number): { packets: ExpectedPacket[]; next: number } {
  const n = Math.max(1, Math.ceil(len / mtu));
  const packets: ExpectedPacket[] = [];
  for (let i = 0; i < n; i++) {
    const opcode = n === 1 ? RC_OP.WRITE_ONLY : i === 0 ? RC_OP.WRITE_FIRST : i === n - 1 ? RC_OP.WRITE_LAST : RC_OP.WRITE_MIDDLE;
    const hasReth = i === 0;
    packets.push({
      opcode, destQp, psn: psnAdd(psn, i), payloadLen: Math.min(mtu, len - i * mtu),
      reth: hasReth ? { va, rkey, dmaLen: len } : null, ackReq: i === n - 1,
    });
  }
  return { packets, next: psnAdd(psn, n) };
}

/** The READ REQUEST for `len` bytes at `psn`; returns it and the requester's next PSN
 *  (psn + max(1, ceil(len / mtu))). AckReq is not required (a READ is acknowledged by its
 *  response either way). */
export function readRequestPacket(len: number, mtu: number, psn: number, destQp: number, va: bigint, rkey: number): { packet: ExpectedPacket; next: number } {
  const packet: ExpectedPacket = { opcode: RC_OP.READ_REQUEST, destQp, psn, payloadLen: 0, reth: { va, rkey, dmaLen: len }, ackReq: false, pmtu: mtu };
  return { packet, next: psnAdd(psn, Math.max(1, Math.ceil(len / mtu))) };
}

/** The responder's answer to a READ of `len` bytes requested at `psn`, `msn` being the
 *  responder's message count including this READ (mod 2^24). `destQp` is the requester's QPN. */
export function readResponsePackets(len: number, mtu: number, psn: number, destQp: number, msn: number): ExpectedPacket[] {
  const n = Math.max(1, Math.ceil(len / mtu));
  return Array.from({ length: n }, (_, i) => {
    const opcode = n === 1 ? RC_OP.READ_RESPONSE_ONLY : i === 0 ? RC_OP.READ_RESPONSE_FIRST : i === n - 1 ? RC_OP.READ_RESPONSE_LAST : RC_OP.READ_RESPONSE_MIDDLE;
    const hasAeth = opcode !== RC_OP.READ_RESPONSE_MIDDLE;
    return {
      opcode, destQp, psn: psnAdd(psn, i), payloadLen: Math.min(mtu, len - i * mtu), reth: null, ackReq: false,
      ...(hasAeth ? { aeth: { syndrome: AETH_ACK, msn: msn & 0xffffff } } : {}),
    };
  });
}
