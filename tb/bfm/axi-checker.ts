// A passive AXI4 protocol checker for one bus (either end of a DUT, or an internal bus),
// plus the counters benchmarks want. AxiRam and AxiMaster attach one by default.
//
// Rules (names after ARM's AXI4 protocol checker, without the AXI4_ERRM_/ERRS_ prefix):
//   <SIG>_STABLE           AW/W/AR/B/R valid and payload held while valid && !ready
//   AWSIZE/AWBURST/AWLEN*  request legal for the bus (axi-burst.ts); same for AR
//   AWADDR_BOUNDARY        an INCR burst crosses 4 KiB; ARADDR_BOUNDARY likewise
//   AWADDR_WRAP_ALIGN      WRAP start not aligned to the beat size
//   WLAST                  wlast not on the burst's last beat
//   WSTRB                  a strobe set outside the bytes the beat addresses
//   BRESP_NO_WRITE         a write response for an id with no finished write burst
//   RID_NO_READ            read data for an id with no outstanding read
//   RLAST                  rlast not on the burst's last beat
//
// Write data may come before its address (AXI allows it): W beats wait until their AW.

import type { ClockHandle, TestBench } from '../core/index.ts';
import { BeatCursor, beatLanes, burstBytes, checkBurst, describeBurst, type AxiBurst } from './axi-burst.ts';
import { watchChannel, type ChannelWatch } from './channel-checker.ts';
import { big, bitsOutside, highOf, num, popcount, portWidth, uintWordOf, valueWords, wordsValue, type AxiWatchPorts, type Readable } from './ports.ts';
import { ProtocolError } from './protocol-error.ts';

export interface AxiStats {
  readBursts: number;
  writeBursts: number;
  /** Bytes addressed by read bursts / strobed by write beats. */
  readBytes: number;
  writeBytes: number;
  outstandingReads: number;
  outstandingWrites: number;
  maxOutstandingReads: number;
  maxOutstandingWrites: number;
}

export interface AxiCheckerOptions {
  readonly reset?: Readable;
  /** The bus's clock (default: the testbench's; needed in a design with several). */
  readonly clock?: ClockHandle;
}

interface WriteInFlight {
  readonly burst: AxiBurst;
  beats: number;
  /** Its beat lanes in plain numbers (null above 2^52): no bigint per W beat. */
  readonly cursor: BeatCursor | null;
}

interface ReadInFlight {
  readonly burst: AxiBurst;
  beats: number;
}

/** Where a W beat belongs, for messages (built only on a failure). */
function whereW(wr: WriteInFlight, beatCycle: number): string {
  return `beat ${wr.beats + 1} of ${wr.burst.len + 1}, transferred in cycle ${beatCycle} (${describeBurst(wr.burst)})`;
}

export class AxiChecker {
  readonly name: string;
  readonly busBytes: number;
  readonly stats: AxiStats = {
    readBursts: 0, writeBursts: 0, readBytes: 0, writeBytes: 0,
    outstandingReads: 0, outstandingWrites: 0, maxOutstandingReads: 0, maxOutstandingWrites: 0,
  };
  readonly channels: readonly ChannelWatch[];
  /** Accepted AW whose data is not complete, oldest first (W follows AW order). */
  readonly #awaitingData: WriteInFlight[] = [];
  /** W beats that arrived before their AW. */
  readonly #earlyW: { strb: Uint32Array; last: boolean; cycle: number }[] = [];
  /** Per id: count of writes with address and data done but no response yet. */
  readonly #writesDone = new Map<number, number>();
  /** Per id: reads in order of their AR. */
  readonly #reads = new Map<number, ReadInFlight[]>();

  constructor(tb: TestBench, ports: AxiWatchPorts, name: string, options: AxiCheckerOptions = {}) {
    this.name = name;
    this.busBytes = portWidth(tb, ports.wdata) / 8;
    const o = { ...(options.reset ? { reset: options.reset } : {}), ...(options.clock ? { clock: options.clock } : {}) };
    const p = ports;
    const req = (ch: 'AW' | 'AR', f: readonly Readable[]) => (cycle: number): AxiBurst => {
      const b: AxiBurst = { id: num(f[0]!.value), addr: big(f[1]!.value), len: num(f[2]!.value), size: num(f[3]!.value), burst: num(f[4]!.value) };
      const bad = checkBurst(b, this.busBytes, ch);
      if (bad) throw new ProtocolError(name, bad.rule, cycle, bad.detail);
      return b;
    };
    const aw = req('AW', [p.awid, p.awaddr, p.awlen, p.awsize, p.awburst]), ar = req('AR', [p.arid, p.araddr, p.arlen, p.arsize, p.arburst]);
    const strbWords = p.wstrb.words, strbCount = Math.ceil(this.busBytes / 32);
    // Read on every R beat: in place when the handles allow.
    const ridWord = uintWordOf(tb, p.rid), rlastHigh = highOf(p.rlast), wlastHigh = highOf(p.wlast);
    // Handshakes read the fields they need straight from the ports (onHandshake), so wide
    // data is never converted. Responses are checked before this cycle's requests are
    // counted, so a response in the same cycle as its own request's handshake (too early)
    // is caught.
    this.channels = [
      watchChannel(tb, { valid: p.bvalid, ready: p.bready, payload: [p.bid, p.bresp] }, name, {
        ...o,
        onHandshake: cycle => {
          const id = num(p.bid.value);
          const n = this.#writesDone.get(id) ?? 0;
          if (n === 0) throw new ProtocolError(name, 'BRESP_NO_WRITE', cycle, `write response for id ${id}, which has no write burst with address and all data accepted`);
          this.#writesDone.set(id, n - 1);
          this.stats.outstandingWrites--;
        },
      }),
      watchChannel(tb, { valid: p.rvalid, ready: p.rready, payload: [p.rid, p.rdata, p.rresp, p.rlast] }, name, {
        ...o,
        onHandshake: cycle => {
          const id = ridWord !== null ? ridWord[0]! : num(p.rid.value);
          const rd = this.#reads.get(id)?.[0];
          if (!rd) throw new ProtocolError(name, 'RID_NO_READ', cycle, `read data for id ${id}, which has no outstanding read`);
          const last = rlastHigh();
          const isLast = rd.beats === rd.burst.len;
          if (last !== isLast) {
            throw new ProtocolError(name, 'RLAST', cycle, `rlast ${last ? 1 : 0} on beat ${rd.beats + 1} of ${rd.burst.len + 1} (${describeBurst(rd.burst)})`);
          }
          rd.beats++;
          if (isLast) {
            this.#reads.get(id)!.shift();
            this.stats.outstandingReads--;
          }
        },
      }),
      watchChannel(tb, { valid: p.awvalid, ready: p.awready, payload: [p.awid, p.awaddr, p.awlen, p.awsize, p.awburst, p.awlock, p.awcache, p.awprot] }, name, {
        ...o,
        onHandshake: cycle => {
          const b = aw(cycle);
          this.#awaitingData.push({ burst: b, beats: 0, cursor: BeatCursor.of(b, this.busBytes) });
          this.stats.writeBursts++;
          this.stats.outstandingWrites++;
          this.stats.maxOutstandingWrites = Math.max(this.stats.maxOutstandingWrites, this.stats.outstandingWrites);
          this.#matchW(cycle);
        },
      }),
      watchChannel(tb, { valid: p.wvalid, ready: p.wready, payload: [p.wdata, p.wstrb, p.wlast] }, name, {
        ...o,
        onHandshake: cycle => {
          const strb = strbWords ?? valueWords(p.wstrb.value, strbCount);
          // Its AW is known (the usual case): check the beat in place, else keep a copy until it is.
          if (this.#earlyW.length === 0 && this.#awaitingData.length > 0) this.#checkW(strb, wlastHigh(), cycle, cycle);
          else { this.#earlyW.push({ strb: strb.slice(), last: wlastHigh(), cycle }); this.#matchW(cycle); }
        },
      }),
      watchChannel(tb, { valid: p.arvalid, ready: p.arready, payload: [p.arid, p.araddr, p.arlen, p.arsize, p.arburst, p.arlock, p.arcache, p.arprot] }, name, {
        ...o,
        onHandshake: cycle => {
          const b = ar(cycle);
          const q = this.#reads.get(b.id) ?? [];
          q.push({ burst: b, beats: 0 });
          this.#reads.set(b.id, q);
          this.stats.readBursts++;
          this.stats.readBytes += burstBytes(b, this.busBytes);
          this.stats.outstandingReads++;
          this.stats.maxOutstandingReads = Math.max(this.stats.maxOutstandingReads, this.stats.outstandingReads);
        },
      }),
    ];
  }

  /** Pairs early W beats with the oldest AW still waiting for data, checking each beat. */
  #matchW(cycle: number): void {
    while (this.#earlyW.length > 0 && this.#awaitingData.length > 0) {
      const w = this.#earlyW.shift()!;
      this.#checkW(w.strb, w.last, w.cycle, cycle);
    }
  }

  /** Checks one W beat against the oldest AW waiting for data (there is one). */
  #checkW(strb: Uint32Array, last: boolean, beatCycle: number, cycle: number): void {
    const wr = this.#awaitingData[0]!;
    const b = wr.burst;
    const isLast = wr.beats === b.len;
    if (last !== isLast) throw new ProtocolError(this.name, 'WLAST', cycle, `wlast ${last ? 1 : 0} on ${whereW(wr, beatCycle)}`);
    let lo: number, hi: number;
    const c = wr.cursor;
    if (c) { c.seek(wr.beats); lo = c.lo; hi = c.hi; } else ({ lo, hi } = beatLanes(b, wr.beats, this.busBytes));
    if (bitsOutside(strb, lo, hi)) {
      throw new ProtocolError(this.name, 'WSTRB', cycle, `wstrb 0b${wordsValue(strb).toString(2)} has strobes outside byte lanes ${lo}..${hi} on ${whereW(wr, beatCycle)}`);
    }
    this.stats.writeBytes += popcount(strb);
    wr.beats++;
    if (isLast) {
      this.#awaitingData.shift();
      this.#writesDone.set(b.id, (this.#writesDone.get(b.id) ?? 0) + 1);
    }
  }


  /** Bursts started and not finished (for end-of-test checks). */
  get idle(): boolean {
    return this.stats.outstandingReads === 0 && this.stats.outstandingWrites === 0 && this.#earlyW.length === 0;
  }
}
