// Seeded random numbers for tests: every random test prints its seed, and SEED=<n>
// in the environment repeats a run exactly.

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number;
  bytes(n: number): Uint8Array;
  /** Uniform `bits`-bit bigint. */
  bigint(bits: number): bigint;
}

/** mulberry32: small, fast, and good enough for test stimulus. */
export function makeRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next, int,
    bytes: n => Uint8Array.from({ length: n }, () => int(0, 255)),
    bigint: bits => {
      let v = 0n;
      for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(int(0, 0xffff));
      return v & ((1n << BigInt(bits)) - 1n);
    },
  };
}

/** A generator seeded from $NICGEN_SEED (the project-wide replay variable; $SEED also
 *  accepted), or from the clock (the seed is returned to print). */
export function seededRandom(): { rng: Rng; seed: number } {
  const env = process.env['NICGEN_SEED'] || process.env['SEED'] || undefined;
  const seed = env !== undefined ? Number(env) >>> 0 : (Date.now() ^ (Math.random() * 0x1_0000_0000)) >>> 0;
  return { rng: makeRng(seed), seed };
}
