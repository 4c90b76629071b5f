// RoCEv2 wire-format constants the framing hardware is built from (NIC.md "Wire format
// facts"): byte offsets in an untagged Ethernet frame, the four possible header lengths,
// and which extension headers each RC opcode carries. tb/tests/nic checks this table
// against the reference model's (tb/model/opcodes.ts), so the two cannot drift apart.

export const ETH_BYTES = 14;
export const IPV4_BYTES = 20;
export const UDP_BYTES = 8;
export const BTH_BYTES = 12;
export const RETH_BYTES = 16;
export const AETH_BYTES = 4;
export const IMM_BYTES = 4;
export const ICRC_BYTES = 4;
export const ROCE_PORT = 4791;
export const ETHERTYPE_IPV4 = 0x0800;

/** Frame offsets of the fields the hardware reads or writes. */
export const OFF = {
  ethertype: 12,
  ipVerIhl: 14,
  ipTos: 15,
  ipTotalLen: 16,
  ipId: 18,
  ipFrag: 20,
  ipTtl: 22,
  ipProto: 23,
  ipChecksum: 24,
  ipSrc: 26,
  ipDst: 30,
  udpSrc: 34,
  udpDst: 36,
  udpLen: 38,
  udpChecksum: 40,
  bth: 42,
  /** First byte after the BTH: RETH, ImmDt or AETH, then payload. */
  ext: 54,
} as const;

/** Bytes from the IPv4 header start to the payload without extension headers, plus the ICRC:
 *  the smallest IPv4 total length of a RoCEv2 packet. */
export const IP_BASE_BYTES = IPV4_BYTES + UDP_BYTES + BTH_BYTES + ICRC_BYTES;

/** Header bytes in front of the payload (Ethernet .. last extension header). Extension
 *  headers are 0, 4 (AETH or ImmDt), 16 (RETH) or 20 (RETH + ImmDt) bytes, so there are
 *  only four header lengths; the byte shifters are 4-way muxes, not barrel shifters. */
export const HEADER_LENGTHS = [OFF.ext, OFF.ext + 4, OFF.ext + 16, OFF.ext + 20] as const;
/** Index into HEADER_LENGTHS for an extension-header length of 0, 4, 16 or 20 bytes. */
export function headerKind(extBytes: number): number {
  const k = [0, 4, 16, 20].indexOf(extBytes);
  if (k < 0) throw new Error(`extension headers of ${extBytes} bytes`);
  return k;
}

/** Frame offsets the ICRC sees as 0xFF (NIC.md §6: IPv4 TOS, TTL, checksum; UDP checksum;
 *  BTH byte 4). */
export const ICRC_MASKED = [OFF.ipTos, OFF.ipTtl, OFF.ipChecksum, OFF.ipChecksum + 1, OFF.udpChecksum, OFF.udpChecksum + 1, OFF.bth + 4] as const;

export interface RcOpcode {
  readonly code: number;
  readonly reth: boolean;
  readonly aeth: boolean;
  readonly imm: boolean;
  /** May carry payload. */
  readonly payload: boolean;
}

const op = (code: number, f: { reth?: boolean; aeth?: boolean; imm?: boolean; payload: boolean }): RcOpcode =>
  ({ code, reth: f.reth ?? false, aeth: f.aeth ?? false, imm: f.imm ?? false, payload: f.payload });

/** Every RC opcode, 0x00..0x11. */
export const RC_OPCODES: readonly RcOpcode[] = [
  op(0x00, { payload: true }), op(0x01, { payload: true }), op(0x02, { payload: true }),
  op(0x03, { imm: true, payload: true }), op(0x04, { payload: true }), op(0x05, { imm: true, payload: true }),
  op(0x06, { reth: true, payload: true }), op(0x07, { payload: true }), op(0x08, { payload: true }),
  op(0x09, { imm: true, payload: true }), op(0x0a, { reth: true, payload: true }),
  op(0x0b, { reth: true, imm: true, payload: true }),
  op(0x0c, { reth: true, payload: false }),
  op(0x0d, { aeth: true, payload: true }), op(0x0e, { payload: true }), op(0x0f, { aeth: true, payload: true }),
  op(0x10, { aeth: true, payload: true }),
  op(0x11, { aeth: true, payload: false }),
];

export function extBytesOf(o: RcOpcode): number {
  return (o.reth ? RETH_BYTES : 0) + (o.imm ? IMM_BYTES : 0) + (o.aeth ? AETH_BYTES : 0);
}
