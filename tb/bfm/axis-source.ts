// AXI4-Stream source (cocotbext-axi's AxiStreamSource): drives a DUT's stream input with
// queued packets, with random idle cycles between beats.
//
//   const src = new AxiStreamSource(tb, dut.s_axis, { pause: 0.3 });
//   src.send(rng.bytes(100), { tuser: 0 });
//   await src.wait();
//
// Packets go out little-endian (byte 0 in tdata[7:0]), tkeep contiguous from byte 0 and
// only the last beat partial; the unused bytes of that beat carry random data so a DUT
// that ignores tkeep is caught. tuser is driven on every beat of its packet.

import type { ClockHandle, TestBench } from '../core/index.ts';
import { watchAxiStream } from './axis-checker.ts';
import type { ChannelWatch } from './channel-checker.ts';
import { ChannelDriver } from './channel-driver.ts';
import { bytesToWord, bytesToWords, HOST_LE } from './byte-memory.ts';
import { ClockPhases } from './clock-phases.ts';
import { pauser, type Pause } from './pause.ts';
import { big, forPort, portWidth, setterOf, wordOf, type AxisInPorts, type Bits } from './ports.ts';

export interface AxisSourceOptions {
  /** Name in messages (default: the tdata port's prefix). */
  readonly name?: string;
  /** Idle cycles before each beat (probability per cycle, or a function). Default 0. */
  readonly pause?: Pause;
  /** Attach the AXI-Stream checker to this bus (default true): checks the DUT's tready side too. */
  readonly check?: boolean;
  /** The stream's clock (default: the testbench's; needed in a design with several). */
  readonly clock?: ClockHandle;
}

export interface AxisSendOptions {
  readonly tuser?: Bits;
}

interface Beat {
  /** tdata is `n` bytes of `data` from `at` (byte 0 = tdata[7:0]): the packet's copy for a
   *  full beat (no array per beat), an array of its own for a partial one (random filler). */
  readonly data: Uint8Array;
  readonly at: number;
  /** `data` as 32-bit words (little-endian host, whole-word beats) for a full beat, else null. */
  readonly words: Uint32Array | null;
  /** Bytes tkeep marks (from byte 0). */
  readonly count: number;
  readonly last: boolean;
  readonly user: bigint;
  /** `user` as a number when it fits a tuser of up to 32 bits, else -1 (the setter's path):
   *  no bigint compare or conversion per beat. */
  readonly userWord: number;
}

export class AxiStreamSource {
  readonly name: string;
  /** Bytes per beat. */
  readonly beatBytes: number;
  /** The attached checker, if any (counts transfers and stall cycles). */
  readonly watch: ChannelWatch | null;
  readonly stats = { packets: 0, beats: 0, bytes: 0 };
  readonly #tb: TestBench;
  readonly #hasKeep: boolean;
  readonly #hasLast: boolean;
  readonly #driver: ChannelDriver<Beat>;
  readonly #rng;
  #queuedPackets = 0;
  /** Values below this go straight into tuser's word (0: never, the setter takes them all). */
  readonly #userLimit: bigint;
  /** Counts a beat once it is transferred (one function for all beats, not one per beat). */
  readonly #sent = (_cycle: number, b: Beat): void => {
    this.stats.beats++;
    this.stats.bytes += b.count;
    if (b.last) { this.stats.packets++; this.#queuedPackets--; }
  };

  constructor(tb: TestBench, ports: AxisInPorts, options: AxisSourceOptions = {}) {
    this.#tb = tb;
    this.name = options.name ?? ports.tdata.name.replace(/_tdata$/, '');
    this.#rng = tb.rng.fork();
    const width = portWidth(tb, ports.tdata);
    this.beatBytes = width / 8;
    // Optional ports probed once (a missing one's lookup records the miss with a stack trace).
    const tkeep = ports.tkeep, tuser = ports.tuser, tlast = ports.tlast;
    this.#hasKeep = tkeep !== undefined;
    this.#hasLast = tlast !== undefined;
    const keepW = this.beatBytes, userW = tuser ? portWidth(tb, tuser) : 0;
    const dataWords = ports.tdata.words, keepWords = tkeep?.words;
    const setLast = tlast ? setterOf(tlast) : undefined;
    const userWord = tuser?.words && userW <= 32 ? tuser.words : undefined;
    this.#userLimit = userWord ? 1n << BigInt(userW) : 0n;
    this.#driver = new ChannelDriver<Beat>({ valid: ports.tvalid, ready: ports.tready }, b => {
      // Wide data goes to the port's words directly; stand-in handles get values.
      const bw = b.words;
      if (dataWords && bw !== null && dataWords.length === this.beatBytes >>> 2) {
        for (let k = 0, j = b.at >>> 2; k < dataWords.length; k++) dataWords[k] = bw[j + k]!;
      } else if (dataWords) bytesToWords(b.data, dataWords, b.at, this.beatBytes);
      else ports.tdata.value = forPort(bytesToWord(b.data.subarray(b.at, b.at + this.beatBytes)), width);
      if (keepWords) keepToWords(b.count, keepWords);
      else if (tkeep) tkeep.value = forPort((1n << BigInt(b.count)) - 1n, keepW);
      if (setLast) setLast(b.last ? 1 : 0);
      // In range: straight into the word; otherwise the port's setter reports the misfit.
      if (userWord && b.userWord >= 0) userWord[0] = b.userWord;
      else if (tuser) tuser.value = forPort(b.user, userW);
    }, pauser(options.pause, this.#rng, `${this.name} pause`));
    this.watch = options.check === false ? null : watchAxiStream(tb, ports, `${this.name} (source side)`, options.clock ? { clock: options.clock } : {});
    const phases = ClockPhases.of(tb, options.clock);
    // A beat is on the bus only while tvalid (its word, written by the driver) is high.
    phases.onSampleWhile(wordOf(ports.tvalid), () => this.#driver.sample(tb.cycle));
    phases.onDrive(() => this.#driver.drive());
  }

  /** Queues a packet (at least one byte) and returns at once; `wait()` waits until it is out. */
  send(packet: Uint8Array, options: AxisSendOptions = {}): void {
    if (packet.length === 0) throw new RangeError(`${this.name}: cannot send an empty packet (AXI-Stream has no zero-length beats here)`);
    const n = this.beatBytes;
    if (!this.#hasKeep && packet.length % n !== 0) {
      throw new RangeError(`${this.name}: no tkeep, so packets must be whole beats of ${n} bytes; got ${packet.length}`);
    }
    if (!this.#hasLast && packet.length > n) {
      throw new RangeError(`${this.name}: no tlast, so a packet is one beat of at most ${n} bytes; got ${packet.length}`);
    }
    const user = big(options.tuser ?? 0);
    const userWord = user >= 0n && user < this.#userLimit ? Number(user) : -1;
    const copy = packet.slice();   // as sent: the caller may reuse its buffer
    // Its whole words, for full beats (a beat starts at a multiple of n, so of 4).
    const words = HOST_LE && n % 4 === 0 && copy.byteOffset % 4 === 0 ? new Uint32Array(copy.buffer, copy.byteOffset, copy.length >>> 2) : null;
    this.#queuedPackets++;
    for (let off = 0; off < packet.length; off += n) {
      const count = Math.min(n, packet.length - off);
      let data = copy, at = off, beatWords = words;
      if (count < n) {
        beatWords = null;
        data = new Uint8Array(n);
        at = 0;
        data.set(copy.subarray(off, off + count));
        // Random filler in the unkept lanes, drawn from the top lane down.
        for (let i = n - 1; i >= count; i--) data[i] = this.#rng.int(0, 255);
      }
      const last = off + n >= packet.length;
      const beat = { data, at, words: beatWords, count, last, user, userWord };
      this.#driver.push(beat, this.#sent);
    }
  }

  /** Packets not yet completely transferred. */
  get queued(): number {
    return this.#queuedPackets;
  }

  get idle(): boolean {
    return this.#driver.pending === 0;
  }

  /** Waits until every queued beat has been transferred. */
  async wait(timeout = 100_000): Promise<void> {
    await this.#tb.until(() => this.idle, { timeout, what: `${this.name} source idle` });
  }
}

/** tkeep with its low `count` bits set, into its words. */
function keepToWords(count: number, w: Uint32Array): void {
  for (let i = 0; i < w.length; i++) {
    const n = Math.min(32, Math.max(0, count - 32 * i));
    w[i] = n === 32 ? 0xffffffff : (1 << n) - 1;
  }
}
