// Byte-level changes to an encoded RoCE frame for the hostile-frame fuzzer, each keeping the
// frame as valid as the change allows: after a header field is changed the IPv4 checksum and
// the ICRC are computed again, so the receiver meets the changed field itself, not a checksum
// error in front of it.

import type { Rng } from '../core/rng.ts';
import { ETH_HEADER_BYTES, ipv4Checksum, readU16, writeU16 } from './headers.ts';
import { icrcBytes, icrcOfIp } from './icrc.ts';

const IP = ETH_HEADER_BYTES;

/** Recomputes the IPv4 header checksum in place (when the frame has a whole IPv4 header). */
export function fixIpChecksum(f: Uint8Array): void {
  if (f.length < IP + 20) return;
  const sum = ipv4Checksum(f.subarray(IP, IP + 20));
  writeU16(f, IP + 10, sum);
}

/** Recomputes the ICRC in place where the IPv4 total length puts it, if that is inside the
 *  frame and the packet is long enough to have one. */
export function fixIcrc(f: Uint8Array): void {
  if (f.length < IP + 20) return;
  const total = readU16(f, IP + 2);
  if (total < 44 || IP + total > f.length || (f[IP]! & 0x0f) !== 5) return;
  const ip = f.subarray(IP, IP + total);
  ip.set(icrcBytes(icrcOfIp(ip.subarray(0, total - 4))), total - 4);
}

/** A header field the fuzzer changes, by byte offset in the frame and how. */
interface FieldChange { readonly name: string; readonly apply: (f: Uint8Array, rng: Rng) => void; readonly keepChecksum?: boolean }

const setByte = (off: number, v: (old: number, rng: Rng) => number) => (f: Uint8Array, rng: Rng): void => { f[off] = v(f[off]!, rng) & 0xff; };
const set16 = (off: number, v: (old: number, rng: Rng) => number) => (f: Uint8Array, rng: Rng): void => { writeU16(f, off, v(readU16(f, off), rng) & 0xffff); };
const UDP = IP + 20, BTH = UDP + 8;

const FIELD_CHANGES: readonly FieldChange[] = [
  { name: 'ethertype', apply: set16(12, (_o, r) => r.pick([0x86dd, 0x8100, 0x0806, r.int(0, 0xffff)])) },
  { name: 'IPv4 version/IHL', apply: setByte(IP, (_o, r) => r.pick([0x46, 0x65, 0x44, r.int(0, 255)])) },
  { name: 'IPv4 checksum', apply: set16(IP + 10, (o, r) => o ^ r.int(1, 0xffff)), keepChecksum: true },
  { name: 'IPv4 fragment', apply: set16(IP + 6, (_o, r) => r.pick([0x2000, 0x0001, 0x4001, r.int(1, 0x1fff)])) },
  { name: 'IPv4 protocol', apply: setByte(IP + 9, (_o, r) => r.pick([6, 1, 0, r.int(0, 255)])) },
  { name: 'IPv4 total length', apply: set16(IP + 2, (o, r) => o + r.pick([-4, -1, 1, 4, r.int(-64, 64), 0xffff - o])) },
  { name: 'IPv4 TTL/TOS', apply: (f, r) => { f[IP + 8] = r.int(0, 255); f[IP + 1] = r.int(0, 255); } },
  { name: 'UDP destination port', apply: set16(UDP + 2, (_o, r) => r.pick([4790, 4792, 0, r.int(0, 0xffff)])) },
  { name: 'UDP length', apply: set16(UDP + 4, (o, r) => o + r.pick([-4, 4, r.int(-100, 100)])) },
  { name: 'UDP checksum', apply: set16(UDP + 6, (_o, r) => r.int(1, 0xffff)) },
  { name: 'BTH TVer', apply: setByte(BTH + 1, (o, r) => (o & 0xf0) | r.int(1, 15)) },
  { name: 'BTH PadCnt', apply: setByte(BTH + 1, (o, r) => (o & 0xcf) | (r.int(0, 3) << 4)) },
  { name: 'BTH opcode (unknown)', apply: setByte(BTH, (_o, r) => r.pick([0x12, 0x13, 0x18, 0x20, 0x64, 0x81, 0xff, r.int(0x12, 0xff)])) },
  { name: 'BTH P_Key/FECN/BECN', apply: (f, r) => { writeU16(f, BTH + 2, r.int(0, 0xffff)); f[BTH + 4] = r.int(0, 255); } },
];

/** Changes one header field; returns its name. The checksums are fixed afterwards unless the
 *  change is the checksum itself. */
export function changeHeaderField(f: Uint8Array, rng: Rng): string {
  const c = rng.pick(FIELD_CHANGES);
  if (f.length < BTH + 12) return 'none (frame too short)';
  c.apply(f, rng);
  if (!c.keepChecksum) fixIpChecksum(f);
  fixIcrc(f);
  return c.name;
}

/** The frame cut to a random shorter length (at least 1 byte): its ICRC, or more, is gone. */
export function truncate(f: Uint8Array, rng: Rng): Uint8Array {
  return f.slice(0, rng.int(1, Math.max(1, f.length - 1)));
}

/** Bytes after the IPv4 packet (what a MAC's minimum-size padding looks like, or more). */
export function padAfter(f: Uint8Array, rng: Rng): Uint8Array {
  const out = new Uint8Array(f.length + rng.pick([1, 3, 4, 46, rng.int(1, 2000)]));
  out.set(f);
  rng.fillBytes(out.subarray(f.length));
  return out;
}

/** One bit of the ICRC flipped (everything else valid). */
export function breakIcrc(f: Uint8Array, rng: Rng): Uint8Array {
  const out = Uint8Array.from(f);
  const total = f.length >= IP + 4 ? readU16(f, IP + 2) : 0;
  const at = total >= 44 && IP + total <= f.length ? IP + total - 4 : f.length - 4;
  out[Math.max(0, at + rng.int(0, 3))]! ^= 1 << rng.int(0, 7);
  return out;
}
