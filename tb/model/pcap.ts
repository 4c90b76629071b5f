// Classic libpcap files (not pcapng), so Wireshark, tshark and scapy can read what the NIC sent.
//
// Writer: linktype 1 (Ethernet, frames without FCS, as the NIC's AXI-Stream carries them). Each
// frame is handed to the kernel with one synchronous write() before write() returns, so when the
// test process dies mid-run (a Verilator abort, an exception, SIGKILL) every frame written so far
// is in the file and the file is a valid pcap up to there. Surviving a machine crash would need
// fsync per frame: pass `fsync: true`. close() only releases the descriptor.
//
// Timestamps are given in nanoseconds (e.g. cycle * clock period, see cycleToNs) and stored in
// microseconds (the classic format; magic a1b2c3d4) or, on request, nanoseconds (magic a1b23c4d).
// The reader accepts both magics in both byte orders.

import * as fs from 'node:fs';

export const LINKTYPE_ETHERNET = 1;
export type PcapResolution = 'us' | 'ns';

const MAGIC_US = 0xa1b2c3d4;
const MAGIC_NS = 0xa1b23c4d;
const GLOBAL_HEADER_BYTES = 24;
const RECORD_HEADER_BYTES = 16;

/** Nanoseconds since simulation start of a clock cycle: the usual pcap timestamp in tests. */
export function cycleToNs(cycle: bigint | number, clockHz: number): bigint {
  if (!Number.isInteger(clockHz) || clockHz <= 0) throw new RangeError(`clock frequency ${clockHz} Hz must be a positive integer`);
  // Exact integer division (rounded down), so no drift over long runs at odd clocks like 322.265625 MHz.
  return (BigInt(cycle) * 1_000_000_000n) / BigInt(clockHz);
}

export interface PcapWriterOptions {
  /** Frames longer than this are cut (orig_len keeps the real length). Default 65535. */
  readonly snaplen?: number;
  /** Default 'us'. */
  readonly resolution?: PcapResolution;
  /** Added to every frame's time: the wall-clock time of cycle 0 in ns since 1970. Default 0. */
  readonly epochNs?: bigint;
  /** fsync after every frame: survives a machine crash, costs a disk flush per frame. */
  readonly fsync?: boolean;
}

export class PcapWriter {
  readonly path: string;
  readonly resolution: PcapResolution;
  readonly snaplen: number;
  #fd: number | null;
  #frames = 0;
  readonly #epochNs: bigint;
  readonly #fsync: boolean;

  private constructor(path: string, fd: number, opts: PcapWriterOptions) {
    this.path = path;
    this.#fd = fd;
    this.resolution = opts.resolution ?? 'us';
    this.snaplen = opts.snaplen ?? 65535;
    this.#epochNs = opts.epochNs ?? 0n;
    this.#fsync = opts.fsync ?? false;
  }

  /** Creates (truncates) `path` and writes the global header. */
  static open(path: string, opts: PcapWriterOptions = {}): PcapWriter {
    const snaplen = opts.snaplen ?? 65535;
    if (!Number.isInteger(snaplen) || snaplen < 1 || snaplen > 0x7fffffff) throw new RangeError(`pcap snaplen ${snaplen} out of range`);
    const fd = fs.openSync(path, 'w');
    const w = new PcapWriter(path, fd, opts);
    const h = Buffer.alloc(GLOBAL_HEADER_BYTES);
    h.writeUInt32LE(w.resolution === 'ns' ? MAGIC_NS : MAGIC_US, 0);
    h.writeUInt16LE(2, 4); h.writeUInt16LE(4, 6); // version 2.4
    h.writeInt32LE(0, 8); h.writeUInt32LE(0, 12); // thiszone, sigfigs
    h.writeUInt32LE(snaplen, 16);
    h.writeUInt32LE(LINKTYPE_ETHERNET, 20);
    fs.writeSync(fd, h);
    return w;
  }

  /** Frames written so far. */
  get frames(): number { return this.#frames; }

  /** Appends one frame with its time in nanoseconds since cycle 0. */
  write(frame: Uint8Array, timeNs: bigint): void {
    if (this.#fd === null) throw new Error(`pcap ${this.path} is closed`);
    if (timeNs < 0n) throw new RangeError(`pcap timestamp ${timeNs} ns is negative`);
    const t = timeNs + this.#epochNs;
    const perSec = 1_000_000_000n;
    const sec = t / perSec;
    const frac = this.resolution === 'ns' ? t % perSec : (t % perSec) / 1000n;
    if (sec > 0xffffffffn) throw new RangeError(`pcap timestamp ${t} ns is past 2106`);
    const cap = Math.min(frame.length, this.snaplen);
    // Header and data in one buffer and one write(): a crash cannot leave a header without data.
    const rec = Buffer.alloc(RECORD_HEADER_BYTES + cap);
    rec.writeUInt32LE(Number(sec), 0);
    rec.writeUInt32LE(Number(frac), 4);
    rec.writeUInt32LE(cap, 8);
    rec.writeUInt32LE(frame.length, 12);
    rec.set(frame.subarray(0, cap), RECORD_HEADER_BYTES);
    fs.writeSync(this.#fd, rec);
    if (this.#fsync) fs.fsyncSync(this.#fd);
    this.#frames++;
  }

  /** Releases the file. Safe to call twice. */
  close(): void {
    if (this.#fd === null) return;
    fs.closeSync(this.#fd);
    this.#fd = null;
  }
}

/** Writes a whole pcap at once. */
export function writePcap(path: string, frames: Iterable<{ readonly data: Uint8Array; readonly timeNs: bigint }>, opts: PcapWriterOptions = {}): void {
  const w = PcapWriter.open(path, opts);
  try {
    for (const f of frames) w.write(f.data, f.timeNs);
  } finally {
    w.close();
  }
}

export interface PcapRecord {
  /** Seconds and fraction as stored, converted to ns (µs files: multiples of 1000). */
  readonly timeNs: bigint;
  /** Length on the wire; more than data.length when the snaplen cut the frame. */
  readonly originalLength: number;
  readonly data: Uint8Array;
}

export interface PcapFile {
  readonly byteOrder: 'le' | 'be';
  readonly resolution: PcapResolution;
  readonly versionMajor: number;
  readonly versionMinor: number;
  readonly snaplen: number;
  readonly linktype: number;
  readonly records: readonly PcapRecord[];
  /** Bytes after the last complete record: a writer died in the middle of one. 0 normally. */
  readonly trailingBytes: number;
}

/** Reads a classic pcap file (from a path or its bytes). */
export function readPcap(source: string | Uint8Array): PcapFile {
  const bytes = typeof source === 'string' ? fs.readFileSync(source) : source;
  const what = typeof source === 'string' ? source : 'pcap data';
  if (bytes.length < GLOBAL_HEADER_BYTES) throw new Error(`${what}: ${bytes.length} bytes is too short for a pcap header`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let le: boolean;
  let resolution: PcapResolution;
  const magicLe = dv.getUint32(0, true);
  const magicBe = dv.getUint32(0, false);
  if (magicLe === MAGIC_US || magicLe === MAGIC_NS) { le = true; resolution = magicLe === MAGIC_NS ? 'ns' : 'us'; }
  else if (magicBe === MAGIC_US || magicBe === MAGIC_NS) { le = false; resolution = magicBe === MAGIC_NS ? 'ns' : 'us'; }
  else if (magicLe === 0x0a0d0d0a) throw new Error(`${what} is pcapng; only classic pcap is read here (convert with editcap -F pcap)`);
  else throw new Error(`${what}: unknown pcap magic 0x${magicLe.toString(16)}`);
  const u32 = (o: number): number => dv.getUint32(o, le);
  const records: PcapRecord[] = [];
  let off = GLOBAL_HEADER_BYTES;
  const fracNs = resolution === 'ns' ? 1n : 1000n;
  while (off + RECORD_HEADER_BYTES <= bytes.length) {
    const incl = u32(off + 8);
    if (off + RECORD_HEADER_BYTES + incl > bytes.length) break;
    records.push({
      timeNs: BigInt(u32(off)) * 1_000_000_000n + BigInt(u32(off + 4)) * fracNs,
      originalLength: u32(off + 12),
      data: Uint8Array.from(bytes.subarray(off + RECORD_HEADER_BYTES, off + RECORD_HEADER_BYTES + incl)),
    });
    off += RECORD_HEADER_BYTES + incl;
  }
  return {
    byteOrder: le ? 'le' : 'be', resolution,
    versionMajor: dv.getUint16(4, le), versionMinor: dv.getUint16(6, le),
    snaplen: u32(16), linktype: u32(20),
    records, trailingBytes: bytes.length - off,
  };
}
