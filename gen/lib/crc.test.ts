import { describe, expect, it } from 'vitest';
import { CRC16_XMODEM, CRC32, CRC32C, CRC5_USB, crcModel, crcParallel, crcPlan, crcPlanFinal, crcPlanStep, type CrcParams } from './crc.ts';
import { seededRandom } from '../../tb/tests/seed.ts';
import type { Rng } from '../../tb/core/rng.ts';

function wordOf(bytes: Uint8Array): bigint {
  return bytes.reduceRight((acc, b) => (acc << 8n) | BigInt(b), 0n);
}

/** Run a packet through the software mirror of the hardware datapath, beat by beat. */
function hwCrc(params: CrcParams, bytesPerBeat: number, skip: number, packet: Uint8Array, rng: Rng): bigint {
  const plan = crcPlan(params, bytesPerBeat, skip);
  let state = rng.bigint(params.width); // whatever the register held before: start must ignore it
  let keep = 0n;
  for (let off = 0, first = true; off < packet.length; off += bytesPerBeat, first = false) {
    const n = Math.min(bytesPerBeat, packet.length - off);
    const beat = new Uint8Array(bytesPerBeat);
    beat.set(packet.subarray(off, off + n));
    for (let k = n; k < bytesPerBeat; k++) beat[k] = rng.int(0, 255); // garbage in invalid lanes
    keep = (1n << BigInt(n)) - 1n;
    state = crcPlanStep(plan, state, wordOf(beat), keep, first);
  }
  return crcPlanFinal(plan, state, keep);
}

describe('parallel CRC plan (the numbers the hardware is built from)', () => {
  it('equals the byte-wise model for every byte-enable count of the last beat', () => {
    const { rng, seed } = seededRandom();
    console.log(`crc plan test seed=${seed}`);
    for (const p of [CRC32, CRC32C, CRC16_XMODEM, CRC5_USB]) {
      for (const K of [1, 2, 4, 8, 64]) {
        for (let n = 1; n <= K; n++) {
          for (const beats of [1, 3]) {
            const len = (beats - 1) * K + n;
            const packet = rng.bytes(len);
            expect(hwCrc(p, K, 0, packet, rng), `${p.name} K=${K} len=${len} seed=${seed}`).toBe(crcModel(p).compute(packet));
          }
        }
      }
    }
  });

  it('skips leading header bytes on the start beat', () => {
    const { rng, seed } = seededRandom();
    for (const [K, skip] of [[64, 14], [16, 14], [8, 6], [4, 1]] as const) {
      for (let t = 0; t < 30; t++) {
        const len = rng.int(skip + 1, 4 * K);
        const packet = rng.bytes(len);
        expect(hwCrc(CRC32, K, skip, packet, rng), `K=${K} skip=${skip} len=${len} seed=${seed}`)
          .toBe(crcModel(CRC32).compute(packet.subarray(skip)));
      }
    }
  });

  it('elaborates for several widths and algorithms', () => {
    for (const p of [CRC32, CRC32C, CRC16_XMODEM, CRC5_USB]) {
      for (const bytes of [1, 2, 8, 64]) expect(() => crcParallel(p).elaborate({ bytes })).not.toThrow();
    }
    expect(crcParallel(CRC32).elaborate({ bytes: 64, skip: 14 }).name).toBe('crc32_parallel_bytes64_skip14');
    expect(() => crcParallel(CRC32).elaborate({ bytes: 4, skip: 4 })).toThrow(/skip/);
  });

  it('refuses two different algorithms under one name', () => {
    expect(() => crcParallel({ ...CRC32 })).toThrow(/named 'crc32'/);
  });
});
