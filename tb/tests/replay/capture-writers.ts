// Capture files the replay's input side must read, written the way other tools write them:
// pcapng (several interfaces, if_fcslen, EPB or SPB, either byte order) and classic pcap in
// big-endian / nanosecond form, plus the frame dressings real captures carry (VLAN tags, a
// trailing FCS, Linux cooked SLL/SLL2 headers). Tests only: nicgen itself writes classic pcap.

import * as fs from 'node:fs';
import * as zlib from 'node:zlib';

export interface NgInterface {
  readonly linktype: number;
  /** if_fcslen option, when given. */
  readonly fcsLen?: number;
  readonly name?: string;
}

export interface NgPacket {
  readonly iface: number;
  readonly data: Uint8Array;
  /** Length on the wire (default data.length; larger = cut by the snaplen). */
  readonly originalLength?: number;
  /** Write a Simple Packet Block (interface 0 only) instead of an EPB. */
  readonly simple?: boolean;
}

class Bytes {
  readonly parts: Buffer[] = [];
  constructor(readonly le: boolean) {}
  u16(v: number): Buffer { const b = Buffer.alloc(2); if (this.le) b.writeUInt16LE(v); else b.writeUInt16BE(v); return b; }
  u32(v: number): Buffer { const b = Buffer.alloc(4); if (this.le) b.writeUInt32LE(v >>> 0); else b.writeUInt32BE(v >>> 0); return b; }
  pad(b: Uint8Array): Buffer { return Buffer.concat([Buffer.from(b), Buffer.alloc((4 - (b.length % 4)) % 4)]); }
  option(code: number, value: Uint8Array): Buffer { return Buffer.concat([this.u16(code), this.u16(value.length), this.pad(value)]); }
  /** type, total length, body, total length. */
  block(type: number, body: Buffer): void {
    const len = 12 + body.length;
    this.parts.push(Buffer.concat([this.u32(type), this.u32(len), body, this.u32(len)]));
  }
}

function sectionHeader(w: Bytes): void {
  w.block(0x0a0d0d0a, Buffer.concat([w.u32(0x1a2b3c4d), w.u16(1), w.u16(0), w.u32(0xffffffff), w.u32(0xffffffff)]));
}

function interfaceBlock(w: Bytes, i: NgInterface): void {
  const opts = [
    ...(i.name ? [w.option(2, Buffer.from(i.name))] : []),
    ...(i.fcsLen !== undefined ? [w.option(13, Uint8Array.of(i.fcsLen))] : []),
  ];
  const end = opts.length ? [w.u32(0)] : [];
  w.block(1, Buffer.concat([w.u16(i.linktype), w.u16(0), w.u32(0), ...opts, ...end]));
}

function packetBlock(w: Bytes, p: NgPacket, k: number): void {
  const orig = p.originalLength ?? p.data.length;
  if (p.simple) { w.block(3, Buffer.concat([w.u32(orig), w.pad(p.data)])); return; }
  // Timestamps 1 µs apart (if_tsresol default: microseconds).
  w.block(6, Buffer.concat([w.u32(p.iface), w.u32(0), w.u32(k), w.u32(p.data.length), w.u32(orig), w.pad(p.data)]));
}

/** A pcapng file: one section per entry of `sections` (interfaces, then packets). */
export function writePcapng(file: string, sections: readonly { interfaces: readonly NgInterface[]; packets: readonly NgPacket[] }[], o: { bigEndian?: boolean } = {}): void {
  const w = new Bytes(!o.bigEndian);
  let k = 0;
  for (const s of sections) {
    sectionHeader(w);
    for (const i of s.interfaces) interfaceBlock(w, i);
    for (const p of s.packets) packetBlock(w, p, k++);
  }
  fs.writeFileSync(file, Buffer.concat(w.parts));
}

/** A classic pcap in big-endian byte order with the nanosecond magic (as some tools write). */
export function writePcapBigEndianNs(file: string, linktypeField: number, frames: readonly Uint8Array[]): void {
  const w = new Bytes(false);
  const head = Buffer.concat([w.u32(0xa1b23c4d), w.u16(2), w.u16(4), w.u32(0), w.u32(0), w.u32(65535), w.u32(linktypeField)]);
  const recs = frames.map((f, i) => Buffer.concat([w.u32(0), w.u32(i * 1000), w.u32(f.length), w.u32(f.length), Buffer.from(f)]));
  fs.writeFileSync(file, Buffer.concat([head, ...recs]));
}

/** The frame with an 802.1Q (or, for an outer tag, 802.1ad) tag after the source MAC. */
export function withVlanTag(frame: Uint8Array, vid: number, pcp = 0, tpid = 0x8100): Uint8Array {
  const out = new Uint8Array(frame.length + 4);
  out.set(frame.subarray(0, 12));
  out.set([tpid >> 8, tpid & 0xff, (pcp << 5) | (vid >> 8), vid & 0xff], 12);
  out.set(frame.subarray(12), 16);
  return out;
}

/** The frame followed by its Ethernet FCS (CRC-32, least significant byte first). */
export function withFcs(frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(frame.length + 4);
  out.set(frame);
  new DataView(out.buffer).setUint32(frame.length, zlib.crc32(frame), true);
  return out;
}

/** An Ethernet frame as a Linux cooked capture shows it: SLL (113) or SLL2 (276) header with
 *  the sender's MAC and the ethertype, then the Ethernet payload. */
export function asCooked(frame: Uint8Array, linktype: 113 | 276): Uint8Array {
  const src = frame.subarray(6, 12), proto = frame.subarray(12, 14), payload = frame.subarray(14);
  const head = linktype === 113
    ? Buffer.concat([Buffer.from([0, 0, 0, 1, 0, 6]), src, Buffer.alloc(2), proto])
    : Buffer.concat([proto, Buffer.alloc(2), Buffer.from([0, 0, 0, 2, 0, 1, 0, 6]), src, Buffer.alloc(2)]);
  return Uint8Array.from(Buffer.concat([head, payload]));
}
