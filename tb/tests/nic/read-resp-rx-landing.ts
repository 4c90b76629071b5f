// The requester's READ-response landing chain as nic_top wires it, alone on a bench paced
// like the wire: nic_read_resp_rx -> nic_dma_write -> store-and-forward W buffer
// (storeForwardWriteClient) -> an AXI memory slave, translations from a TS model.
//
// The stimulus stands for the RX side in front of nic_read_resp_rx: READ RESPONSE frames
// arrive back to back at one bus beat a cycle, and a parser model takes one frame beat a
// cycle from them (its first beat gives the header, a 1-deep register; the next ones the
// payload beats, into a 4-beat skid as u_rx_pay_skid; the rest is headers and ICRC). When
// the chain does not take a header or payload beat, the parser model waits and falls behind
// the wire: its lateness (cycles between a frame beat's arrival and its parse) is the backlog
// nic_top's RX frame buffer would hold, and it must stay bounded over many frames.
// The bench's streams and the memory are tb/bfm models or carry tb/bfm's checkers.

import { defineModule, Vec } from '../../../gen/hdl/index.ts';
import { axi4 } from '../../../gen/lib/interfaces.ts';
import { stream } from '../../../gen/lib/interfaces.ts';
import { QpCtx } from '../../../gen/nic/ctx.ts';
import { emptyQpCtx } from './qp-ctx.ts';
import { nicDmaWrite } from '../../../gen/nic/dma-write.ts';
import { ackInStruct, LOCAL_QPN_BASE } from '../../../gen/nic/flow-types.ts';
import { nicReadRespRx } from '../../../gen/nic/read-resp-rx.ts';
import { readCtxStruct, readDoneStruct, READ_RESP } from '../../../gen/nic/read-types.ts';
import { QP_STATE } from '../../../gen/nic/regmap.ts';
import { storeForwardWriteClient } from '../../../gen/nic/top-axi-buffers.ts';
import { link, port, portsOf, sink, tieOff, type PortMap } from '../../../gen/nic/top-wiring.ts';
import { ADDR_WIDTH, byteStream, RxPktHdr, XLATE_ACCESS, xlateReq, xlateResp } from '../../../gen/nic/types.ts';
import { ClockPhases, watchAxiStream, watchChannel, type AxiMasterPorts, type AxisInPorts } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { AETH_BYTES, BTH_BYTES, ETH_HEADER_BYTES, ICRC_BYTES, IPV4_HEADER_BYTES, UDP_HEADER_BYTES } from '../../model/headers.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { padFor } from '../../model/packet.ts';
import { PageAllocator } from '../../model/page-allocator.ts';
import { XlateModel, type Region } from './dma-model.ts';
import { dmaMemory, XlateStandIn } from './dma-standins.ts';
import { StructSink, StructSource, type StructInPorts } from './stage-streams.ts';

const NUM_QP = 2;
const ID_W = 4;
/** nic_top's W buffer of the READ-response DMA write (AXI_CLIENT_BUFFER_BYTES there). */
const W_BUFFER_BYTES = 8192;
/** u_rx_pay_skid in nic_top: payload beats the parser may run ahead of the responder. */
const PARSER_SKID = 4;
const WRITE_HALF_ONLY = ['arid', 'araddr', 'arlen', 'arsize', 'arburst', 'arlock', 'arcache', 'arprot', 'arvalid', 'arready', 'rid', 'rdata', 'rresp', 'rlast', 'rvalid', 'rready'];

export const readLanding = defineModule('tb_read_landing', { dataWidth: 512 }, (m, p) => {
  const W = p.dataWidth;
  const { clk, rst } = m.clockAndReset();
  const qp_ctx = m.input('qp_ctx', Vec(QpCtx, NUM_QP));
  const s_ctx = stream(readCtxStruct(NUM_QP)).sink(m, 's_ctx');
  const s_hdr = stream(RxPktHdr).sink(m, 's_hdr');
  const s_payload = byteStream(W).sink(m, 's_payload');
  const m_ack = stream(ackInStruct(NUM_QP)).source(m, 'm_ack');
  const m_done = stream(readDoneStruct(NUM_QP)).source(m, 'm_done');
  const m_xlate_req = xlateReq.source(m, 'm_xlate_req');
  const s_xlate_resp = xlateResp.sink(m, 's_xlate_resp');
  const m_axi = axi4({ idWidth: ID_W, addrWidth: ADDR_WIDTH, dataWidth: W }).source(m, 'm_axi');
  const top = portsOf({ qp_ctx, s_ctx, s_hdr, s_payload, m_ack, m_done, m_xlate_req, s_xlate_resp, m_axi });
  const inst = (name: string, def: Parameters<typeof m.instance>[1], params: Record<string, unknown>): PortMap => portsOf(m.instance(name, def, params as never), name);

  const rrx = inst('u_read_resp_rx', nicReadRespRx, { dataWidth: W, numQp: NUM_QP, readsPerQp: 2 });
  const dw = inst('u_dma_write', nicDmaWrite, { dataWidth: W, idWidth: ID_W });
  sink(rrx, 'qp_ctx').set(qp_ctx);
  for (const x of ['s_ctx', 's_hdr', 's_payload', 'm_ack', 'm_done']) link(rrx, x, top, x);
  // No rewinds on this path (no loss): the tracker's rewind port is tied off.
  sink(rrx, 's_rewind_valid').set(0);
  sink(rrx, 's_rewind_data').set(0);
  m.unused(port(rrx, 's_rewind_ready'), 'no rewinds here');
  m.unused(port(rrx, 'ctx_room'), 's_ctx ready says it');
  link(dw, 's_cmd', rrx, 'm_dma_cmd');
  link(dw, 's_axis', rrx, 'm_payload');
  link(rrx, 's_dma_status', dw, 'm_status');
  link(dw, 'm_xlate_req', top, 'm_xlate_req');
  link(dw, 's_xlate_resp', top, 's_xlate_resp');
  storeForwardWriteClient(m, { name: 'wbuf', dataWidth: W, idWidth: ID_W, bytes: W_BUFFER_BYTES, engine: dw, enginePrefix: 'm_axi', mux: top, muxPrefix: 'm_axi' }, inst as never);
  tieOff(m, dw, 'm_axi', WRITE_HALF_ONLY, 'write-only engine');
  tieOff(m, top, 'm_axi', WRITE_HALF_ONLY, 'the chain only writes');
  return { clk, rst, qp_ctx, s_ctx, s_hdr, s_payload, m_ack, m_done, m_xlate_req, s_xlate_resp, m_axi };
}, { doc: 'test top: READ-response landing chain of nic_top (read_resp_rx, dma_write, W store-and-forward)' });

export interface LandingOptions {
  readonly dataWidth: number;
  readonly reads: number;
  readonly readLen: number;
  readonly pmtuLog2: number;
  /** Landing VA's offset in its page (not a multiple of the bus width: one W beat more per piece). */
  readonly pageOffset: number;
  readonly xlateLatency: readonly [number, number];
  readonly seed: number;
}

export interface LandingResult {
  readonly frames: number;
  /** Parser lateness (cycles behind the wire) when it took each frame's header. */
  readonly lateAtFrame: readonly number[];
  readonly maxLate: number;
  readonly wBeats: number;
  readonly cycles: number;
}

interface Frame { readonly read: number; readonly hdr: Record<string, unknown>; readonly payload: Uint8Array; readonly beats: number }
type Item = { kind: 'hdr'; frame: number; at: number } | { kind: 'pay'; frame: number; at: number; beat: { data: bigint; keep: bigint; last: number } } | { kind: 'gap'; frame: number; at: number };

/** One bus beat a cycle of back-to-back frames, parsed one frame beat a cycle (see top).
 *  A model of nic_top's parser and skid, not a generic source: it drives s_hdr and s_payload
 *  itself in tb/bfm's clock phases, and both streams carry tb/bfm's checkers. */
class WireParser {
  readonly lateAtFrame: number[] = [];
  maxLate = 0;
  #items: Item[] = [];
  #next = 0;
  #hdr: Item | null = null;
  #skid: Item[] = [];
  constructor(tb: TestBench, private readonly hdrPort: StructInPorts<unknown>, private readonly payPort: AxisInPorts, private readonly frames: readonly Frame[],
    private readonly bytes: number, private readonly ctxTaken: () => number) {
    watchChannel(tb, { valid: hdrPort.valid, ready: hdrPort.ready, payload: { data: hdrPort.data as never } }, 's_hdr');
    watchAxiStream(tb, payPort, 's_payload');
    const phases = ClockPhases.of(tb);
    phases.onSample(() => this.sample(tb.cycle));
    phases.onDrive(() => this.drive());
  }

  /** Frames start arriving at `t0`, each right after the previous one. */
  start(t0: number): void {
    let at = t0;
    this.frames.forEach((f, k) => {
      const pay = beatsOf(f.payload, this.bytes);
      for (let b = 0; b < f.beats; b++, at++) {
        this.#items.push(b === 0 ? { kind: 'hdr', frame: k, at } : b <= pay.length ? { kind: 'pay', frame: k, at, beat: pay[b - 1]! } : { kind: 'gap', frame: k, at });
      }
    });
  }
  get idle(): boolean { return this.#next === this.#items.length && this.#hdr === null && this.#skid.length === 0; }
  drive(): void {
    const h = this.#hdr;
    this.hdrPort.valid.value = h ? 1 : 0;
    if (h) this.hdrPort.data.value = this.frames[h.frame]!.hdr;
    const b = this.#skid[0];
    this.payPort.tvalid.value = b ? 1 : 0;
    if (b?.kind === 'pay') {
      this.payPort.tdata.value = b.beat.data;
      this.payPort.tkeep!.value = b.beat.keep;
      this.payPort.tlast!.value = b.beat.last;
    }
  }
  sample(cycle: number): void {
    if (this.#hdr && Number(this.hdrPort.ready.value)) this.#hdr = null;
    if (this.#skid.length && Number(this.payPort.tready.value)) this.#skid.shift();
    const it = this.#items[this.#next];
    if (!it || it.at > cycle) return;
    if (it.kind === 'hdr') {
      // A response cannot overtake its request: its READ's context must be in.
      if (this.#hdr || this.frames[it.frame]!.read >= this.ctxTaken()) return;
      this.#hdr = it;
      this.lateAtFrame.push(cycle - it.at);
    } else if (it.kind === 'pay') {
      if (this.#skid.length >= PARSER_SKID) return;
      this.#skid.push(it);
    }
    this.maxLate = Math.max(this.maxLate, cycle - it.at);
    this.#next++;
  }
}

/** Bytes as a little-endian word (byte 0 = bits 7:0). */
function wordOf(bytes: Uint8Array): bigint {
  let w = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) w = (w << 8n) | BigInt(bytes[i]!);
  return w;
}

function beatsOf(bytes: Uint8Array, n: number): { data: bigint; keep: bigint; last: number }[] {
  const out: { data: bigint; keep: bigint; last: number }[] = [];
  for (let o = 0; o < bytes.length; o += n) {
    const k = Math.min(n, bytes.length - o), chunk = new Uint8Array(n);
    chunk.set(bytes.subarray(o, o + k));
    out.push({ data: wordOf(chunk), keep: (1n << BigInt(k)) - 1n, last: o + k >= bytes.length ? 1 : 0 });
  }
  return out;
}

/** Wire bytes of a READ RESPONSE frame (Eth, IPv4, UDP, BTH, [AETH], payload, pad, ICRC). */
function frameBytes(payload: number, aeth: boolean): number {
  return ETH_HEADER_BYTES + IPV4_HEADER_BYTES + UDP_HEADER_BYTES + BTH_BYTES + (aeth ? AETH_BYTES : 0) + payload + padFor(payload) + ICRC_BYTES;
}

/** READ `r`'s response frames. */
function responseFrames(r: number, firstPsn: number, o: LandingOptions, rng: { bytes(n: number): Uint8Array }): Frame[] {
  const mtu = 1 << o.pmtuLog2, n = Math.max(1, Math.ceil(o.readLen / mtu)), B = o.dataWidth / 8;
  return Array.from({ length: n }, (_, k) => {
    const opcode = n === 1 ? READ_RESP.ONLY : k === 0 ? READ_RESP.FIRST : k === n - 1 ? READ_RESP.LAST : READ_RESP.MIDDLE;
    const aeth = opcode !== READ_RESP.MIDDLE;
    const payload = rng.bytes(Math.min(mtu, o.readLen - k * mtu));
    const hdr = { opcode, destQpn: LOCAL_QPN_BASE, psn: (firstPsn + k) & 0xff_ffff, payloadLen: payload.length, ackReq: 0, hasReth: 0, rethVa: 0n, rethRkey: 0, rethLen: 0,
      hasAeth: aeth ? 1 : 0, aethSyndrome: 0x1f, aethMsn: 0, srcMac: 0n, srcIp: 0, srcPort: 0 };
    return { read: r, hdr, payload, beats: Math.ceil(frameBytes(payload.length, aeth) / B) };
  });
}

/** Runs `o.reads` READs on QP 0 through the chain; checks completions and host memory. */
export async function runLanding(o: LandingOptions): Promise<LandingResult> {
  const B = o.dataWidth / 8;
  const where = `[landing ${o.dataWidth} bits, MTU ${1 << o.pmtuLog2}, seed ${o.seed} (replay: NICGEN_SEED=${o.seed})]`;
  let res: LandingResult | undefined;
  await runTest(design(readLanding, { dataWidth: o.dataWidth }), async (dut, tb: TestBench) => {
    const rng = tb.rng.fork();
    const mem = new HostMemory();
    const alloc = new PageAllocator({ base: 0x7f12_3400_0000n, pages: Math.ceil(o.reads * o.readLen / 4096) + 8, rng: rng.fork() });
    const xm = new XlateModel();
    const land: Region = xm.addRegion({ index: 3, tag: 0x5a, pd: 0x11, access: XLATE_ACCESS.LOCAL_WRITE, len: o.reads * o.readLen, vaPage: 0x4_0000n, offset: o.pageOffset }, alloc, mem, rng);
    const snap = mem.snapshot();
    const firstPsn = 0xff_fff0;
    const n = Math.max(1, Math.ceil(o.readLen / (1 << o.pmtuLog2)));
    const ctxs = Array.from({ length: o.reads }, (_, r) => ({
      qp: 0, wrId: BigInt(0x1000 + r), firstPsn: (firstPsn + r * n) & 0xff_ffff, lastPsn: (firstPsn + r * n + n - 1) & 0xff_ffff, length: o.readLen, startOff: 0, pd: land.pd, pmtu: o.pmtuLog2, numSge: 1,
      sge: [{ addr: land.va + BigInt(r * o.readLen), len: o.readLen, lkey: land.key }, ...[1, 2, 3].map(() => ({ addr: 0n, len: 0, lkey: 0 }))],
    }));
    const frames = ctxs.flatMap((c, r) => responseFrames(r, c.firstPsn, o, rng));

    dut.qp_ctx.value = Array.from({ length: NUM_QP }, () => ({ ...emptyQpCtx(), state: QP_STATE.RTS })) as never;
    dut.m_ack.ready.value = 1; dut.s_hdr.valid.value = 0; dut.s_payload.tvalid.value = 0; dut.s_ctx.valid.value = 0;
    await tb.reset(2);

    // Registered before the parser: a context taken in a cycle counts for that cycle's frame.
    const ctxSrc = new StructSource<unknown>(tb, dut.s_ctx as never, 's_ctx');
    for (const c of ctxs) ctxSrc.push(c);
    const parser = new WireParser(tb, dut.s_hdr as never, dut.s_payload as never, frames, B, () => ctxSrc.sent.length);
    const done = new StructSink<Record<string, unknown>>(tb, dut.m_done as never, 'm_done');
    new XlateStandIn(tb, dut.m_xlate_req as never, dut.s_xlate_resp as never, (q: never) => xm.translate(q),
      { minLatency: o.xlateLatency[0], maxLatency: o.xlateLatency[1], readyP: 1, validP: 1 });
    const axi = dmaMemory(tb, dut.m_axi as unknown as AxiMasterPorts, mem, { latency: 0, readyP: 1, validP: 1 }, 'tb_read_landing.m_axi');
    const t0 = tb.cycle;
    parser.start(t0 + 2);
    const limit = 4 * frames.reduce((a, f) => a + f.beats, 0) + 10_000;
    // A completion leaves after its last DMA status, which comes after the write response.
    await tb.until(() => done.items.length >= o.reads && parser.idle, { timeout: limit, what: `${where}: ${o.reads} completions` });

    done.items.forEach((d, r) => {
      const v = d.value, okay = Number(v['ok']) === 1 && Number(v['status']) === 0 && BigInt(v['wrId'] as bigint) === ctxs[r]!.wrId;
      if (!okay) throw new Error(`completion #${r} at cycle ${d.cycle} ${where}: ${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `0x${x.toString(16)}` : x))}, want READ wrId 0x${ctxs[r]!.wrId.toString(16)} ok`);
    });
    const written: { addr: bigint; len: number }[] = [];
    ctxs.forEach((c, r) => {
      const want = new Uint8Array(o.readLen);
      let at = 0;
      for (const f of frames.filter(x => x.read === r)) { want.set(f.payload, at); at += f.payload.length; }
      at = 0;
      for (const pc of xm.pieces(land.key, c.sge[0]!.addr, o.readLen)) {
        const got = mem.read(pc.pa, pc.len);
        const k = got.findIndex((x, i) => x !== want[at + i]);
        if (k >= 0) throw new Error(`READ ${r} byte ${at + k} (VA 0x${(pc.va + BigInt(k)).toString(16)}) ${where}: got 0x${got[k]!.toString(16)}, want 0x${want[at + k]!.toString(16)}`);
        written.push({ addr: pc.pa, len: pc.len });
        at += pc.len;
      }
    });
    snap.expectUnchangedOutside(written, `host memory ${where}`);
    snap.release();
    res = { frames: frames.length, lateAtFrame: parser.lateAtFrame, maxLate: parser.maxLate, wBeats: axi.wBeatCycles.length, cycles: tb.cycle - t0 };
  }, { seed: o.seed, maxCycles: 2_000_000 });
  return res!;
}
