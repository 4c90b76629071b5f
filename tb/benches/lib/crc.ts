// CRC32 hardware benches (crcParallel(CRC32), 8- and 64-byte beats) against the software
// model in gen/lib/crc-model.ts: random packet lengths 1..3000 bytes, every byte count on
// the last beat, back-to-back packets and random valid gaps, codewords for `match`.
//
// Zero-length packets are not supported by the hardware: every valid beat must have
// keep[0] set (its assertion "keep must be contiguous from byte 0"). tb/tests/lib/crc.test.ts
// checks that such a beat is reported by that assertion rather than silently miscounted.

import type { IOOf } from '../../../gen/hdl/index.ts';
import { CRC32, crcModel, crcParallel, type CrcHwParams } from '../../../gen/lib/crc.ts';
import type { Rng, TestFn, TypedDesign } from '../../core/index.ts';
import { design } from '../../design.ts';
import { defineBench, type BenchGroup } from '../bench.ts';
import { big, bit, checkEq, checkThat } from '../check.ts';

export type CrcIO = IOOf<ReturnType<typeof crcParallel>>;

interface Beat { readonly data: bigint; readonly keep: number | bigint; readonly start: boolean; readonly last: boolean }
interface Packet { readonly bytes: Uint8Array; readonly codeword: boolean; readonly index: number }

/** Splits a packet into beats; lanes past the end carry junk the hardware must ignore. */
export function toBeats(rng: Rng, bytes: Uint8Array, width: number): Beat[] {
  const beats: Beat[] = [];
  for (let off = 0; off < bytes.length; off += width) {
    const n = Math.min(width, bytes.length - off);
    let word = 0n;
    for (let k = width - 1; k >= 0; k--) word = (word << 8n) | BigInt(k < n ? bytes[off + k]! : rng.int(0, 255));
    const keep = (1n << BigInt(n)) - 1n;
    beats.push({ data: word, keep: width > 32 ? keep : Number(keep), start: off === 0, last: off + width >= bytes.length });
  }
  return beats;
}

/** Packet lengths: one per last-beat byte count (1..width), then random 1..maxLen. */
function lengths(rng: Rng, width: number, random: number, maxLen: number): number[] {
  const out: number[] = [];
  for (let n = 1; n <= width; n++) out.push(rng.int(0, Math.floor((maxLen - n) / width)) * width + n);
  for (let i = 0; i < random; i++) out.push(rng.pick([rng.int(1, 2 * width), rng.int(1, maxLen)]));
  return rng.shuffle(out);
}

/** Every fourth packet is a codeword (payload + its own CRC in wire order): `match` must be
 *  high for those and low for the others. */
export function crcRandom(p: CrcHwParams, randomPackets: number, maxLen = 3000): TestFn<CrcIO> {
  return async function crcRandomBench(dut, tb) {
    const model = crcModel(CRC32);
    const rng = tb.rng.fork();
    const width = p.bytes;
    const packets: Packet[] = lengths(rng, width, randomPackets, maxLen).map((len, index) => {
      const codeword = index % 4 === 3 && len > 4;
      let bytes = rng.bytes(codeword ? len - 4 : len);
      if (codeword) bytes = Uint8Array.from([...bytes, ...model.toBytes(model.compute(bytes))]);
      return { bytes, codeword, index };
    });
    const coveredLast = new Set(packets.map(q => ((q.bytes.length - 1) % width) + 1));
    checkEq(tb, 'distinct last-beat byte counts in the schedule', coveredLast.size, width);

    dut.valid.value = 0;
    await tb.reset(2);
    // Gap probability per beat changes in phases: back-to-back stretches and gappy ones.
    let gapP = 0, phaseLeft = 0;
    let checked = 0;
    // `ended`: the packet whose last beat the coming edge samples; crc_valid is high right
    // after that edge (registered), with crc and match for it.
    let ended: Packet | undefined;
    const observe = (): void => {
      checkEq(tb, 'crc_valid', bit(dut.crc_valid.value), ended !== undefined, () => (ended ? `packet ${ended.index} (${ended.bytes.length} bytes) ended at this edge` : 'no packet ended at this edge'));
      if (!ended) return;
      const q = ended;
      const want = model.compute(q.bytes);
      const ctx = (): string => `packet ${q.index}: ${q.bytes.length} bytes, ${((q.bytes.length - 1) % width) + 1} on the last beat${q.codeword ? ', codeword' : ''}`;
      checkEq(tb, 'crc', big(dut.crc.value), want, ctx);
      checkEq(tb, 'match', bit(dut.match.value), q.codeword, ctx);
      if (q.codeword) checkEq(tb, 'crc of a codeword (the residue)', want, model.residue(), ctx);
      checked++;
    };
    for (const q of packets) {
      for (const b of toBeats(rng, q.bytes, width)) {
        if (phaseLeft-- <= 0) { phaseLeft = rng.int(20, 200); gapP = rng.pick([0, 0, 0.2, 0.6]); }
        while (rng.bool(gapP)) {
          dut.valid.value = 0;
          // Junk on the idle bus: the CRC must only move on valid beats.
          dut.data.value = rng.bigint(8 * width);
          dut.keep.value = rng.bigint(width);
          dut.start.value = rng.int(0, 1);
          dut.last.value = rng.int(0, 1);
          ended = undefined;
          await tb.rising();
          observe();
        }
        dut.valid.value = 1;
        dut.data.value = b.data;
        dut.keep.value = b.keep;
        dut.start.value = b.start ? 1 : 0;
        dut.last.value = b.last ? 1 : 0;
        ended = b.last ? q : undefined;
        await tb.rising();
        observe();
      }
    }
    dut.valid.value = 0;
    ended = undefined;
    await tb.rising();
    observe();
    checkThat(tb, checked === packets.length, () => `${checked} CRCs checked, ${packets.length} packets sent`);
  };
}

export const crcDesign = (bytes: number): TypedDesign<CrcIO> => design(crcParallel(CRC32), { bytes, skip: 0 });

export const crcBenches: BenchGroup = {
  random_bytes8: defineBench({ about: 'CRC32, 8-byte beats: 1..3000-byte packets, every last-beat byte count, gaps and back-to-back, match on codewords', design: () => crcDesign(8), test: crcRandom({ bytes: 8, skip: 0 }, 400) }),
  random_bytes64: defineBench({ about: 'CRC32, 64-byte beats: as random_bytes8, all 64 last-beat byte counts', design: () => crcDesign(64), test: crcRandom({ bytes: 64, skip: 0 }, 200) }),
};
