// A small AXI4 memory slave over tb/model HostMemory for the stage benches (until tb/bfm is
// ready): INCR bursts, random ready/valid gaps, an SLVERR window for error-path tests, and
// protocol checks (burst type, 4 KiB crossing, wlast) that fail the test when violated.

import type { Rng, TestBench } from '../../../core/index.ts';
import type { HostMemory } from '../../../model/host-memory.ts';
import { cycle, type In, type Out } from './handshake.ts';

export interface AxiReadPorts {
  arid: Out; araddr: Out; arlen: Out; arsize: Out; arburst: Out; arvalid: Out; arready: In;
  rid: In; rdata: In; rresp: In; rlast: In; rvalid: In; rready: Out;
}
export interface AxiWritePorts {
  awid: Out; awaddr: Out; awlen: Out; awsize: Out; awburst: Out; awvalid: Out; awready: In;
  wdata: Out; wstrb: Out; wlast: Out; wvalid: Out; wready: In;
  bid: In; bresp: In; bvalid: In; bready: Out;
}

export interface Burst { addr: bigint; len: number; size: number; cycle: number }
export interface MemSlaveOptions {
  busBytes: number;
  /** Probability of ready / of offering the next beat in a cycle (1 = always). */
  pReady?: number;
  pValid?: number;
  /** Bursts touching [lo, hi) answer SLVERR (and writes there change nothing). */
  errorRanges?: { lo: bigint; hi: bigint }[];
}

const SLVERR = 2;

export class AxiMemSlave {
  readonly reads: Burst[] = [];
  readonly writes: Burst[] = [];
  /** Write responses: cycle of the B transfer and its resp. */
  readonly responses: { cycle: number; resp: number }[] = [];
  private readonly pReady: number;
  private readonly pValid: number;

  constructor(private readonly tb: TestBench, readonly mem: HostMemory, private readonly rng: Rng, readonly opts: MemSlaveOptions) {
    this.pReady = opts.pReady ?? 1;
    this.pValid = opts.pValid ?? 1;
  }

  private isError(addr: bigint, bytes: number): boolean {
    return (this.opts.errorRanges ?? []).some(r => addr < r.hi && addr + BigInt(bytes) > r.lo);
  }

  private checkBurst(kind: string, b: Burst, burstType: number): void {
    if (burstType !== 1) throw new Error(`${kind} burst at cycle ${b.cycle}: burst type ${burstType}, expected INCR`);
    if (1 << b.size !== this.opts.busBytes) throw new Error(`${kind} burst at cycle ${b.cycle}: size ${b.size} is not the bus width`);
    const first = b.addr & ~BigInt(this.opts.busBytes - 1);
    const end = first + BigInt((b.len + 1) * this.opts.busBytes) - 1n;
    if (first >> 12n !== end >> 12n) throw new Error(`${kind} burst 0x${b.addr.toString(16)} len ${b.len + 1} at cycle ${b.cycle} crosses a 4 KiB boundary`);
  }

  private beatAddr(b: Burst, i: number): bigint {
    return (b.addr & ~BigInt(this.opts.busBytes - 1)) + BigInt(i * this.opts.busBytes);
  }

  private word(addr: bigint): bigint {
    const bytes = this.mem.read(addr, this.opts.busBytes);
    let v = 0n;
    for (let k = bytes.length - 1; k >= 0; k--) v = (v << 8n) | BigInt(bytes[k]!);
    return v;
  }

  /** Serves the read channels forever (fork it). */
  async serveReads(p: AxiReadPorts): Promise<never> {
    const { tb, rng } = this;
    const q: { b: Burst; beat: number; err: boolean }[] = [];
    let arready = 0, rvalid = 0;
    p.arready.value = 0; p.rvalid.value = 0;
    for (;;) {
      const s = await cycle(tb, () => ({
        ar: arready && p.arvalid.value === 1 ? { addr: BigInt(p.araddr.value), len: Number(p.arlen.value), size: Number(p.arsize.value), burst: Number(p.arburst.value), id: Number(p.arid.value) } : null,
        r: rvalid === 1 && p.rready.value === 1,
      }));
      if (s.ar) {
        const b: Burst = { addr: s.ar.addr, len: s.ar.len, size: s.ar.size, cycle: tb.cycle };
        this.checkBurst('read', b, s.ar.burst);
        this.reads.push(b);
        q.push({ b, beat: 0, err: this.isError(b.addr, (b.len + 1) * this.opts.busBytes) });
      }
      if (s.r) {
        const h = q[0]!;
        h.beat++;
        if (h.beat > h.b.len) q.shift();
      }
      arready = rng.bool(this.pReady) ? 1 : 0;
      p.arready.value = arready;
      // A beat once offered stays valid until taken (AXI rule).
      const h = q[0];
      if (h && (rvalid && !s.r ? true : rng.bool(this.pValid))) {
        p.rdata.value = this.word(this.beatAddr(h.b, h.beat));
        p.rresp.value = h.err ? SLVERR : 0;
        p.rlast.value = h.beat === h.b.len ? 1 : 0;
        p.rid.value = 0;
        rvalid = 1;
      } else rvalid = 0;
      p.rvalid.value = rvalid;
    }
  }

  /** Serves the write channels forever (fork it). W is taken only after its AW. */
  async serveWrites(p: AxiWritePorts): Promise<never> {
    const { tb, rng } = this;
    const aw: { b: Burst; beat: number; err: boolean }[] = [];
    const bq: { resp: number; wait: number }[] = [];
    let awready = 0, wready = 0, bvalid = 0;
    p.awready.value = 0; p.wready.value = 0; p.bvalid.value = 0;
    for (;;) {
      const s = await cycle(tb, () => ({
        aw: awready && p.awvalid.value === 1 ? { addr: BigInt(p.awaddr.value), len: Number(p.awlen.value), size: Number(p.awsize.value), burst: Number(p.awburst.value) } : null,
        w: wready && p.wvalid.value === 1 ? { data: BigInt(p.wdata.value), strb: BigInt(p.wstrb.value), last: Number(p.wlast.value) } : null,
        b: bvalid === 1 && p.bready.value === 1,
      }));
      if (s.aw) {
        const b: Burst = { addr: s.aw.addr, len: s.aw.len, size: s.aw.size, cycle: tb.cycle };
        this.checkBurst('write', b, s.aw.burst);
        this.writes.push(b);
        aw.push({ b, beat: 0, err: this.isError(b.addr, (b.len + 1) * this.opts.busBytes) });
      }
      if (s.w) {
        const h = aw[0]!;
        const base = this.beatAddr(h.b, h.beat);
        if (!h.err) {
          for (let k = 0; k < this.opts.busBytes; k++) {
            if ((s.w.strb >> BigInt(k)) & 1n) this.mem.write(base + BigInt(k), Uint8Array.of(Number((s.w.data >> BigInt(8 * k)) & 0xffn)));
          }
        }
        const last = h.beat === h.b.len;
        if (s.w.last !== (last ? 1 : 0)) throw new Error(`write burst 0x${h.b.addr.toString(16)}: wlast=${s.w.last} on beat ${h.beat} of ${h.b.len + 1} (cycle ${tb.cycle})`);
        h.beat++;
        if (last) { aw.shift(); bq.push({ resp: h.err ? SLVERR : 0, wait: rng.int(0, this.pValid < 1 ? 3 : 0) }); }
      }
      if (s.b) { this.responses.push({ cycle: tb.cycle, resp: bq[0]!.resp }); bq.shift(); }
      awready = rng.bool(this.pReady) ? 1 : 0;
      wready = aw.length > 0 && rng.bool(this.pReady) ? 1 : 0;
      p.awready.value = awready;
      p.wready.value = wready;
      const hb = bq[0];
      if (hb && hb.wait > 0 && !bvalid) { hb.wait--; bvalid = 0; }
      else if (hb) { bvalid = 1; p.bresp.value = hb.resp; p.bid.value = 0; }
      else bvalid = 0;
      p.bvalid.value = bvalid;
    }
  }
}
