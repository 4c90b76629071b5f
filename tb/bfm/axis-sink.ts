// AXI4-Stream sink (cocotbext-axi's AxiStreamSink): takes a DUT's stream output with random
// backpressure and reassembles packets at tlast.
//
//   const sink = new AxiStreamSink(tb, dut.m_axis, { pause: 0.5 });
//   const { data, tuser } = await sink.recv();
//
// The AXI-Stream checker (axis-checker.ts) is attached by default, so a DUT that changes
// tdata while stalled, drops tvalid or sends a bad tkeep fails the test at that cycle.

import type { ClockHandle, TestBench } from '../core/index.ts';
import { keepReader, SampledBeat, watchAxiStream, type AxisBeat } from './axis-checker.ts';
import type { ChannelWatch } from './channel-checker.ts';
import { ChannelReceiver } from './channel-receiver.ts';
import { HOST_LE } from './byte-memory.ts';
import { ClockPhases } from './clock-phases.ts';
import { pauser, type Pause } from './pause.ts';
import { big, portWidth, type AxisOutPorts, type Bits } from './ports.ts';

export interface AxisSinkOptions {
  readonly name?: string;
  /** tready low with this probability per cycle (or a function). Default 0. */
  readonly pause?: Pause;
  /** Run the AXI-Stream checker (default true). */
  readonly check?: boolean;
  /** The stream's clock (default: the testbench's; needed in a design with several). */
  readonly clock?: ClockHandle;
}

export interface AxisPacket {
  readonly data: Uint8Array;
  /** tuser of the last beat (RX MACs flag a bad frame there). */
  readonly tuser: bigint;
  readonly beats: number;
  /** Cycle of the last beat. */
  readonly cycle: number;
  /** Cycle of the first beat (idle cycles inside the packet: cycle - firstCycle + 1 - beats). */
  readonly firstCycle: number;
}

export interface RecvOptions {
  /** Cycles to wait at most (default 100 000). */
  readonly timeout?: number;
}

export class AxiStreamSink {
  readonly name: string;
  readonly beatBytes: number;
  readonly watch: ChannelWatch | null;
  readonly stats = { packets: 0, beats: 0, bytes: 0 };
  readonly #tb: TestBench;
  readonly #packets: AxisPacket[] = [];
  /** The packet being received: bytes [0, #fill) of #buf (grown by doubling, in whole words). */
  #buf = new Uint8Array(4096);
  /** #buf as 32-bit words on a little-endian host: full beats are copied word by word. */
  #buf32: Uint32Array | null = HOST_LE ? new Uint32Array(this.#buf.buffer) : null;
  #fill = 0;
  #beats = 0;
  #firstCycle = 0;

  constructor(tb: TestBench, ports: AxisOutPorts, options: AxisSinkOptions = {}) {
    this.#tb = tb;
    this.name = options.name ?? ports.tdata.name.replace(/_tdata$/, '');
    this.beatBytes = portWidth(tb, ports.tdata) / 8;
    const rng = tb.rng.fork();
    // The receiver only drives tready; beats are collected by the checker's onBeat, so
    // checking and reassembly see the same sample. Without the checker a plain read is used.
    const keep = keepReader(ports, this.beatBytes);
    // Probed once: a missing port's lookup records the miss with a stack trace (port-names.ts),
    // which at every packet cost more than the rest of the sink.
    const tuser = ports.tuser;
    const receiver = new ChannelReceiver<AxisBeat>({ valid: ports.tvalid, ready: ports.tready },
      () => SampledBeat.read(ports, this.beatBytes, keep), pauser(options.pause, rng, `${this.name} pause`));
    const phases = ClockPhases.of(tb, options.clock);
    if (options.check === false) {
      this.watch = null;
      phases.onSample(() => {
        const b = receiver.sample();
        if (b) this.#take(b, tb.cycle);
      });
    } else {
      this.watch = watchAxiStream(tb, ports, this.name, {
        ...(options.clock ? { clock: options.clock } : {}),
        onBeat: (b, cycle) => this.#take(b, cycle),
        // DUT ports: bytes go from tdata's words straight into the packet buffer.
        onBeatWords: (words, kept, last, cycle) => this.#takeWords(words, kept, last, cycle, tuser),
      });
    }
    // A sink that never pauses drives tready high once: nothing else writes it.
    const stop = phases.onDrive(() => { receiver.drive(); if (receiver.alwaysReady) stop(); });
  }

  /** Packets received and not yet taken with recv(). */
  get count(): number {
    return this.#packets.length;
  }

  /** The next packet, waiting for it if needed. */
  async recv(options: RecvOptions = {}): Promise<AxisPacket> {
    if (this.#packets.length === 0) {
      await this.#tb.until(() => this.#packets.length > 0, { timeout: options.timeout ?? 100_000, what: `${this.name} recv` });
    }
    return this.#packets.shift()!;
  }

  #take(b: AxisBeat, cycle: number): void {
    // tkeep is contiguous from byte 0 (checked), so its popcount is the byte count.
    const count = b.kept;
    this.#room(count);
    this.#buf.set(count === b.bytes.length ? b.bytes : b.bytes.subarray(0, count), this.#fill);
    this.#counted(count, b.last, b.user, cycle);
  }

  #takeWords(words: Uint32Array, count: number, last: boolean, cycle: number, tuser: { readonly value: Bits } | undefined): void {
    this.#room(count);
    const buf = this.#buf, at = this.#fill, buf32 = this.#buf32;
    if (buf32 !== null && (at & 3) === 0 && count === 4 * words.length) {
      for (let k = 0, j = at >>> 2; k < words.length; k++) buf32[j + k] = words[k]!;
    } else {
      for (let i = 0; i < count; i++) buf[at + i] = (words[i >>> 2]! >>> ((i & 3) << 3)) & 0xff;
    }
    this.#counted(count, last, last && tuser ? big(tuser.value) : 0n, cycle);
  }

  /** Makes room for `count` more bytes in the packet buffer. */
  #room(count: number): void {
    if (this.#fill + count <= this.#buf.length) return;
    const grown = new Uint8Array(8 * Math.ceil((this.#fill + count) / 4));
    grown.set(this.#buf.subarray(0, this.#fill));
    this.#buf = grown;
    this.#buf32 = HOST_LE ? new Uint32Array(grown.buffer) : null;
  }

  /** Counts a beat of `count` bytes just copied in; closes the packet at tlast. */
  #counted(count: number, last: boolean, user: bigint, cycle: number): void {
    this.#fill += count;
    if (this.#beats === 0) this.#firstCycle = cycle;
    this.#beats++;
    this.stats.beats++;
    this.stats.bytes += count;
    if (!last) return;
    this.#packets.push({ data: this.#buf.slice(0, this.#fill), tuser: user, beats: this.#beats, cycle, firstCycle: this.#firstCycle });
    this.stats.packets++;
    this.#fill = 0;
    this.#beats = 0;
  }


}
