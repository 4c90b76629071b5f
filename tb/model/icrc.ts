// RoCEv2 invariant CRC (ICRC), software reference (NIC.md §ICRC).
//
// CRC-32 (Ethernet) over: 8 bytes of 0xFF (standing in for the InfiniBand LRH), then the IPv4
// packet from its first header byte up to the ICRC, with the fields routers may change set to
// all ones — IPv4 TOS, TTL, header checksum; UDP checksum; BTH byte 4 (FECN, BECN, reserved).
// The 32-bit result is appended least significant byte first.
//
// The CRC itself comes from gen/lib/crc-model.ts, the same model the RTL's XOR matrices are
// generated from. The 0xFF prefix is folded into the initial register (`ICRC_PARAMS`), which is
// how an in-line hardware generator can use it too.

import { CRC32, crcModel, withPrefix, type CrcParams } from '../../gen/lib/crc-model.ts';

/** CRC-32 with the eight 0xFF bytes already fed in. */
export const ICRC_PARAMS: CrcParams = withPrefix(CRC32, 'icrc', new Uint8Array(8).fill(0xff));

const ETH_HEADER = 14;
const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_VLAN = 0x8100;
const UDP_HEADER = 8;

/** Byte offsets, from the start of the IPv4 header, that the ICRC sees as 0xFF. For the usual
 *  20-byte IPv4 header: 1, 8, 10, 11, 26, 27, 32. */
export function icrcMaskedOffsets(ihl = 5): number[] {
  const udp = ihl * 4;
  return [1, 8, 10, 11, udp + 6, udp + 7, udp + UDP_HEADER + 4];
}

/** Offset of the IPv4 header in an Ethernet frame (untagged or one 802.1Q tag). */
export function ipv4Offset(frame: Uint8Array): number {
  let off = ETH_HEADER;
  let type = (frame[12]! << 8) | frame[13]!;
  if (type === ETHERTYPE_VLAN) { type = (frame[16]! << 8) | frame[17]!; off += 4; }
  if (type !== ETHERTYPE_IPV4) throw new Error(`not an IPv4 frame (ethertype 0x${type.toString(16)})`);
  return off;
}

/** The ICRC of an IPv4 packet given WITHOUT its trailing ICRC (IPv4 header .. end of pad). */
export function icrcOfIp(ip: Uint8Array): number {
  const ihl = ip[0]! & 0x0f;
  if (ip.length < ihl * 4 + UDP_HEADER + 12) throw new Error(`IPv4 packet of ${ip.length} bytes is too short for UDP + BTH`);
  const covered = Uint8Array.from(ip);
  for (const o of icrcMaskedOffsets(ihl)) covered[o] = 0xff;
  return Number(crcModel(ICRC_PARAMS).compute(covered));
}

/** The IPv4 packet of a frame, cut at the IPv4 total length (Ethernet padding dropped). */
export function ipPacket(frame: Uint8Array): Uint8Array {
  const off = ipv4Offset(frame);
  const total = (frame[off + 2]! << 8) | frame[off + 3]!;
  if (off + total > frame.length) throw new Error(`IPv4 total length ${total} runs past the ${frame.length}-byte frame`);
  return frame.subarray(off, off + total);
}

/** ICRC of a frame that does not carry one yet (Ethernet header .. end of pad, no FCS). */
export function icrcOfFrame(frameWithoutIcrc: Uint8Array): number {
  return icrcOfIp(frameWithoutIcrc.subarray(ipv4Offset(frameWithoutIcrc)));
}

/** The four ICRC bytes in wire order (least significant first). */
export function icrcBytes(icrc: number): Uint8Array {
  return Uint8Array.of(icrc & 0xff, (icrc >>> 8) & 0xff, (icrc >>> 16) & 0xff, icrc >>> 24);
}

/** A frame with its ICRC appended. The IPv4 total length must already count the 4 ICRC bytes. */
export function appendIcrc(frameWithoutIcrc: Uint8Array): Uint8Array {
  const out = new Uint8Array(frameWithoutIcrc.length + 4);
  out.set(frameWithoutIcrc);
  out.set(icrcBytes(icrcOfFrame(frameWithoutIcrc)), frameWithoutIcrc.length);
  return out;
}

/** The ICRC a received frame carries (last 4 bytes of its IPv4 packet). */
export function carriedIcrc(frame: Uint8Array): number {
  const ip = ipPacket(frame);
  const t = ip.subarray(ip.length - 4);
  return (t[0]! | (t[1]! << 8) | (t[2]! << 16) | (t[3]! << 24)) >>> 0;
}

/** True when a received frame's ICRC is correct. */
export function checkIcrc(frame: Uint8Array): boolean {
  const ip = ipPacket(frame);
  return icrcOfIp(ip.subarray(0, ip.length - 4)) === carriedIcrc(frame);
}
