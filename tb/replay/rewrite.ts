// Dest QPN rewriting for captures taken against another implementation: its QPs have their
// own numbers, nic_top's are fixed (0x100 + index). A frame whose BTH DestQP is a scenario
// QP's `captureQpn` is fed with that QP's QPN instead, and its ICRC redone so that it stays
// exactly as right or as wrong as it was: the new ICRC is the correct one XOR the error the
// captured frame carried (the CRC of the rest changes, the error pattern is kept).

import { BTH_BYTES, ETH_HEADER_BYTES, ETHERTYPE_IPV4, IPV4_HEADER_BYTES, ROCE_UDP_PORT, UDP_HEADER_BYTES, readU16, readU24, writeU24 } from '../model/headers.ts';
import { icrcBytes, icrcOfIp } from '../model/icrc.ts';

/** Offset of the BTH DestQP field in an untagged frame with a 20-byte IPv4 header. */
const DEST_QP_AT = ETH_HEADER_BYTES + IPV4_HEADER_BYTES + UDP_HEADER_BYTES + 5;

function readIcrc(ip: Uint8Array): number {
  const t = ip.length - 4;
  return (ip[t]! | (ip[t + 1]! << 8) | (ip[t + 2]! << 16) | (ip[t + 3]! << 24)) >>> 0;
}

/** The IPv4 packet of a RoCEv2 frame the rewrite can handle, or undefined. */
function roceIp(frame: Uint8Array): Uint8Array | undefined {
  if (frame.length < DEST_QP_AT + 3 || readU16(frame, 12) !== ETHERTYPE_IPV4 || frame[ETH_HEADER_BYTES] !== 0x45) return undefined;
  if (frame[ETH_HEADER_BYTES + 9] !== 17 || readU16(frame, ETH_HEADER_BYTES + IPV4_HEADER_BYTES + 2) !== ROCE_UDP_PORT) return undefined;
  const total = readU16(frame, ETH_HEADER_BYTES + 2);
  if (total < IPV4_HEADER_BYTES + UDP_HEADER_BYTES + BTH_BYTES + 4 || ETH_HEADER_BYTES + total > frame.length) return undefined;
  return frame.subarray(ETH_HEADER_BYTES, ETH_HEADER_BYTES + total);
}

/** The frame as fed to the NIC: DestQP mapped through `qpnMap` (captured -> NIC QPN). Frames
 *  that are not RoCEv2, or whose QPN is not in the map, are returned as they are. */
export function rewriteDestQp(frame: Uint8Array, qpnMap: ReadonlyMap<number, number>): Uint8Array {
  const ip = roceIp(frame);
  if (!ip) return frame;
  const to = qpnMap.get(readU24(frame, DEST_QP_AT));
  if (to === undefined) return frame;
  const end = ip.length - 4;
  const error = (readIcrc(ip) ^ icrcOfIp(ip.subarray(0, end))) >>> 0;
  const out = Uint8Array.from(frame);
  writeU24(out, DEST_QP_AT, to);
  const newIp = out.subarray(ETH_HEADER_BYTES, ETH_HEADER_BYTES + ip.length);
  newIp.set(icrcBytes((icrcOfIp(newIp.subarray(0, end)) ^ error) >>> 0), end);
  return out;
}
