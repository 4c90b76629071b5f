// Benchmark design: the DSL's own 512-bit parallel CRC32 (gen/lib/crc.ts crcParallel(CRC32)
// with 64-byte beats, the `crc32_parallel_bytes64` top of gen/tops.ts), emitted and built
// like every other simulated design, plus the stimulus all three drivers share.
//
// Stimulus per cycle (xorshift32, the same sequence in TS and in the C++ loop): 16 random
// data words, then one control word that picks an idle beat (1 in 16), the packet length
// in beats (1..8) on a start beat, and the byte count of the last beat (1..64) as tkeep.

import { CRC32, crcModel, crcParallel } from '../gen/lib/crc.ts';
import type { DesignSources } from '../sim/build.ts';
import { design } from '../tb/design.ts';

export const crcDesign = () => design(crcParallel(CRC32), { bytes: 64 });

/** The CRC32 residue the design's `match` output compares against. */
export const crcResidue = Number(crcModel(CRC32).residue());

/**
 * The one-line changes for the warm-rebuild measurement, each a different constant per
 * `tweak` (xored in) in one line of the emitted Verilog, as when one expression is edited:
 * - 'match': `assign match = crc_valid_reg && (crc_out == 32'h…);` (output stage);
 * - 'network': the first register mask in `assign state_next = {(^(state_in & 32'h…) …`
 *   (the per-cycle XOR network, a single long line).
 */
export type CrcChange = 'match' | 'network';

export function crcSources(tweak = 0, change: CrcChange = 'match'): DesignSources {
  const d = crcDesign();
  if (tweak === 0) return d;
  const files = new Map(d.files);
  const [name, text] = [...files][0]!;
  const lines = text.split('\n');
  const prefix = change === 'match' ? 'assign match = ' : 'assign state_next = ';
  const at = lines.findIndex(l => l.startsWith(prefix));
  if (at < 0) throw new Error(`no line starting with '${prefix}' in ${name}`);
  lines[at] = lines[at]!.replace(/32'h([0-9a-f]+)/, (_m, hex: string) => `32'h${((parseInt(hex, 16) ^ tweak) >>> 0).toString(16)}`);
  files.set(name, lines.join('\n'));
  return { manifest: d.manifest, files };
}

/** Buffer word offsets of the ports the stimulus drives. */
export interface BeatSlots {
  readonly data: number;
  readonly keep: number;
  readonly valid: number;
  readonly start: number;
  readonly last: number;
}

/** Packets of random beats; writes one beat per call straight into the model's buffer. */
export class CrcStimulus {
  private s = 1;
  private left = 0;

  beat(buf: Uint32Array, at: BeatSlots): void {
    let s = this.s;
    const data = at.data;
    for (let w = 0; w < 16; w++) {
      s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
      buf[data + w] = s;
    }
    s ^= s << 13; s ^= s >>> 17; s ^= s << 5;
    this.s = s;
    const r = s >>> 0;
    const valid = (r & 15) !== 0;
    buf[at.valid] = valid ? 1 : 0;
    if (!valid) return;
    const start = this.left === 0;
    if (start) this.left = 1 + ((r >>> 4) & 7);
    const last = this.left === 1;
    this.left--;
    const n = last ? 1 + ((r >>> 7) & 63) : 64;
    buf[at.keep] = n >= 32 ? 0xffffffff : (1 << n) - 1;
    buf[at.keep + 1] = n === 64 ? 0xffffffff : n > 32 ? (1 << (n - 32)) - 1 : 0;
    buf[at.start] = start ? 1 : 0;
    buf[at.last] = last ? 1 : 0;
  }
}

/** The same generator in C++ (body of the per-cycle loop; `buf`, `s`, `left` in scope). */
export function beatCpp(at: BeatSlots): string {
  return `for (int w = 0; w < 16; w++) {
            s ^= s << 13; s ^= s >> 17; s ^= s << 5;
            buf[${at.data} + w] = s;
        }
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        buf[${at.valid}] = (s & 15) != 0;
        if (s & 15) {
            bool start = left == 0;
            if (start) left = 1 + ((s >> 4) & 7);
            bool last = left == 1;
            left--;
            uint32_t n = last ? 1 + ((s >> 7) & 63) : 64;
            buf[${at.keep}] = n >= 32 ? 0xffffffffu : (1u << n) - 1;
            buf[${at.keep} + 1] = n == 64 ? 0xffffffffu : n > 32 ? (1u << (n - 32)) - 1 : 0;
            buf[${at.start}] = start;
            buf[${at.last}] = last;
        }`;
}

/** Bytes of the beat now in the buffer (tkeep lanes only), for the software reference. */
export function beatBytes(buf: Uint32Array, at: BeatSlots): number[] {
  const out: number[] = [];
  for (let k = 0; k < 64; k++) {
    if (((buf[at.keep + (k >>> 5)]! >>> (k & 31)) & 1) === 0) break;
    out.push((buf[at.data + (k >>> 2)]! >>> (8 * (k & 3))) & 0xff);
  }
  return out;
}
