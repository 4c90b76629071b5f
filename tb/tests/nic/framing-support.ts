// Cycle-loop stream agents written before tb/bfm existed. The framing, ICRC, parser and
// responder tests have moved to tb/bfm (stage-streams.ts); packetizer, tx-cmd-mux,
// tx-frame-gate, read-responder and read-resp-rx-bench still use these: move them the same
// way and delete this file.
//
// One loop drives every agent: each cycle every agent sets its inputs (drive), the model
// settles, every agent records the handshakes that the coming edge completes (commit), and
// the clock ticks. Sinks check the AXI-Stream rule that a source holds valid and data
// until accepted, and name the cycle when it is broken.

import type { TestBench } from '../../core/index.ts';
import type { Rng } from '../../core/rng.ts';
import type { Frame } from './frames.ts';

// Moved to frames.ts (shared with the tests on tb/bfm); re-exported for the tests still here.
export { diffBytes, type Frame } from './frames.ts';

type Bits = number | bigint;
interface In { value: Bits }
interface Out { readonly value: Bits }
interface InS<T> { value: T }
interface OutS<T> { readonly value: T }

export interface AxisSourcePorts { tdata: In; tkeep?: In; tvalid: In; tready: Out; tlast?: In; tuser?: In }
export interface AxisSinkPorts { tdata: Out; tkeep?: Out; tvalid: Out; tready: In; tlast?: Out; tuser?: Out }

export interface RxFrame extends Frame { firstCycle: number; lastCycle: number; beats: number }

export interface Agent { drive(tb: TestBench): void; commit(tb: TestBench): void }

export function beatsOf(bytes: Uint8Array, B: number): { data: bigint; keep: bigint; last: boolean }[] {
  const out = [];
  for (let off = 0; off < Math.max(bytes.length, 1); off += B) {
    const n = Math.min(B, bytes.length - off);
    let data = 0n;
    for (let k = n - 1; k >= 0; k--) data = (data << 8n) | BigInt(bytes[off + k]!);
    out.push({ data, keep: (1n << BigInt(n)) - 1n, last: off + B >= bytes.length });
  }
  return out;
}

const num = (v: Bits): number => Number(v);

export class AxisSource implements Agent {
  readonly queue: Frame[] = [];
  private beats: { data: bigint; keep: bigint; last: boolean; user: number }[] = [];
  private presenting = false;
  sent = 0;
  constructor(private readonly p: AxisSourcePorts, private readonly B: number, private readonly rng: Rng, public validProb = 1) {}
  push(...frames: Frame[]): void { this.queue.push(...frames); }
  get idle(): boolean { return this.queue.length === 0 && this.beats.length === 0; }
  drive(): void {
    if (this.beats.length === 0 && this.queue.length > 0) {
      const f = this.queue.shift()!;
      this.beats = beatsOf(f.bytes, this.B).map(b => ({ ...b, user: f.user }));
    }
    if (!this.presenting) this.presenting = this.beats.length > 0 && this.rng.bool(this.validProb);
    const b = this.beats[0];
    this.p.tvalid.value = this.presenting ? 1 : 0;
    if (b) {
      this.p.tdata.value = b.data;
      if (this.p.tkeep) this.p.tkeep.value = this.B > 32 ? b.keep : Number(b.keep);
      if (this.p.tlast) this.p.tlast.value = b.last ? 1 : 0;
      if (this.p.tuser) this.p.tuser.value = b.user;
    }
  }
  commit(): void {
    if (this.presenting && num(this.p.tready.value)) {
      const b = this.beats.shift()!;
      this.presenting = false;
      if (b.last) this.sent++;
    }
  }
}

export class AxisSink implements Agent {
  readonly frames: RxFrame[] = [];
  private cur: number[] = [];
  private first = -1;
  private nBeats = 0;
  private held: string | null = null;
  constructor(private readonly p: AxisSinkPorts, private readonly B: number, private readonly rng: Rng, public readyProb = 1, private readonly name = 'sink') {}
  drive(): void { this.p.tready.value = this.rng.bool(this.readyProb) ? 1 : 0; }
  commit(tb: TestBench): void {
    const valid = num(this.p.tvalid.value) === 1;
    const snap = valid ? `${this.p.tdata.value}/${this.p.tkeep?.value}/${this.p.tlast?.value}/${this.p.tuser?.value}` : null;
    if (this.held !== null && snap !== this.held) throw new Error(`${this.name}: cycle ${tb.cycle}: valid beat changed or dropped before it was accepted (was ${this.held}, now ${snap})`);
    if (!valid) { this.held = null; return; }
    if (!num(this.p.tready.value)) { this.held = snap; return; }
    this.held = null;
    const data = BigInt(this.p.tdata.value);
    const keep = this.p.tkeep ? BigInt(this.p.tkeep.value) : (1n << BigInt(this.B)) - 1n;
    const last = this.p.tlast ? num(this.p.tlast.value) === 1 : true;
    if (this.first < 0) this.first = tb.cycle;
    this.nBeats++;
    for (let k = 0; k < this.B; k++) {
      if ((keep >> BigInt(k)) & 1n) this.cur.push(Number((data >> BigInt(8 * k)) & 0xffn));
      else if (!last || (keep >> BigInt(k)) !== 0n) throw new Error(`${this.name}: cycle ${tb.cycle}: tkeep 0x${keep.toString(16)} is not contiguous from byte 0${last ? '' : ' or a beat before tlast is partial'}`);
    }
    if (last) {
      this.frames.push({ bytes: Uint8Array.from(this.cur), user: this.p.tuser ? num(this.p.tuser.value) : 0, firstCycle: this.first, lastCycle: tb.cycle, beats: this.nBeats });
      this.cur = []; this.first = -1; this.nBeats = 0;
    }
  }
}

export class StreamSource<T> implements Agent {
  readonly queue: T[] = [];
  private presenting = false;
  constructor(private readonly p: { data: InS<T>; valid: In; ready: Out }, private readonly rng: Rng, public validProb = 1) {}
  drive(): void {
    if (!this.presenting) this.presenting = this.queue.length > 0 && this.rng.bool(this.validProb);
    this.p.valid.value = this.presenting ? 1 : 0;
    if (this.queue.length > 0) this.p.data.value = this.queue[0]!;
  }
  commit(): void {
    if (this.presenting && num(this.p.ready.value)) { this.queue.shift(); this.presenting = false; }
  }
}

export class StreamSink<T> implements Agent {
  readonly items: { value: T; cycle: number }[] = [];
  constructor(private readonly p: { data: OutS<T>; valid: Out; ready: In }, private readonly rng: Rng, public readyProb = 1) {}
  drive(): void { this.p.ready.value = this.rng.bool(this.readyProb) ? 1 : 0; }
  commit(tb: TestBench): void {
    if (num(this.p.valid.value) && num(this.p.ready.value)) this.items.push({ value: this.p.data.value, cycle: tb.cycle });
  }
}

/** Pulses sampled every cycle (e.g. drop_valid + drop_reason). */
export class PulseMonitor implements Agent {
  readonly events: { cycle: number; value: number }[] = [];
  constructor(private readonly valid: Out, private readonly value: Out | null) {}
  drive(): void {}
  commit(tb: TestBench): void {
    if (num(this.valid.value)) this.events.push({ cycle: tb.cycle, value: this.value ? num(this.value.value) : 1 });
  }
}

/** Run the agents until `done()` (checked each cycle) or fail after `limit` cycles. */
export async function runAgents(tb: TestBench, agents: Agent[], done: () => boolean, limit: number, what: string): Promise<void> {
  const start = tb.cycle;
  while (!done()) {
    if (tb.cycle - start > limit) throw new Error(`${what}: not done after ${limit} cycles (cycle ${tb.cycle})`);
    for (const a of agents) a.drive(tb);
    tb.settle();
    for (const a of agents) a.commit(tb);
    await tb.rising();
  }
}
