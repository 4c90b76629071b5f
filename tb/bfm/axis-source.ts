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

import type { TestBench } from '../core/index.ts';
import { watchAxiStream } from './axis-checker.ts';
import type { ChannelWatch } from './channel-checker.ts';
import { ChannelDriver } from './channel-driver.ts';
import { ClockPhases } from './clock-phases.ts';
import { pauser, type Pause } from './pause.ts';
import { big, forPort, portWidth, type AxisInPorts, type Bits } from './ports.ts';

export interface AxisSourceOptions {
  /** Name in messages (default: the tdata port's prefix). */
  readonly name?: string;
  /** Idle cycles before each beat (probability per cycle, or a function). Default 0. */
  readonly pause?: Pause;
  /** Attach the AXI-Stream checker to this bus (default true): checks the DUT's tready side too. */
  readonly check?: boolean;
}

export interface AxisSendOptions {
  readonly tuser?: Bits;
}

interface Beat {
  readonly data: bigint;
  readonly keep: bigint;
  readonly last: boolean;
  readonly user: bigint;
}

export class AxiStreamSource {
  readonly name: string;
  /** Bytes per beat. */
  readonly beatBytes: number;
  /** The attached checker, if any (counts transfers and stall cycles). */
  readonly watch: ChannelWatch | null;
  readonly stats = { packets: 0, beats: 0, bytes: 0 };
  readonly #tb: TestBench;
  readonly #ports: AxisInPorts;
  readonly #driver: ChannelDriver<Beat>;
  readonly #rng;
  #queuedPackets = 0;

  constructor(tb: TestBench, ports: AxisInPorts, options: AxisSourceOptions = {}) {
    this.#tb = tb;
    this.#ports = ports;
    this.name = options.name ?? ports.tdata.name.replace(/_tdata$/, '');
    this.#rng = tb.rng.fork();
    const width = portWidth(tb, ports.tdata);
    this.beatBytes = width / 8;
    const keepW = this.beatBytes, userW = ports.tuser ? portWidth(tb, ports.tuser) : 0;
    this.#driver = new ChannelDriver<Beat>({ valid: ports.tvalid, ready: ports.tready }, b => {
      ports.tdata.value = forPort(b.data, width);
      if (ports.tkeep) ports.tkeep.value = forPort(b.keep, keepW);
      if (ports.tlast) ports.tlast.value = b.last ? 1 : 0;
      if (ports.tuser) ports.tuser.value = forPort(b.user, userW);
    }, pauser(options.pause, this.#rng, `${this.name} pause`));
    this.watch = options.check === false ? null : watchAxiStream(tb, ports, `${this.name} (source side)`);
    const phases = ClockPhases.of(tb);
    phases.onSample(() => this.#driver.sample(tb.cycle));
    phases.onDrive(() => this.#driver.drive());
  }

  /** Queues a packet (at least one byte) and returns at once; `wait()` waits until it is out. */
  send(packet: Uint8Array, options: AxisSendOptions = {}): void {
    if (packet.length === 0) throw new RangeError(`${this.name}: cannot send an empty packet (AXI-Stream has no zero-length beats here)`);
    const n = this.beatBytes;
    if (!this.#ports.tkeep && packet.length % n !== 0) {
      throw new RangeError(`${this.name}: no tkeep, so packets must be whole beats of ${n} bytes; got ${packet.length}`);
    }
    if (!this.#ports.tlast && packet.length > n) {
      throw new RangeError(`${this.name}: no tlast, so a packet is one beat of at most ${n} bytes; got ${packet.length}`);
    }
    const user = big(options.tuser ?? 0);
    this.#queuedPackets++;
    for (let off = 0; off < packet.length; off += n) {
      const count = Math.min(n, packet.length - off);
      let data = 0n;
      for (let i = n - 1; i >= 0; i--) data = (data << 8n) | BigInt(i < count ? packet[off + i]! : this.#rng.int(0, 255));
      const last = off + n >= packet.length;
      const beat = { data, keep: (1n << BigInt(count)) - 1n, last, user };
      this.#driver.push(beat, () => {
        this.stats.beats++;
        this.stats.bytes += count;
        if (last) { this.stats.packets++; this.#queuedPackets--; }
      });
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
