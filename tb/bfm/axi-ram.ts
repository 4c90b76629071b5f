// AXI4 memory slave (cocotbext-axi's AxiRam) over a byte-addressed memory: answers a DUT's
// `m_axi_*` port.
//
//   const ram = new AxiRam(tb, dut.m_axi, { readLatency: { fixed: 20, random: 40 }, backpressure: 0.3 });
//   ram.memory.write(0x1000n, bytes);          // HostMemory by default
//   ... ram.stats.maxOutstandingReads ...
//
// Behaviour, within what AXI4 allows a slave:
// - FIXED, INCR and WRAP bursts, narrow beats (size below the bus width), unaligned starts,
//   write strobes (only strobed bytes are written).
// - Many reads and writes outstanding (up to `maxOutstanding` each), each answered after its
//   own latency. Responses of different ids come back in any order (random when `reorder`,
//   the default); responses of one id keep request order. With `interleave`, the R beats of
//   bursts with different ids are interleaved at random (AXI allows it; a master must route
//   each beat by its id); without it a read burst's beats come back to back.
// - Random backpressure on AWREADY/WREADY/ARREADY and random gaps before BVALID/RVALID.
// - Bytes of R beats outside the addressed lanes are random, so a master that reads the
//   wrong lanes is caught.
// The AXI checker (axi-checker.ts) runs on the bus by default, so an illegal request (a burst
// across 4 KiB, WLAST on the wrong beat, stray strobes, unstable signals) fails the test.

import type { ClockHandle, TestBench } from '../core/index.ts';
import { HostMemory } from '../model/host-memory.ts';
import { beatAddress, beatLanes, BeatCursor, burstBytes, type AxiBurst } from './axi-burst.ts';
import { AxiChecker } from './axi-checker.ts';
import { beatBuffer, bytesToWord, bytesToWords, wordsToBytes, wordToBytes, type ByteMemory } from './byte-memory.ts';
import { ChannelDriver } from './channel-driver.ts';
import { ChannelReceiver } from './channel-receiver.ts';
import { ClockPhases } from './clock-phases.ts';
import { latencyOf, type Latency } from './latency.ts';
import { pauser, type Pause } from './pause.ts';
import { Queue } from './queue.ts';
import { big, bitAt, forPort, num, popcount, portWidth, setNarrow, valueWords, wordOf, type AxiMasterPorts, type Bits } from './ports.ts';

export interface AxiRamOptions {
  readonly name?: string;
  /** Backing store (default a new HostMemory). */
  readonly memory?: ByteMemory;
  /** From the AR handshake to the first R beat being offered (default 0: next cycles). */
  readonly readLatency?: Latency;
  /** From the last W beat (with its AW) to BVALID being offered. */
  readonly writeLatency?: Latency;
  /** Answer different ids in random order (default true); false answers strictly in request order. */
  readonly reorder?: boolean;
  /** Interleave the R beats of bursts with different ids (default false): each beat comes from
   *  a random one of the bursts in progress, and a ready burst of an id not in progress starts
   *  at once. Draws from the model's random stream only when set. */
  readonly interleave?: boolean;
  /** AWREADY/WREADY/ARREADY low with this probability per cycle. */
  readonly backpressure?: Pause;
  /** Idle cycles before each BVALID / RVALID beat. */
  readonly stall?: Pause;
  /** Reads, and writes, accepted and not yet answered (default 32 each). */
  readonly maxOutstanding?: number;
  /** Response per burst (default OKAY), e.g. SLVERR for an address range. */
  readonly respond?: (burst: AxiBurst, kind: 'read' | 'write') => number;
  /** Run the AXI checker on the bus (default true). */
  readonly check?: boolean;
  /** The bus's clock (default: the testbench's; needed in a design with several). Latencies
   *  and stats count its cycles' ticks as tb.cycle does. */
  readonly clock?: ClockHandle;
}

export interface AxiRamStats {
  readBursts: number;
  writeBursts: number;
  readBytes: number;
  writeBytes: number;
  maxOutstandingReads: number;
  maxOutstandingWrites: number;
  /** Responses sent before a response to an older request (of another id). */
  reorderedReads: number;
  reorderedWrites: number;
  /** R beats of a burst other than the previous beat's, while that one was unfinished. */
  interleavedReads: number;
}

interface Pending {
  readonly burst: AxiBurst;
  readonly seq: number;
  readonly readyAt: number;
}

/** Wide data travels as bytes (byte 0 = data[7:0]) and strobes as words: no bigints per beat. */
interface WBeat { readonly data: Uint8Array; readonly strb: Uint32Array }
interface BResp { readonly id: number; readonly resp: number }
interface RBeat { readonly id: number; readonly data: Uint8Array; readonly resp: number; readonly last: boolean }

/** What the W receiver hands over at a handshake when the beat can stay on the port until the
 *  writes are applied later in the same sample phase (no copy; see #applyWrites). */
const ON_PORT: WBeat = { data: new Uint8Array(0), strb: new Uint32Array(0) };

/** A burst being written or read, with its beat walk in plain numbers when it starts below
 *  2^52 (every real test), else null (bigint arithmetic per beat). */
interface Active { readonly burst: AxiBurst; readonly seq: number; beats: number; readonly cursor: BeatCursor | null }

/** Requests waiting for their response, per id in request order, and how many in all. */
class IdQueues extends Map<number, Pending[]> {
  count = 0;
}

export class AxiRam {
  readonly name: string;
  readonly memory: ByteMemory;
  readonly busBytes: number;
  readonly checker: AxiChecker | null;
  readonly stats: AxiRamStats = {
    readBursts: 0, writeBursts: 0, readBytes: 0, writeBytes: 0,
    maxOutstandingReads: 0, maxOutstandingWrites: 0, reorderedReads: 0, reorderedWrites: 0, interleavedReads: 0,
  };
  readonly #rng;
  readonly #reorder: boolean;
  readonly #interleave: boolean;
  readonly #respond: (burst: AxiBurst, kind: 'read' | 'write') => number;
  readonly #readLatency: () => number;
  readonly #writeLatency: () => number;
  /** AW accepted, data incomplete, in AW order (W data follows it). */
  readonly #writes: Active[] = [];
  readonly #wBuf = new Queue<WBeat>();
  /** Per id, in request order. */
  readonly #bPending = new IdQueues();
  readonly #rPending = new IdQueues();
  #rActive: Active | null = null;
  /** With `interleave`: the read bursts in progress (one per id at most) and the last beat's. */
  readonly #rActives: Active[] = [];
  #rLast: Active | null = null;
  /** The R beat being offered. One buffer serves every beat: the R channel holds at most one
   *  beat at a time (#nextR queues the next only once the driver is empty). */
  readonly #rBytes: Uint8Array;
  /** #rBytes as 32-bit words (null: see beatBuffer), copied to rdata in one set(). */
  readonly #rWords: Uint32Array | null;
  /** Scratch for a W beat taken from the port words (HostMemory.write copies it). */
  readonly #wBytes: Uint8Array;
  readonly #wWords: Uint32Array | null;
  /** Beats are read and written with HostMemory's number paths, with no copy per beat. */
  readonly #host: HostMemory | null;
  /** The W port words, for beats applied from the port (null: a stand-in handle). */
  readonly #wPort: { readonly data: Uint32Array; readonly strb: Uint32Array } | null;
  /** A copy of the W beat on the port, for the queue. */
  readonly #copyW: () => WBeat;
  #seq = 0;
  #writesOpen = 0;
  #readsOpen = 0;

  constructor(tb: TestBench, ports: AxiMasterPorts, options: AxiRamOptions = {}) {
    this.name = options.name ?? ports.awaddr.name.replace(/_awaddr$/, '');
    this.memory = options.memory ?? new HostMemory();
    this.busBytes = portWidth(tb, ports.wdata) / 8;
    ({ bytes: this.#rBytes, words: this.#rWords } = beatBuffer(this.busBytes));
    ({ bytes: this.#wBytes, words: this.#wWords } = beatBuffer(this.busBytes));
    this.#host = this.memory instanceof HostMemory ? this.memory : null;
    this.#wPort = ports.wdata.words && ports.wstrb.words ? { data: ports.wdata.words, strb: ports.wstrb.words } : null;
    this.#rng = tb.rng.fork();
    this.#reorder = options.reorder ?? true;
    this.#interleave = options.interleave ?? false;
    this.#respond = options.respond ?? (() => 0);
    this.#readLatency = latencyOf(options.readLatency, this.#rng, `${this.name} readLatency`);
    this.#writeLatency = latencyOf(options.writeLatency, this.#rng, `${this.name} writeLatency`);
    const max = options.maxOutstanding ?? 32;
    // The checker samples first, so a bad request is reported before it is acted on.
    this.checker = options.check === false ? null : new AxiChecker(tb, ports, this.name, options.clock ? { clock: options.clock } : {});

    const p = ports;
    const bp = (ch: string) => pauser(options.backpressure, this.#rng, `${this.name} ${ch} backpressure`);
    const st = (ch: string) => pauser(options.stall, this.#rng, `${this.name} ${ch} stall`);
    const burstOf = (id: Bits, addr: Bits, len: Bits, size: Bits, burst: Bits): AxiBurst =>
      ({ id: num(id), addr: big(addr), len: num(len), size: num(size), burst: num(burst) });
    const aw = new ChannelReceiver({ valid: p.awvalid, ready: p.awready },
      () => burstOf(p.awid.value, p.awaddr.value, p.awlen.value, p.awsize.value, p.awburst.value), bp('AW'));
    const wdata = p.wdata.words, wstrb = p.wstrb.words, busBytes = this.busBytes, strbCount = Math.ceil(busBytes / 32);
    const fullStrb = valueWords((1n << BigInt(busBytes)) - 1n, strbCount);
    // A beat on DUT ports stays there until #applyWrites (this sample phase) takes it.
    const copyW = (): WBeat => ({
      data: wdata ? wordsToBytes(wdata, new Uint8Array(busBytes)) : wordToBytes(big(p.wdata.value), busBytes),
      // All lanes strobed (bulk data) shares one array instead of a copy per beat.
      strb: wstrb ? (popcount(wstrb) === busBytes ? fullStrb : wstrb.slice()) : valueWords(p.wstrb.value, strbCount),
    });
    this.#copyW = copyW;
    const w = new ChannelReceiver<WBeat>({ valid: p.wvalid, ready: p.wready }, this.#wPort ? () => ON_PORT : copyW,
      bp('W'));
    const ar = new ChannelReceiver({ valid: p.arvalid, ready: p.arready },
      () => burstOf(p.arid.value, p.araddr.value, p.arlen.value, p.arsize.value, p.arburst.value), bp('AR'));
    const idW = portWidth(tb, p.bid), dataW = portWidth(tb, p.rdata);
    // Ids are numbers (from a port of up to 32 bits, or checked by num()): no bigint for a narrow port.
    const idFor = (id: number): Bits => (idW > 32 ? BigInt(id) : id);
    const b = new ChannelDriver<BResp>({ valid: p.bvalid, ready: p.bready }, x => {
      p.bid.value = idFor(x.id);
      p.bresp.value = x.resp;
    }, st('B'));
    const rdata = p.rdata.words;
    // R fields change on every beat: written in their port words (setNarrow), like rdata.
    const rid = wordOf(p.rid), rresp = wordOf(p.rresp), rlast = wordOf(p.rlast);
    const ridW = portWidth(tb, p.rid), rrespW = portWidth(tb, p.rresp), rlastW = portWidth(tb, p.rlast);
    const r = new ChannelDriver<RBeat>({ valid: p.rvalid, ready: p.rready }, x => {
      setNarrow(rid, ridW, p.rid, x.id);
      const rw = this.#rWords;
      if (rdata && rw && x.data === this.#rBytes && rdata.length === rw.length) rdata.set(rw);
      else if (rdata) bytesToWords(x.data, rdata);
      else p.rdata.value = forPort(bytesToWord(x.data), dataW);
      setNarrow(rresp, rrespW, p.rresp, x.resp);
      setNarrow(rlast, rlastW, p.rlast, x.last ? 1 : 0);
    }, st('R'));

    const phases = ClockPhases.of(tb, options.clock);
    // A RAM is idle in most cycles of most tests: no request on AW/W/AR, no response on B/R or
    // owed. The sample below would then do nothing (and draw nothing), so it is not run.
    const awv = wordOf(p.awvalid), wv = wordOf(p.wvalid), arv = wordOf(p.arvalid);
    const gated = awv !== null && wv !== null && arv !== null;
    phases.onSample(() => {
      if (gated && awv[0] === 0 && wv[0] === 0 && arv[0] === 0 && this.#quiet(b, r)) return;
      const cycle = tb.cycle;
      b.sample(cycle);
      r.sample(cycle);
      const awb = aw.sample();
      if (awb) {
        this.#writes.push(this.#active(awb, this.#seq++));
        this.#writesOpen++;
        this.stats.writeBursts++;
        this.stats.maxOutstandingWrites = Math.max(this.stats.maxOutstandingWrites, this.#writesOpen);
      }
      const wb = w.sample();
      const wOnPort = wb === ON_PORT;
      if (wb && !wOnPort) this.#wBuf.push(wb);
      const arb = ar.sample();
      if (arb) {
        this.#queue(this.#rPending, { burst: arb, seq: this.#seq++, readyAt: cycle + 1 + this.#readLatency() });
        this.#readsOpen++;
        this.stats.readBursts++;
        this.stats.readBytes += burstBytes(arb, this.busBytes);
        this.stats.maxOutstandingReads = Math.max(this.stats.maxOutstandingReads, this.#readsOpen);
      }
      this.#applyWrites(cycle, wOnPort);
      if (b.pending === 0) this.#nextB(cycle, b);
      if (r.pending === 0) this.#nextR(cycle, r);
    });
    // AW and AR take a request while fewer than `max` are open, W while its queue has room.
    phases.onDrive(() => {
      aw.driveRoom(this.#writesOpen < max); w.driveRoom(this.#wBuf.length < 256 * 4); ar.driveRoom(this.#readsOpen < max);
      b.drive(); r.drive();
    });
  }

  /** No response on the bus, queued or owed, and no W beat waiting for its AW. */
  #quiet(b: ChannelDriver<BResp>, r: ChannelDriver<RBeat>): boolean {
    return b.pending === 0 && r.pending === 0 && this.#bPending.count === 0 && this.#rPending.count === 0
      && this.#rActive === null && this.#rActives.length === 0 && this.#wBuf.length === 0;
  }

  /** Nothing accepted and unanswered. */
  get idle(): boolean {
    return this.#writesOpen === 0 && this.#readsOpen === 0 && this.#wBuf.length === 0;
  }

  #queue(map: IdQueues, p: Pending): void {
    map.count++;
    const q = map.get(p.burst.id);
    if (q) q.push(p); else map.set(p.burst.id, [p]);
  }

  /** The next response to send: a ready head of one id's queue (random id when reordering),
   *  not of an id in `busy` (a burst of that id is still being answered). */
  #pick(map: IdQueues, cycle: number, busy?: ReadonlySet<number>): { p: Pending; reordered: boolean } | null {
    if (map.count === 0) return null;   // the usual case: nothing to answer
    const heads: Pending[] = [];
    let oldest: Pending | null = null;
    for (const [id, q] of map) {
      if (q.length === 0 || busy?.has(id)) continue;
      if (!oldest || q[0]!.seq < oldest.seq) oldest = q[0]!;
      if (q[0]!.readyAt <= cycle) heads.push(q[0]!);
    }
    if (!oldest) return null;
    // Without reordering only the oldest request may answer, even if a younger one is ready.
    if (!this.#reorder) heads.splice(0, heads.length, ...(oldest.readyAt <= cycle ? [oldest] : []));
    if (heads.length === 0) return null;
    const p = this.#rng.pick(heads);
    map.get(p.burst.id)!.shift();
    map.count--;
    return { p, reordered: p !== oldest };
  }

  /**
   * Writes the W beats whose AW is known, oldest first: the queued ones, then this cycle's beat
   * when it is still on the port (`onPort`). A port beat that has no AW yet is copied into the
   * queue, where it would have gone anyway: the order of writes, and of the random write
   * latencies drawn here, is the same as if every beat were queued first.
   */
  #applyWrites(cycle: number, onPort: boolean): void {
    while (this.#writes.length > 0 && this.#wBuf.length > 0) {
      const beat = this.#wBuf.shift()!;
      this.#writeBeat(cycle, beat.data, beat.strb);
    }
    if (!onPort) return;
    const port = this.#wPort!;
    if (this.#writes.length === 0) { this.#wBuf.push(this.#copyW()); return; }
    let data: Uint8Array;
    if (!this.#host) data = wordsToBytes(port.data, new Uint8Array(this.busBytes));
    else if (this.#wWords && port.data.length === this.#wWords.length) { this.#wWords.set(port.data); data = this.#wBytes; }
    else data = wordsToBytes(port.data, this.#wBytes);
    this.#writeBeat(cycle, data, port.strb);
  }

  /** One W beat into memory at the oldest AW still taking data. */
  #writeBeat(cycle: number, bytes: Uint8Array, strb: Uint32Array): void {
    const wr = this.#writes[0]!;
    const base = this.#beatBase(wr, wr.beats);
    if (popcount(strb) === this.busBytes) {
      // Every lane strobed (bulk data): one write of the whole beat.
      this.#write(base, bytes);
      this.stats.writeBytes += this.busBytes;
    } else this.#writeRuns(base, bytes, strb);
    wr.beats++;
    if (wr.beats > wr.burst.len) {
      this.#writes.shift();
      this.#queue(this.#bPending, { burst: wr.burst, seq: wr.seq, readyAt: cycle + 1 + this.#writeLatency() });
    }
  }

  /** Writes each run of strobed bytes of a beat with one call. */
  #writeRuns(base: bigint | number, bytes: Uint8Array, strb: Uint32Array): void {
    for (let i = 0; i < this.busBytes;) {
      if (!bitAt(strb, i)) { i++; continue; }
      let j = i;
      while (j < this.busBytes && bitAt(strb, j)) j++;
      this.#write(typeof base === 'number' ? base + i : base + BigInt(i), bytes.subarray(i, j));
      this.stats.writeBytes += j - i;
      i = j;
    }
  }

  /** The bus-aligned address of beat `i`: a number for HostMemory when the burst starts below
   *  2^52 (no bigint per beat), else a bigint, as ByteMemory takes. Leaves the cursor on beat `i`. */
  #beatBase(a: Active, i: number): bigint | number {
    const c = a.cursor;
    if (c) { c.seek(i); return this.#host ? c.base : BigInt(c.base); }
    const n = BigInt(this.busBytes);
    return beatAddress(a.burst, i) / n * n;
  }

  #nextB(cycle: number, b: ChannelDriver<BResp>): void {
    const next = this.#pick(this.#bPending, cycle);
    if (!next) return;
    if (next.reordered) this.stats.reorderedWrites++;
    b.push({ id: next.p.burst.id, resp: this.#respond(next.p.burst, 'write') }, () => { this.#writesOpen--; });
  }

  #nextR(cycle: number, r: ChannelDriver<RBeat>): void {
    const act = this.#interleave ? this.#interleavedBurst(cycle) : this.#backToBackBurst(cycle);
    if (!act) return;
    const bst = act.burst;
    const i = act.beats;
    const base = this.#beatBase(act, i);
    const c = act.cursor;
    let lo: number, hi: number;
    if (c) { lo = c.lo; hi = c.hi; } else ({ lo, hi } = beatLanes(bst, i, this.busBytes));
    const bytes = this.#rBytes;
    if (lo === 0 && hi === this.busBytes - 1) {
      // A full beat: the random filler would be overwritten entirely; draw it all the same,
      // so the model's random stream (latencies, stalls, order) stays what it was.
      this.#rng.skipBytes(this.busBytes);
      this.#read(base, bytes, 0, this.busBytes);
    } else {
      this.#rng.fillBytes(bytes);
      this.#read(typeof base === 'number' ? base + lo : base + BigInt(lo), bytes, lo, hi - lo + 1);
    }
    const last = i === bst.len;
    r.push({ id: bst.id, data: bytes, resp: this.#respond(bst, 'read'), last }, last ? this.#readDone : undefined);
    act.beats++;
    if (last) this.#finishRead(act);
  }

  /** The burst in progress, or the next one to answer (bursts back to back). */
  #backToBackBurst(cycle: number): Active | null {
    if (!this.#rActive) {
      const next = this.#pick(this.#rPending, cycle);
      if (!next) return null;
      if (next.reordered) this.stats.reorderedReads++;
      this.#rActive = this.#active(next.p.burst, next.p.seq);
    }
    return this.#rActive;
  }

  /** A random burst in progress, after starting any ready burst of an id not in progress. */
  #interleavedBurst(cycle: number): Active | null {
    const busy = new Set(this.#rActives.map(a => a.burst.id));
    for (let next = this.#pick(this.#rPending, cycle, busy); next; next = this.#pick(this.#rPending, cycle, busy)) {
      if (next.reordered) this.stats.reorderedReads++;
      this.#rActives.push(this.#active(next.p.burst, next.p.seq));
      busy.add(next.p.burst.id);
    }
    if (this.#rActives.length === 0) return null;
    const act = this.#rng.pick(this.#rActives);
    if (this.#rLast && act !== this.#rLast && this.#rActives.includes(this.#rLast)) this.stats.interleavedReads++;
    this.#rLast = act;
    return act;
  }

  #finishRead(act: Active): void {
    if (!this.#interleave) { this.#rActive = null; return; }
    this.#rActives.splice(this.#rActives.indexOf(act), 1);
  }

  readonly #readDone = (): void => { this.#readsOpen--; };

  #write(addr: bigint | number, bytes: Uint8Array): void {
    if (this.#host) this.#host.write(addr, bytes);
    else this.memory.write(typeof addr === 'number' ? BigInt(addr) : addr, bytes);
  }

  /** `len` bytes at `addr` into `out` from `at`. */
  #read(addr: bigint | number, out: Uint8Array, at: number, len: number): void {
    if (this.#host) this.#host.readInto(addr, out, at, len);
    else out.set(this.memory.read(typeof addr === 'number' ? BigInt(addr) : addr, len), at);
  }

  #active(burst: AxiBurst, seq: number): Active {
    return { burst, seq, beats: 0, cursor: BeatCursor.of(burst, this.busBytes) };
  }
}
