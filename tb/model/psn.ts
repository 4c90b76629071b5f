// 24-bit packet sequence numbers. They wrap, so "before" and "after" only mean something inside
// a window of ±2^23 (NIC.md): compare by the sign of the difference shifted into the top of a
// signed 32-bit number, never with < on the raw values.

export const PSN_BITS = 24;
export const PSN_MASK = 0xff_ffff;
export const PSN_MODULUS = 0x100_0000;

/** True for an integer in 0..2^24-1. */
export function isPsn(x: number): boolean {
  return Number.isInteger(x) && x >= 0 && x <= PSN_MASK;
}

function check(psn: number, what: string): void {
  if (!isPsn(psn)) throw new RangeError(`${what} ${psn} is not a 24-bit PSN`);
}

/** `psn + n` modulo 2^24; `n` may be negative. */
export function psnAdd(psn: number, n: number): number {
  check(psn, 'psnAdd: PSN');
  if (!Number.isSafeInteger(n)) throw new RangeError(`psnAdd: step ${n} is not an integer`);
  return (((psn + n) % PSN_MODULUS) + PSN_MODULUS) % PSN_MODULUS;
}

/** Signed distance a - b in the ±2^23 window: ((a - b) << 8) as int32, shifted back. */
export function psnDiff(a: number, b: number): number {
  check(a, 'psnDiff: PSN'); check(b, 'psnDiff: PSN');
  return ((a - b) << 8) >> 8;
}

/** -1, 0 or 1: the sign of ((a - b) << 8) as a signed 32-bit number (NIC.md). */
export function psnCompare(a: number, b: number): -1 | 0 | 1 {
  const d = psnDiff(a, b);
  return d < 0 ? -1 : d > 0 ? 1 : 0;
}

/** `count` consecutive PSNs starting at `start`, wrapping at 2^24. */
export function psnRange(start: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => psnAdd(start, i));
}
