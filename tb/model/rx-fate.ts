// Which receive counter a frame must move in the NIC, by the rules its RX path documents
// (gen/nic/icrc-check.ts, gen/nic/rx-parser.ts): so a test can account for every frame it fed.
//  - 'icrc'      RX_DROP_ICRC: the ICRC is locatable (ethertype 0x0800, first IPv4 byte 0x45,
//                total length >= 44 and inside the frame) and wrong. Checked first, before any
//                header check (a frame with a bad IP checksum and a bad ICRC is an ICRC drop).
//  - 'malformed' RX_DROP_OTHER at the parser: any check of decodeRoce fails (truncated, bad
//                ethertype/IP/checksum, fragment, not UDP 4791, TVer, unknown opcode, lengths,
//                pad), or the payload is 8192 bytes or more (RxPktHdr's length field is 13 bits).
//  - 'parsed'    RX_FRAMES: handed to the responder, which may still drop it (RX_DROP_OTHER too:
//                unknown QP, QP not ready, a PSN gap, ...).
// Frames the ICRC check drops for lack of buffer space (BAD_FRAME) are not predicted: a test
// that feeds at line rate must not see any.

import { ETH_HEADER_BYTES, ETHERTYPE_IPV4, readU16 } from './headers.ts';
import { icrcOfIp } from './icrc.ts';
import { decodeRoce, type DecodeReason, type RocePacket } from './packet.ts';

/** RxPktHdr carries the payload length in 13 bits (gen/nic/types.ts). */
export const MAX_RX_PAYLOAD = 8191;

export type RxFate =
  | { readonly kind: 'icrc' }
  | { readonly kind: 'malformed'; readonly reason: DecodeReason | 'payload-too-long'; readonly detail: string }
  | { readonly kind: 'parsed'; readonly pkt: RocePacket };

/** True when nic_icrc_check can find and check the frame's ICRC. */
export function icrcLocatable(frame: Uint8Array): boolean {
  if (frame.length < ETH_HEADER_BYTES + 20) return false;
  if (readU16(frame, 12) !== ETHERTYPE_IPV4 || frame[ETH_HEADER_BYTES] !== 0x45) return false;
  const total = readU16(frame, ETH_HEADER_BYTES + 2);
  return total >= 44 && ETH_HEADER_BYTES + total <= frame.length;
}

export function rxFate(frame: Uint8Array): RxFate {
  if (icrcLocatable(frame)) {
    const ip = frame.subarray(ETH_HEADER_BYTES, ETH_HEADER_BYTES + readU16(frame, ETH_HEADER_BYTES + 2));
    const t = ip.subarray(ip.length - 4);
    const carried = (t[0]! | (t[1]! << 8) | (t[2]! << 16) | (t[3]! << 24)) >>> 0;
    if (icrcOfIp(ip.subarray(0, ip.length - 4)) !== carried) return { kind: 'icrc' };
  }
  const d = decodeRoce(frame, { checkIcrc: false });
  if (!d.ok) return { kind: 'malformed', reason: d.reason, detail: d.detail };
  if (d.pkt.payload.length > MAX_RX_PAYLOAD) return { kind: 'malformed', reason: 'payload-too-long', detail: `${d.pkt.payload.length}-byte payload` };
  return { kind: 'parsed', pkt: d.pkt };
}
