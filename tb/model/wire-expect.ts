// What the requester must put on the wire for an RDMA WRITE (NIC.md §5): the message cut at
// the path MTU into ONLY or FIRST/MIDDLE.../LAST, consecutive 24-bit PSNs, a RETH on FIRST and
// ONLY, AckReq on the last packet (and at least every 64 packets).

import { psnAdd } from './psn.ts';

export const RC_OP = { WRITE_FIRST: 0x06, WRITE_MIDDLE: 0x07, WRITE_LAST: 0x08, WRITE_ONLY: 0x0a, ACK: 0x11 } as const;

export interface ExpectedPacket {
  readonly opcode: number;
  readonly destQp: number;
  readonly psn: number;
  readonly payloadLen: number;
  readonly reth: { va: bigint; rkey: number; dmaLen: number } | null;
  /** True: AckReq must be set; false: may be set (every <= 64 packets rule is checked apart). */
  readonly ackReq: boolean;
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
