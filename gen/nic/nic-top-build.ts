// nic_top: every stage of docs/nic.md wired together behind the four interfaces of
// ARCHITECTURE.md (s_axil_* registers, m_axi_* host memory, s_axis_rx_* / m_axis_tx_*
// Ethernet frames without FCS) and an interrupt line.
//
// The flow-control stages are passed in (`NicStages`) so the same wiring can be elaborated
// against stand-ins while a stage is being written; gen/nic/nic-top.ts binds the real ones.
//
// Wiring decisions (why, where it is not obvious):
// - Host memory: one AXI4 master. Reads are shared by WQE fetch (client 0), TLB page-table
//   walks (1) and DMA read (2) through nic_axi_rd_mux; writes by DMA write (0) and CQE writes
//   (1) through nic_axi_wr_mux. Every client uses idWidth 4; the read mux prepends 2 client
//   bits (m_axi_arid is 6 bits), the write mux 1 bit, so AWID is zero-extended to 6 bits and
//   BID's top bit is unused (the slave echoes the AWID, which has it 0).
// - Translations: nic_tlb with three clients: DMA read (0), DMA write (1), responder (2, the
//   rkey check before any byte of a WRITE is accepted).
// - TX: requester packet commands and responder ACK/NAK commands meet in nic_tx_cmd_mux; only
//   requester commands carry payload, which DMA read streams straight into the packetizer.
// - Doorbells: nic_wqe_fetch watches SQ_PI in qp_ctx, so nic_regs' doorbell pulse is unused.
// - QP errors come from req_tx, ack_tracker, responder and completion; nic_regs takes one per
//   cycle, so they pass a per-QP pending-bit merger (top-wiring.ts), none lost.
// - Counters: nic_tlb's free-running hit/miss counters become +1 pulses (they move by at
//   most one per cycle, asserted); RX drops of ICRC check (BAD_ICRC -> RX_DROP_ICRC, any other
//   reason -> RX_DROP_OTHER), RX parser and responder are merged into RX_DROP_OTHER through a
//   small backlog counter, so simultaneous drops all count. TX_FRAMES counts tlast beats on
//   m_axis_tx; RX_FRAMES counts headers the RX parser accepted.

import { Bool, UInt, cat, defineModule, mux, pack, type ModuleBuilder, type IORecord, type ModuleDef, type Params } from '../hdl/index.ts';
import { axi4, axiLite, axiStream } from '../lib/interfaces.ts';
import { nicAxiRdMux, nicAxiWrMux } from './axi-mux.ts';
import { nicCompletion } from './completion.ts';
import { qpErrorEvent } from './ctx.ts';
import { nicDmaRead } from './dma-read.ts';
import { nicDmaWrite } from './dma-write.ts';
import { icrcCheck } from './icrc-check.ts';
import { icrcInsert } from './icrc-insert.ts';
import { packetizer } from './packetizer.ts';
import { nicRegs } from './regs.ts';
import { rxParser } from './rx-parser.ts';
import { nicTlb } from './tlb.ts';
import { field, link, mergePulses, mergeQpErrors, counterPulse, port, portsOf, sink, tieOff, type PortMap } from './top-wiring.ts';
import { txCmdMux } from './tx-cmd-mux.ts';
import { RX_DROP, ADDR_WIDTH, frameStream, qpIndexWidth, type NicParams } from './types.ts';
import { nicWqeFetch } from './wqe-fetch.ts';
import { wqeStruct } from './wqe.ts';
import { WQE_BYTES } from './regmap.ts';
import { syncFifoRam } from '../lib/fifo.ts';

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
/** The top's AXI id width: client id + 2 read-mux client bits (the write mux needs 1). */
export const NIC_AXI_ID_W = ID_W + 2;

const READ_HALF = ['arid', 'araddr', 'arlen', 'arsize', 'arburst', 'arlock', 'arcache', 'arprot', 'arvalid', 'arready', 'rid', 'rdata', 'rresp', 'rlast', 'rvalid', 'rready'];
const WRITE_HALF = ['awid', 'awaddr', 'awlen', 'awsize', 'awburst', 'awlock', 'awcache', 'awprot', 'awvalid', 'awready', 'wdata', 'wstrb', 'wlast', 'wvalid', 'wready', 'bid', 'bresp', 'bvalid', 'bready'];

/** WQEs the queue between WQE fetch and req_tx holds (credits for fetch bursts). */
const WQE_QUEUE_DEPTH = 8;

/**
 * WQE fetch -> queue -> req_tx, and fetch's AXI reads (read-mux client 0) gated by credits.
 *
 * Why: the read mux returns every client's R beats over one channel, in the order the slave
 * sends them. WQE fetch accepts R beats only as fast as it can hand WQEs on, and req_tx takes a
 * WQE only after the previous message's payload reads (DMA read -> TLB page-table reads) make
 * progress. So a fetch burst whose WQEs cannot be handed on blocks the shared R channel while
 * the TLB's page-table line waits behind it: a deadlock (seen with 3 WQEs posted at once).
 * A fetch burst is therefore issued only when the queue has room for all its WQEs: credits
 * start at the queue depth, an AR of fetch takes (arlen+1) / beatsPerWqe, a WQE leaving the
 * queue gives one back. ARVALID stays high once raised (credits only grow while it waits).
 */
function wqeQueue(m: ModuleBuilder, W: number, numQp: number, fetch: PortMap, reqTx: PortMap, rdMux: PortMap,
  inst: (name: string, def: AnyDef, params: Params) => PortMap): void {
  const Wqe = wqeStruct(numQp);
  const q = inst('u_wqe_queue', syncFifoRam, { width: Wqe.width, depth: WQE_QUEUE_DEPTH });
  sink(q, 's_data').set(port(fetch, 'm_wqe_data').as(UInt(Wqe.width)));
  sink(q, 's_valid').set(port(fetch, 'm_wqe_valid'));
  sink(fetch, 'm_wqe_ready').set(port(q, 's_ready'));
  sink(reqTx, 's_wqe_data').set(port(q, 'm_data').as(Wqe));
  sink(reqTx, 's_wqe_valid').set(port(q, 'm_valid'));
  sink(q, 'm_ready').set(port(reqTx, 's_wqe_ready'));
  for (const x of ['count', 'full', 'empty']) m.unused(port(q, x), 'flow is controlled by the fetch credits');

  const cw = Math.log2(WQE_QUEUE_DEPTH) + 1;
  const credits = m.reg('wqe_credits_reg', UInt(cw), { reset: WQE_QUEUE_DEPTH });
  const beatsLog2 = Math.max(0, Math.log2((WQE_BYTES * 8) / W));
  const arWqes = m.let('fetch_ar_wqes', port(fetch, 'm_axi_arlen').zext(9).addw(1).shr(beatsLog2).trunc(cw));
  const arOk = m.let('fetch_ar_ok', credits.ge(arWqes));
  link(fetch, 'm_axi', rdMux, 's0_axi', { skip: ['arvalid', 'arready'] });
  sink(rdMux, 's0_axi_arvalid').set(port(fetch, 'm_axi_arvalid').land(arOk));
  sink(fetch, 'm_axi_arready').set(port(rdMux, 's0_axi_arready').land(arOk));
  const taken = m.let('fetch_ar_taken', port(fetch, 'm_axi_arvalid').land(arOk).land(port(rdMux, 's0_axi_arready')));
  const popped = m.let('wqe_popped', port(q, 'm_valid').land(port(reqTx, 's_wqe_ready')));
  credits.set(credits.addw(popped.zext(cw)).subw(mux(taken, arWqes, 0)));
}

/** Only the parameters `def` has (so a stage's Verilog name carries no foreign ones). */
function paramsFor(def: AnyDef, p: Params): Params {
  return Object.fromEntries(Object.entries(p).filter(([k]) => k in (def.defaults as object)));
}

export function makeNicTop(stages: NicStages) {
  return defineModule('nic_top', { dataWidth: 64, numQp: 4, numMr: 16 } as NicParams, (m, p) => {
    const W = p.dataWidth;
    const qw = qpIndexWidth(p.numQp);
    const { clk, rst } = m.clockAndReset();
    const s_axil = axiLite({ addrWidth: 16, dataWidth: 32 }).sink(m, 's_axil');
    const m_axi = axi4({ idWidth: NIC_AXI_ID_W, addrWidth: ADDR_WIDTH, dataWidth: W }).source(m, 'm_axi');
    const s_axis_rx = frameStream(W).sink(m, 's_axis_rx');
    const m_axis_tx = axiStream({ dataWidth: W, keep: true, last: true }).source(m, 'm_axis_tx');
    const irq = m.output('irq', Bool);
    const top = portsOf({ s_axil, m_axi, s_axis_rx, m_axis_tx });

    const inst = (name: string, def: AnyDef, params: Params): PortMap => portsOf(m.instance(name, def, paramsFor(def, params)), name);
    const all = { dataWidth: W, numQp: p.numQp, numMr: p.numMr, idWidth: ID_W };
    const regs = inst('u_regs', nicRegs, { numQp: p.numQp, numMr: p.numMr });
    const fetch = inst('u_wqe_fetch', nicWqeFetch, all);
    const reqTx = inst('u_req_tx', stages.reqTx, all);
    const ack = inst('u_ack_tracker', stages.ackTracker, all);
    const cpl = inst('u_completion', nicCompletion, all);
    const tlb = inst('u_tlb', nicTlb, { ...all, numClients: 3 });
    const dmaRd = inst('u_dma_read', nicDmaRead, all);
    const dmaWr = inst('u_dma_write', nicDmaWrite, all);
    const rdMux = inst('u_axi_rd_mux', nicAxiRdMux, { n: 3, dataWidth: W, idWidth: ID_W });
    const wrMux = inst('u_axi_wr_mux', nicAxiWrMux, { n: 2, dataWidth: W, idWidth: ID_W });
    const cmdMux = inst('u_tx_cmd_mux', txCmdMux, {});
    const pkt = inst('u_packetizer', packetizer, { dataWidth: W });
    const ins = inst('u_icrc_insert', icrcInsert, { dataWidth: W });
    const chk = inst('u_icrc_check', icrcCheck, { dataWidth: W });
    const prs = inst('u_rx_parser', rxParser, { dataWidth: W });
    const rsp = inst('u_responder', stages.responder, all);

    // ---- control plane -------------------------------------------------------------------
    link(regs, 's_axil', top, 's_axil');
    const qpCtx = port(regs, 'qp_ctx'), cfg = port(regs, 'cfg');
    for (const s of [fetch, reqTx, ack, cpl, rsp]) sink(s, 'qp_ctx').set(qpCtx);
    for (const s of [reqTx, rsp]) sink(s, 'cfg').set(cfg);
    sink(cpl, 'irq_mod').set(field(cfg, 'irqMod'));
    sink(fetch, 'weight').set(0); // 0 counts as 1: plain round robin among QPs
    m.unused(port(regs, 'doorbell_valid'), 'nic_wqe_fetch watches SQ_PI in qp_ctx itself');
    m.unused(port(regs, 'doorbell'), 'nic_wqe_fetch watches SQ_PI in qp_ctx itself');
    sink(tlb, 'mr_tbl').set(port(regs, 'mr_tbl'));
    sink(tlb, 'mr_changed').set(port(regs, 'mr_changed'));
    sink(regs, 'hw_sq_ci').set(port(fetch, 'sq_ci_upd'));
    sink(regs, 'hw_cq_pi').set(port(cpl, 'cq_pi_upd'));
    sink(regs, 'hw_sq_psn').set(port(reqTx, 'sq_psn_upd'));
    sink(regs, 'hw_exp_psn').set(port(rsp, 'exp_psn_upd'));
    sink(regs, 'hw_msn').set(port(rsp, 'msn_upd'));
    sink(regs, 'irq_event').set(port(cpl, 'irq_event'));
    irq.set(port(regs, 'irq'));
    const errs = [reqTx, ack, rsp, cpl].map(s => { const e = port(s, 'qp_error'); return { valid: field(e, 'valid'), qp: field(e, 'qp') }; });
    const err = mergeQpErrors(m, p.numQp, qw, errs);
    sink(regs, 'hw_error').set(pack(qpErrorEvent(p.numQp), { valid: err.valid, qp: err.qp }));

    // ---- requester: WQE -> req_tx -> DMA read + packet commands; entries -> ACK tracker ----
    wqeQueue(m, W, p.numQp, fetch, reqTx, rdMux, inst);
    link(dmaRd, 's_cmd', reqTx, 'm_dma_cmd');
    link(reqTx, 's_dma_status', dmaRd, 'm_status');
    link(ack, 's_req', reqTx, 'm_req');
    link(ack, 's_ack', rsp, 'm_ack_in');
    link(cpl, 's_req', ack, 'm_cqe');

    // ---- TX: command mux -> packetizer (payload from DMA read) -> ICRC -> m_axis_tx --------
    link(cmdMux, 's_req_cmd', reqTx, 'm_pkt_cmd');
    link(cmdMux, 's_ack_cmd', rsp, 'm_ack_cmd');
    link(pkt, 's_cmd', cmdMux, 'm_cmd');
    link(pkt, 's_payload', dmaRd, 'm_axis');
    m.assert(port(pkt, 'err_payload').lnot(), 'packetizer: payload length differs from the command (req_tx / dma_read disagree)');
    link(ins, 's_axis', pkt, 'm_axis');
    link(top, 'm_axis_tx', ins, 'm_axis', { skip: ['tuser'] });
    m.unused(port(ins, 'm_axis_tuser'), 'no bad-frame flag on TX: the MAC gets only good frames');

    // ---- RX: s_axis_rx -> ICRC check -> parser -> responder -> DMA write ------------------
    link(chk, 's_axis_rx', top, 's_axis_rx');
    link(prs, 's_axis', chk, 'm_axis');
    link(rsp, 's_hdr', prs, 'm_hdr');
    link(rsp, 's_payload', prs, 'm_payload');
    link(dmaWr, 's_cmd', rsp, 'm_dma_cmd');
    // Payload FIFO (one 4 KiB-MTU packet): lets the parser and responder take the next
    // header and issue its DmaWriteCmd (two translations) while this packet's payload still
    // drains into DMA write; without it that per-packet latency stalls the RX stream.
    {
      const pq = inst('u_rx_pay_fifo', syncFifoRam, { width: W + W / 8 + 1, depth: 512 });
      sink(pq, 's_data').set(cat(port(rsp, 'm_payload_tlast'), port(rsp, 'm_payload_tkeep'), port(rsp, 'm_payload_tdata')));
      sink(pq, 's_valid').set(port(rsp, 'm_payload_tvalid'));
      sink(rsp, 'm_payload_tready').set(port(pq, 's_ready'));
      const d = port(pq, 'm_data');
      sink(dmaWr, 's_axis_tdata').set(d.bits(W - 1, 0));
      sink(dmaWr, 's_axis_tkeep').set(d.bits(W + W / 8 - 1, W));
      sink(dmaWr, 's_axis_tlast').set(d.bit(W + W / 8));
      sink(dmaWr, 's_axis_tvalid').set(port(pq, 'm_valid'));
      sink(pq, 'm_ready').set(port(dmaWr, 's_axis_tready'));
      for (const x of ['count', 'full', 'empty']) m.unused(port(pq, x), 'ready/valid only');
    }
    link(rsp, 's_dma_status', dmaWr, 'm_status');

    // ---- translations ----------------------------------------------------------------------
    link(tlb, 's0_xlate_req', dmaRd, 'm_xlate_req');
    link(dmaRd, 's_xlate_resp', tlb, 'm0_xlate_resp');
    link(tlb, 's1_xlate_req', dmaWr, 'm_xlate_req');
    link(dmaWr, 's_xlate_resp', tlb, 'm1_xlate_resp');
    link(tlb, 's2_xlate_req', rsp, 'm_xlate_req');
    link(rsp, 's_xlate_resp', tlb, 'm2_xlate_resp');

    // ---- host memory ----------------------------------------------------------------------
    link(tlb, 'm_axi', rdMux, 's1_axi');
    link(dmaRd, 'm_axi', rdMux, 's2_axi');
    tieOff(m, dmaRd, 'm_axi', WRITE_HALF, 'read-only engine: its write half is idle');
    link(dmaWr, 'm_axi', wrMux, 's0_axi');
    tieOff(m, dmaWr, 'm_axi', READ_HALF, 'write-only engine: its read half is idle');
    link(cpl, 'm_axi', wrMux, 's1_axi');
    link(top, 'm_axi', rdMux, 'm_axi');
    link(top, 'm_axi', wrMux, 'm_axi', { skip: ['awid', 'bid'] });
    sink(top, 'm_axi_awid').set(port(wrMux, 'm_axi_awid').zext(NIC_AXI_ID_W));
    const bid = port(top, 'm_axi_bid');
    sink(wrMux, 'm_axi_bid').set(bid.bits(NIC_AXI_ID_W - 2, 0));
    m.unused(bid, 'bit 5: write IDs are 5 bits wide (zero-extended AWID), the slave echoes a 0');

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
    sink(regs, 'inc_tx_frames').set(port(ins, 'm_axis_tvalid').land(port(top, 'm_axis_tx_tready')).land(port(ins, 'm_axis_tlast')));
    sink(regs, 'inc_rx_frames').set(port(prs, 'm_hdr_valid').land(port(rsp, 's_hdr_ready')));

    return { clk, rst, s_axil, m_axi, s_axis_rx, m_axis_tx, irq };
  }, { doc: 'RoCEv2 NIC: registers, WQE fetch, requester TX, TLB, DMA, packetizer, ICRC, RX parser, responder, ACK tracker, completions' });
}
