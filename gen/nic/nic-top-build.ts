// nic_top: every stage of docs/nic.md wired together behind the four interfaces of
// ARCHITECTURE.md (s_axil_* registers, m_axi_* host memory, s_axis_rx_* / m_axis_tx_*
// Ethernet frames without FCS) and an interrupt line.
//
// The flow-control stages are passed in (`NicStages`) so the same wiring can be elaborated
// against stand-ins while a stage is being written; gen/nic/nic-top.ts binds the real ones.
//
// Wiring decisions (why, where it is not obvious):
// - Host memory: one AXI4 master. Reads are shared by WQE fetch (client 0), TLB page-table
//   walks (1), DMA read (2, the requester's payload) and the READ responder's DMA read (3)
//   through nic_axi_rd_mux; writes by DMA write (0, WRITE payload received), CQE writes (1) and
//   the READ-response DMA write (2, READ data into the requester's SGEs) through
//   nic_axi_wr_mux. Every client uses idWidth 4; both muxes prepend 2 client bits, so AWID and
//   ARID are both NIC_AXI_ID_W = 6 bits.
// - Translations: nic_tlb with five clients: DMA read (0), DMA write (1), responder (2, the
//   rkey check before any byte of a WRITE is accepted), READ responder's DMA read (3, rkey with
//   REMOTE_READ), READ-response DMA write (4, lkey with LOCAL_WRITE).
// - TX: requester packet commands, READ RESPONSE commands (nic_read_responder) and responder
//   ACK/NAK commands meet in nic_tx_cmd_mux. Requester commands carry payload from DMA read,
//   READ responses from the second DMA read; the mux switches payload per command (one
//   source owns the payload stream up to its tlast) into nic_tx_frame_gate, which passes a
//   command on to the packetizer only with its whole payload buffered: no frame stalls
//   between its first beat and tlast (a MAC would underrun; asserted on m_axis_tx).
// - READ: nic_responder hands accepted READ REQUESTs to nic_read_responder (a pool of READ
//   contexts, a limit per QP that comes back as rd_room, and rd_busy holds the QP's later ACKs so responses leave in PSN order)
//   and the READ RESPONSEs and ACK/NAKs it receives, in arrival order, to nic_read_resp_rx,
//   which also gets the contexts req_tx issues and passes every ACK/NAK and READ response on
//   to the ACK tracker as one ordered event stream; its read_done completes the READ in the
//   ACK tracker, whose read_busy is req_tx's fence. docs/nic-read.md.
// - Retransmission (docs/nic-reliability.md): the ACK tracker holds each QP's transport record;
//   its rewinds go to req_tx and read_resp_rx together (rewindFork) and to fetch's pointer
//   (fetch_rewind, also req_tx's parks), its tx_hold keeps parked QPs back at fetch, and req_tx
//   reads the send pointer through tp_qp/tp. SQ_CI comes from the tracker (slots free at
//   completion, since a rewind reads the ring again). req_tx (dmaAbort 1) cuts a rewound QP's
//   messages short with u_dma_read's abort (abortQps = numQp; u_dma_read_rsp has none): it
//   tags each message {qp, msg id}, learns from pay_end (a tlast of DMA read's stream into the
//   TX mux) when the payload of its commands taken is out, and hands the tracker the QP's
//   newest PSN really sent with the rewind (rewind_high).
// - Shared resources and stalled engines (top-axi-buffers.ts): each DMA read engine gets an
//   R FIFO with AR credits, the READ-response DMA write a store-and-forward W FIFO, and every
//   TLB client a credit-gated answer FIFO, so that no engine that waits downstream (for the
//   TX mux, for RX payload) can hold the shared R channel, W channel or TLB pipeline that the
//   engine it waits for needs (the R and TLB cases deadlocked the end-to-end READ/WRITE mix).
// - Doorbells: nic_wqe_fetch takes SQ_PI writes from nic_regs' qp_wr lane (a cycle before the
//   doorbell pulse, which is unused).
// - QP errors come from req_tx, ack_tracker, responder, completion and the READ responder;
//   nic_regs takes one per cycle, so they pass a per-QP pending-bit merger (top-wiring.ts), none lost.
// - Counters: RETX_PKTS from req_tx, ACK_TIMEOUTS and RETRY_EXC from the ACK tracker,
//   SEQ_NAK_TX, SEQ_NAK_RX and DUP_REQ_RX from the responder (one pulse a cycle each);
//   nic_tlb's free-running hit/miss counters become +1 pulses (they move by at
//   most one per cycle, asserted); RX drops of ICRC check (BAD_ICRC -> RX_DROP_ICRC, any other
//   reason -> RX_DROP_OTHER), RX parser and responder are merged into RX_DROP_OTHER through a
//   small backlog counter, so simultaneous drops all count. TX_FRAMES counts tlast beats on
//   m_axis_tx; RX_FRAMES counts headers the RX parser accepted.

import { Bool, UInt, defineModule, intIn, mux, oneOf, pack, type ModuleBuilder, type IORecord, type ModuleDef, type ParamSpec, type Params } from '../hdl/index.ts';
import { axi4, axiLite, axiStream } from '../lib/interfaces.ts';
import { nicAxiRdMux, nicAxiWrMux } from './axi-mux.ts';
import { nicCompletion } from './completion.ts';
import { FF_QP_REGS, HW_QP_FIELDS, qpErrorEvent } from './ctx.ts';
import { nicDmaRead } from './dma-read.ts';
import { REQ_TX_MSG_ID_WIDTH } from './req-tx.ts';
import { nicDmaWrite } from './dma-write.ts';
import { icrcCheck } from './icrc-check.ts';
import { icrcInsert } from './icrc-insert.ts';
import { packetizer } from './packetizer.ts';
import { nicRegs } from './regs.ts';
import { rxParser } from './rx-parser.ts';
import { nicReadRespRx } from './read-resp-rx.ts';
import { nicReadResponder } from './read-responder.ts';
import { nicTlb } from './tlb.ts';
import { creditedReadClient, creditedXlateClient, storeForwardWriteClient } from './top-axi-buffers.ts';
import { field, fieldsThroughFifo, link, mergePulses, mergeQpErrors, counterPulse, port, portsOf, sink, tieOff, type PortMap } from './top-wiring.ts';
import { txCmdMux } from './tx-cmd-mux.ts';
import { txFrameGate, txFrameGateDepth } from './tx-frame-gate.ts';
import { RX_DROP, ADDR_WIDTH, frameStream, qpIndexWidth, type NicParams } from './types.ts';
import { nicWqeFetch } from './wqe-fetch.ts';
import { wqeStruct } from './wqe.ts';
import { AXIL_ADDR_WIDTH, WQE_BYTES } from './regmap.ts';
import { creditGate } from '../lib/credit-gate.ts';
import type { Domain } from '../hdl/ir.ts';
import { macBoundary, type MacClock } from './mac-clock.ts';
import { syncFifo, syncFifoRam } from '../lib/fifo.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDef = ModuleDef<any, IORecord>;

/** The message-flow stages (ports as in docs/nic.md; see the brief of each file). */
export interface NicStages {
  readonly reqTx: AnyDef;
  readonly ackTracker: AnyDef;
  readonly responder: AnyDef;
}

/** Client AXI id width everywhere inside the NIC. */
const ID_W = 4;
/** The top's AXI id width: client id + 2 client bits (4 read clients, 3 write clients). */
export const NIC_AXI_ID_W = ID_W + 2;

const READ_HALF = ['arid', 'araddr', 'arlen', 'arsize', 'arburst', 'arlock', 'arcache', 'arprot', 'arvalid', 'arready', 'rid', 'rdata', 'rresp', 'rlast', 'rvalid', 'rready'];
const WRITE_HALF = ['awid', 'awaddr', 'awlen', 'awsize', 'awburst', 'awlock', 'awcache', 'awprot', 'awvalid', 'awready', 'wdata', 'wstrb', 'wlast', 'wvalid', 'wready', 'bid', 'bresp', 'bvalid', 'bready'];

/** READs nic_read_responder lets one QP hold (advertised to the peer: max_dest_rd_atomic). */
export const READ_LIMIT_PER_QP = 4;
/** Fewest READ contexts in nic_read_responder's pool (nic_top at up to 4 QPs). */
export const READ_CONTEXTS = 16;
/** READ contexts of nic_read_responder's pool, shared by all QPs (READs held at once): room for
 *  every QP at its limit (a power of two, at least READ_CONTEXTS). A smaller pool makes the
 *  responder hold the RX path while it is full, and with many QPs reading at once (256 QPs,
 *  one READ each: bench/nic-many-qp.ts) the requests behind it overflowed the RX frame
 *  buffer's 128 frames and were dropped. Deep pools are block RAM (nic_read_responder). */
export function readContextsFor(numQp: number): number {
  return Math.max(READ_CONTEXTS, 2 ** Math.ceil(Math.log2(numQp * READ_LIMIT_PER_QP)));
}
/** Outstanding messages nic_ack_tracker keeps per QP (its `depth`: the requester's window W). */
export const ACK_TRACKER_DEPTH = 16;
/** Most QPs nic_top takes today: 128 and 256 pass the two-NIC end-to-end test (nic_pair/write_scale_qp256 in make regress); 1,024 elaborates but was not built (docs/synth.md). */
export const MAX_QP = 256;

/** nic_top's parameters: NicParams and the requester's READ limit. */
export type NicTopParams = NicParams & {
  /** READs the requester keeps outstanding per QP at most (nic_read_resp_rx's READ contexts
   *  per QP; req_tx waits for room before it sends a READ). At most the responder's READ
   *  limit per QP (READ_LIMIT_PER_QP), which the peer, another nic_top, enforces: a READ over
   *  it is NAKed (Invalid Request) and the QP goes to ERROR. docs/nic-read.md. */
  readsPerQp: number;
  /** nic_read_resp_rx's READ contexts, one pool shared by all QPs (READs the requester keeps
   *  outstanding at once over all QPs, each QP at most readsPerQp); 0: numQp x readsPerQp, where
   *  the pool never makes a QP wait (docs/nic-read.md "READ contexts: a pool"). */
  readContexts: number;
  /** nic_ack_tracker's entry slots, shared by all QPs (each holds at most ACK_TRACKER_DEPTH
   *  outstanding messages); 0: numQp x ACK_TRACKER_DEPTH, where no QP ever waits for the pool
   *  (docs/synth.md, "ACK tracker entries pooled"). */
  trackerEntries: number;
  /** 'core': m_axis_tx / s_axis_rx on clk. 'separate': on their own mac_clk / mac_rst,
   *  through dual-clock FIFOs into the core (mac-clock.ts, docs/nic-top.md "Clocks"). */
  macClock: MacClock;
};

/** nic_top's allowed parameters (checked before it elaborates, at the user's line):
 *  - dataWidth: the stages' datapath widths (64..512 bits, whole powers of two);
 *  - numQp: 1..MAX_QP (the READ responder's contexts are a pool, any numQp);
 *  - numMr: 1..4,096 MRs (the MR table is block RAM in nic_regs; the register map's
 *    AXIL_ADDR_WIDTH-bit space holds them, regmap.ts);
 *  - readsPerQp: at most the responder's READ limit per QP (READ_LIMIT_PER_QP), which the peer,
 *    another nic_top, enforces (a READ over it is NAKed and the QP goes to ERROR);
 *  - readContexts: 0 (numQp x readsPerQp) or 1..MAX_QP x READ_LIMIT_PER_QP READ contexts shared
 *    by all QPs (the requester's READs outstanding at once). */
/** Most MRs nic_top takes (issue 15: 4,096, as many as the register map was sized for). */
export const MAX_MR = 4096;

export const nicTopParamSpec: ParamSpec<NicTopParams> = {
  rules: {
    dataWidth: oneOf(64, 128, 256, 512),
    numQp: intIn(1, MAX_QP),
    numMr: intIn(1, MAX_MR),
    readsPerQp: intIn(1, 64),
    readContexts: intIn(0, MAX_QP * READ_LIMIT_PER_QP),
    trackerEntries: intIn(0, MAX_QP * ACK_TRACKER_DEPTH),
    macClock: oneOf('core', 'separate'),
  },
  check: p => p.readsPerQp > READ_LIMIT_PER_QP
    ? { param: 'readsPerQp', allowed: `1..${READ_LIMIT_PER_QP}`, why: `the responder lets a QP hold ${READ_LIMIT_PER_QP} READs, and a peer nic_top NAKs a READ over its limit` }
    : p.trackerEntries === 1
      ? { param: 'trackerEntries', allowed: `0 or 2..${MAX_QP * ACK_TRACKER_DEPTH}`, why: 'a pool of one slot is no memory' }
      : null,
};

/** R buffer of each DMA read engine and W buffer of the READ-response DMA write
 *  (top-axi-buffers.ts: why), in bytes: a few 2 KiB bursts. */
const AXI_CLIENT_BUFFER_BYTES = 8192;

/** Read-mux client of nic_tlb's page-table reads: urgent (ahead of every other read) while a
 *  translation waits for one (nic_tlb's pt_urgent), else (a prefetch) after them. */
const RD_CLIENT_TLB = 1;
/** Read bytes the other read clients (payload, WQE fetch) may have outstanding together: two
 *  2 KiB bursts keep the bus busy, and a page-table read waits behind at most this much
 *  (it waited behind up to 12 KiB, ~2,000 cycles, and the RX buffer overflowed meanwhile). */
const BULK_READ_CAP_BYTES = 4096;

/** The requester's payload reads (u_dma_read with the abort): bursts of REQ_DMA_BURST_BEATS
 *  beats, at most REQ_DMA_MAX_BURSTS in flight (512 beats: the host read latency it covers at
 *  the full rate is about 480 cycles), and in flight no more than the host's measured read
 *  latency + REQ_DMA_LAT_SLACK beats (nic_dma_read's latency window). Why: AXI returns a
 *  master's reads in order, so at a go-back-N rewind everything already asked for (the aborted
 *  QP's bytes, dropped, and the WQE read again behind them) comes before the resend's payload;
 *  with a fixed 8 x 2 KiB in flight that was up to 2,048 beats at 64 bits (755 cycles measured
 *  with a memory answering in ~15 cycles), with the window about the latency + 24 beats, while
 *  a slower host still gets enough in flight to keep the wire busy (docs/nic-reliability.md
 *  "NAK-path recovery within R + 64"; bench/nic-goodput.ts --latency). */
const REQ_DMA_MAX_BURSTS = 32;
const REQ_DMA_BURST_BEATS = 16;
const REQ_DMA_LAT_SLACK = 20;

/** WQEs the queue between WQE fetch and req_tx holds (credits for fetch bursts). */
export const WQE_QUEUE_DEPTH = 8;

/**
 * WQE fetch -> queue -> req_tx, and fetch's AXI reads (read-mux client 0) gated by credits.
 *
 * Why: the read mux returns every client's R beats over one channel, in the order the slave
 * sends them. WQE fetch accepts R beats only as fast as it can hand WQEs on, and req_tx takes a
 * WQE only after the previous message's payload reads (DMA read -> TLB page-table reads) make
 * progress. So a fetch burst whose WQEs cannot be handed on blocks the shared R channel while
 * the TLB's page-table line waits behind it: a deadlock (seen with 3 WQEs posted at once).
 * A fetch burst is therefore issued only when the queue has room for all its WQEs: credits
 * start at the queue depth, an AR of fetch takes ceil((arlen+1) / beatsPerWqe), a WQE leaving the
 * queue (or passing it, when bypassed) gives one back. ARVALID stays high once raised
 * (credits only grow while it waits).
 */
function wqeQueue(m: ModuleBuilder, W: number, numQp: number, fetch: PortMap, reqTx: PortMap, rdMux: PortMap,
  inst: (name: string, def: AnyDef, params: Params) => PortMap): void {
  const Wqe = wqeStruct(numQp);
  const q = inst('u_wqe_queue', syncFifoRam, { width: Wqe.width, depth: WQE_QUEUE_DEPTH });
  // An empty queue is bypassed: fetch's output register feeds req_tx directly when req_tx
  // takes the WQE at once (the block-RAM queue would add 2 cycles to every doorbell's latency).
  const reqReady = port(reqTx, 's_wqe_ready');
  const bypass = m.let('wqe_bypass', port(q, 'count').eq(0).land(reqReady));
  sink(q, 's_data').set(port(fetch, 'm_wqe_data').as(UInt(Wqe.width)));
  sink(q, 's_valid').set(port(fetch, 'm_wqe_valid').land(bypass.lnot()));
  sink(fetch, 'm_wqe_ready').set(port(q, 's_ready').lor(bypass));
  sink(reqTx, 's_wqe_data').set(mux(port(q, 'm_valid'), port(q, 'm_data'), port(fetch, 'm_wqe_data').as(UInt(Wqe.width))).as(Wqe));
  const toReq = m.let('wqe_to_req_valid', port(q, 'm_valid').lor(bypass.land(port(fetch, 'm_wqe_valid'))));
  sink(reqTx, 's_wqe_valid').set(toReq);
  sink(q, 'm_ready').set(reqReady);
  for (const x of ['full', 'empty']) m.unused(port(q, x), 'flow is controlled by the fetch credits');

  const cw = Math.log2(WQE_QUEUE_DEPTH) + 1;
  const beatsLog2 = Math.max(0, Math.log2((WQE_BYTES * 8) / W));
  // Rounded up: fetch reads a burst's last WQE only up to its last SGE.
  const arWqes = m.let('fetch_ar_wqes', port(fetch, 'm_axi_arlen').zext(9).addw(2 ** beatsLog2).shr(beatsLog2).trunc(cw));
  const popped = m.let('wqe_popped', toReq.land(reqReady));
  const ar = creditGate(m, { name: 'wqe_credits', width: cw, initial: WQE_QUEUE_DEPTH, cost: arWqes,
    valid: port(fetch, 'm_axi_arvalid'), ready: port(rdMux, 's0_axi_arready'), returned: popped });
  link(fetch, 'm_axi', rdMux, 's0_axi', { skip: ['arvalid', 'arready'] });
  sink(rdMux, 's0_axi_arvalid').set(ar.valid);
  sink(fetch, 'm_axi_arready').set(ar.ready);
}

/**
 * A go-back-N rewind from the ACK tracker is taken by nic_req_tx and nic_read_resp_rx in the
 * same cycle (and applied to nic_wqe_fetch's pointer through the tracker's fetch_rewind): each
 * sees valid only while the other is ready, so neither takes it alone. Neither ready depends
 * on its own valid, so there is no loop.
 */
export function rewindFork(m: ModuleBuilder, ack: PortMap, to: readonly [PortMap, PortMap]): void {
  const [a, b] = to;
  const valid = port(ack, 'm_rewind_valid');
  sink(a, 's_rewind_valid').set(valid.land(port(b, 's_rewind_ready')));
  sink(b, 's_rewind_valid').set(valid.land(port(a, 's_rewind_ready')));
  for (const t of to) sink(t, 's_rewind_data').set(port(ack, 'm_rewind_data'));
  sink(ack, 'm_rewind_ready').set(m.let('rewind_ready', port(a, 's_rewind_ready').land(port(b, 's_rewind_ready'))));
}

/** A byte stream `<from>_t*` -> FIFO (sync_fifo of width W + W/8 + 1: tlast, tkeep, tdata)
 *  -> `<to>_t*`, ready/valid only. */
function byteFifo(m: ModuleBuilder, fifo: PortMap, src: PortMap, from: string, dst: PortMap, to: string): void {
  fieldsThroughFifo(fifo, src, from, dst, to, ['tlast', 'tkeep', 'tdata']);
  sink(fifo, 's_valid').set(port(src, `${from}_tvalid`));
  sink(src, `${from}_tready`).set(port(fifo, 's_ready'));
  sink(dst, `${to}_tvalid`).set(port(fifo, 'm_valid'));
  sink(fifo, 'm_ready').set(port(dst, `${to}_tready`));
  for (const x of ['count', 'full', 'empty']) m.unused(port(fifo, x), 'ready/valid only');
}

/**
 * Simulation check of the MAC contract on m_axis_tx: once a frame's first beat was accepted,
 * tvalid stays high until its tlast beat is accepted (a MAC underruns otherwise). tready low
 * from the MAC is allowed at any time.
 */
function txNoUnderrun(m: ModuleBuilder, top: PortMap, domain: Domain | undefined): void {
  const valid = port(top, 'm_axis_tx_tvalid'), fire = m.let('tx_fire', valid.land(port(top, 'm_axis_tx_tready')));
  const inFrame = m.reg('tx_in_frame_reg', Bool, domain ? { domain } : {});
  m.if(fire, () => inFrame.set(port(top, 'm_axis_tx_tlast').lnot()));
  m.assert(inFrame.lnot().lor(valid), 'm_axis_tx: tvalid dropped inside a frame (between its first beat and tlast): a MAC would underrun', domain);
}

/**
 * The QP context lanes (ctx-view.ts): every `ctx_<x>` input of `stages` (built with ctxPort
 * 'lanes') from nic_regs' `qp_<x>` output (the flip-flop vectors, the software write lane, the
 * live bits), and `ctx_hw_<f>` from the update lane that drives nic_regs' `hw_<f>`, so each
 * copy is written at the edge nic_regs writes its own. nic_regs outputs no stage reads are
 * marked unused.
 */
export function wireCtxLanes(m: ModuleBuilder, regs: PortMap, stages: readonly PortMap[]): void {
  const ffLanes = FF_QP_REGS.map(r => r.toLowerCase());
  const lane = new RegExp(`^ctx_(${[...ffLanes, 'wr', 'hw_\\w+', 'live_\\w+'].join('|')})$`);
  for (const s of stages) {
    for (const name of [...s.keys()].filter(n => lane.test(n))) {
      sink(s, name).set(port(regs, name.startsWith('ctx_hw_') ? name.slice(4) : `qp_${name.slice(4)}`));
    }
  }
  for (const name of [...ffLanes.map(f => `qp_${f}`), 'qp_wr', ...HW_QP_FIELDS.map(f => `qp_live_${f.toLowerCase()}`)]) {
    if (!stages.some(s => s.has(`ctx_${name.slice(3)}`))) m.unused(port(regs, name), 'no stage reads these fields');
  }
}

/** Only the parameters `def` has (so a stage's Verilog name carries no foreign ones). */
function paramsFor(def: AnyDef, p: Params): Params {
  return Object.fromEntries(Object.entries(p).filter(([k]) => k in (def.defaults as object)));
}

export function makeNicTop(stages: NicStages) {
  return defineModule('nic_top', { dataWidth: 64, numQp: 4, numMr: 16, readsPerQp: 2, readContexts: 0, trackerEntries: 0, macClock: 'core' } as NicTopParams, (m, p) => {
    const W = p.dataWidth;
    const qw = qpIndexWidth(p.numQp);
    const { clk, rst } = m.clockAndReset();
    const s_axil = axiLite({ addrWidth: AXIL_ADDR_WIDTH, dataWidth: 32 }).sink(m, 's_axil');
    const m_axi = axi4({ idWidth: NIC_AXI_ID_W, addrWidth: ADDR_WIDTH, dataWidth: W }).source(m, 'm_axi');
    const s_axis_rx = frameStream(W).sink(m, 's_axis_rx');
    const m_axis_tx = axiStream({ dataWidth: W, keep: true, last: true }).source(m, 'm_axis_tx');
    const irq = m.output('irq', Bool);
    const top = portsOf({ s_axil, m_axi, s_axis_rx, m_axis_tx });

    const inst = (name: string, def: AnyDef, params: Params): PortMap => portsOf(m.instance(name, def, paramsFor(def, params)), name);
    const all = { dataWidth: W, numQp: p.numQp, numMr: p.numMr, idWidth: ID_W, ctxPort: 'lanes' };
    const regs = inst('u_regs', nicRegs, { numQp: p.numQp, numMr: p.numMr });
    const fetch = inst('u_wqe_fetch', nicWqeFetch, all);
    const reqTx = inst('u_req_tx', stages.reqTx, { ...all, dmaAbort: 1 });
    const ack = inst('u_ack_tracker', stages.ackTracker, { ...all, depth: ACK_TRACKER_DEPTH, entries: p.trackerEntries || p.numQp * ACK_TRACKER_DEPTH });
    const cpl = inst('u_completion', nicCompletion, all);
    // 32 lines: four streams of 64 KiB WRITEs interleaved into one MR (2 page-table lines each)
    // thrashed 8 direct-mapped lines at 512 bits (docs/bench.md, go-back-N table); the PTEs are
    // in a memory (tlb.ts), so a line costs 416 RAM bits and its tag register (55 bits at 16 MRs).
    // respSlice: each answer leaves through a register slice, so the TLB's tag compare and hit
    // do not run on into nic_dma_read's AR arithmetic and the read mux's arbiter (flattened
    // nic_top at 512 bits: 11.39 -> 9.35 ns; the go-back-N table and recovery cycles unchanged
    // within a cycle: docs/synth.md).
    const tlb = inst('u_tlb', nicTlb, { ...all, numClients: 5, lines: 32, respSlice: true });
    // The requester's engine with the abort (its messages tagged {qp, msg id} by req_tx).
    // Both DMA read engines drive AR from a register (arSlice): their burst cut does not run on
    // into the read mux's arbiter and bulk-beat count (flattened nic_top at 512 bits, issue 15:
    // docs/synth.md); a burst leaves a cycle after it is cut, still one per cycle.
    const abortWired = reqTx.has('m_abort_valid');
    const dmaRd = inst('u_dma_read', nicDmaRead, abortWired
      ? { ...all, abortQps: p.numQp, msgIdWidth: REQ_TX_MSG_ID_WIDTH, maxBursts: REQ_DMA_MAX_BURSTS, burstBytes: REQ_DMA_BURST_BEATS * (W / 8), latWindow: REQ_DMA_LAT_SLACK, arSlice: true }
      : { ...all, arSlice: true });
    const dmaWr = inst('u_dma_write', nicDmaWrite, all);
    const rdRsp = inst('u_read_responder', nicReadResponder, { ...all, contexts: readContextsFor(p.numQp), perQp: READ_LIMIT_PER_QP });
    const dmaRdRsp = inst('u_dma_read_rsp', nicDmaRead, { ...all, arSlice: true });
    const rrx = inst('u_read_resp_rx', nicReadRespRx, { ...all, readsPerQp: p.readsPerQp, contexts: p.readContexts });
    const dmaWrRresp = inst('u_dma_write_rresp', nicDmaWrite, all);
    const rdMux = inst('u_axi_rd_mux', nicAxiRdMux, { n: 4, dataWidth: W, idWidth: ID_W, urgentMask: 1 << RD_CLIENT_TLB, bulkCapBeats: BULK_READ_CAP_BYTES / (W / 8) });
    const wrMux = inst('u_axi_wr_mux', nicAxiWrMux, { n: 3, dataWidth: W, idWidth: ID_W });
    const cmdMux = inst('u_tx_cmd_mux', txCmdMux, { dataWidth: W });
    const gate = inst('u_tx_frame_gate', txFrameGate, { dataWidth: W, depth: txFrameGateDepth(W), drop: abortWired ? 1 : 0 });
    const pkt = inst('u_packetizer', packetizer, { dataWidth: W });
    const ins = inst('u_icrc_insert', icrcInsert, { dataWidth: W });
    // 32 KiB / 128 frames of RX buffer (not 16 KiB / 16): with WRITEs both ways, TLB misses
    // wait behind this NIC's own TX payload reads for hundreds of cycles while the link
    // cannot be stalled; the smaller buffer overflowed. 128 descriptors so that MTU-256
    // frames fill the bytes before the descriptors (64 ran out at ~19 KiB; docs/nic-top.md).
    const chk = inst('u_icrc_check', icrcCheck, { dataWidth: W, bufferBytes: 32768, maxFrames: 128 });
    const prs = inst('u_rx_parser', rxParser, { dataWidth: W });
    const rsp = inst('u_responder', stages.responder, all);

    // ---- control plane -------------------------------------------------------------------
    link(regs, 's_axil', top, 's_axil');
    const cfg = port(regs, 'cfg');
    // The QP context (ctx-view.ts): each stage (ctxPort 'lanes') keeps its own copy of the
    // fields it reads, written by nic_regs' lanes; the datapath's update lanes go to nic_regs
    // and to the copies alike.
    wireCtxLanes(m, regs, [fetch, reqTx, ack, cpl, rsp, rdRsp, rrx]);
    for (const s of [reqTx, rsp, rdRsp]) sink(s, 'cfg').set(cfg);
    sink(cpl, 'irq_mod').set(field(cfg, 'irqMod'));
    sink(fetch, 'weight').set(0); // 0 counts as 1: plain round robin among QPs
    m.unused(port(regs, 'doorbell_valid'), 'nic_wqe_fetch takes SQ_PI writes from the qp_wr lane, a cycle earlier');
    m.unused(port(regs, 'doorbell'), 'nic_wqe_fetch takes SQ_PI writes from the qp_wr lane, a cycle earlier');
    sink(regs, 'mr_rd_en').set(port(tlb, 'mr_rd_en'));
    sink(regs, 'mr_rd_addr').set(port(tlb, 'mr_rd_addr'));
    sink(tlb, 'mr_rd_data').set(port(regs, 'mr_rd_data'));
    sink(tlb, 'mr_changed').set(port(regs, 'mr_changed'));
    sink(regs, 'hw_sq_ci').set(port(ack, 'sq_ci_upd'));
    sink(regs, 'hw_cq_pi').set(port(cpl, 'cq_pi_upd'));
    sink(regs, 'hw_sq_psn').set(port(reqTx, 'sq_psn_upd'));
    sink(regs, 'hw_exp_psn').set(port(rsp, 'exp_psn_upd'));
    sink(regs, 'hw_msn').set(port(rsp, 'msn_upd'));
    sink(regs, 'irq_event').set(port(cpl, 'irq_event'));
    irq.set(port(regs, 'irq'));
    const errs = [reqTx, ack, rsp, cpl, rdRsp].map(s => { const e = port(s, 'qp_error'); return { valid: field(e, 'valid'), qp: field(e, 'qp') }; });
    const err = mergeQpErrors(m, p.numQp, qw, errs);
    sink(regs, 'hw_error').set(pack(qpErrorEvent(p.numQp), { valid: err.valid, qp: err.qp }));

    // ---- requester: WQE -> req_tx -> DMA read + packet commands; entries -> ACK tracker ----
    wqeQueue(m, W, p.numQp, fetch, reqTx, rdMux, inst);
    link(dmaRd, 's_cmd', reqTx, 'm_dma_cmd');
    link(reqTx, 's_dma_status', dmaRd, 'm_status');
    // DMA abort at a rewind (docs/nic-reliability.md "NAK-path recovery"): req_tx tags each
    // message, aborts the QP's DMA, and learns when a packet's payload has left for the TX mux.
    if (abortWired) {
      sink(dmaRd, 's_cmd_tag').set(port(reqTx, 'm_dma_tag'));
      link(dmaRd, 's_abort', reqTx, 'm_abort');
      link(reqTx, 's_abort_done', dmaRd, 'm_abort_done');
      sink(reqTx, 'pay_end').set(m.let('req_pay_end', port(dmaRd, 'm_axis_tvalid').land(port(cmdMux, 's_req_payload_tready')).land(port(dmaRd, 'm_axis_tlast'))));
      sink(ack, 'rewind_high').set(port(reqTx, 'rewind_high'));
      sink(gate, 'drop').set(port(reqTx, 'gate_drop'));
      sink(dmaRd, 'abort_open').set(port(reqTx, 'dma_abort_open'));
    } else sink(ack, 'rewind_high').set(0);
    link(ack, 's_req', reqTx, 'm_req');
    link(cpl, 's_req', ack, 'm_cqe');
    // ---- retransmission: the tracker's record, rewinds, parks and the send pointer -------------
    rewindFork(m, ack, [reqTx, rrx]);
    sink(fetch, 'rewind').set(port(ack, 'fetch_rewind'));
    sink(fetch, 'hold').set(port(ack, 'tx_hold'));
    sink(ack, 's_park').set(port(reqTx, 'm_park'));
    sink(ack, 'tp_qp').set(port(reqTx, 'tp_qp'));
    sink(reqTx, 'tp').set(port(ack, 'tp'));
    const ctxRoom = port(rrx, 'ctx_room');
    sink(ack, 'ctx_room').set(ctxRoom);
    sink(reqTx, 'ctx_room').set(ctxRoom);

    // ---- TX: command mux -> frame gate -> packetizer (payload from DMA read) -> ICRC -> m_axis_tx
    link(cmdMux, 's_req_cmd', reqTx, 'm_pkt_cmd');
    link(cmdMux, 's_ack_cmd', rsp, 'm_ack_cmd');
    link(cmdMux, 's_req_payload', dmaRd, 'm_axis');
    link(cmdMux, 's_rd_cmd', rdRsp, 'm_pkt_cmd');
    link(cmdMux, 's_rd_payload', dmaRdRsp, 'm_axis');
    // A command reaches the packetizer only with its whole payload buffered, so no frame
    // stalls between its first beat and tlast (the MAC would underrun; tx-frame-gate.ts).
    link(gate, 's_cmd', cmdMux, 'm_cmd');
    link(gate, 's_payload', cmdMux, 'm_payload');
    link(pkt, 's_cmd', gate, 'm_cmd');
    link(pkt, 's_payload', gate, 'm_payload');
    m.assert(port(pkt, 'err_payload').lnot(), 'packetizer: payload length differs from the command (req_tx / dma_read disagree)');
    link(ins, 's_axis', pkt, 'm_axis');
    // ---- MAC boundary: m_axis_tx / s_axis_rx on clk, or on mac_clk through dual-clock FIFOs
    const mac = macBoundary(m, p.macClock, { clk, rst }, top, ins, chk, inst);
    txNoUnderrun(m, top, mac.domain);

    // ---- RX: s_axis_rx -> ICRC check -> parser -> responder -> DMA write ------------------
    link(prs, 's_axis', chk, 'm_axis');
    link(rsp, 's_hdr', prs, 'm_hdr');
    // Payload skid of a few beats: the responder takes each packet's payload only after its
    // header was decided (2-3 cycles), and without room here the parser, and with it the
    // ICRC check's read-out, lost a cycle per frame: 41 cycles per 40-beat frame at MTU 256
    // and line rate, so the RX frame buffer filled up and dropped frames.
    byteFifo(m, inst('u_rx_pay_skid', syncFifo, { width: W + W / 8 + 1, depth: 4 }), prs, 'm_payload', rsp, 's_payload');
    link(dmaWr, 's_cmd', rsp, 'm_dma_cmd');
    // Payload FIFO (one 4 KiB-MTU packet): lets the parser and responder take the next
    // header and issue its DmaWriteCmd (its translation) while this packet's payload still
    // drains into DMA write; without it that per-packet latency stalls the RX stream.
    byteFifo(m, inst('u_rx_pay_fifo', syncFifoRam, { width: W + W / 8 + 1, depth: 512 }), rsp, 'm_payload', dmaWr, 's_axis');
    link(rsp, 's_dma_status', dmaWr, 'm_status');

    // ---- READ, responder side: READ REQUEST -> nic_read_responder -> DMA read #2 ----------
    // (REMOTE_READ check and payload) -> READ RESPONSE commands + payload into the TX mux.
    link(rdRsp, 's_req', rsp, 'm_read_req');
    sink(rsp, 'rd_room').set(port(rdRsp, 'rd_room'));
    sink(rsp, 'rd_dup_room').set(port(rdRsp, 'rd_dup_room'));
    sink(rsp, 'rd_busy').set(port(rdRsp, 'rd_busy'));
    link(dmaRdRsp, 's_cmd', rdRsp, 'm_dma_cmd');
    link(rdRsp, 's_dma_status', dmaRdRsp, 'm_status');

    // ---- READ, requester side: req_tx's READ contexts + received READ RESPONSEs ->
    // nic_read_resp_rx -> DMA write #2 (into the local SGEs) -> read_done -> ACK tracker.
    link(rrx, 's_ctx', reqTx, 'm_read_ctx');
    link(rrx, 's_hdr', rsp, 'm_rresp_hdr');
    link(rrx, 's_payload', rsp, 'm_rresp_payload');
    link(ack, 's_ack', rrx, 'm_ack');
    link(dmaWrRresp, 's_cmd', rrx, 'm_dma_cmd');
    link(dmaWrRresp, 's_axis', rrx, 'm_payload');
    link(rrx, 's_dma_status', dmaWrRresp, 'm_status');
    link(ack, 's_read_done', rrx, 'm_done');
    sink(reqTx, 'read_busy').set(port(ack, 'read_busy'));

    // ---- translations ----------------------------------------------------------------------
    // Every client through a credit-gated answer FIFO (top-axi-buffers.ts: why).
    const xlateClients: [string, PortMap][] = [['dma_rd', dmaRd], ['dma_wr', dmaWr], ['rsp', rsp], ['dma_rd_rsp', dmaRdRsp], ['dma_wr_rresp', dmaWrRresp]];
    xlateClients.forEach(([name, engine], i) => creditedXlateClient(m, `${name}_xlate`, engine, tlb, i, inst));

    // ---- host memory ----------------------------------------------------------------------
    link(tlb, 'm_axi', rdMux, `s${RD_CLIENT_TLB}_axi`);
    sink(rdMux, `s${RD_CLIENT_TLB}_urgent`).set(port(tlb, 'pt_urgent'));
    const buf = (name: string, engine: PortMap, muxPorts: PortMap, muxPrefix: string) =>
      ({ name, dataWidth: W, idWidth: ID_W, bytes: AXI_CLIENT_BUFFER_BYTES, engine, enginePrefix: 'm_axi', mux: muxPorts, muxPrefix });
    creditedReadClient(m, buf('dma_rd_rbuf', dmaRd, rdMux, 's2_axi'), inst);
    tieOff(m, dmaRd, 'm_axi', WRITE_HALF, 'read-only engine: its write half is idle');
    link(dmaWr, 'm_axi', wrMux, 's0_axi');
    tieOff(m, dmaWr, 'm_axi', READ_HALF, 'write-only engine: its read half is idle');
    creditedReadClient(m, buf('dma_rd_rsp_rbuf', dmaRdRsp, rdMux, 's3_axi'), inst);
    tieOff(m, dmaRdRsp, 'm_axi', WRITE_HALF, 'read-only engine: its write half is idle');
    link(cpl, 'm_axi', wrMux, 's1_axi');
    storeForwardWriteClient(m, buf('dma_wr_rresp_wbuf', dmaWrRresp, wrMux, 's2_axi'), inst);
    tieOff(m, dmaWrRresp, 'm_axi', READ_HALF, 'write-only engine: its read half is idle');
    link(top, 'm_axi', rdMux, 'm_axi');
    link(top, 'm_axi', wrMux, 'm_axi');

    // ---- counters --------------------------------------------------------------------------
    sink(regs, 'inc_tlb_hits').set(counterPulse(m, 'tlb_hits', port(tlb, 'hits')));
    sink(regs, 'inc_tlb_misses').set(counterPulse(m, 'tlb_misses', port(tlb, 'misses')));
    const chkDrop = port(chk, 'drop_valid'), chkReason = port(chk, 'drop_reason');
    const icrcBad = m.let('rx_drop_icrc', chkDrop.land(chkReason.eq(RX_DROP.BAD_ICRC)));
    sink(regs, 'inc_rx_drop_icrc').set(icrcBad);
    m.unused(port(chk, 'overflow'), 'an overflow is also a drop (BAD_FRAME) on drop_valid');
    m.unused(port(prs, 'drop_reason'), 'all parser drops count as RX_DROP_OTHER');
    const other = [chkDrop.land(icrcBad.lnot()), port(prs, 'drop_valid'), port(rsp, 'drop')];
    sink(regs, 'inc_rx_drop_other').set(mergePulses(m, 'rx_drop_other', other));
    // Frames leaving the core (into the MAC-side FIFO when the MAC has its own clock).
    sink(regs, 'inc_tx_frames').set(port(ins, 'm_axis_tvalid').land(mac.txReady).land(port(ins, 'm_axis_tlast')));
    sink(regs, 'inc_rx_frames').set(port(prs, 'm_hdr_valid').land(port(rsp, 's_hdr_ready')));
    sink(regs, 'inc_retx_pkts').set(port(reqTx, 'cnt_retx'));
    sink(regs, 'inc_ack_timeouts').set(field(port(ack, 'ack_timeout'), 'valid'));
    m.unused(port(ack, 'ack_timeout'), 'its qp: ACK_TIMEOUTS counts all QPs together');
    sink(regs, 'inc_seq_nak_tx').set(port(rsp, 'cnt_seq_nak_tx'));
    sink(regs, 'inc_seq_nak_rx').set(port(rsp, 'cnt_seq_nak_rx'));
    sink(regs, 'inc_dup_req_rx').set(port(rsp, 'cnt_dup_req'));
    sink(regs, 'inc_retry_exc').set(port(ack, 'cnt_retry_exc'));

    return { clk, rst, ...mac.ports, s_axil, m_axi, s_axis_rx, m_axis_tx, irq };
  }, { params: nicTopParamSpec, doc: 'RoCEv2 NIC: registers, WQE fetch, requester TX, TLB, DMA, packetizer, ICRC, RX parser, responder, READ responder, READ response receiver, ACK tracker, completions' });
}
