// nic_axi_rd_mux / nic_axi_wr_mux: N AXI4 masters share one AXI4 master port toward host
// memory (the read and write halves are separate modules, since most NIC stages only read
// or only write).
//
// - Arbitration is round robin (gen/lib rrArbiter) per address transfer, i.e. per burst.
// - The client index is prepended to the ID (m_axi_*id = {client, s*_axi_*id}), so responses
//   (R beats, B) are routed back by ID with no state, and a slave may reorder and interleave
//   responses of different IDs as AXI allows.
// - Write data must follow AW order: every accepted AW pushes its client into a small FIFO,
//   and the W channel is locked to the client at the FIFO's head until its WLAST.
// - Every channel goes through a register slice (gen/lib skidBuffer) on the master side, so
//   no ready or valid passes combinationally from one side to the other, and back-to-back
//   bursts run at one beat per cycle.
//
// Client ports are `s<i>_axi_*` (IO keys c0, c1, ...); the shared port is `m_axi_*` with
// ID width idWidth + clientBits(n).

import { cat, defineModule, type Value } from '../hdl/index.ts';
import { rrArbiter } from '../lib/arbiter.ts';
import { syncFifo } from '../lib/fifo.ts';
import type { BundleIO } from '../lib/interfaces.ts';
import { skidBuffer } from '../lib/skid.ts';
import { indexWidth, log2Exact, positiveInt } from '../lib/util.ts';
import { axi4Read, axi4Write, type Axi4ReadSpec, type Axi4WriteSpec } from './axi-ports.ts';
import { oneHotMux, unpack } from './mux-util.ts';
import { ADDR_WIDTH } from './types.ts';

export type AxiMuxParams = {
  /** Number of client masters. */
  n: number;
  dataWidth: number;
  /** ID width of each client; the shared port has idWidth + clientBits(n). */
  idWidth: number;
  /** Write mux only: AWs whose data has not all passed yet (a power of two). */
  wOrderDepth: number;
};
export const axiMuxDefaults: AxiMuxParams = { n: 2, dataWidth: 64, idWidth: 4, wOrderDepth: 4 };

/** Bits prepended to the client ID on the shared port. */
export function clientBits(n: number): number { return indexWidth(n); }

function checkParams(p: AxiMuxParams, who: string): void {
  positiveInt(p.n, `${who}: n`);
  positiveInt(p.idWidth, `${who}: idWidth`);
  log2Exact(p.dataWidth / 8, `${who}: dataWidth / 8`);
}

export const nicAxiRdMux = defineModule('nic_axi_rd_mux', axiMuxDefaults, (m, p) => {
  checkParams(p, 'nic_axi_rd_mux');
  const cw = clientBits(p.n);
  const { clk, rst } = m.clockAndReset();
  const sBus = axi4Read({ idWidth: p.idWidth, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth });
  const clients: Record<string, BundleIO<Axi4ReadSpec, 'sink'>> = {};
  const s: BundleIO<Axi4ReadSpec, 'sink'>[] = [];
  for (let i = 0; i < p.n; i++) s.push(clients[`c${i}`] = sBus.sink(m, `s${i}_axi`));
  const o = axi4Read({ idWidth: p.idWidth + cw, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth }).source(m, 'm_axi');

  // ---- AR: round robin per burst into a register slice ---------------------------------------
  // Packed MSB first as {prot, cache, lock, burst, size, len, addr}; the id goes below, after the client bits.
  const arFields = (c: BundleIO<Axi4ReadSpec, 'sink'>): Value => cat(c.arprot, c.arcache, c.arlock, c.arburst, c.arsize, c.arlen, c.araddr);
  const arBits = 3 + 4 + 1 + 2 + 3 + 8 + ADDR_WIDTH + p.idWidth;
  const arb = m.instance('u_ar_arb', rrArbiter, { n: p.n });
  arb.req.set(cat(...s.map(c => c.arvalid).reverse()));
  const arSkid = m.instance('u_ar_slice', skidBuffer, { width: cw + arBits });
  const arSel = m.let('ar_sel', oneHotMux(arb.grant, s.map(c => arFields(c))));
  const arIdSel = m.let('ar_id_sel', oneHotMux(arb.grant, s.map(c => c.arid)));
  arSkid.s.data.set(cat(arSel, arb.grant_index, arIdSel));
  arSkid.s.valid.set(arb.grant_valid);
  arb.accept.set(arb.grant_valid.land(arSkid.s.ready));
  s.forEach((c, i) => c.arready.set(arb.grant.bit(i).land(arSkid.s.ready)));
  const [arid, araddr, arlen, arsize, arburst, arlock, arcache, arprot] = unpack(arSkid.m.data, [p.idWidth + cw, ADDR_WIDTH, 8, 3, 2, 1, 4, 3]);
  o.arid.set(arid!); o.araddr.set(araddr!); o.arlen.set(arlen!); o.arsize.set(arsize!); o.arburst.set(arburst!);
  o.arlock.set(arlock!); o.arcache.set(arcache!); o.arprot.set(arprot!);
  o.arvalid.set(arSkid.m.valid);
  arSkid.m.ready.set(o.arready);

  // ---- R: register slice, then routed by the ID's client bits --------------------------------
  const rSkid = m.instance('u_r_slice', skidBuffer, { width: p.idWidth + cw + p.dataWidth + 2 + 1 });
  rSkid.s.data.set(cat(o.rid, o.rdata, o.rresp, o.rlast));
  rSkid.s.valid.set(o.rvalid);
  o.rready.set(rSkid.s.ready);
  const [rlast, rresp, rdata, rid] = unpack(rSkid.m.data, [1, 2, p.dataWidth, p.idWidth + cw]);
  const rClient = m.let('r_client', rid!.bits(p.idWidth + cw - 1, p.idWidth));
  const rTaken: Value[] = [];
  s.forEach((c, i) => {
    const mine = m.let(`r_to_${i}`, rSkid.m.valid.land(rClient.eq(i)));
    c.rvalid.set(mine);
    c.rid.set(rid!.bits(p.idWidth - 1, 0));
    c.rdata.set(rdata!); c.rresp.set(rresp!); c.rlast.set(rlast!);
    rTaken.push(mine.land(c.rready));
  });
  rSkid.m.ready.set(rTaken.reduce((a, b) => a.lor(b)));
  if (p.n < 2 ** cw) m.assert(rSkid.m.valid.lnot().lor(rClient.lt(p.n)), 'R beat whose ID names no client');

  return { clk, rst, s: clients, m_axi: o };
}, { doc: 'AXI4 read mux: N masters to one, round robin per burst, responses routed by ID' });

export const nicAxiWrMux = defineModule('nic_axi_wr_mux', axiMuxDefaults, (m, p) => {
  checkParams(p, 'nic_axi_wr_mux');
  const cw = clientBits(p.n);
  const ow = log2Exact(p.wOrderDepth, 'nic_axi_wr_mux: wOrderDepth');
  const { clk, rst } = m.clockAndReset();
  const sBus = axi4Write({ idWidth: p.idWidth, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth });
  const clients: Record<string, BundleIO<Axi4WriteSpec, 'sink'>> = {};
  const s: BundleIO<Axi4WriteSpec, 'sink'>[] = [];
  for (let i = 0; i < p.n; i++) s.push(clients[`c${i}`] = sBus.sink(m, `s${i}_axi`));
  const o = axi4Write({ idWidth: p.idWidth + cw, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth }).source(m, 'm_axi');
  const strbW = p.dataWidth / 8;

  // ---- AW: round robin per burst; each accepted AW queues its client for the W channel -------
  // Packed MSB first as {prot, cache, lock, burst, size, len, addr}; the id goes below, after the client bits.
  const awFields = (c: BundleIO<Axi4WriteSpec, 'sink'>): Value => cat(c.awprot, c.awcache, c.awlock, c.awburst, c.awsize, c.awlen, c.awaddr);
  const awBits = 3 + 4 + 1 + 2 + 3 + 8 + ADDR_WIDTH + p.idWidth;
  const arb = m.instance('u_aw_arb', rrArbiter, { n: p.n });
  arb.req.set(cat(...s.map(c => c.awvalid).reverse()));
  const awSkid = m.instance('u_aw_slice', skidBuffer, { width: cw + awBits });
  const order = m.instance('u_w_order', syncFifo, { width: cw, depth: 2 ** ow });
  // An AW is taken only when both its slice and the order FIFO have room (both registered).
  const awRoom = m.let('aw_room', awSkid.s.ready.land(order.s.ready));
  const awTake = m.let('aw_take', arb.grant_valid.land(awRoom));
  const awSel = m.let('aw_sel', oneHotMux(arb.grant, s.map(c => awFields(c))));
  const awIdSel = m.let('aw_id_sel', oneHotMux(arb.grant, s.map(c => c.awid)));
  awSkid.s.data.set(cat(awSel, arb.grant_index, awIdSel));
  awSkid.s.valid.set(awTake);
  order.s.data.set(arb.grant_index);
  order.s.valid.set(awTake);
  arb.accept.set(awTake);
  s.forEach((c, i) => c.awready.set(arb.grant.bit(i).land(awRoom)));
  m.unused(order.count, 'only full/empty matter'); m.unused(order.full, 's_ready is used'); m.unused(order.empty, 'm_valid is used');
  const [awid, awaddr, awlen, awsize, awburst, awlock, awcache, awprot] = unpack(awSkid.m.data, [p.idWidth + cw, ADDR_WIDTH, 8, 3, 2, 1, 4, 3]);
  o.awid.set(awid!); o.awaddr.set(awaddr!); o.awlen.set(awlen!); o.awsize.set(awsize!); o.awburst.set(awburst!);
  o.awlock.set(awlock!); o.awcache.set(awcache!); o.awprot.set(awprot!);
  o.awvalid.set(awSkid.m.valid);
  awSkid.m.ready.set(o.awready);

  // ---- W: locked to the client at the head of the order FIFO until WLAST ---------------------
  const head = order.m.data;
  const wOwner = s.map((_c, i) => m.let(`w_owner_${i}`, order.m.valid.land(head.eq(i))));
  const wOwnerVec = cat(...[...wOwner].reverse());
  const wSkid = m.instance('u_w_slice', skidBuffer, { width: p.dataWidth + strbW + 1 });
  const wValid = m.let('w_valid', s.map((c, i) => wOwner[i]!.land(c.wvalid)).reduce((a, b) => a.lor(b)));
  const wSel = m.let('w_sel', oneHotMux(wOwnerVec, s.map(c => cat(c.wlast, c.wstrb, c.wdata))));
  wSkid.s.data.set(wSel);
  wSkid.s.valid.set(wValid);
  s.forEach((c, i) => c.wready.set(wOwner[i]!.land(wSkid.s.ready)));
  // The burst's last beat releases the W channel for the next AW in order.
  order.m.ready.set(wValid.land(wSkid.s.ready).land(wSel.bit(p.dataWidth + strbW)));
  const [wdata, wstrb, wlast] = unpack(wSkid.m.data, [p.dataWidth, strbW, 1]);
  o.wdata.set(wdata!); o.wstrb.set(wstrb!); o.wlast.set(wlast!);
  o.wvalid.set(wSkid.m.valid);
  wSkid.m.ready.set(o.wready);

  // ---- B: register slice, then routed by the ID's client bits --------------------------------
  const bSkid = m.instance('u_b_slice', skidBuffer, { width: p.idWidth + cw + 2 });
  bSkid.s.data.set(cat(o.bid, o.bresp));
  bSkid.s.valid.set(o.bvalid);
  o.bready.set(bSkid.s.ready);
  const [bresp, bid] = unpack(bSkid.m.data, [2, p.idWidth + cw]);
  const bClient = m.let('b_client', bid!.bits(p.idWidth + cw - 1, p.idWidth));
  const bTaken: Value[] = [];
  s.forEach((c, i) => {
    const mine = m.let(`b_to_${i}`, bSkid.m.valid.land(bClient.eq(i)));
    c.bvalid.set(mine);
    c.bid.set(bid!.bits(p.idWidth - 1, 0));
    c.bresp.set(bresp!);
    bTaken.push(mine.land(c.bready));
  });
  bSkid.m.ready.set(bTaken.reduce((a, b) => a.lor(b)));
  if (p.n < 2 ** cw) m.assert(bSkid.m.valid.lnot().lor(bClient.lt(p.n)), 'B response whose ID names no client');

  return { clk, rst, s: clients, m_axi: o };
}, { doc: 'AXI4 write mux: N masters to one, round robin per burst, W locked to AW order, B routed by ID' });
