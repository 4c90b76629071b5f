// Reads the capture a replay is fed from: classic pcap (both byte orders, µs and ns magic; the
// parsing is tb/model/pcap.ts's readPcap) or pcapng (Wireshark's default). pcapng may hold
// several sections and several interfaces, each with its own link type and FCS length, so
// every packet keeps the interface it was captured on; frame-cleanup.ts then turns each into
// the bare Ethernet frame the NIC's RX port takes.
//
// Only the blocks that carry packets or describe interfaces are read (SHB, IDB, EPB, SPB and
// the obsolete PB); name resolution, statistics, secrets and custom blocks are skipped.

import * as fs from 'node:fs';
import { readPcap } from '../model/pcap.ts';

export const LINKTYPE_ETHERNET = 1;
export const LINKTYPE_LINUX_SLL = 113;
export const LINKTYPE_LINUX_SLL2 = 276;

/** Link types a replay can turn into Ethernet frames. */
export const REPLAYABLE_LINKTYPES: ReadonlyMap<number, string> = new Map([
  [LINKTYPE_ETHERNET, 'Ethernet'], [LINKTYPE_LINUX_SLL, 'Linux cooked SLL'], [LINKTYPE_LINUX_SLL2, 'Linux cooked SLL2'],
]);

/** Names of link types people meet, for the error message. */
const OTHER_LINKTYPES: ReadonlyMap<number, string> = new Map([
  [0, 'BSD loopback'], [101, 'raw IP'], [105, '802.11'], [127, '802.11 radiotap'], [228, 'raw IPv4'], [229, 'raw IPv6'], [147, 'user 0'],
]);

export function linkTypeName(linktype: number): string {
  return REPLAYABLE_LINKTYPES.get(linktype) ?? OTHER_LINKTYPES.get(linktype) ?? 'unknown';
}

export interface CaptureInterface {
  readonly linktype: number;
  /** Bytes of FCS at the end of each frame as the capture declares it (pcapng if_fcslen, the
   *  pcap header's FCS bits); undefined when the capture does not say. */
  readonly fcsLen?: number;
  /** pcapng if_name, when given. */
  readonly name?: string;
}

export interface CapturedPacket {
  readonly data: Uint8Array;
  /** Length on the wire; more than data.length when the snaplen cut the frame. */
  readonly originalLength: number;
  /** Index into CaptureFile.interfaces (0 for classic pcap). */
  readonly iface: number;
  /** The packet's own FCS length (pcapng epb_flags bits 5-8), when it declares one. */
  readonly fcsLen?: number;
}

export interface CaptureFile {
  readonly format: 'pcap' | 'pcapng';
  readonly interfaces: readonly CaptureInterface[];
  readonly packets: readonly CapturedPacket[];
  /** Bytes after the last complete record or block (a writer died mid-write). */
  readonly trailingBytes: number;
}

/** A capture that cannot be read or replayed: the message names the file (and packet). */
export class CaptureError extends Error {}

const SHB = 0x0a0d0d0a, IDB = 1, PB = 2, SPB = 3, EPB = 6;
const BYTE_ORDER_MAGIC = 0x1a2b3c4d;
const OPT_END = 0, IF_NAME = 2, IF_FCSLEN = 13, EPB_FLAGS = 2;

/** The pcap header's link type field also carries an FCS length (bits 31-29, in 16-bit
 *  words) when bit 28 is set; the link type proper is the low 16 bits. */
function pcapInterface(field: number): CaptureInterface {
  const linktype = field & 0xffff;
  return (field >>> 28) & 1 ? { linktype, fcsLen: ((field >>> 29) & 7) * 2 } : { linktype };
}

function readClassic(bytes: Uint8Array, what: string): CaptureFile {
  let f;
  try { f = readPcap(bytes); } catch (e) { throw new CaptureError(`${what}${(e as Error).message.replace(/^pcap data/, '')}`); }
  const packets = f.records.map(r => ({ data: r.data, originalLength: r.originalLength, iface: 0 }));
  return { format: 'pcap', interfaces: [pcapInterface(f.linktype)], packets, trailingBytes: f.trailingBytes };
}

/** A block's options: code -> value bytes (the first occurrence of each code). */
function readOptions(dv: DataView, from: number, to: number, le: boolean): Map<number, Uint8Array> {
  const out = new Map<number, Uint8Array>();
  for (let o = from; o + 4 <= to;) {
    const code = dv.getUint16(o, le), len = dv.getUint16(o + 2, le);
    if (code === OPT_END || o + 4 + len > to) break;
    if (!out.has(code)) out.set(code, new Uint8Array(dv.buffer, dv.byteOffset + o + 4, len));
    o += 4 + ((len + 3) & ~3);
  }
  return out;
}

class PcapngReader {
  readonly interfaces: CaptureInterface[] = [];
  readonly packets: CapturedPacket[] = [];
  readonly #snaplens: number[] = [];
  readonly #dv: DataView;
  #le = true;
  /** Global index of the current section's interface 0 (ids restart in every section). */
  #sectionBase = 0;

  constructor(readonly bytes: Uint8Array, readonly what: string) {
    this.#dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Reads every complete block; returns where the last one ended. */
  read(): number {
    let off = 0;
    while (off + 12 <= this.bytes.length) {
      if (this.#dv.getUint32(off, true) === SHB) this.#section(off);
      const len = this.#dv.getUint32(off + 4, this.#le);
      if (len < 12 || len % 4 !== 0) throw new CaptureError(`${this.what}: pcapng block at byte ${off} has length ${len} (a multiple of 4, at least 12)`);
      if (off + len > this.bytes.length) break;
      this.#block(this.#dv.getUint32(off, this.#le), off + 8, off + len - 4);
      off += len;
    }
    return off;
  }

  #section(off: number): void {
    const magic = this.#dv.getUint32(off + 8, true);
    if (magic !== BYTE_ORDER_MAGIC && magic !== 0x4d3c2b1a) throw new CaptureError(`${this.what}: pcapng section at byte ${off} has byte-order magic 0x${magic.toString(16)}`);
    this.#le = magic === BYTE_ORDER_MAGIC;
    this.#sectionBase = this.interfaces.length;
  }

  #block(type: number, body: number, end: number): void {
    if (type === IDB) this.#interface(body, end);
    else if (type === EPB) this.#enhanced(body, end);
    else if (type === SPB) this.#simple(body, end);
    else if (type === PB) this.#obsolete(body, end);
  }

  #interface(body: number, end: number): void {
    const opts = readOptions(this.#dv, body + 8, end, this.#le);
    const fcs = opts.get(IF_FCSLEN), name = opts.get(IF_NAME);
    this.interfaces.push({
      linktype: this.#dv.getUint16(body, this.#le),
      ...(fcs && fcs.length >= 1 ? { fcsLen: fcs[0]! } : {}),
      ...(name ? { name: Buffer.from(name).toString('utf8').replace(/\0+$/, '') } : {}),
    });
    this.#snaplens.push(this.#dv.getUint32(body + 4, this.#le));
  }

  #iface(id: number): number {
    const g = this.#sectionBase + id;
    if (id >= this.interfaces.length - this.#sectionBase) throw new CaptureError(`${this.what}: packet ${this.packets.length + 1} names interface ${id}, which the section does not describe`);
    return g;
  }

  #packet(iface: number, at: number, caplen: number, origLen: number, end: number, fcsLen?: number): void {
    if (at + caplen > end) throw new CaptureError(`${this.what}: packet ${this.packets.length + 1}: ${caplen} captured bytes do not fit its block`);
    const data = Uint8Array.from(this.bytes.subarray(at, at + caplen));
    this.packets.push({ data, originalLength: origLen, iface, ...(fcsLen !== undefined ? { fcsLen } : {}) });
  }

  #enhanced(body: number, end: number): void {
    const u32 = (o: number): number => this.#dv.getUint32(body + o, this.#le);
    const iface = this.#iface(u32(0)), caplen = u32(12);
    const flags = readOptions(this.#dv, body + 20 + ((caplen + 3) & ~3), end, this.#le).get(EPB_FLAGS);
    const fcs = flags && flags.length === 4 ? (new DataView(flags.buffer, flags.byteOffset, 4).getUint32(0, this.#le) >>> 5) & 0xf : 0;
    this.#packet(iface, body + 20, caplen, u32(16), end, fcs ? fcs : undefined);
  }

  /** SPB: interface 0, no captured length of its own: the snaplen or the block decides. */
  #simple(body: number, end: number): void {
    const iface = this.#iface(0), origLen = this.#dv.getUint32(body, this.#le);
    const snap = this.#snaplens[iface]!;
    this.#packet(iface, body + 4, Math.min(origLen, end - body - 4, snap === 0 ? Infinity : snap), origLen, end);
  }

  #obsolete(body: number, end: number): void {
    const iface = this.#iface(this.#dv.getUint16(body, this.#le));
    this.#packet(iface, body + 20, this.#dv.getUint32(body + 12, this.#le), this.#dv.getUint32(body + 16, this.#le), end);
  }
}

/** Parses capture bytes; `what` names them in errors (the file name). */
export function parseCapture(bytes: Uint8Array, what: string): CaptureFile {
  if (bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === SHB) {
    const r = new PcapngReader(bytes, what);
    const end = r.read();
    return { format: 'pcapng', interfaces: r.interfaces, packets: r.packets, trailingBytes: bytes.length - end };
  }
  return readClassic(bytes, what);
}

/** Refuses a packet whose link type cannot become an Ethernet frame (the first one). */
export function checkLinkTypes(cap: CaptureFile, what: string): void {
  cap.packets.forEach((p, i) => {
    const lt = cap.interfaces[p.iface]!.linktype;
    if (!REPLAYABLE_LINKTYPES.has(lt)) {
      const known = [...REPLAYABLE_LINKTYPES].map(([k, v]) => `${v} (${k})`).join(', ');
      throw new CaptureError(`${what}: packet ${i + 1}: link type ${lt} (${linkTypeName(lt)}) cannot be replayed; supported: ${known}`);
    }
  });
}

/** Reads and checks a capture file. */
export function readCapture(file: string): CaptureFile {
  let bytes: Uint8Array;
  try { bytes = fs.readFileSync(file); } catch (e) { throw new CaptureError(`${file}: ${(e as Error).message}`); }
  const cap = parseCapture(bytes, file);
  checkLinkTypes(cap, file);
  return cap;
}
