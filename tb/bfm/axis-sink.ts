// AXI4-Stream sink (cocotbext-axi's AxiStreamSink): takes a DUT's stream output with random
// backpressure and reassembles packets at tlast.
//
//   const sink = new AxiStreamSink(tb, dut.m_axis, { pause: 0.5 });
//   const { data, tuser } = await sink.recv();
//
// The AXI-Stream checker (axis-checker.ts) is attached by default, so a DUT that changes
// tdata while stalled, drops tvalid or sends a bad tkeep fails the test at that cycle.

import type { TestBench } from '../core/index.ts';
import { watchAxiStream, type AxisBeat } from './axis-checker.ts';
import type { ChannelWatch } from './channel-checker.ts';
import { ChannelReceiver } from './channel-receiver.ts';
import { ClockPhases } from './clock-phases.ts';
import { pauser, type Pause } from './pause.ts';
import { big, portWidth, type AxisOutPorts } from './ports.ts';

export interface AxisSinkOptions {
  readonly name?: string;
  /** tready low with this probability per cycle (or a function). Default 0. */
  readonly pause?: Pause;
  /** Run the AXI-Stream checker (default true). */
  readonly check?: boolean;
}

export interface AxisPacket {
  readonly data: Uint8Array;
  /** tuser of the last beat (RX MACs flag a bad frame there). */
  readonly tuser: bigint;
  readonly beats: number;
  /** Cycle of the last beat. */
  readonly cycle: number;
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
  #parts: Uint8Array[] = [];
  #beats = 0;

  constructor(tb: TestBench, ports: AxisOutPorts, options: AxisSinkOptions = {}) {
    this.#tb = tb;
    this.name = options.name ?? ports.tdata.name.replace(/_tdata$/, '');
    this.beatBytes = portWidth(tb, ports.tdata) / 8;
    const rng = tb.rng.fork();
    // The receiver only drives tready; beats are collected by the checker's onBeat, so
    // checking and reassembly see the same sample. Without the checker a plain read is used.
    const receiver = new ChannelReceiver<AxisBeat>({ valid: ports.tvalid, ready: ports.tready }, () => ({
      data: big(ports.tdata.value),
      keep: ports.tkeep ? big(ports.tkeep.value) : (1n << BigInt(this.beatBytes)) - 1n,
      last: ports.tlast ? ports.tlast.value !== 0 : true,
      user: ports.tuser ? big(ports.tuser.value) : 0n,
    }), pauser(options.pause, rng, `${this.name} pause`));
    const phases = ClockPhases.of(tb);
    if (options.check === false) {
      this.watch = null;
      phases.onSample(() => {
        const b = receiver.sample();
        if (b) this.#take(b, tb.cycle);
      });
    } else {
      this.watch = watchAxiStream(tb, ports, this.name, { onBeat: (b, cycle) => this.#take(b, cycle) });
    }
    phases.onDrive(() => receiver.drive());
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
    const bytes = new Uint8Array(this.beatBytes);
    let d = b.data;
    for (let i = 0; i < this.beatBytes; i++) { bytes[i] = Number(d & 0xffn); d >>= 8n; }
    // tkeep is contiguous from byte 0 (checked), so its popcount is the byte count.
    const count = b.keep.toString(2).replace(/0/g, '').length;
    this.#parts.push(bytes.subarray(0, count));
    this.#beats++;
    this.stats.beats++;
    this.stats.bytes += count;
    if (!b.last) return;
    const total = this.#parts.reduce((s, p) => s + p.length, 0);
    const data = new Uint8Array(total);
    let off = 0;
    for (const p of this.#parts) { data.set(p, off); off += p.length; }
    this.#packets.push({ data, tuser: b.user, beats: this.#beats, cycle });
    this.stats.packets++;
    this.#parts = [];
    this.#beats = 0;
  }
}
