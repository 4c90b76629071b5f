// AXI4-Stream rules on top of the ready/valid checker, for any stream: the ends of a DUT
// (the source and sink models attach it by default) or an internal stream.
//
//   TVALID_STABLE, TDATA_STABLE, TKEEP_STABLE, TLAST_STABLE, TUSER_STABLE  (channel-checker.ts)
//   TKEEP_ZERO        a beat with no valid byte (zero-length beats are not used here)
//   TKEEP_CONTIGUOUS  valid bytes not contiguous from byte 0 (packed streams only)
//   TKEEP_FULL        a beat before tlast that is not full
//
// Packed streams with contiguous tkeep are what MACs such as Corundum's and Xilinx CMAC
// exchange; null and position bytes in the middle of a packet are not supported here.

import type { ClockHandle, TestBench } from '../core/index.ts';
import { bytesToWord, wordsToBytes, wordToBytes } from './byte-memory.ts';
import { watchChannel, type ChannelWatch } from './channel-checker.ts';
import { big, popcount, portWidth, valueWords, wordOf, wordsValue, type Readable } from './ports.ts';
import { ProtocolError } from './protocol-error.ts';

export interface AxisWatchPorts {
  readonly tdata: Readable;
  readonly tvalid: Readable;
  readonly tready: Readable;
  readonly tkeep?: Readable;
  readonly tlast?: Readable;
  readonly tuser?: Readable;
}

export interface AxisBeat {
  readonly data: bigint;
  /** All ones when the stream has no tkeep. */
  readonly keep: bigint;
  /** True when the stream has no tlast (every beat ends a packet). */
  readonly last: boolean;
  readonly user: bigint;
  /** tdata as bytes, byte 0 = tdata[7:0] (all lanes, kept or not). */
  readonly bytes: Uint8Array;
  /** Bytes tkeep marks valid (its popcount: the beat's length, as tkeep is contiguous from byte 0). */
  readonly kept: number;
}

/** A beat as sampled: tdata bytes copied at the handshake, bigints only on demand. */
export class SampledBeat implements AxisBeat {
  readonly bytes: Uint8Array;
  readonly last: boolean;
  readonly user: bigint;
  readonly kept: number;
  /** onesRun(tkeep): -1 when tkeep is not contiguous from byte 0. */
  readonly run: number;
  /** A copy of tkeep when it is not contiguous (else it follows from `run`). */
  readonly #oddKeep: Uint32Array | null;
  constructor(bytes: Uint8Array, keep: Uint32Array, last: boolean, user: bigint) {
    this.bytes = bytes;
    this.last = last;
    this.user = user;
    this.run = onesRun(keep);
    this.#oddKeep = this.run >= 0 ? null : keep.slice();
    this.kept = this.run >= 0 ? this.run : popcount(keep);
  }
  get data(): bigint {
    return bytesToWord(this.bytes);
  }
  get keep(): bigint {
    return this.#oddKeep ? wordsValue(this.#oddKeep) : (1n << BigInt(this.run)) - 1n;
  }

  /** Samples a stream's ports now (tdata/tkeep through their words when the handles have them). */
  static read(ports: AxisWatchPorts, beatBytes: number, keep: () => Uint32Array = keepReader(ports, beatBytes)): SampledBeat {
    const d = ports.tdata.words;
    const bytes = d ? wordsToBytes(d, new Uint8Array(beatBytes)) : wordToBytes(big(ports.tdata.value), beatBytes);
    const user = ports.tuser === undefined ? 0n : big(ports.tuser.value);
    return new SampledBeat(bytes, keep(), lastOf(ports.tlast), user);
  }
}

/** tkeep's words as they are now: the live port words, all ones without tkeep, or a
 *  stand-in's value. Read them before the next edge; they are not a copy. */
export function keepReader(ports: AxisWatchPorts, beatBytes: number): () => Uint32Array {
  const k = ports.tkeep;
  if (k === undefined) { const full = fullKeep(beatBytes); return () => full; }
  const w = k.words;
  if (w) return () => w;
  return () => valueWords(k.value, Math.ceil(beatBytes / 32));
}

function lastOf(l: Readable | undefined): boolean {
  if (l === undefined) return true;
  return l.words?.length === 1 ? l.words[0] !== 0 : big(l.value) !== 0n;
}

/** The length of the run of ones from bit 0, or -1 when a bit above it is set too. */
function onesRun(w: Uint32Array): number {
  let i = 0, n = 0;
  while (i < w.length && w[i] === 0xffffffff) { i++; n += 32; }
  if (i === w.length) return n;
  const x = w[i]!;
  if ((x & (x + 1)) !== 0) return -1;
  n += 32 - Math.clz32(x);
  for (i++; i < w.length; i++) if (w[i] !== 0) return -1;
  return n;
}

function fullKeep(bytes: number): Uint32Array {
  const w = new Uint32Array(Math.ceil(bytes / 32));
  for (let i = 0; i < bytes; i++) w[i >>> 5]! |= 1 << (i & 31);
  return w;
}

export interface AxisWatchOptions {
  readonly reset?: Readable;
  /** The stream's clock (default: the testbench's; needed in a design with several). */
  readonly clock?: ClockHandle;
  /** Called for every beat after the rules passed. */
  readonly onBeat?: (beat: AxisBeat, cycle: number) => void;
  /**
   * Instead of onBeat when tdata is a DUT port: its live words (read them during the call,
   * they change at the next edge), the kept byte count and tlast. For a listener that copies
   * the bytes anyway (the sink), so no beat object is built.
   */
  readonly onBeatWords?: (data: Uint32Array, kept: number, last: boolean, cycle: number) => void;
}

export function watchAxiStream(tb: TestBench, ports: AxisWatchPorts, name: string, options: AxisWatchOptions = {}): ChannelWatch {
  const bytes = portWidth(tb, ports.tdata) / 8;
  const payload = { tdata: ports.tdata, tkeep: ports.tkeep, tlast: ports.tlast, tuser: ports.tuser };
  const kname = ports.tkeep?.name ?? 'tkeep';
  const onBeat = options.onBeat, onBeatWords = options.onBeatWords, dataWords = ports.tdata.words;
  const keepOf = keepReader(ports, bytes);
  // Optional ports probed once (a missing one's lookup records the miss with a stack trace).
  const tlast = ports.tlast;
  const lastWord = tlast ? wordOf(tlast) : null;
  return watchChannel(tb, { valid: ports.tvalid, ready: ports.tready, payload }, name, {
    ...(options.reset ? { reset: options.reset } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    onHandshake: cycle => {
      // The rules read tkeep and tlast in place; the beat (a copy of tdata) is built only
      // for an onBeat listener.
      // (No closure per beat: tsx wraps every function it creates in a naming call.)
      const keep = keepOf(), run = onesRun(keep);
      if (run === 0) throw new ProtocolError(name, 'TKEEP_ZERO', cycle, `beat with ${kname} == 0 (no valid byte)`);
      if (run < 0) throw new ProtocolError(name, 'TKEEP_CONTIGUOUS', cycle, `${kname} = 0b${wordsValue(keep).toString(2)} is not contiguous from byte 0`);
      const last = lastWord !== null ? lastWord[0] !== 0 : lastOf(tlast);
      if (!last && run !== bytes) {
        throw new ProtocolError(name, 'TKEEP_FULL', cycle, `${kname} = 0b${wordsValue(keep).toString(2)} on a beat without tlast (only the last beat may be partial)`);
      }
      if (onBeatWords && dataWords) onBeatWords(dataWords, run, last, cycle);
      else onBeat?.(SampledBeat.read(ports, bytes, keepOf), cycle);
    },
  });
}
