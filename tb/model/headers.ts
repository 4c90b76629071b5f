// The fixed-layout headers of a RoCEv2 frame as typed records, and the byte-level read/write of
// each one. Everything is big endian on the wire. Values that fit a double exactly (MACs are
// 48 bits, IPv4 addresses 32) are numbers so they compare and print simply; the 64-bit RETH
// virtual address is a bigint.

export const ETH_HEADER_BYTES = 14;
export const IPV4_HEADER_BYTES = 20;
export const UDP_HEADER_BYTES = 8;
export const BTH_BYTES = 12;
export const RETH_BYTES = 16;
export const AETH_BYTES = 4;
export const IMM_BYTES = 4;
export const ICRC_BYTES = 4;

export const ETHERTYPE_IPV4 = 0x0800;
export const IP_PROTO_UDP = 17;
export const ROCE_UDP_PORT = 4791;
export const DEFAULT_PKEY = 0xffff;

export interface EthHeader {
  /** 48-bit MAC as a number (02:00:00:00:00:01 is 0x020000000001). */
  readonly dst: number;
  readonly src: number;
}

/** The IPv4 fields a sender chooses; version, IHL, total length, protocol, fragment offset and
 *  checksum follow from the rest of the packet. */
export interface Ipv4Header {
  readonly dscp: number;
  readonly ecn: number;
  readonly id: number;
  /** Don't Fragment. RoCEv2 senders set it: a fragmented RoCE packet cannot be received. */
  readonly df: boolean;
  readonly ttl: number;
  /** 32-bit addresses as unsigned numbers (10.0.0.1 is 0x0a000001). */
  readonly src: number;
  readonly dst: number;
}

export interface UdpHeader {
  /** Per QP, 0xC000..0xFFFF (NIC.md); the decoder accepts any. Destination is always 4791. */
  readonly srcPort: number;
}

export interface Bth {
  readonly opcode: number;
  /** Solicited event. */
  readonly se: boolean;
  /** MigReq. */
  readonly migReq: boolean;
  /** Pad bytes after the payload. Optional when encoding: computed from the payload length;
   *  give it only to build a deliberately inconsistent packet. Always set by the decoder. */
  readonly padCnt?: number;
  /** Transport header version, 0. */
  readonly tver: number;
  readonly pkey: number;
  readonly fecn: boolean;
  readonly becn: boolean;
  /** 24 bits. */
  readonly destQp: number;
  readonly ackReq: boolean;
  /** 24 bits. */
  readonly psn: number;
}

export interface Reth {
  readonly va: bigint;
  readonly rkey: number;
  readonly dmaLen: number;
}

export interface Aeth {
  readonly syndrome: number;
  /** 24 bits. */
  readonly msn: number;
}

// ---- field range checks (encode only: a model that silently truncates hides bugs) ----------

export function checkUint(value: number, bits: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value >= 2 ** bits) throw new RangeError(`${what} = ${value} does not fit in ${bits} unsigned bits`);
}

// ---- Ethernet ----------------------------------------------------------------------------------

export function writeMac(buf: Uint8Array, off: number, mac: number): void {
  checkUint(mac, 48, 'MAC');
  const hi = Math.floor(mac / 0x1_0000_0000);
  const lo = mac >>> 0;
  buf[off] = hi >>> 8; buf[off + 1] = hi & 0xff;
  buf[off + 2] = lo >>> 24; buf[off + 3] = (lo >>> 16) & 0xff; buf[off + 4] = (lo >>> 8) & 0xff; buf[off + 5] = lo & 0xff;
}

export function readMac(buf: Uint8Array, off: number): number {
  let v = 0;
  for (let i = 0; i < 6; i++) v = v * 256 + buf[off + i]!;
  return v;
}

export function formatMac(mac: number): string {
  const b = new Uint8Array(6);
  writeMac(b, 0, mac);
  return [...b].map(x => x.toString(16).padStart(2, '0')).join(':');
}

export function parseMac(text: string): number {
  const parts = text.split(/[:-]/);
  if (parts.length !== 6 || parts.some(p => !/^[0-9a-fA-F]{1,2}$/.test(p))) throw new SyntaxError(`'${text}' is not a MAC address`);
  return parts.reduce((v, p) => v * 256 + parseInt(p, 16), 0);
}

export function writeEth(buf: Uint8Array, eth: EthHeader): void {
  writeMac(buf, 0, eth.dst);
  writeMac(buf, 6, eth.src);
  buf[12] = ETHERTYPE_IPV4 >> 8; buf[13] = ETHERTYPE_IPV4 & 0xff;
}

// ---- IPv4 --------------------------------------------------------------------------------------

export function formatIpv4(ip: number): string {
  return [ip >>> 24, (ip >>> 16) & 0xff, (ip >>> 8) & 0xff, ip & 0xff].join('.');
}

export function parseIpv4(text: string): number {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some(p => !/^\d{1,3}$/.test(p) || Number(p) > 255)) throw new SyntaxError(`'${text}' is not an IPv4 address`);
  return parts.reduce((v, p) => v * 256 + Number(p), 0);
}

/** One's-complement sum of 16-bit big-endian words, folded to 16 bits. */
function onesSum(bytes: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i + 1 < bytes.length; i += 2) sum += (bytes[i]! << 8) | bytes[i + 1]!;
  if (bytes.length & 1) sum += bytes[bytes.length - 1]! << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return sum;
}

/** The header checksum an IPv4 header should carry (its own checksum field taken as zero). */
export function ipv4Checksum(header: Uint8Array): number {
  const h = Uint8Array.from(header);
  h[10] = 0; h[11] = 0;
  return ~onesSum(h) & 0xffff;
}

/** True when an IPv4 header (checksum included) sums to 0xFFFF, i.e. its checksum is right. */
export function ipv4ChecksumOk(header: Uint8Array): boolean {
  return onesSum(header) === 0xffff;
}

/** Writes a 20-byte IPv4 header carrying a UDP datagram of `ipTotalLength - 20` bytes,
 *  checksum included. */
export function writeIpv4(buf: Uint8Array, ip: Ipv4Header, ipTotalLength: number): void {
  checkUint(ip.dscp, 6, 'IPv4 DSCP'); checkUint(ip.ecn, 2, 'IPv4 ECN'); checkUint(ip.id, 16, 'IPv4 id');
  checkUint(ip.ttl, 8, 'IPv4 TTL'); checkUint(ip.src, 32, 'IPv4 source'); checkUint(ip.dst, 32, 'IPv4 destination');
  checkUint(ipTotalLength, 16, 'IPv4 total length');
  buf[0] = 0x45;
  buf[1] = (ip.dscp << 2) | ip.ecn;
  buf[2] = ipTotalLength >> 8; buf[3] = ipTotalLength & 0xff;
  buf[4] = ip.id >> 8; buf[5] = ip.id & 0xff;
  buf[6] = ip.df ? 0x40 : 0; buf[7] = 0;
  buf[8] = ip.ttl;
  buf[9] = IP_PROTO_UDP;
  buf[10] = 0; buf[11] = 0;
  writeU32(buf, 12, ip.src);
  writeU32(buf, 16, ip.dst);
  const sum = ipv4Checksum(buf.subarray(0, IPV4_HEADER_BYTES));
  buf[10] = sum >> 8; buf[11] = sum & 0xff;
}

export function readIpv4(buf: Uint8Array): Ipv4Header {
  return {
    dscp: buf[1]! >> 2, ecn: buf[1]! & 3,
    id: readU16(buf, 4),
    df: (buf[6]! & 0x40) !== 0,
    ttl: buf[8]!,
    src: readU32(buf, 12), dst: readU32(buf, 16),
  };
}

// ---- UDP ---------------------------------------------------------------------------------------

/** UDP header with checksum 0: RoCEv2 relies on the ICRC instead. */
export function writeUdp(buf: Uint8Array, udp: UdpHeader, udpLength: number): void {
  checkUint(udp.srcPort, 16, 'UDP source port'); checkUint(udpLength, 16, 'UDP length');
  writeU16(buf, 0, udp.srcPort);
  writeU16(buf, 2, ROCE_UDP_PORT);
  writeU16(buf, 4, udpLength);
  writeU16(buf, 6, 0);
}

// ---- InfiniBand transport headers --------------------------------------------------------------

export function writeBth(buf: Uint8Array, bth: Bth, padCnt: number): void {
  checkUint(bth.opcode, 8, 'BTH opcode'); checkUint(padCnt, 2, 'BTH PadCnt'); checkUint(bth.tver, 4, 'BTH TVer');
  checkUint(bth.pkey, 16, 'BTH P_Key'); checkUint(bth.destQp, 24, 'BTH DestQP'); checkUint(bth.psn, 24, 'BTH PSN');
  buf[0] = bth.opcode;
  buf[1] = (bth.se ? 0x80 : 0) | (bth.migReq ? 0x40 : 0) | (padCnt << 4) | bth.tver;
  writeU16(buf, 2, bth.pkey);
  buf[4] = (bth.fecn ? 0x80 : 0) | (bth.becn ? 0x40 : 0);
  writeU24(buf, 5, bth.destQp);
  buf[8] = bth.ackReq ? 0x80 : 0;
  writeU24(buf, 9, bth.psn);
}

export function readBth(buf: Uint8Array): Required<Bth> {
  return {
    opcode: buf[0]!,
    se: (buf[1]! & 0x80) !== 0, migReq: (buf[1]! & 0x40) !== 0, padCnt: (buf[1]! >> 4) & 3, tver: buf[1]! & 0x0f,
    pkey: readU16(buf, 2),
    fecn: (buf[4]! & 0x80) !== 0, becn: (buf[4]! & 0x40) !== 0,
    destQp: readU24(buf, 5),
    ackReq: (buf[8]! & 0x80) !== 0,
    psn: readU24(buf, 9),
  };
}

export function writeReth(buf: Uint8Array, reth: Reth): void {
  if (reth.va < 0n || reth.va > 0xffff_ffff_ffff_ffffn) throw new RangeError(`RETH VA 0x${reth.va.toString(16)} does not fit in 64 bits`);
  checkUint(reth.rkey, 32, 'RETH R_Key'); checkUint(reth.dmaLen, 32, 'RETH DMA length');
  new DataView(buf.buffer, buf.byteOffset, buf.byteLength).setBigUint64(0, reth.va);
  writeU32(buf, 8, reth.rkey);
  writeU32(buf, 12, reth.dmaLen);
}

export function readReth(buf: Uint8Array): Reth {
  return {
    va: new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getBigUint64(0),
    rkey: readU32(buf, 8),
    dmaLen: readU32(buf, 12),
  };
}

export function writeAeth(buf: Uint8Array, aeth: Aeth): void {
  checkUint(aeth.syndrome, 8, 'AETH syndrome'); checkUint(aeth.msn, 24, 'AETH MSN');
  buf[0] = aeth.syndrome;
  writeU24(buf, 1, aeth.msn);
}

export function readAeth(buf: Uint8Array): Aeth {
  return { syndrome: buf[0]!, msn: readU24(buf, 1) };
}

// ---- big-endian integer helpers ----------------------------------------------------------------

export function readU16(b: Uint8Array, o: number): number { return (b[o]! << 8) | b[o + 1]!; }
export function readU24(b: Uint8Array, o: number): number { return (b[o]! << 16) | (b[o + 1]! << 8) | b[o + 2]!; }
export function readU32(b: Uint8Array, o: number): number { return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0; }
export function writeU16(b: Uint8Array, o: number, v: number): void { b[o] = (v >>> 8) & 0xff; b[o + 1] = v & 0xff; }
export function writeU24(b: Uint8Array, o: number, v: number): void { b[o] = (v >>> 16) & 0xff; b[o + 1] = (v >>> 8) & 0xff; b[o + 2] = v & 0xff; }
export function writeU32(b: Uint8Array, o: number, v: number): void { b[o] = v >>> 24; b[o + 1] = (v >>> 16) & 0xff; b[o + 2] = (v >>> 8) & 0xff; b[o + 3] = v & 0xff; }
