import { describe, expect, it } from 'vitest';
import CRC32JS from 'crc-32';
import { CRC16_XMODEM, CRC32, CRC32C, CRC5_USB, crc32, crcModel, invertMatrix, applyMatrix, withPrefix } from './crc-model.ts';
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
