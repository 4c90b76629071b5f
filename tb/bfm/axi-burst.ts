// AXI4 burst arithmetic (AMBA AXI spec, A3.4): beat addresses, the byte lanes each beat
// uses, and the legality rules of a request. Pure functions, shared by the master, the
// memory slave and the checker so the three agree on what a burst means.

export const BURST = { FIXED: 0, INCR: 1, WRAP: 2 } as const;
export type BurstName = keyof typeof BURST;
const burstNames = ['FIXED', 'INCR', 'WRAP', 'reserved'] as const;

export interface AxiBurst {
  readonly id: number;
  readonly addr: bigint;
  /** AxLEN: beats - 1 (0..255). */
  readonly len: number;
  /** AxSIZE: log2 of the bytes per beat. */
  readonly size: number;
  /** AxBURST: 0 FIXED, 1 INCR, 2 WRAP. */
  readonly burst: number;
}

export function describeBurst(b: AxiBurst): string {
  return `id ${b.id} addr 0x${b.addr.toString(16)} len ${b.len} (${b.len + 1} beats) size ${b.size} (${1 << b.size} B) ${burstNames[b.burst] ?? b.burst}`;
}

/** Address of beat `i` (the first beat's is the unaligned start address). */
export function beatAddress(b: AxiBurst, i: number): bigint {
  const bytes = BigInt(1 << b.size);
  if (b.burst === BURST.FIXED || i === 0) return b.addr;
  const aligned = (b.addr / bytes) * bytes;
  if (b.burst === BURST.INCR) return aligned + BigInt(i) * bytes;
  const span = bytes * BigInt(b.len + 1);
  const base = (b.addr / span) * span;
  return base + ((b.addr - base + BigInt(i) * bytes) % span);
}

/** Below this, a burst's addresses are safe integers: lanes are computed with plain numbers
 *  (every beat of a memory model calls beatLanes; bigint division is slow). */
export const NUMBER_ADDRS = 1n << 52n;

/** beatAddress for a burst starting below NUMBER_ADDRS, as a number. */
export function beatAddressNumber(b: AxiBurst, i: number): number {
  const addr = Number(b.addr);
  const bytes = 1 << b.size;
  if (b.burst === BURST.FIXED || i === 0) return addr;
  const aligned = Math.floor(addr / bytes) * bytes;
  if (b.burst === BURST.INCR) return aligned + i * bytes;
  const span = bytes * (b.len + 1);
  const base = Math.floor(addr / span) * span;
  return base + ((addr - base + i * bytes) % span);
}

/** Byte lanes [lo, hi] (inclusive) that beat `i` uses on a bus of `busBytes`. */
export function beatLanes(b: AxiBurst, i: number, busBytes: number): { lo: number; hi: number } {
  if (b.addr < NUMBER_ADDRS) {
    const a = beatAddressNumber(b, i);
    const bytes = 1 << b.size;
    return { lo: a % busBytes, hi: (Math.floor(a / bytes) * bytes) % busBytes + bytes - 1 };
  }
  const a = beatAddress(b, i);
  const bytes = 1 << b.size;
  const lo = Number(a % BigInt(busBytes));
  const alignedLo = Number(((a / BigInt(bytes)) * BigInt(bytes)) % BigInt(busBytes));
  return { lo, hi: alignedLo + bytes - 1 };
}

/** Bit mask of the lanes of beat `i`. */
export function laneMask(b: AxiBurst, i: number, busBytes: number): bigint {
  const { lo, hi } = beatLanes(b, i, busBytes);
  return ((1n << BigInt(hi - lo + 1)) - 1n) << BigInt(lo);
}

/** Bytes the whole burst carries (the sum of each beat's lanes). */
export function burstBytes(b: AxiBurst, busBytes: number): number {
  let n = 0;
  for (let i = 0; i <= b.len; i++) { const { lo, hi } = beatLanes(b, i, busBytes); n += hi - lo + 1; }
  return n;
}

export interface BurstViolation {
  /** Without the channel prefix: `ADDR_BOUNDARY` becomes `AWADDR_BOUNDARY` on AW. */
  readonly rule: string;
  readonly detail: string;
}

/** The first rule the request breaks, or null. `ch` is 'AW' or 'AR' (for rule names). */
export function checkBurst(b: AxiBurst, busBytes: number, ch: 'AW' | 'AR'): BurstViolation | null {
  const x = ch.toLowerCase();
  const busSize = Math.log2(busBytes);
  if (b.size > busSize) return { rule: `${ch}SIZE`, detail: `${x}size ${b.size} (${1 << b.size} bytes) is wider than the ${busBytes}-byte bus` };
  if (b.burst === 3) return { rule: `${ch}BURST`, detail: `${x}burst 3 is reserved` };
  if (b.len < 0 || b.len > 255) return { rule: `${ch}LEN`, detail: `${x}len ${b.len} is outside 0..255` };
  if (b.burst === BURST.FIXED && b.len > 15) return { rule: `${ch}LEN_FIXED`, detail: `FIXED burst of ${b.len + 1} beats (at most 16)` };
  if (b.burst === BURST.WRAP) {
    if (![1, 3, 7, 15].includes(b.len)) return { rule: `${ch}LEN_WRAP`, detail: `WRAP burst of ${b.len + 1} beats (2, 4, 8 or 16 only)` };
    if (b.addr % BigInt(1 << b.size) !== 0n) return { rule: `${ch}ADDR_WRAP_ALIGN`, detail: `WRAP burst start 0x${b.addr.toString(16)} is not aligned to its ${1 << b.size}-byte beats` };
  }
  if (b.burst === BURST.INCR) {
    const bytes = BigInt(1 << b.size);
    const lastByte = (b.addr / bytes) * bytes + BigInt(b.len + 1) * bytes - 1n;
    if (b.addr >> 12n !== lastByte >> 12n) {
      return { rule: `${ch}ADDR_BOUNDARY`, detail: `burst 0x${b.addr.toString(16)}..0x${lastByte.toString(16)} crosses a 4 KiB boundary (${describeBurst(b)})` };
    }
  }
  return null;
}
