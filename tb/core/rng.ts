// Seeded random numbers for stimulus: sfc32, seeded through splitmix32 so nearby seeds
// give unrelated streams. Same seed, same sequence, on every machine.

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** A fresh random seed when the user gives none (printed on failure so it can be replayed). */
export function randomSeed(): number {
  return (Math.random() * 0x1_0000_0000) >>> 0;
}

/** `NICGEN_SEED` from the environment, if set. */
export function envSeed(): number | undefined {
  const raw = process.env['NICGEN_SEED'];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`NICGEN_SEED must be an integer 0..4294967295, got ${raw}`);
  return n;
}

export class Rng {
  readonly seed: number;
  /** sfc32's a, b, c, d. In an Int32Array, not number fields: values above 2^30 in fields
   *  are boxed, and the memory models draw 16 words per 64-byte beat. */
  readonly #s = new Int32Array(4);

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`Rng seed must be an integer 0..4294967295, got ${seed}`);
    this.seed = seed;
    const sm = splitmix32(seed);
    for (let i = 0; i < 4; i++) this.#s[i] = sm();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    // All arithmetic is mod 2^32, so the signed words give the same stream.
    const st = this.#s;
    const a = st[0]!, b = st[1]!, c = st[2]!, d = st[3]!;
    const t = (a + b + d) | 0;
    st[3] = (d + 1) | 0;
    st[0] = b ^ (b >>> 9);
    st[1] = (c + (c << 3)) | 0;
    st[2] = (((c << 21) | (c >>> 11)) + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return (this.u32() * 0x20_0000 + (this.u32() >>> 11)) / 2 ** 53;
  }

  /** Uniform integer in [lo, hi], both inclusive (no modulo bias). */
  int(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo) throw new RangeError(`rng.int(${lo}, ${hi}): need integers with lo <= hi`);
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  /** Uniform `bits`-bit unsigned bigint. */
  bigint(bits: number): bigint {
    let v = 0n;
    for (let i = 0; i < bits; i += 32) v = (v << 32n) | BigInt(this.u32());
    return BigInt.asUintN(bits, v);
  }

  /** True with probability p. */
  bool(p = 0.5): boolean {
    return this.float() < p;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    // Four bytes per draw, low byte first. One loop with no branch left cold: a branch V8 has
    // never seen taken deoptimises the callers when it is (the memory models call this per beat).
    let w = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 3) === 0) w = this.u32();
      out[i] = w & 0xff;
      w >>>= 8;
    }
    return out;
  }

  /** bytes(out.length), written into `out` (the same stream, no allocation). */
  fillBytes(out: Uint8Array): void {
    let w = 0;
    for (let i = 0; i < out.length; i++) {
      if ((i & 3) === 0) w = this.u32();
      out[i] = w & 0xff;
      w >>>= 8;
    }
  }

  /** Advances the stream exactly as bytes(n) would, without building the bytes. */
  skipBytes(n: number): void {
    for (let i = 0; i < n; i += 4) this.u32();
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('rng.pick: empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** Shuffles in place (Fisher–Yates) and returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }

  /** An independent generator derived from this one (e.g. one per bus model). */
  fork(): Rng {
    return new Rng(this.u32());
  }
}
