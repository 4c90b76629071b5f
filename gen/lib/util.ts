// Small elaboration-time helpers shared by the library blocks.

/** Bits needed to index `n` things (at least 1, so a port never has width 0). */
export function indexWidth(n: number): number {
  return Math.max(1, Math.ceil(Math.log2(n)));
}

// Both refuse a parameter with a plain Error: elaboration reports it as one line at the line
// that asked for the module (`sync_fifo: depth = 3 is not a power of two ...`, gen/hdl/define.ts).

/** log2 of a power of two, or a parameter error naming the parameter. */
export function log2Exact(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 2 || (n & (n - 1)) !== 0) {
    const lo = 2 ** Math.floor(Math.log2(Math.max(2, n))), hi = 2 ** Math.ceil(Math.log2(Math.max(2, n)));
    throw new Error(`${what} = ${n} is not a power of two >= 2 (allowed: 2, 4, 8, ...; the nearest are ${lo === hi ? lo : `${lo} and ${hi}`})`);
  }
  return Math.log2(n);
}

/** Check a positive integer parameter. */
export function positiveInt(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`${what} = ${n} is out of range (allowed: a whole number >= 1)`);
  return n;
}
