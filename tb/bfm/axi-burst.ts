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
  const bytes = 1 << b.size;
  // INCR and FIXED in closed form (the memory model and the checker count every read burst):
  // a beat's lanes run from its address to the end of its size-aligned slot, which lies in
  // one bus word when the size divides the bus width. Only the first INCR beat can be unaligned.
  if (b.addr < NUMBER_ADDRS && busBytes % bytes === 0 && (b.burst === BURST.INCR || b.burst === BURST.FIXED)) {
    const first = bytes - (Number(b.addr) % bytes);
    return b.burst === BURST.INCR ? first + b.len * bytes : first * (b.len + 1);
  }
  let n = 0;
  for (let i = 0; i <= b.len; i++) { const { lo, hi } = beatLanes(b, i, busBytes); n += hi - lo + 1; }
  return n;
}

/** `a % m` for a safe integer `a >= 0` and a power of two `m <= 2^31`, from the low 32 bits
 *  (ToUint32 is exact modulo 2^32): `%` on a double above 2^31 is a library call. */
function lowBits(a: number, m: number): number {
  return ((a >>> 0) & (m - 1)) >>> 0;
}

/**
 * Walks the beats of one burst that starts below NUMBER_ADDRS with plain numbers: `seek(i)`
 * sets the beat's lanes and its bus-aligned address in place, so a model that handles a beat
 * every cycle converts the start address from bigint once per burst and allocates nothing
 * per beat. Same results as beatLanes / beatAddressNumber.
 */
export class BeatCursor {
  /** Byte lanes [lo, hi] of the beat last sought. */
  lo = 0;
  hi = 0;
  /** Its address rounded down to the bus word. */
  base = 0;
  readonly #b: AxiBurst;
  readonly #addr: number;
  readonly #busBytes: number;
  /** The bus width is a power of two and the beat size fits it (every legal burst on a real
   *  bus): offsets come from the address's low bits. */
  readonly #pow2: boolean;

  constructor(b: AxiBurst, busBytes: number) {
    if (b.addr >= NUMBER_ADDRS) throw new RangeError(`BeatCursor: burst at 0x${b.addr.toString(16)} is above 2^52 (use beatLanes)`);
    this.#b = b;
    this.#addr = Number(b.addr);
    this.#busBytes = busBytes;
    this.#pow2 = busBytes > 0 && busBytes <= 2 ** 31 && (busBytes & (busBytes - 1)) === 0 && (1 << b.size) <= busBytes;
  }

  /** A cursor for `b`, or null when it starts too high for plain numbers. */
  static of(b: AxiBurst, busBytes: number): BeatCursor | null {
    return b.addr < NUMBER_ADDRS ? new BeatCursor(b, busBytes) : null;
  }

  seek(i: number): void {
    if (!this.#pow2) { this.#seekAny(i); return; }
    const b = this.#b, n = this.#busBytes, addr = this.#addr, bytes = 1 << b.size;
    let a: number;
    if (b.burst === BURST.FIXED || i === 0) a = addr;
    else if (b.burst === BURST.INCR) a = addr - lowBits(addr, bytes) + i * bytes;
    else {
      const span = bytes * (b.len + 1);
      const wrapBase = (span & (span - 1)) === 0 ? addr - lowBits(addr, span) : Math.floor(addr / span) * span;
      a = wrapBase + ((addr - wrapBase + i * bytes) % span);
    }
    const lo = lowBits(a, n);
    this.lo = lo;
    this.hi = lo - lowBits(a, bytes) + bytes - 1;   // the beat's size-aligned slot lies in one bus word
    this.base = a - lo;
  }

  /** seek() for a bus width that is not a power of two, or a size wider than the bus (which
   *  the checker rejects): the plain formulas. */
  #seekAny(i: number): void {
    const b = this.#b, n = this.#busBytes, bytes = 1 << b.size;
    const a = beatAddressNumber(b, i);
    this.lo = a % n;
    this.hi = (Math.floor(a / bytes) * bytes) % n + bytes - 1;
    this.base = Math.floor(a / n) * n;
  }
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
