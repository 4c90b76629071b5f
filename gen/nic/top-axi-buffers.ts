// Buffers between a DMA engine and the shared AXI muxes of nic_top, so that no engine can hold
// a shared AXI channel while it waits for something that is itself behind that channel.
//
// Why (R and translations seen as hangs of the end-to-end READ/WRITE mix once READ was wired
// in; W by the same argument, docs/nic-top.md):
// - R: nic_axi_rd_mux returns every client's R beats over one channel in the slave's order,
//   and nic_dma_read takes R beats only as fast as its payload leaves on m_axis. With two DMA
//   read engines (requester payload, READ-response payload) the TX command mux lets one of
//   them own the packetizer's payload stream at a time, so R beats of the other engine at the
//   head of the channel block the owner's beats behind them: deadlock. `creditedReadClient`
//   puts a FIFO on the engine's R path and lets an AR through only when the FIFO has room for
//   the whole burst, so the shared R channel never waits for an engine.
// - W: nic_axi_wr_mux locks W to AW order, and nic_dma_write raises AW as soon as a page chunk
//   is translated, before its payload arrived. The RX payload of WRITE packets (to DMA write)
//   and of READ responses (to the READ-response DMA write) is one stream in packet order, so
//   an engine whose AW won but whose bytes sit behind the other engine's bytes in that stream
//   holds W while the other engine cannot drain: deadlock. `storeForwardWriteClient` buffers
//   the engine's W beats and lets an AW through only when its whole burst is buffered, so W is
//   never locked to a client that cannot deliver.
// - Translations: the same for nic_tlb's shared lookup pipeline (`creditedXlateClient`).

import { type ModuleBuilder, type Params } from '../hdl/index.ts';
import { creditGate } from '../lib/credit-gate.ts';
import { syncFifo, syncFifoRam } from '../lib/fifo.ts';
import { fieldsThroughFifo, fieldsWidth, port, sink, type PortMap } from './top-wiring.ts';

/** nic_top's instance helper. */
type Inst = (name: string, def: typeof syncFifo | typeof syncFifoRam, params: Params) => PortMap;

/** AXI burst beats at most (AxLEN + 1). */
const MAX_BURST_BEATS = 256;

function fifoDepth(bytes: number, dataWidth: number, who: string): number {
  const depth = bytes / (dataWidth / 8);
  if (!Number.isInteger(Math.log2(depth))) throw new Error(`${who}: ${bytes} bytes is not a power-of-two number of ${dataWidth}-bit beats`);
  if (depth < Math.min(MAX_BURST_BEATS, 2048 * 8 / dataWidth)) throw new Error(`${who}: ${depth} beats cannot hold one burst`);
  return depth;
}

/** Width of a beat count that holds depth + 1 buffered words and a burst's 256 beats. */
function countBits(depth: number): number { return Math.max(Math.log2(depth) + 1, 9); }

export interface ClientBufferOptions {
  readonly name: string;
  readonly dataWidth: number;
  readonly idWidth: number;
  /** Buffer size in bytes (a power of two beats, at least one 2 KiB burst). */
  readonly bytes: number;
  /** The engine's AXI port prefix and the mux client port prefix. */
  readonly engine: PortMap; readonly enginePrefix: string;
  readonly mux: PortMap; readonly muxPrefix: string;
}

/** Engine AR -> mux (credit-gated), mux R -> FIFO -> engine. */
export function creditedReadClient(m: ModuleBuilder, o: ClientBufferOptions, inst: Inst): void {
  const W = o.dataWidth, e = (x: string) => `${o.enginePrefix}_${x}`, c = (x: string) => `${o.muxPrefix}_${x}`;
  const depth = fifoDepth(o.bytes, W, o.name);
  // Fall-through: a beat arriving at an empty FIFO goes to the engine in the same cycle, not
  // two cycles later (RAM write, then read). The price is one 2:1 mux more on the path from
  // m_axi_r* (through the read mux's fall-through buffer) to the engine's packer; the FIFO's
  // s_ready (the shared RREADY) still depends on registers only.
  const q = inst(`u_${o.name}`, syncFifoRam, { width: W + o.idWidth + 3, depth, bypass: true });
  for (const x of ['arid', 'araddr', 'arlen', 'arsize', 'arburst', 'arlock', 'arcache', 'arprot']) sink(o.mux, c(x)).set(port(o.engine, e(x)));
  // Credits = FIFO words not yet promised to an accepted AR. They only grow while an AR
  // waits, so the engine's ARVALID, once passed on, stays high until accepted. A beat that
  // falls through is popped in the cycle it arrives, so its credit comes back at once.
  const cw = countBits(depth);
  const beats = m.let(`${o.name}_ar_beats`, port(o.engine, e('arlen')).zext(cw).addw(1));
  const popped = m.let(`${o.name}_r_popped`, port(q, 'm_valid').land(port(o.engine, e('rready'))));
  const ar = creditGate(m, { name: `${o.name}_ar_credits`, width: cw, initial: depth, cost: beats,
    valid: port(o.engine, e('arvalid')), ready: port(o.mux, c('arready')), returned: popped });
  sink(o.mux, c('arvalid')).set(ar.valid);
  sink(o.engine, e('arready')).set(ar.ready);

  fieldsThroughFifo(q, o.mux, o.muxPrefix, o.engine, o.enginePrefix, ['rlast', 'rresp', 'rid', 'rdata']);
  sink(q, 's_valid').set(port(o.mux, c('rvalid')));
  sink(o.mux, c('rready')).set(port(q, 's_ready'));
  m.assert(port(o.mux, c('rvalid')).lnot().lor(port(q, 's_ready')), `${o.name}: R beat without a credit (FIFO full)`);
  sink(o.engine, e('rvalid')).set(port(q, 'm_valid'));
  sink(q, 'm_ready').set(port(o.engine, e('rready')));
  for (const x of ['count', 'full', 'empty']) m.unused(port(q, x), 'flow is controlled by the AR credits');
}

/** AWs a store-and-forward client queues ahead of their bursts' W beats. */
const AW_QUEUE = 4;
const AW_FIELDS = ['awid', 'awaddr', 'awlen', 'awsize', 'awburst', 'awlock', 'awcache', 'awprot'] as const;

/** Engine W -> FIFO -> mux; engine AW -> queue -> mux only once its burst is buffered; B direct.
 *  The AW queue takes the engine's AW at once: a gate on the engine's own AW handshake held
 *  nic_dma_write's burst generator, and with it the W job of the next burst, until the last
 *  beat of this one was buffered: 1-2 idle W cycles per burst (0.92 W beats/cycle at 512
 *  bits, slower than the READ responses on the wire). */
export function storeForwardWriteClient(m: ModuleBuilder, o: ClientBufferOptions, inst: Inst): void {
  const W = o.dataWidth, B = W / 8, e = (x: string) => `${o.enginePrefix}_${x}`, c = (x: string) => `${o.muxPrefix}_${x}`;
  const depth = fifoDepth(o.bytes, W, o.name);
  const q = inst(`u_${o.name}`, syncFifoRam, { width: W + B + 1, depth });
  for (const x of ['bid', 'bresp', 'bvalid']) sink(o.engine, e(x)).set(port(o.mux, c(x)));
  sink(o.mux, c('bready')).set(port(o.engine, e('bready')));

  fieldsThroughFifo(q, o.engine, o.enginePrefix, o.mux, o.muxPrefix, ['wlast', 'wstrb', 'wdata']);
  sink(q, 's_valid').set(port(o.engine, e('wvalid')));
  sink(o.engine, e('wready')).set(port(q, 's_ready'));
  sink(o.mux, c('wvalid')).set(port(q, 'm_valid'));
  sink(q, 'm_ready').set(port(o.mux, c('wready')));
  for (const x of ['count', 'full', 'empty']) m.unused(port(q, x), 'AW waits on the buffered-beat count kept here');

  // AW queue.
  const aq = inst(`u_${o.name}_aw`, syncFifo, { width: fieldsWidth(o.engine, o.enginePrefix, AW_FIELDS), depth: AW_QUEUE });
  const head = fieldsThroughFifo(aq, o.engine, o.enginePrefix, o.mux, o.muxPrefix, AW_FIELDS);
  sink(aq, 's_valid').set(port(o.engine, e('awvalid')));
  sink(o.engine, e('awready')).set(port(aq, 's_ready'));
  for (const x of ['count', 'full', 'empty']) m.unused(port(aq, x), 'ready/valid only');

  // Buffered beats not yet claimed by an AW that passed (the FIFO holds depth + 1 words).
  const cw = countBits(depth);
  const beats = m.let(`${o.name}_aw_beats`, head['awlen']!.zext(cw).addw(1));
  const pushed = m.let(`${o.name}_w_pushed`, port(o.engine, e('wvalid')).land(port(q, 's_ready')));
  const aw = creditGate(m, { name: `${o.name}_unclaimed`, width: cw, initial: 0, cost: beats,
    valid: port(aq, 'm_valid'), ready: port(o.mux, c('awready')), returned: pushed });
  sink(o.mux, c('awvalid')).set(aw.valid);
  sink(aq, 'm_ready').set(aw.ready);
}

/** Translations a client may have in the TLB at once (its response FIFO's depth). */
const XLATE_CREDITS = 4;

/**
 * Engine translation requests -> nic_tlb client `idx` (credit-gated), its responses -> a FIFO
 * -> engine. Why: nic_tlb answers every client through one lookup pipeline, which stops when
 * an answer's client cannot take it and no parked entry is free to hold the answer; an
 * engine that stalls downstream (a DMA read whose payload waits for the TX mux, holding its
 * chunk FIFO full) then blocked every other client's translations, among them the one whose progress would unstall it (seen: READ
 * responses waiting for a requester WRITE packet whose DMA read waited for a translation).
 * With at most XLATE_CREDITS requests in flight per client and room for as many answers,
 * the TLB never waits for a client.
 */
export function creditedXlateClient(m: ModuleBuilder, name: string, engine: PortMap, tlb: PortMap, idx: number, inst: Inst): void {
  const req = `s${idx}_xlate_req`, resp = `m${idx}_xlate_resp`;
  const width = port(tlb, `${resp}_data`).width;
  // Fall-through: an answer reaches an engine waiting for it in the TLB's answer cycle
  // instead of one cycle later. The price: nic_tlb (no answer slice in nic_top) answers
  // from its lookup stage, and nic_dma_read loads its burst and offers the AR in the answer
  // cycle, so TLB lookup -> this mux -> burst cut -> read-mux AR is one combinational path
  // (docs/nic-top.md "Logic depth"); the TLB's ready (s_ready) still depends on registers.
  const q = inst(`u_${name}`, syncFifo, { width, depth: XLATE_CREDITS, bypass: true });
  const popped = m.let(`${name}_popped`, port(q, 'm_valid').land(port(engine, 's_xlate_resp_ready')));
  const gate = creditGate(m, { name: `${name}_credits`, width: Math.log2(XLATE_CREDITS) + 1, initial: XLATE_CREDITS,
    valid: port(engine, 'm_xlate_req_valid'), ready: port(tlb, `${req}_ready`), returned: popped });
  sink(tlb, `${req}_data`).set(port(engine, 'm_xlate_req_data'));
  sink(tlb, `${req}_valid`).set(gate.valid);
  sink(engine, 'm_xlate_req_ready').set(gate.ready);

  sink(q, 's_data').set(port(tlb, `${resp}_data`));
  sink(q, 's_valid').set(port(tlb, `${resp}_valid`));
  sink(tlb, `${resp}_ready`).set(port(q, 's_ready'));
  m.assert(port(tlb, `${resp}_valid`).lnot().lor(port(q, 's_ready')), `${name}: translation answer without a credit (FIFO full)`);
  sink(engine, 's_xlate_resp_data').set(port(q, 'm_data'));
  sink(engine, 's_xlate_resp_valid').set(port(q, 'm_valid'));
  sink(q, 'm_ready').set(port(engine, 's_xlate_resp_ready'));
  for (const x of ['count', 'full', 'empty']) m.unused(port(q, x), 'flow is controlled by the request credits');
}
