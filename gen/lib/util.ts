// Small elaboration-time helpers shared by the library blocks.

import { DslError } from '../hdl/index.ts';

/** Bits needed to index `n` things (at least 1, so a port never has width 0). */
export function indexWidth(n: number): number {
  return Math.max(1, Math.ceil(Math.log2(n)));
}

/** log2 of a power of two, or a design error naming the parameter. */
export function log2Exact(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 2 || (n & (n - 1)) !== 0) {
    throw new DslError(`${what} = ${n} is not a power of two (>= 2)`, `use 2, 4, 8, ...; the nearest are ${2 ** Math.floor(Math.log2(Math.max(2, n)))} and ${2 ** Math.ceil(Math.log2(Math.max(2, n)))}`);
  }
  return Math.log2(n);
}

/** Check a positive integer parameter. */
export function positiveInt(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 1) throw new DslError(`${what} = ${n}`, `${what} must be a positive whole number`);
  return n;
}
