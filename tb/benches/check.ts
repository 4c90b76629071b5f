// Comparisons for benches that run outside vitest too (`nicgen sim`), so they cannot use
// `expect`. A failure names the signal or quantity, both values, and the cycle; runTest
// then adds the seed and the replay hint.

import type { TestBench } from '../core/index.ts';

export class BenchMismatch extends Error {
  readonly cycle: number;
  constructor(message: string, cycle: number) {
    super(message);
    this.name = 'BenchMismatch';
    this.cycle = cycle;
  }
}

/** Hex for bit vectors, decimal for small counts. */
export function fmt(v: unknown): string {
  if (typeof v === 'bigint') return `0x${v.toString(16)}`;
  if (typeof v === 'number') return v > 9 ? `${v} (0x${v.toString(16)})` : String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `0x${x.toString(16)}` : x));
}

/** Fails with `what: got X, expected Y at cycle N (context)` unless the values are equal. */
export function checkEq<T extends number | bigint | boolean | string>(tb: TestBench, what: string, got: T, want: T, context?: () => string): void {
  if (got === want) return;
  const ctx = context ? `; ${context()}` : '';
  throw new BenchMismatch(`${what}: got ${fmt(got)}, expected ${fmt(want)} at cycle ${tb.cycle}${ctx}`, tb.cycle);
}

/** Fails with `message at cycle N` unless `ok`. */
export function checkThat(tb: TestBench, ok: boolean, message: () => string): void {
  if (!ok) throw new BenchMismatch(`${message()} at cycle ${tb.cycle}`, tb.cycle);
}

/** A port value of a plain bit vector as a number (ports up to 32 bits read as numbers). */
export function num(v: number | bigint): number {
  return typeof v === 'number' ? v : Number(v);
}

/** As a bigint (wide ports read as bigints, narrow ones as numbers). */
export function big(v: number | bigint): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

/** A 1-bit port as a boolean. */
export function bit(v: number | bigint): boolean {
  return v !== 0 && v !== 0n;
}
