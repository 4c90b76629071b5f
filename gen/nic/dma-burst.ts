// Cutting a physically contiguous chunk (inside one 4 KiB page) into AXI INCR bursts.
//
// Bursts end at every `burstBytes` boundary of the physical address (2 KiB in the seed
// design). Since burstBytes divides 4 KiB, no burst crosses a 4 KiB boundary, and since
// burstBytes <= 256 bus words no burst is longer than AXI's 256 beats. Addresses are
// rounded down to the bus word; the first and last beat may carry fewer bytes, which the
// engines handle with strobes (write) or by dropping bytes (read).

import { DslError, lit, mux, Struct, UInt, type UIntShape, type Value } from '../hdl/index.ts';

/** Per-burst bookkeeping both engines queue between the address and the data channel. */
export function burstMetaShape(lb: number) {
  return Struct('dma_burst_meta', {
    /** Byte lane of the first byte in the first beat. */
    head: UInt(lb),
    /** Byte lane just past the last byte in the last beat; 0 means the whole beat. */
    tail: UInt(lb),
    /** Beats in the burst minus one (AXI len). */
    len: UInt(8),
    /** This burst ends the message / command. */
    last: UInt(1),
    /** log2 of the segment (MTU) size of its message (read engine only). */
    seg: UInt(4),
  });
}

export function checkBurstBytes(burstBytes: number, lb: number): number {
  const bytes = 1 << lb;
  if (!Number.isInteger(burstBytes) || (burstBytes & (burstBytes - 1)) !== 0 || burstBytes < bytes || burstBytes > 4096 || burstBytes > 256 * bytes) {
    throw new DslError(`burstBytes = ${burstBytes} for a ${bytes}-byte bus`,
      `use a power of two from ${bytes} to ${Math.min(4096, 256 * bytes)} (at most 256 beats, never past 4 KiB)`);
  }
  return Math.log2(burstBytes);
}

export interface NextBurst {
  /** Bytes in this burst, 1..burstBytes (13 bits). */
  bytes: Value<UIntShape>;
  /** Address rounded down to the bus word. */
  addr: Value<UIntShape>;
  /** AXI len: beats - 1. */
  len: Value<UIntShape>;
  /** First byte lane and lane after the last byte (0 = full last beat). */
  head: Value<UIntShape>;
  tail: Value<UIntShape>;
}

/** The next burst of a chunk that starts at `pa` and has `rem` (1..4096, 13 bits) bytes left. */
export function nextBurst(pa: Value, rem: Value, lb: number, burstLog2: number): NextBurst {
  // Bytes to the end of the current burst window, 1..burstBytes.
  const toWindow = lit(1 << burstLog2, 13).subw(pa.bits(burstLog2 - 1, 0).zext(13));
  const bytes = mux(rem.lt(toWindow), rem, toWindow).trunc(13).asUnsigned();
  const head = pa.bits(lb - 1, 0);
  const len = head.zext(13).addw(bytes).subw(1).shr(lb).trunc(8).asUnsigned();
  const tail = pa.bits(lb - 1, 0).addw(bytes.trunc(lb)).asUnsigned();
  const addr = pa.and(lit(((1n << 64n) - 1n) ^ BigInt((1 << lb) - 1), 64)).asUnsigned();
  return { bytes, addr, len, head, tail };
}
