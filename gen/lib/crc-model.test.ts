import { describe, expect, it } from 'vitest';
import CRC32JS from 'crc-32';
import { CRC16_XMODEM, CRC32, CRC32C, CRC5_USB, crc32, crcModel, invertMatrix, applyMatrix, withPrefix, type CrcParams } from './crc-model.ts';
import { seededRandom } from '../../tb/tests/seed.ts';

const check = [...Buffer.from('123456789')];

describe('CRC software model', () => {
  it('gives the catalogue check values', () => {
    expect(crcModel(CRC32).compute(check)).toBe(0xcbf43926n);
    expect(crc32(check)).toBe(0xcbf43926);
    expect(crcModel(CRC32C).compute(check)).toBe(0xe3069283n);
    expect(crcModel(CRC16_XMODEM).compute(check)).toBe(0x31c3n);
    expect(crcModel(CRC5_USB).compute(check)).toBe(0x19n);
  });

  it('matches the crc-32 package on random data', () => {
    const { rng, seed } = seededRandom();
    console.log(`crc-model random test seed=${seed} (NICGEN_SEED=${seed} to repeat)`);
    for (let t = 0; t < 200; t++) {
      const len = rng.int(0, t < 100 ? 64 : 3000);
      const data = rng.bytes(len);
      expect(crc32(data), `seed=${seed} case=${t} len=${len}`).toBe(CRC32JS.buf(data) >>> 0);
    }
  });

  // update() runs widths 8..32 through a 32-bit number table step; this oracle is the textbook
  // bit-serial register (Williams), written here with none of the model's code.
  it('agrees with a bit-serial oracle for random algorithms of widths 5..40', () => {
    const { rng, seed } = seededRandom();
    const reflect = (x: bigint, w: number): bigint => { let r = 0n; for (let i = 0; i < w; i++) if ((x >> BigInt(i)) & 1n) r |= 1n << BigInt(w - 1 - i); return r; };
    const oracle = (p: CrcParams, data: Uint8Array): bigint => {
      const top = 1n << BigInt(p.width - 1), mask = (1n << BigInt(p.width)) - 1n;
      let reg = p.initial;
      for (const b of data) {
        for (let k = 0; k < 8; k++) {
          const bit = p.reflectIn ? (b >> k) & 1 : (b >> (7 - k)) & 1;
          const fb = ((reg & top) !== 0n) !== (bit === 1);
          reg = (reg << 1n) & mask;
          if (fb) reg ^= p.polynomial;
        }
      }
      return (p.reflectOut ? reflect(reg, p.width) : reg) ^ p.xorOut;
    };
    for (let t = 0; t < 300; t++) {
      const width = [5, 8, 12, 16, 24, 31, 32, 40][t % 8]!;
      const p: CrcParams = { name: `crc_random_${t}`, width, polynomial: rng.bigint(width) | 1n, initial: rng.bigint(width), reflectIn: rng.bool(), reflectOut: rng.bool(), xorOut: rng.bigint(width) };
      const data = rng.bytes(rng.int(0, 100));
      expect(crcModel(p).compute(data), `seed=${seed} case=${t} ${JSON.stringify(p, (_, v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v))}`).toBe(oracle(p, data));
    }
  });

  it('updates incrementally like it computes in one go', () => {
    const { rng, seed } = seededRandom();
    const m = crcModel(CRC32C);
    for (let t = 0; t < 50; t++) {
      const data = rng.bytes(rng.int(0, 200));
      const cut = rng.int(0, data.length);
      const run = m.begin().update(data.subarray(0, cut)).update(data.subarray(cut));
      expect(run.value(), `seed=${seed}`).toBe(m.compute(data));
    }
  });

  it('has the well-known residue', () => {
    expect(crcModel(CRC32).residue()).toBe(0x2144df1cn);
    const data = [1, 2, 3, 4, 5];
    const m = crcModel(CRC32);
    expect(m.compute([...data, ...m.toBytes(m.compute(data))])).toBe(m.residue());
  });

  it('folds a prefix into the initial value', () => {
    const pre = withPrefix(CRC32, 'crc32_ff8', new Uint8Array(8).fill(0xff));
    const data = [9, 8, 7];
    expect(crcModel(pre).compute(data)).toBe(crcModel(CRC32).compute([...new Array(8).fill(0xff), ...data]));
  });

  it('step matrices equal byte-wise updates, and unshift undoes zero bytes', () => {
    const { rng, seed } = seededRandom();
    for (const p of [CRC32, CRC16_XMODEM, CRC5_USB]) {
      const m = crcModel(p);
      for (const n of [1, 3, 8]) {
        const { state, data } = m.stepMatrix(n);
        for (let t = 0; t < 20; t++) {
          const s = rng.bigint(p.width);
          const bytes = rng.bytes(n);
          const word = bytes.reduceRight((acc, b) => (acc << 8n) | BigInt(b), 0n);
          expect(applyMatrix(state, s) ^ applyMatrix(data, word), `${p.name} n=${n} seed=${seed}`).toBe(m.update(s, bytes));
          expect(applyMatrix(m.unshiftMatrix(n), m.update(s, new Uint8Array(n))), `${p.name} unshift ${n}`).toBe(s);
        }
      }
    }
  });

  it('inverts GF(2) matrices and detects singular ones', () => {
    const id = [1n, 2n, 4n];
    expect(invertMatrix(id)).toEqual(id);
    expect(invertMatrix([3n, 3n, 4n])).toBeNull();
    const a = [0b011n, 0b110n, 0b001n];
    const inv = invertMatrix(a)!;
    for (let x = 0n; x < 8n; x++) expect(applyMatrix(inv, applyMatrix(a, x))).toBe(x);
  });
});
