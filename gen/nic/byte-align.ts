// Byte-lane helpers shared by the DMA engines: masks of the low `n` bytes, byte rotation,
// and byte-enable to bit-mask expansion. All are pure expressions (no state), so each
// engine keeps its own registers and the emitted Verilog stays one readable module.
//
// Why rotation is enough for alignment: a page frame is 4 KiB aligned and the bus is at
// most 4 KiB wide, so a byte's offset inside a bus word is the same in its virtual and its
// physical address. The shift between the packed stream and the bus words therefore only
// changes where the source or destination range changes (an SGE, a message), never at a
// page boundary inside one range.

import { cat, lit, repeat, type UIntShape, type Value } from '../hdl/index.ts';
import { DslError } from '../hdl/index.ts';

/** log2 of the bytes per bus word; the data width must be a power of two of whole bytes. */
export function busBytesLog2(dataWidth: number): number {
  const bytes = dataWidth / 8;
  if (!Number.isInteger(bytes) || bytes < 2 || (bytes & (bytes - 1)) !== 0) {
    throw new DslError(`dataWidth ${dataWidth} is not a power-of-two number of bytes (>= 16 bits)`, 'use 64, 128, 256 or 512');
  }
  return Math.log2(bytes);
}

/** A `bytes`-bit mask with bits [0, n) set; `n` may equal `bytes` (all ones). `n` needs
 *  log2(bytes)+1 bits so that the full count is representable. */
export function lowBytesMask(n: Value, bytes: number): Value<UIntShape> {
  return lit((1n << BigInt(bytes)) - 1n, bytes).shl(n).not().asUnsigned();
}

/** Rotate a word of `bytes` bytes right by `rot` bytes: result byte i = input byte (i+rot) mod bytes. */
export function rotateRightBytes(word: Value, rot: Value, bytes: number): Value<UIntShape> {
  const bits = bytes * 8;
  return cat(word, word).shr(cat(rot, lit(0, 3))).trunc(bits).asUnsigned();
}

/** One enable bit per byte → one bit per data bit (each enable repeated 8 times). */
export function byteMaskToBits(mask: Value, bytes: number): Value<UIntShape> {
  const parts: Value[] = [];
  for (let i = bytes - 1; i >= 0; i--) parts.push(repeat(mask.bit(i), 8));
  return cat(...parts);
}
