// RoCEv2 frames as typed records: encodeRoce builds the bytes the NIC should put on the wire
// (Ethernet header .. ICRC, no FCS), decodeRoce runs every receive-side validation of NIC.md §7
// and the error table and names the first one that fails. The ICRC comes from icrc.ts.

import { icrcBytes, icrcOfIp } from './icrc.ts';
import {
  AETH_BYTES, BTH_BYTES, ETH_HEADER_BYTES, ETHERTYPE_IPV4, ICRC_BYTES, IMM_BYTES, IP_PROTO_UDP, IPV4_HEADER_BYTES,
  RETH_BYTES, ROCE_UDP_PORT, UDP_HEADER_BYTES,
  checkUint, formatIpv4, ipv4Checksum, ipv4ChecksumOk, readAeth, readBth, readIpv4, readMac, readReth, readU16, readU32,
  writeAeth, writeBth, writeEth, writeIpv4, writeReth, writeU32, writeUdp,
  type Aeth, type Bth, type EthHeader, type Ipv4Header, type Reth, type UdpHeader,
} from './headers.ts';
import { extHeaderBytes, opcodeInfo, opcodeLabel, requireOpcode } from './opcodes.ts';

export interface RocePacket {
  readonly eth: EthHeader;
  readonly ip: Ipv4Header;
  readonly udp: UdpHeader;
  readonly bth: Bth;
  /** Present exactly when the opcode carries a RETH (WRITE FIRST/ONLY, READ REQUEST). */
  readonly reth?: Reth;
  /** Present exactly when the opcode carries an AETH (ACK, READ RESPONSE FIRST/LAST/ONLY). */
  readonly aeth?: Aeth;
  /** Immediate data, present exactly for the *_IMM opcodes. */
  readonly immDt?: number;
  /** Payload without pad. Empty for opcodes that carry none. */
  readonly payload: Uint8Array;
}

/** Why a frame was rejected, in the order the checks run. */
export type DecodeReason =
  | 'truncated'        // the frame ends before a header, or before the IPv4 total length
  | 'bad-ethertype'    // not 0x0800 (VLAN tags are not accepted either)
  | 'bad-ip-version'
  | 'bad-ihl'          // IPv4 options: the NIC only accepts a 20-byte header
  | 'bad-ip-checksum'
  | 'ip-fragment'      // MF set or a fragment offset: a RoCE packet cannot be reassembled
  | 'not-udp'
  | 'wrong-port'       // UDP destination port is not 4791
  | 'bad-length'       // lengths disagree: UDP vs IPv4, too short for BTH + ICRC, headers vs opcode, pad
  | 'bad-icrc'
  | 'bad-tver'
  | 'unknown-opcode';

export type DecodeResult =
  | { readonly ok: true; readonly pkt: RocePacket; /** the ICRC the frame carried (it checked) */ readonly icrc: number }
  | { readonly ok: false; readonly reason: DecodeReason; readonly detail: string };

export interface DecodeOptions {
  /** Default true. False decodes a frame whose ICRC is known to be wrong (e.g. to print it). */
  readonly checkIcrc?: boolean;
  /** Default true. */
  readonly checkIpChecksum?: boolean;
}

const BASE_BYTES = IPV4_HEADER_BYTES + UDP_HEADER_BYTES + BTH_BYTES + ICRC_BYTES;

/** Pad bytes that bring a payload of `len` bytes to a multiple of 4. */
export function padFor(len: number): number {
  return (4 - (len & 3)) & 3;
}

/** A UDP source port for a QP, in 0xC000..0xFFFF (NIC.md). The model's default mapping: the
 *  RTL may choose another; receivers must accept any. */
export function roceSrcPort(qpn: number): number {
  checkUint(qpn, 24, 'QPN');
  return 0xc000 | (qpn & 0x3fff);
}

/** Length in bytes of the encoded frame (no FCS, no Ethernet minimum-size padding). */
export function roceFrameLength(pkt: RocePacket): number {
  const info = requireOpcode(pkt.bth.opcode);
  return ETH_HEADER_BYTES + BASE_BYTES + extHeaderBytes(info) + pkt.payload.length + (pkt.bth.padCnt ?? padFor(pkt.payload.length));
}

/** The frame the NIC puts on the wire for `pkt`: Ethernet .. ICRC, without FCS. Frames shorter
 *  than 60 bytes are not padded here (the MAC does that; decodeRoce ignores such padding).
 *  Throws RangeError when a field does not fit or the headers do not match the opcode. */
export function encodeRoce(pkt: RocePacket): Uint8Array {
  const info = requireOpcode(pkt.bth.opcode);
  const name = opcodeLabel(pkt.bth.opcode);
  if (info.reth !== (pkt.reth !== undefined)) throw new RangeError(`${name} ${info.reth ? 'needs' : 'must not have'} a RETH`);
  if (info.aeth !== (pkt.aeth !== undefined)) throw new RangeError(`${name} ${info.aeth ? 'needs' : 'must not have'} an AETH`);
  if (info.imm !== (pkt.immDt !== undefined)) throw new RangeError(`${name} ${info.imm ? 'needs' : 'must not have'} immediate data`);
  if (!info.payload && pkt.payload.length > 0) throw new RangeError(`${name} carries no payload, got ${pkt.payload.length} bytes`);
  const padCnt = pkt.bth.padCnt ?? padFor(pkt.payload.length);
  const ext = extHeaderBytes(info);
  const ipLen = BASE_BYTES + ext + pkt.payload.length + padCnt;
  if (ipLen > 0xffff) throw new RangeError(`${name}: IPv4 packet of ${ipLen} bytes exceeds 65535`);

  const frame = new Uint8Array(ETH_HEADER_BYTES + ipLen);
  writeEth(frame, pkt.eth);
  const ip = frame.subarray(ETH_HEADER_BYTES);
  writeIpv4(ip, pkt.ip, ipLen);
  writeUdp(ip.subarray(IPV4_HEADER_BYTES), pkt.udp, ipLen - IPV4_HEADER_BYTES);
  let off = IPV4_HEADER_BYTES + UDP_HEADER_BYTES;
  writeBth(ip.subarray(off), pkt.bth, padCnt);
  off += BTH_BYTES;
  if (pkt.reth) { writeReth(ip.subarray(off, off + RETH_BYTES), pkt.reth); off += RETH_BYTES; }
  if (pkt.immDt !== undefined) { checkUint(pkt.immDt, 32, 'ImmDt'); writeU32(ip, off, pkt.immDt); off += IMM_BYTES; }
  if (pkt.aeth) { writeAeth(ip.subarray(off), pkt.aeth); off += AETH_BYTES; }
  ip.set(pkt.payload, off);
  off += pkt.payload.length + padCnt; // pad bytes stay zero
  ip.set(icrcBytes(icrcOfIp(ip.subarray(0, off))), off);
  return frame;
}

function fail(reason: DecodeReason, detail: string): DecodeResult {
  return { ok: false, reason, detail };
}

/** Parses and validates a received frame (no FCS). Bytes after the IPv4 total length
 *  (Ethernet minimum-size padding) are ignored. UDP checksum and P_Key are not checked: the
 *  first is optional in RoCEv2, the second is the responder's business. */
export function decodeRoce(frame: Uint8Array, opts: DecodeOptions = {}): DecodeResult {
  if (frame.length < ETH_HEADER_BYTES) return fail('truncated', `${frame.length}-byte frame has no complete Ethernet header`);
  const ethertype = readU16(frame, 12);
  if (ethertype !== ETHERTYPE_IPV4) return fail('bad-ethertype', `ethertype 0x${ethertype.toString(16).padStart(4, '0')}, expected 0x0800`);
  if (frame.length < ETH_HEADER_BYTES + IPV4_HEADER_BYTES) return fail('truncated', `${frame.length}-byte frame ends inside the IPv4 header`);
  const avail = frame.subarray(ETH_HEADER_BYTES);
  const version = avail[0]! >> 4;
  if (version !== 4) return fail('bad-ip-version', `IP version ${version}`);
  const ihl = avail[0]! & 0x0f;
  if (ihl !== 5) return fail('bad-ihl', `IPv4 header length ${ihl} words, expected 5`);
  if ((opts.checkIpChecksum ?? true) && !ipv4ChecksumOk(avail.subarray(0, IPV4_HEADER_BYTES))) {
    return fail('bad-ip-checksum', `IPv4 checksum 0x${readU16(avail, 10).toString(16)}, expected 0x${ipv4Checksum(avail.subarray(0, IPV4_HEADER_BYTES)).toString(16)}`);
  }
  const totalLen = readU16(avail, 2);
  if (totalLen > avail.length) return fail('truncated', `IPv4 total length ${totalLen} but only ${avail.length} bytes follow the Ethernet header`);
  if (totalLen < IPV4_HEADER_BYTES) return fail('bad-length', `IPv4 total length ${totalLen} is shorter than its header`);
  const frag = readU16(avail, 6);
  if (frag & 0x3fff) return fail('ip-fragment', `IPv4 MF=${(frag >> 13) & 1} fragment offset ${frag & 0x1fff}`);
  const proto = avail[9]!;
  if (proto !== IP_PROTO_UDP) return fail('not-udp', `IP protocol ${proto}`);
  const ip = avail.subarray(0, totalLen);
  if (totalLen < IPV4_HEADER_BYTES + UDP_HEADER_BYTES) return fail('bad-length', `IPv4 total length ${totalLen} leaves no room for UDP`);
  const dport = readU16(ip, IPV4_HEADER_BYTES + 2);
  if (dport !== ROCE_UDP_PORT) return fail('wrong-port', `UDP destination port ${dport}, expected ${ROCE_UDP_PORT}`);
  const udpLen = readU16(ip, IPV4_HEADER_BYTES + 4);
  if (udpLen !== totalLen - IPV4_HEADER_BYTES) return fail('bad-length', `UDP length ${udpLen}, IPv4 total length ${totalLen} implies ${totalLen - IPV4_HEADER_BYTES}`);
  if (totalLen < BASE_BYTES) return fail('bad-length', `IPv4 total length ${totalLen} is too short for UDP + BTH + ICRC (${BASE_BYTES})`);

  const icrcAt = totalLen - ICRC_BYTES;
  const carried = (ip[icrcAt]! | (ip[icrcAt + 1]! << 8) | (ip[icrcAt + 2]! << 16) | (ip[icrcAt + 3]! << 24)) >>> 0;
  if (opts.checkIcrc ?? true) {
    const computed = icrcOfIp(ip.subarray(0, icrcAt));
    if (computed !== carried) return fail('bad-icrc', `ICRC 0x${carried.toString(16).padStart(8, '0')} carried, 0x${computed.toString(16).padStart(8, '0')} computed`);
  }

  let off = IPV4_HEADER_BYTES + UDP_HEADER_BYTES;
  const bth = readBth(ip.subarray(off));
  off += BTH_BYTES;
  if (bth.tver !== 0) return fail('bad-tver', `BTH TVer ${bth.tver}`);
  const info = opcodeInfo(bth.opcode);
  if (!info) return fail('unknown-opcode', opcodeLabel(bth.opcode));
  const body = icrcAt - off - extHeaderBytes(info); // payload + pad
  if (body < 0) return fail('bad-length', `${info.name} needs ${extHeaderBytes(info)} bytes of extension headers, ${icrcAt - off} present`);
  if (!info.payload && body !== 0) return fail('bad-length', `${info.name} carries no payload, ${body} bytes present`);
  if (body & 3) return fail('bad-length', `payload + pad of ${body} bytes is not a multiple of 4`);
  if (body < bth.padCnt) return fail('bad-length', `PadCnt ${bth.padCnt} exceeds the ${body} bytes after the headers`);

  let reth: Reth | undefined;
  let immDt: number | undefined;
  let aeth: Aeth | undefined;
  if (info.reth) { reth = readReth(ip.subarray(off, off + RETH_BYTES)); off += RETH_BYTES; }
  if (info.imm) { immDt = readU32(ip, off); off += IMM_BYTES; }
  if (info.aeth) { aeth = readAeth(ip.subarray(off)); off += AETH_BYTES; }
  const payload = ip.slice(off, off + body - bth.padCnt);
  const pkt: RocePacket = {
    eth: { dst: readMac(frame, 0), src: readMac(frame, 6) },
    ip: readIpv4(ip),
    udp: { srcPort: readU16(ip, IPV4_HEADER_BYTES) },
    bth,
    ...(reth ? { reth } : {}),
    ...(aeth ? { aeth } : {}),
    ...(immDt !== undefined ? { immDt } : {}),
    payload,
  };
  return { ok: true, pkt, icrc: carried };
}

/** One line for logs: `RDMA_WRITE_FIRST (0x06) qp=0x000011 psn=256 A va=0x1000 rkey=0x1234 len=4096 payload=1024`. */
export function describeRoce(pkt: RocePacket): string {
  const b = pkt.bth;
  const parts = [opcodeLabel(b.opcode), `qp=0x${b.destQp.toString(16).padStart(6, '0')}`, `psn=${b.psn}`];
  if (b.ackReq) parts.push('A');
  if (pkt.reth) parts.push(`va=0x${pkt.reth.va.toString(16)} rkey=0x${pkt.reth.rkey.toString(16)} len=${pkt.reth.dmaLen}`);
  if (pkt.aeth) parts.push(`syndrome=0x${pkt.aeth.syndrome.toString(16)} msn=${pkt.aeth.msn}`);
  if (pkt.immDt !== undefined) parts.push(`imm=0x${pkt.immDt.toString(16)}`);
  parts.push(`payload=${pkt.payload.length}`, `${formatIpv4(pkt.ip.src)}->${formatIpv4(pkt.ip.dst)}`);
  return parts.join(' ');
}
