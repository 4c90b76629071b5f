// AXI4 master (cocotbext-axi's AxiMaster): drives a DUT's `s_axi_*` port, for tests of AXI
// slaves and of the bus models themselves. Works at burst level with any size, type and
// alignment, keeps many bursts outstanding, and matches responses by id.
//
//   const m = new AxiMaster(tb, dut.s_axi, { pause: 0.2, backpressure: 0.3 });
//   await m.write(0x1000n, bytes);                         // split into legal INCR bursts
//   const back = await m.read(0x1000n, bytes.length);
//   const op = m.issueRead({ addr: 0x2004n, len: 3, size: 2, burst: 'WRAP', id: 5 });
//   ... await op.wait() ...
//
// Burst data is "the bytes the burst carries": beat by beat, the bytes of the lanes each beat
// addresses (axi-burst.ts). A write shorter than that leaves the remaining lanes unstrobed.

import type { ClockHandle, TestBench } from '../core/index.ts';
import { beatLanes, burstBytes, BURST, describeBurst, type AxiBurst, type BurstName } from './axi-burst.ts';
import { AxiChecker } from './axi-checker.ts';
import { bytesToWord, wordToBytes } from './byte-memory.ts';
import { ChannelDriver } from './channel-driver.ts';
import { ChannelReceiver } from './channel-receiver.ts';
import { ClockPhases } from './clock-phases.ts';
import { pauser, type Pause } from './pause.ts';
import { big, forPort, num, portWidth, type AxiSlavePorts, type Bits } from './ports.ts';
import { BusResponseError, ProtocolError } from './protocol-error.ts';

export interface AxiMasterOptions {
  readonly name?: string;
  /** Idle cycles before each AW, W and AR valid. */
  readonly pause?: Pause;
  /** BREADY/RREADY low with this probability per cycle. */
  readonly backpressure?: Pause;
  /** Run the AXI checker on this bus (default true). */
  readonly check?: boolean;
  /** Cycles a burst may take before wait() fails (default 100 000; ticks with several clocks). */
  readonly timeout?: number;
  /** The bus's clock (default: the testbench's; needed in a design with several). */
  readonly clock?: ClockHandle;
}

export interface BurstRequest {
  readonly addr: bigint | number;
  /** AxLEN: beats - 1. */
  readonly len: number;
  /** AxSIZE: log2 bytes per beat (default: the bus width). */
  readonly size?: number;
  readonly burst?: BurstName;
  readonly id?: number;
}

export interface WriteRequest extends BurstRequest {
  /** At most burstBytes() bytes, in beat and lane order. */
  readonly data: Uint8Array;
  /** Per-beat WSTRB overriding the computed one (to test slaves with odd or illegal strobes). */
  readonly strb?: readonly Bits[];
  /** Drive WLAST on this beat (0-based) instead of the last one, to test slaves' checks. */
  readonly wlastOn?: number;
}

export interface WriteResult { readonly resp: number; readonly cycle: number }
export interface ReadResult { readonly data: Uint8Array; readonly resp: readonly number[]; readonly cycle: number }

/** A burst in flight; `wait()` from any coroutine, or poll `done`. */
export class AxiOp<T> {
  readonly burst: AxiBurst;
  result: T | undefined;
  readonly #tb: TestBench;
  readonly #timeout: number;
  readonly #what: string;
  constructor(tb: TestBench, burst: AxiBurst, timeout: number, what: string) {
    this.#tb = tb;
    this.burst = burst;
    this.#timeout = timeout;
    this.#what = what;
  }
  get done(): boolean {
    return this.result !== undefined;
  }
  async wait(): Promise<T> {
    if (!this.done) await this.#tb.until(() => this.done, { timeout: this.#timeout, what: `${this.#what} ${describeBurst(this.burst)}` });
    return this.result!;
  }
}

interface Aw { readonly b: AxiBurst }
interface W { readonly data: bigint; readonly strb: bigint; readonly last: boolean }
interface Reading { readonly op: AxiOp<ReadResult>; readonly parts: Uint8Array[]; readonly resp: number[] }

export class AxiMaster {
  readonly name: string;
  readonly busBytes: number;
  readonly checker: AxiChecker | null;
  readonly #tb: TestBench;
  readonly #rng;
  readonly #timeout: number;
  readonly #aw: ChannelDriver<Aw>;
  readonly #w: ChannelDriver<W>;
  readonly #ar: ChannelDriver<Aw>;
  readonly #writes = new Map<number, AxiOp<WriteResult>[]>();
  readonly #reads = new Map<number, Reading[]>();
  #open = 0;

  constructor(tb: TestBench, ports: AxiSlavePorts, options: AxiMasterOptions = {}) {
    this.#tb = tb;
    this.name = options.name ?? ports.awaddr.name.replace(/_awaddr$/, '');
    this.busBytes = portWidth(tb, ports.wdata) / 8;
    this.#rng = tb.rng.fork();
    this.#timeout = options.timeout ?? 100_000;
    this.checker = options.check === false ? null : new AxiChecker(tb, ports, `${this.name} (master side)`, options.clock ? { clock: options.clock } : {});
    const p = ports;
    const idW = portWidth(tb, p.awid), addrW = portWidth(tb, p.awaddr), dataW = portWidth(tb, p.wdata), strbW = this.busBytes;
    const pause = (ch: string) => pauser(options.pause, this.#rng, `${this.name} ${ch} pause`);
    const bp = (ch: string) => pauser(options.backpressure, this.#rng, `${this.name} ${ch} backpressure`);
    this.#aw = new ChannelDriver<Aw>({ valid: p.awvalid, ready: p.awready }, ({ b }) => {
      p.awid.value = forPort(BigInt(b.id), idW); p.awaddr.value = forPort(b.addr, addrW);
      p.awlen.value = b.len; p.awsize.value = b.size; p.awburst.value = b.burst;
      p.awlock.value = 0; p.awcache.value = 0b0011; p.awprot.value = 0;
    }, pause('AW'));
    this.#w = new ChannelDriver<W>({ valid: p.wvalid, ready: p.wready }, x => {
      p.wdata.value = forPort(x.data, dataW); p.wstrb.value = forPort(x.strb, strbW); p.wlast.value = x.last ? 1 : 0;
    }, pause('W'));
    this.#ar = new ChannelDriver<Aw>({ valid: p.arvalid, ready: p.arready }, ({ b }) => {
      p.arid.value = forPort(BigInt(b.id), idW); p.araddr.value = forPort(b.addr, addrW);
      p.arlen.value = b.len; p.arsize.value = b.size; p.arburst.value = b.burst;
      p.arlock.value = 0; p.arcache.value = 0b0011; p.arprot.value = 0;
    }, pause('AR'));
    const bRx = new ChannelReceiver({ valid: p.bvalid, ready: p.bready }, () => ({ id: num(p.bid.value), resp: num(p.bresp.value) }), bp('B'));
    const rRx = new ChannelReceiver({ valid: p.rvalid, ready: p.rready },
      () => ({ id: num(p.rid.value), data: big(p.rdata.value), resp: num(p.rresp.value), last: p.rlast.value !== 0 }), bp('R'));

    const phases = ClockPhases.of(tb, options.clock);
    phases.onSample(() => {
      const cycle = tb.cycle;
      this.#aw.sample(cycle); this.#w.sample(cycle); this.#ar.sample(cycle);
      const b = bRx.sample();
      if (b) {
        const op = this.#writes.get(b.id)?.shift();
        if (!op) throw new ProtocolError(this.name, 'BRESP_NO_WRITE', cycle, `write response for id ${b.id} with no write outstanding`);
        op.result = { resp: b.resp, cycle };
        this.#open--;
      }
      const r = rRx.sample();
      if (r) {
        const rd = this.#reads.get(r.id)?.[0];
        if (!rd) throw new ProtocolError(this.name, 'RID_NO_READ', cycle, `read data for id ${r.id} with no read outstanding`);
        const bst = rd.op.burst;
        const beat = rd.parts.length;
        const { lo, hi } = beatLanes(bst, beat, this.busBytes);
        rd.parts.push(wordToBytes(r.data, this.busBytes).subarray(lo, hi + 1));
        rd.resp.push(r.resp);
        if (r.last !== (beat === bst.len)) {
          throw new ProtocolError(this.name, 'RLAST', cycle, `rlast ${r.last ? 1 : 0} on beat ${beat + 1} of ${bst.len + 1} (${describeBurst(bst)})`);
        }
        if (r.last) {
          this.#reads.get(r.id)!.shift();
          const data = new Uint8Array(rd.parts.reduce((s, x) => s + x.length, 0));
          let off = 0;
          for (const part of rd.parts) { data.set(part, off); off += part.length; }
          rd.op.result = { data, resp: rd.resp, cycle };
          this.#open--;
        }
      }
    });
    phases.onDrive(() => { this.#aw.drive(); this.#w.drive(); this.#ar.drive(); bRx.drive(); rRx.drive(); });
  }

  #burst(req: BurstRequest): AxiBurst {
    const size = req.size ?? Math.log2(this.busBytes);
    return { id: req.id ?? 0, addr: big(req.addr), len: req.len, size, burst: BURST[req.burst ?? 'INCR'] };
  }

  /** Bytes a burst carries (the length of its read data, the most a write can take). */
  burstBytes(req: BurstRequest): number {
    return burstBytes(this.#burst(req), this.busBytes);
  }

  /** Starts a write burst (no legality check: the checkers judge it). */
  issueWrite(req: WriteRequest): AxiOp<WriteResult> {
    const b = this.#burst(req);
    if (req.data.length > burstBytes(b, this.busBytes)) {
      throw new RangeError(`${this.name}: ${req.data.length} bytes do not fit ${describeBurst(b)} (${burstBytes(b, this.busBytes)} bytes)`);
    }
    const op = new AxiOp<WriteResult>(this.#tb, b, this.#timeout, `${this.name} write`);
    let off = 0;
    for (let i = 0; i <= b.len; i++) {
      const { lo, hi } = beatLanes(b, i, this.busBytes);
      const bytes = this.#rng.bytes(this.busBytes);
      let strb = 0n;
      for (let lane = lo; lane <= hi && off < req.data.length; lane++) {
        bytes[lane] = req.data[off++]!;
        strb |= 1n << BigInt(lane);
      }
      const over = req.strb?.[i];
      this.#w.push({ data: bytesToWord(bytes), strb: over === undefined ? strb : big(over), last: i === (req.wlastOn ?? b.len) });
    }
    this.#aw.push({ b });
    const q = this.#writes.get(b.id);
    if (q) q.push(op); else this.#writes.set(b.id, [op]);
    this.#open++;
    return op;
  }

  issueRead(req: BurstRequest): AxiOp<ReadResult> {
    const b = this.#burst(req);
    const op = new AxiOp<ReadResult>(this.#tb, b, this.#timeout, `${this.name} read`);
    this.#ar.push({ b });
    const rd: Reading = { op, parts: [], resp: [] };
    const q = this.#reads.get(b.id);
    if (q) q.push(rd); else this.#reads.set(b.id, [rd]);
    this.#open++;
    return op;
  }

  writeBurst(req: WriteRequest): Promise<WriteResult> {
    return this.issueWrite(req).wait();
  }

  readBurst(req: BurstRequest): Promise<ReadResult> {
    return this.issueRead(req).wait();
  }

  /** Legal full-width INCR bursts covering [addr, addr+len): split at 4 KiB and 256 beats. */
  #split(addr: bigint, len: number): { addr: bigint; len: number; n: number }[] {
    const out: { addr: bigint; len: number; n: number }[] = [];
    const W = BigInt(this.busBytes);
    let a = addr, left = len;
    while (left > 0) {
      const toPage = Number(4096n - (a % 4096n));
      const toMax = 256 * this.busBytes - Number(a % W);
      const n = Math.min(left, toPage, toMax);
      const beats = Math.ceil((Number(a % W) + n) / this.busBytes);
      out.push({ addr: a, len: beats - 1, n });
      a += BigInt(n); left -= n;
    }
    return out;
  }

  /** Writes bytes anywhere (unaligned, any length); throws on a non-OKAY response. */
  async write(addr: bigint | number, data: Uint8Array, options: { id?: number } = {}): Promise<void> {
    let off = 0;
    const ops = this.#split(big(addr), data.length).map(s => {
      const op = this.issueWrite({ addr: s.addr, len: s.len, id: options.id ?? 0, data: data.subarray(off, off + s.n) });
      off += s.n;
      return op;
    });
    for (const op of ops) {
      const r = await op.wait();
      if (r.resp !== 0) throw new BusResponseError(this.name, r.cycle, `write response ${r.resp} for ${describeBurst(op.burst)}`);
    }
  }

  /** Reads bytes anywhere; throws on a non-OKAY response. */
  async read(addr: bigint | number, len: number, options: { id?: number } = {}): Promise<Uint8Array> {
    const ops = this.#split(big(addr), len).map(s => ({ op: this.issueRead({ addr: s.addr, len: s.len, id: options.id ?? 0 }), n: s.n }));
    const out = new Uint8Array(len);
    let off = 0;
    for (const { op, n } of ops) {
      const r = await op.wait();
      const bad = r.resp.find(x => x !== 0);
      if (bad !== undefined) throw new BusResponseError(this.name, r.cycle, `read response ${bad} for ${describeBurst(op.burst)}`);
      out.set(r.data.subarray(0, n), off);
      off += n;
    }
    return out;
  }

  /** Bursts issued and not answered. */
  get outstanding(): number {
    return this.#open;
  }

  async idle(): Promise<void> {
    await this.#tb.until(() => this.#open === 0, { timeout: this.#timeout, what: `${this.name} idle` });
  }
}
