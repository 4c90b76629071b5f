// CRC software model: one parameter object describes the algorithm, and everything else —
// byte-at-a-time computation, the XOR matrices the hardware is built from, the residue a
// checker compares against — is derived from the same `update` function here. The hardware
// (crc.ts) and the testbench reference model (tb/model) both import this file, so the oracle
// and the RTL cannot drift apart. Pure TypeScript: no DSL imports, usable from tb/model.
//
// Conventions (the Williams "Painless Guide" model, as in reveng's catalogue and Amaranth):
// - The register (`CrcState`) is kept most-significant-bit first and not reflected; the
//   polynomial omits the x^width term. `reflectIn` feeds each byte least significant bit
//   first; `reflectOut` bit-reverses the register before `xorOut` is applied.
// - Bytes are processed in array order. In a data word, byte k sits at bits [8k+7:8k]
//   (AXI-Stream order: byte 0 is the first on the wire).

/** An unreflected CRC register value, `width` bits. */
export type CrcState = bigint;

export interface CrcParams {
  /** lower_snake_case name; also names the hardware module (`crc32` → `crc32_parallel`). */
  readonly name: string;
  readonly width: number;
  /** Generator polynomial without the x^width term, MSB = highest order term. */
  readonly polynomial: bigint;
  /** Register value before the first byte (unreflected). */
  readonly initial: bigint;
  readonly reflectIn: boolean;
  readonly reflectOut: boolean;
  readonly xorOut: bigint;
}

/** A linear map over GF(2): output bit i = parity(rows[i] & input). */
export type Gf2Matrix = readonly bigint[];

function mask(width: number): bigint { return (1n << BigInt(width)) - 1n; }

/** Reverse the low `width` bits of `x`. */
export function reflectBits(x: bigint, width: number): bigint {
  let r = 0n;
  for (let i = 0; i < width; i++) if ((x >> BigInt(i)) & 1n) r |= 1n << BigInt(width - 1 - i);
  return r;
}

/** Each byte value with its 8 bits reversed. */
const REFLECTED_BYTE = Uint8Array.from({ length: 256 }, (_, b) => Number(reflectBits(BigInt(b), 8)));

/** `CrcModel.update`'s table step for widths 8..32 in 32-bit numbers: the same register (MSB
 *  first, unreflected), the same table, the same order; `>>> 0` keeps the register unsigned. */
function updateTable32(table: Uint32Array, width: number, reflectIn: boolean, state: number, data: ArrayLike<number>): number {
  const shift = width - 8;
  const keep = width === 32 ? 0xffff_ffff : (1 << width) - 1;
  let reg = state >>> 0;
  for (let i = 0; i < data.length; i++) {
    const byte = reflectIn ? REFLECTED_BYTE[data[i]! & 0xff]! : data[i]! & 0xff;
    reg = (((reg << 8) & keep) ^ table[((reg >>> shift) ^ byte) & 0xff]!) >>> 0;
  }
  return reg;
}

/** Parity (XOR of all bits) of a non-negative bigint. */
export function parity(x: bigint): number {
  let p = 0n;
  while (x) { p ^= x; x >>= 64n; }
  p &= 0xffff_ffff_ffff_ffffn;
  p ^= p >> 32n; p ^= p >> 16n; p ^= p >> 8n; p ^= p >> 4n; p ^= p >> 2n; p ^= p >> 1n;
  return Number(p & 1n);
}

/** Apply a GF(2) matrix to a bit vector. */
export function applyMatrix(rows: Gf2Matrix, x: bigint): bigint {
  let r = 0n;
  rows.forEach((row, i) => { if (parity(row & x)) r |= 1n << BigInt(i); });
  return r;
}

/** Invert a square GF(2) matrix (Gauss–Jordan); null when it is singular. */
export function invertMatrix(rows: Gf2Matrix): bigint[] | null {
  const n = rows.length;
  // Augment each row with the identity in bits [2n-1:n].
  const a = rows.map((r, i) => r | (1n << BigInt(n + i)));
  for (let col = 0; col < n; col++) {
    const bit = 1n << BigInt(col);
    const pivot = a.findIndex((r, i) => i >= col && (r & bit) !== 0n);
    if (pivot < 0) return null;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    for (let i = 0; i < n; i++) if (i !== col && (a[i]! & bit)) a[i]! ^= a[col]!;
  }
  return a.map(r => r >> BigInt(n));
}

/** The CRC algorithm as software: compute, incremental update, and the matrices hardware uses. */
export class CrcModel {
  readonly params: CrcParams;
  readonly #mask: bigint;
  readonly #top: bigint;
  /** Register after shifting in one byte from a zero register (MSB-first table), width >= 8. */
  readonly #table: bigint[] | null;
  readonly #matrixCache = new Map<string, { state: bigint[]; data: bigint[] }>();
  /** The same table as 32-bit numbers, for widths 8..32 (update's fast path): the testbench
   *  checks the ICRC of every frame it sees, and bigint steps per byte cost it ~8 % of a
   *  two-NIC run's CPU (docs/bench.md). */
  readonly #table32: Uint32Array | null;

  constructor(params: CrcParams) {
    const { width, polynomial, initial, xorOut, name } = params;
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`CRC name '${name}' must be lower_snake_case`);
    if (!Number.isInteger(width) || width < 1 || width > 64) throw new Error(`CRC width ${width}: use 1..64`);
    for (const [k, v] of [['polynomial', polynomial], ['initial', initial], ['xorOut', xorOut]] as const) {
      if (v < 0n || v > mask(width)) throw new Error(`CRC ${name}: ${k} 0x${v.toString(16)} does not fit in ${width} bits`);
    }
    this.params = params;
    this.#mask = mask(width);
    this.#top = 1n << BigInt(width - 1);
    this.#table = width >= 8 ? Array.from({ length: 256 }, (_, b) => this.#shiftBits(BigInt(b) << BigInt(width - 8), 8)) : null;
    this.#table32 = this.#table && width <= 32 ? Uint32Array.from(this.#table, Number) : null;
  }

  get width(): number { return this.params.width; }

  /** The register before any data. */
  get initial(): CrcState { return this.params.initial; }

  /** Shift `n` zero bits through the register (polynomial division step). */
  #shiftBits(reg: bigint, n: number): bigint {
    const poly = this.params.polynomial;
    for (let i = 0; i < n; i++) reg = (reg & this.#top) ? ((reg << 1n) & this.#mask) ^ poly : (reg << 1n) & this.#mask;
    return reg;
  }

  /** Feed bytes into a register value; returns the new register. This is THE definition
   *  every other method (and the hardware) is derived from. */
  update(state: CrcState, data: ArrayLike<number>): CrcState {
    const { width, reflectIn } = this.params;
    if (this.#table32) return BigInt(updateTable32(this.#table32, width, reflectIn, Number(state), data));
    let reg = state;
    for (let i = 0; i < data.length; i++) {
      let byte = BigInt(data[i]! & 0xff);
      if (reflectIn) byte = reflectBits(byte, 8);
      if (this.#table) {
        const idx = Number(((reg >> BigInt(width - 8)) ^ byte) & 0xffn);
        reg = ((reg << 8n) & this.#mask) ^ this.#table[idx]!;
      } else {
        // Narrow CRCs: one bit at a time, message MSB first.
        for (let b = 7; b >= 0; b--) {
          const inBit = (byte >> BigInt(b)) & 1n;
          const fb = ((reg >> BigInt(width - 1)) & 1n) ^ inBit;
          reg = (reg << 1n) & this.#mask;
          if (fb) reg ^= this.params.polynomial;
        }
      }
    }
    return reg;
  }

  /** The CRC value of a finished register (reflect, then xor). */
  finalize(state: CrcState): bigint {
    const r = this.params.reflectOut ? reflectBits(state, this.params.width) : state;
    return r ^ this.params.xorOut;
  }

  /** CRC of a whole message. */
  compute(data: ArrayLike<number>): bigint { return this.finalize(this.update(this.initial, data)); }

  /** Incremental use: `const c = model.begin(); c.update(a); c.update(b); c.value()`. */
  begin(): CrcRunning { return new CrcRunning(this); }

  /** The CRC as bytes in transmission order: least significant byte first for reflected
   *  (Ethernet-style) CRCs, most significant first otherwise. Width must be a multiple of 8. */
  toBytes(crc: bigint): number[] {
    const n = this.params.width / 8;
    if (!Number.isInteger(n)) throw new Error(`CRC ${this.params.name}: ${this.params.width} bits is not whole bytes`);
    const le = Array.from({ length: n }, (_, i) => Number((crc >> BigInt(8 * i)) & 0xffn));
    return this.params.reflectOut ? le : le.reverse();
  }

  /** The CRC value of any message followed by its own CRC (in `toBytes` order). A checker
   *  computes over the whole codeword and compares with this instead of extracting the CRC. */
  residue(): bigint {
    const msg: number[] = [];
    return this.compute([...msg, ...this.toBytes(this.compute(msg))]);
  }

  /** Parallel step over a word of `nBytes` bytes: next = state·S ⊕ data·D, as GF(2) rows.
   *  `state[i]` selects register bits, `data[i]` selects bits of the word (byte k at bits
   *  [8k+7:8k]) that XOR into output bit i. Built by feeding unit vectors through `update`
   *  (the register update is linear when the initial value and xorOut are left out). */
  stepMatrix(nBytes: number): { readonly state: Gf2Matrix; readonly data: Gf2Matrix } {
    const key = String(nBytes);
    const hit = this.#matrixCache.get(key);
    if (hit) return hit;
    const w = this.params.width;
    const state = new Array<bigint>(w).fill(0n);
    const data = new Array<bigint>(w).fill(0n);
    const zeros = new Uint8Array(nBytes);
    for (let j = 0; j < w; j++) {
      const out = this.update(1n << BigInt(j), zeros);
      for (let i = 0; i < w; i++) if ((out >> BigInt(i)) & 1n) state[i]! |= 1n << BigInt(j);
    }
    for (let b = 0; b < 8 * nBytes; b++) {
      const word = new Uint8Array(nBytes);
      word[b >> 3] = 1 << (b & 7);
      const out = this.update(0n, word);
      for (let i = 0; i < w; i++) if ((out >> BigInt(i)) & 1n) data[i]! |= 1n << BigInt(b);
    }
    const result = { state, data };
    this.#matrixCache.set(key, result);
    return result;
  }

  /** The inverse of feeding `nBytes` zero bytes: turns the register after a word whose
   *  last `nBytes` bytes were masked to zero into the register after only the valid bytes.
   *  Exists whenever the polynomial has its x^0 term (every standard CRC). */
  unshiftMatrix(nBytes: number): Gf2Matrix {
    const inv = invertMatrix(this.stepMatrix(nBytes).state);
    if (!inv) throw new Error(`CRC ${this.params.name}: polynomial 0x${this.params.polynomial.toString(16)} has no x^0 term, so zero bytes cannot be undone`);
    return inv;
  }
}

/** A CRC in progress (software). */
export class CrcRunning {
  readonly #model: CrcModel;
  #state: CrcState;
  constructor(model: CrcModel) { this.#model = model; this.#state = model.initial; }
  update(data: ArrayLike<number>): this { this.#state = this.#model.update(this.#state, data); return this; }
  get state(): CrcState { return this.#state; }
  value(): bigint { return this.#model.finalize(this.#state); }
}

// ---- catalogue (reveng names) ----------------------------------------------------------

/** CRC-32/ISO-HDLC: Ethernet FCS, zip, and the RoCEv2 ICRC. check("123456789") = 0xCBF43926. */
export const CRC32: CrcParams = {
  name: 'crc32', width: 32, polynomial: 0x04c11db7n, initial: 0xffffffffn,
  reflectIn: true, reflectOut: true, xorOut: 0xffffffffn,
};
/** CRC-32C (Castagnoli, iSCSI, NVMe/TCP). check = 0xE3069283. */
export const CRC32C: CrcParams = {
  name: 'crc32c', width: 32, polynomial: 0x1edc6f41n, initial: 0xffffffffn,
  reflectIn: true, reflectOut: true, xorOut: 0xffffffffn,
};
/** CRC-16/XMODEM (unreflected, zero init). check = 0x31C3. */
export const CRC16_XMODEM: CrcParams = {
  name: 'crc16_xmodem', width: 16, polynomial: 0x1021n, initial: 0n,
  reflectIn: false, reflectOut: false, xorOut: 0n,
};
/** CRC-5/USB (narrower than a byte). check = 0x19. */
export const CRC5_USB: CrcParams = {
  name: 'crc5_usb', width: 5, polynomial: 0x05n, initial: 0x1fn,
  reflectIn: true, reflectOut: true, xorOut: 0x1fn,
};

/** The same algorithm with `prefix` bytes folded into the initial register, e.g. the RoCEv2
 *  ICRC's eight 0xFF bytes: hardware then starts from a constant instead of feeding them. */
export function withPrefix(params: CrcParams, name: string, prefix: ArrayLike<number>): CrcParams {
  return { ...params, name, initial: new CrcModel(params).update(params.initial, prefix) };
}

const models = new Map<string, CrcModel>();
/** The (cached) model of an algorithm. */
export function crcModel(params: CrcParams): CrcModel {
  let m = models.get(params.name);
  if (!m || m.params !== params) { m = new CrcModel(params); models.set(params.name, m); }
  return m;
}

/** CRC-32 (Ethernet) of bytes, as an unsigned number. */
export function crc32(data: ArrayLike<number>): number {
  return Number(crcModel(CRC32).compute(data));
}
