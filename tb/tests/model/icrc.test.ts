import { describe, expect, it } from 'vitest';
import { appendIcrc, carriedIcrc, checkIcrc, icrcMaskedOffsets, icrcOfFrame, ipPacket, ipv4Offset, ICRC_PARAMS } from '../../model/icrc.ts';
import { CRC32, crcModel } from '../../../gen/lib/crc-model.ts';
import { seededRandom } from '../seed.ts';
import { readVectors } from './helpers.ts';


describe('RoCEv2 ICRC model', () => {
  const vectors = readVectors();

  it('reads the vector file', () => {
    expect(vectors.length).toBeGreaterThan(0);
  });

  it('matches the last four bytes of every good vector, and not of bad ones', () => {
    for (const v of vectors) {
      const body = v.frame.subarray(0, v.frame.length - 4);
      const t = v.frame.subarray(v.frame.length - 4);
      const trailer = (t[0]! | (t[1]! << 8) | (t[2]! << 16) | (t[3]! << 24)) >>> 0;
      expect(icrcOfFrame(body) === trailer, `${v.label}: computed 0x${icrcOfFrame(body).toString(16)}, frame carries 0x${trailer.toString(16)}`).toBe(v.good);
      expect(checkIcrc(v.frame), v.label).toBe(v.good);
    }
  });

  it('equals CRC-32 over 0xFF x 8 + the masked packet (the definition, spelled out)', () => {
    for (const v of vectors.filter(x => x.good)) {
      const ip = Uint8Array.from(ipPacket(v.frame).subarray(0, -4));
      for (const o of [1, 8, 10, 11, 26, 27, 32]) ip[o] = 0xff;
      expect(Number(crcModel(CRC32).compute([...new Array<number>(8).fill(0xff), ...ip])), v.label).toBe(carriedIcrc(v.frame));
    }
    expect(icrcMaskedOffsets()).toEqual([1, 8, 10, 11, 26, 27, 32]);
    expect(ICRC_PARAMS.initial).toBe(crcModel(CRC32).update(CRC32.initial, new Uint8Array(8).fill(0xff)));
  });

  it('ignores changes to masked fields and catches changes anywhere else', () => {
    const { rng, seed } = seededRandom();
    console.log(`icrc corruption test seed=${seed}`);
    for (const v of vectors.filter(x => x.good)) {
      const ipStart = ipv4Offset(v.frame);
      const masked = new Set(icrcMaskedOffsets().map(o => o + ipStart));
      for (let t = 0; t < 20; t++) {
        const f = Uint8Array.from(v.frame);
        const at = rng.int(ipStart, f.length - 1);
        // IHL and total length move the fields and the ICRC themselves: not a plain corruption.
        if (at === ipStart || at === ipStart + 2 || at === ipStart + 3) continue;
        f[at] = f[at]! ^ (1 << rng.int(0, 7));
        expect(checkIcrc(f), `${v.label} flip at byte ${at} seed=${seed}`).toBe(masked.has(at));
      }
    }
  });

  it('appends an ICRC that checks', () => {
    for (const v of vectors.filter(x => x.good)) {
      expect(appendIcrc(v.frame.subarray(0, v.frame.length - 4))).toEqual(v.frame);
    }
  });
});
