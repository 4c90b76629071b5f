// Cycle-based bus models for the DMA engine benches (stand-ins until tb/bfm has its own).
//
// Every agent takes part in one loop per clock cycle:
//   drive()  right after a rising edge: set this agent's DUT inputs for the next edge;
//   sample() after the falling edge, when the DUT's combinational outputs have settled
//            against those inputs: see which handshakes the next rising edge completes,
//            and check the protocol (a valid payload must hold until it is taken).
// One coroutine runs the loop, so agents never race each other.

import type { TestBench } from '../../core/testbench.ts';
import type { Rng } from '../../core/rng.ts';
import type { HostMemory } from '../../model/host-memory.ts';

export interface Agent {
  drive(cycle: number): void;
  sample(cycle: number): void;
}

/** Runs the agents every cycle until `done()` (checked after each edge) or `limit` cycles. */
export async function runAgents(tb: TestBench, agents: readonly Agent[], done: () => boolean, limit: number, what: string): Promise<void> {
  const start = tb.cycle;
  while (!done()) {
    if (tb.cycle - start > limit) throw new Error(`${what}: not finished after ${limit} cycles (cycle ${tb.cycle})`);
    for (const a of agents) a.drive(tb.cycle);
    await tb.falling();
    for (const a of agents) a.sample(tb.cycle);
    await tb.rising();
  }
}

// ---- handle shapes (structural, so any DutOf<> port fits) ---------------------------------

type Bits = number | bigint;
export interface In<T> { value: T }
export interface Out<T> { readonly value: T }
export interface StreamIn<T> { valid: In<number>; ready: Out<number>; data: In<T> }
export interface StreamOut<T> { valid: Out<number>; ready: In<number>; data: Out<T> }
export interface AxisOut { tvalid: Out<number>; tready: In<number>; tdata: Out<Bits>; tkeep?: Out<Bits>; tlast?: Out<number> }
export interface AxisIn { tvalid: In<number>; tready: Out<number>; tdata: In<Bits>; tkeep?: In<Bits>; tlast?: In<number> }

const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `0x${x.toString(16)}` : x));

/** Little-endian bytes <-> a bus word. */
export function wordOf(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}
export function bytesOf(word: Bits, n: number): Uint8Array {
  let v = BigInt(word);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) { out[i] = Number(v & 0xffn); v >>= 8n; }
  return out;
}

/** Drives a ready/valid stream into the DUT from a queue; `validP` is the chance to offer an item each cycle. */
export class StreamSource<T> implements Agent {
  readonly queue: T[] = [];
  readonly sentAt: number[] = [];
  #busy = false;
  constructor(private readonly port: StreamIn<T>, private readonly rng: Rng, public validP = 1) { port.valid.value = 0; }
  get idle(): boolean { return this.queue.length === 0 && !this.#busy; }
  drive(): void {
    if (this.#busy) return;
    if (this.queue.length > 0 && this.rng.bool(this.validP)) {
      this.port.data.value = this.queue[0]!;
      this.port.valid.value = 1;
      this.#busy = true;
    } else this.port.valid.value = 0;
  }
  sample(cycle: number): void {
    if (this.#busy && this.port.ready.value) {
      this.queue.shift();
      this.sentAt.push(cycle);
      this.#busy = false;
    }
  }
}

/** Takes items from a DUT stream with random ready; checks that valid items hold until taken. */
export class StreamSink<T> implements Agent {
  readonly items: { value: T; cycle: number }[] = [];
  #pending: string | null = null;
  constructor(private readonly port: StreamOut<T>, private readonly rng: Rng, private readonly name: string, public readyP = 1) {}
  drive(): void { this.port.ready.value = this.rng.bool(this.readyP) ? 1 : 0; }
  sample(cycle: number): void {
    const valid = this.port.valid.value;
    const now = valid ? show(this.port.data.value) : null;
    if (this.#pending !== null && now !== this.#pending) {
      throw new Error(`${this.name}: item changed or dropped before it was taken at cycle ${cycle}: ${this.#pending} -> ${now ?? 'valid low'}`);
    }
    if (valid && this.port.ready.value) {
      this.items.push({ value: this.port.data.value, cycle });
      this.#pending = null;
    } else this.#pending = now;
  }
}

/** Sends byte packets on an AXI-Stream: beats packed from byte 0, full but for the last. */
export class AxisSource implements Agent {
  readonly #beats: { data: bigint; keep: bigint; last: number }[] = [];
  #busy = false;
  constructor(private readonly port: AxisIn, private readonly bytes: number, private readonly rng: Rng, public validP = 1) { port.tvalid.value = 0; }
  send(packet: Uint8Array): void {
    for (let o = 0; o < packet.length; o += this.bytes) {
      const n = Math.min(this.bytes, packet.length - o);
      const chunk = new Uint8Array(this.bytes);
      chunk.set(packet.subarray(o, o + n));
      // Bytes past tkeep are garbage on purpose: the DUT must not use them.
      for (let i = n; i < this.bytes; i++) chunk[i] = this.rng.int(0, 255);
      this.#beats.push({ data: wordOf(chunk), keep: (1n << BigInt(n)) - 1n, last: o + n >= packet.length ? 1 : 0 });
    }
  }
  get idle(): boolean { return this.#beats.length === 0 && !this.#busy; }
  drive(): void {
    if (this.#busy) return;
    const b = this.#beats[0];
    if (b && this.rng.bool(this.validP)) {
      this.port.tdata.value = b.data;
      if (this.port.tkeep) this.port.tkeep.value = b.keep;
      if (this.port.tlast) this.port.tlast.value = b.last;
      this.port.tvalid.value = 1;
      this.#busy = true;
    } else this.port.tvalid.value = 0;
  }
  sample(): void {
    if (this.#busy && this.port.tready.value) { this.#beats.shift(); this.#busy = false; }
  }
}

/** Receives packets from an AXI-Stream; checks tkeep is contiguous from byte 0, beats are full
 *  except at tlast, and a valid beat holds until taken. */
export class AxisSink implements Agent {
  readonly packets: { bytes: Uint8Array; cycle: number }[] = [];
  readonly beatCycles: number[] = [];
  #cur: number[] = [];
  #pending: string | null = null;
  constructor(private readonly port: AxisOut, private readonly bytes: number, private readonly rng: Rng, private readonly name: string, public readyP = 1) {}
  drive(): void { this.port.tready.value = this.rng.bool(this.readyP) ? 1 : 0; }
  sample(cycle: number): void {
    const p = this.port;
    const valid = p.tvalid.value;
    const now = valid ? show([p.tdata.value, p.tkeep?.value, p.tlast?.value]) : null;
    if (this.#pending !== null && now !== this.#pending) throw new Error(`${this.name}: beat changed or dropped before it was taken at cycle ${cycle}`);
    if (!(valid && p.tready.value)) { this.#pending = now; return; }
    this.#pending = null;
    const keep = BigInt(p.tkeep?.value ?? (1n << BigInt(this.bytes)) - 1n);
    const last = p.tlast?.value ?? 0;
    const n = keep.toString(2).replace(/^0+/, '').length;
    if (keep !== (1n << BigInt(n)) - 1n || n === 0) throw new Error(`${this.name}: tkeep 0x${keep.toString(16)} is not contiguous from byte 0 (cycle ${cycle}, packet ${this.packets.length})`);
    if (!last && n !== this.bytes) throw new Error(`${this.name}: beat of ${n} bytes without tlast (cycle ${cycle}, packet ${this.packets.length}, byte ${this.#cur.length})`);
    this.#cur.push(...bytesOf(p.tdata.value, n));
    this.beatCycles.push(cycle);
    if (last) { this.packets.push({ bytes: Uint8Array.from(this.#cur), cycle }); this.#cur = []; }
  }
  get partial(): number { return this.#cur.length; }
}

// ---- translation responder ------------------------------------------------------------

export interface XlateAgentOptions { minLatency: number; maxLatency: number; readyP: number; validP: number }

/** Answers translation requests in order after a random latency, through `answer`. */
export class XlateResponder<Q, A> implements Agent {
  readonly requests: { value: Q; cycle: number }[] = [];
  readonly #reqSink: StreamSink<Q>;
  readonly #respSrc: StreamSource<A>;
  readonly #due: { at: number; answer: A }[] = [];
  #lastDue = 0;
  constructor(req: StreamOut<Q>, resp: StreamIn<A>, private readonly answer: (q: Q) => A, private readonly rng: Rng, private readonly o: XlateAgentOptions) {
    this.#reqSink = new StreamSink(req, rng, 'xlate request', o.readyP);
    this.#respSrc = new StreamSource(resp, rng, o.validP);
  }
  drive(cycle: number): void {
    while (this.#due.length && this.#due[0]!.at <= cycle) this.#respSrc.queue.push(this.#due.shift()!.answer);
    this.#reqSink.drive();
    this.#respSrc.drive();
  }
  sample(cycle: number): void {
    const before = this.#reqSink.items.length;
    this.#reqSink.sample(cycle);
    if (this.#reqSink.items.length > before) {
      const q = this.#reqSink.items[before]!.value;
      this.requests.push({ value: q, cycle });
      const at = Math.max(this.#lastDue, cycle + 1 + this.rng.int(this.o.minLatency, this.o.maxLatency));
      this.#lastDue = at;
      this.#due.push({ at, answer: this.answer(q) });
    }
    this.#respSrc.sample(cycle);
  }
}

// ---- AXI4 memory slave --------------------------------------------------------------------

export interface AxiMasterPorts {
  awaddr: Out<Bits>; awlen: Out<number>; awsize: Out<number>; awburst: Out<number>; awvalid: Out<number>; awready: In<number>;
  wdata: Out<Bits>; wstrb: Out<Bits>; wlast: Out<number>; wvalid: Out<number>; wready: In<number>;
  bid: In<Bits>; bresp: In<number>; bvalid: In<number>; bready: Out<number>;
  araddr: Out<Bits>; arlen: Out<number>; arsize: Out<number>; arburst: Out<number>; arvalid: Out<number>; arready: In<number>;
  rid: In<Bits>; rdata: In<Bits>; rresp: In<number>; rlast: In<number>; rvalid: In<number>; rready: Out<number>;
}

export interface AxiSlaveOptions {
  /** Cycles from address accepted to first data (read) / from last W to B (write). */
  latency: number;
  /** Chance per cycle of arready/awready/wready high, and of offering an R beat / B. */
  readyP: number;
  validP: number;
}

interface ReadBurst { addr: bigint; len: number; beat: number; at: number }
interface WriteBurst { addr: bigint; len: number }

/** An AXI4 slave over HostMemory, one id, in-order responses, INCR bursts only. Records
 *  every accepted address so tests can check exactly what the master asked for. */
export class AxiMemSlave implements Agent {
  readonly ar: { addr: bigint; len: number; cycle: number }[] = [];
  readonly aw: { addr: bigint; len: number; cycle: number }[] = [];
  /** Byte addresses written, with the cycle of their W beat. */
  readonly wBeatCycles: number[] = [];
  readonly rBeatCycles: number[] = [];
  #reads: ReadBurst[] = [];
  #writes: WriteBurst[] = [];
  #wBeats: { data: bigint; strb: bigint; last: number }[] = [];
  #wDoneBeats = 0;
  #bDue: number[] = [];
  #rBusy = false;
  #bBusy = false;
  #arHold: string | null = null;
  #awHold: string | null = null;
  #wHold: string | null = null;
  constructor(private readonly p: AxiMasterPorts, private readonly mem: HostMemory, private readonly bytes: number,
    private readonly rng: Rng, public o: AxiSlaveOptions) {
    p.rvalid.value = 0; p.bvalid.value = 0; p.rid.value = 0; p.bid.value = 0; p.rresp.value = 0; p.bresp.value = 0;
  }

  get idle(): boolean { return this.#reads.length === 0 && this.#writes.length === 0 && this.#bDue.length === 0 && this.#wBeats.length === 0; }

  drive(cycle: number): void {
    const p = this.p;
    p.arready.value = this.rng.bool(this.o.readyP) ? 1 : 0;
    p.awready.value = this.rng.bool(this.o.readyP) ? 1 : 0;
    p.wready.value = this.rng.bool(this.o.readyP) ? 1 : 0;
    if (!this.#rBusy) {
      const r = this.#reads[0];
      if (r && r.at <= cycle && this.rng.bool(this.o.validP)) {
        const addr = r.addr + BigInt(r.beat * this.bytes);
        p.rdata.value = wordOf(this.mem.read(addr, this.bytes));
        p.rlast.value = r.beat === r.len ? 1 : 0;
        p.rvalid.value = 1;
        this.#rBusy = true;
      } else p.rvalid.value = 0;
    }
    if (!this.#bBusy) {
      if (this.#bDue.length && this.#bDue[0]! <= cycle && this.rng.bool(this.o.validP)) { p.bvalid.value = 1; this.#bBusy = true; } else p.bvalid.value = 0;
    }
  }

  sample(cycle: number): void {
    const p = this.p;
    // Address channels: the master holds valid and address until they are taken.
    this.#arHold = this.#addrChannel('AR', p.arvalid.value, p.arready.value, BigInt(p.araddr.value), p.arlen.value, p.arsize.value, p.arburst.value, this.#arHold, cycle, (addr, len) => {
      this.ar.push({ addr, len, cycle });
      this.#reads.push({ addr, len, beat: 0, at: cycle + 1 + this.o.latency });
    });
    this.#awHold = this.#addrChannel('AW', p.awvalid.value, p.awready.value, BigInt(p.awaddr.value), p.awlen.value, p.awsize.value, p.awburst.value, this.#awHold, cycle, (addr, len) => {
      this.aw.push({ addr, len, cycle });
      this.#writes.push({ addr, len });
    });
    // W: beats may arrive before their address; keep them until both are known.
    const w = p.wvalid.value ? show([p.wdata.value, p.wstrb.value, p.wlast.value]) : null;
    if (this.#wHold !== null && w !== this.#wHold) throw new Error(`AXI W: beat changed or dropped before it was taken at cycle ${cycle}`);
    if (p.wvalid.value && p.wready.value) {
      this.#wBeats.push({ data: BigInt(p.wdata.value), strb: BigInt(p.wstrb.value), last: p.wlast.value });
      this.wBeatCycles.push(cycle);
      this.#wHold = null;
    } else this.#wHold = w;
    this.#applyWrites(cycle);
    if (this.#rBusy && p.rready.value) {
      const r = this.#reads[0]!;
      this.rBeatCycles.push(cycle);
      this.#rBusy = false;
      if (r.beat === r.len) this.#reads.shift(); else r.beat++;
    }
    if (this.#bBusy && p.bready.value) { this.#bDue.shift(); this.#bBusy = false; }
  }

  #addrChannel(ch: string, valid: number, ready: number, addr: bigint, len: number, size: number, burst: number, hold: string | null, cycle: number,
    take: (addr: bigint, len: number) => void): string | null {
    const now = valid ? show([addr, len, size, burst]) : null;
    if (hold !== null && now !== hold) throw new Error(`AXI ${ch}: request changed or dropped before it was taken at cycle ${cycle}: ${hold} -> ${now ?? 'valid low'}`);
    if (!(valid && ready)) return now;
    const bytesLog2 = Math.log2(this.bytes);
    if (burst !== 1) throw new Error(`AXI ${ch} at cycle ${cycle}: burst type ${burst}, expected INCR`);
    if (size !== bytesLog2) throw new Error(`AXI ${ch} at cycle ${cycle}: size ${size}, expected full-width ${bytesLog2}`);
    if (addr % BigInt(this.bytes) !== 0n) throw new Error(`AXI ${ch} at cycle ${cycle}: address 0x${addr.toString(16)} not aligned to the bus`);
    const end = addr + BigInt((len + 1) * this.bytes) - 1n;
    if (addr >> 12n !== end >> 12n) throw new Error(`AXI ${ch} at cycle ${cycle}: burst 0x${addr.toString(16)} len ${len} crosses a 4 KiB boundary`);
    take(addr, len);
    return null;
  }

  #applyWrites(cycle: number): void {
    for (;;) {
      const wb = this.#writes[0];
      const beat = this.#wBeats[0];
      if (!wb || !beat) return;
      const addr = wb.addr + BigInt(this.#wDoneBeats * this.bytes);
      const old = this.mem.read(addr, this.bytes);
      const data = bytesOf(beat.data, this.bytes);
      for (let i = 0; i < this.bytes; i++) if ((beat.strb >> BigInt(i)) & 1n) old[i] = data[i]!;
      this.mem.write(addr, old);
      const isLast = this.#wDoneBeats === wb.len;
      if (beat.last !== (isLast ? 1 : 0)) throw new Error(`AXI W at cycle ${cycle}: wlast=${beat.last} on beat ${this.#wDoneBeats} of a ${wb.len + 1}-beat burst at 0x${wb.addr.toString(16)}`);
      this.#wBeats.shift();
      if (isLast) { this.#writes.shift(); this.#wDoneBeats = 0; this.#bDue.push(cycle + 1 + this.o.latency); } else this.#wDoneBeats++;
    }
  }
}
