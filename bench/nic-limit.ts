// The physical limit of WRITE goodput on the NIC's TX stream: a frame occupies whole beats of
// DATA_WIDTH/8 bytes (no packing of two frames into one beat), so a message's best case is
//   limit = payload / sum over its packets of ceil(frameBytes / beatBytes) * beatBytes
//   frameBytes = Eth 14 + IPv4 20 + UDP 8 + BTH 12 + (RETH 16 on FIRST/ONLY) + payload + pad + ICRC 4
// (no FCS, preamble or gap: those are the MAC's, outside the bus this measures).

import { BTH_BYTES, ETH_HEADER_BYTES, ICRC_BYTES, IPV4_HEADER_BYTES, RETH_BYTES, UDP_HEADER_BYTES } from '../tb/model/headers.ts';
import { padFor } from '../tb/model/packet.ts';
import { writePackets } from '../tb/model/wire-expect.ts';

export const LIMIT_FORMULA = 'payload / sum(ceil((14+20+8+12+[16 RETH on FIRST/ONLY]+payload+pad+4) / B) * B), B = DATA_WIDTH/8';

/** Bytes of the frame carrying `payloadLen` bytes, with or without a RETH. */
export function writeFrameBytes(payloadLen: number, reth: boolean): number {
  return ETH_HEADER_BYTES + IPV4_HEADER_BYTES + UDP_HEADER_BYTES + BTH_BYTES + (reth ? RETH_BYTES : 0) + payloadLen + padFor(payloadLen) + ICRC_BYTES;
}

/** Payload per bus byte for one WRITE of `len` bytes at path MTU `mtu` on a `dataWidth`-bit bus. */
export function writeGoodputLimit(len: number, mtu: number, dataWidth: number): number {
  const beatBytes = dataWidth / 8;
  const { packets } = writePackets(len, mtu, 0, 0, 0n, 0);
  const busBytes = packets.reduce((s, p) => s + Math.ceil(writeFrameBytes(p.payloadLen, p.reth !== null) / beatBytes) * beatBytes, 0);
  return len / busBytes;
}
