// What the AXI memory slave stores into: any byte-addressed memory. tb/model's HostMemory
// (sparse, 64-bit, snapshots) is the default; a test can pass its own.

export interface ByteMemory {
  /** A fresh copy of the bytes: the memory slave keeps it as a beat's data (HostMemory's is). */
  read(addr: bigint, len: number): Uint8Array;
  write(addr: bigint, data: Uint8Array): void;
}

/** True on a little-endian host (all the machines this runs on): a Uint32Array and a
 *  Uint8Array over the same buffer are then a bus word's two views, so beats can be moved
 *  word by word with set() instead of byte by byte. */
export const HOST_LE = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** A beat buffer of `bytes` bytes and its 32-bit words over the same memory (words null when
 *  they do not line up: an odd width, a big-endian host). */
export function beatBuffer(bytes: number): { bytes: Uint8Array; words: Uint32Array | null } {
  if (!HOST_LE || bytes % 4 !== 0) return { bytes: new Uint8Array(bytes), words: null };
  const words = new Uint32Array(bytes / 4);
  return { bytes: new Uint8Array(words.buffer), words };
}

/** Bus word (little endian, byte 0 in bits 7..0) to bytes and back. */
export function wordToBytes(word: bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let w = word;
  for (let i = 0; i < bytes; i++) { out[i] = Number(w & 0xffn); w >>= 8n; }
  return out;
}

export function bytesToWord(b: Uint8Array): bigint {
  let w = 0n;
  for (let i = b.length - 1; i >= 0; i--) w = (w << 8n) | BigInt(b[i]!);
  return w;
}

/** Bytes of a bus word held as 32-bit words (LSB first) into `out[0..n)`: no bigint. */
export function wordsToBytes(w: Uint32Array, out: Uint8Array, n: number = out.length): Uint8Array {
  for (let i = 0; i < n; i++) out[i] = (w[i >>> 2]! >>> ((i & 3) << 3)) & 0xff;
  return out;
}

/** `len` bytes of `bytes` from `off` (little endian) into every word of `w`; bytes past
 *  them read as zero (so bits above a port's width stay clear). */
export function bytesToWords(bytes: Uint8Array, w: Uint32Array, off = 0, len = bytes.length - off): void {
  const n = len;
  if (n >= 4 * w.length) {
    // A whole beat (the usual case): no per-byte bounds tests.
    for (let k = 0, i = off; k < w.length; k++, i += 4) w[k] = (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) >>> 0;
    return;
  }
  for (let k = 0; k < w.length; k++) {
    const i = k << 2, b = off + i;
    w[k] = ((i < n ? bytes[b]! : 0) | (i + 1 < n ? bytes[b + 1]! << 8 : 0) | (i + 2 < n ? bytes[b + 2]! << 16 : 0) | (i + 3 < n ? bytes[b + 3]! << 24 : 0)) >>> 0;
  }
}
