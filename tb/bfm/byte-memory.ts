// What the AXI memory slave stores into: any byte-addressed memory. tb/model's HostMemory
// (sparse, 64-bit, snapshots) is the default; a test can pass its own.

export interface ByteMemory {
  read(addr: bigint, len: number): Uint8Array;
  write(addr: bigint, data: Uint8Array): void;
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
