// nic_axi_rd_mux / nic_axi_wr_mux: N AXI4 masters share one AXI4 master port toward host
// memory (the read and write halves are separate modules, since most NIC stages only read
// or only write).
//
// - Arbitration is round robin (gen/lib rrArbiter) per address transfer, i.e. per burst.
// - Read mux only, optional: `urgentMask` clients are never capped and may go first. Each such
//   client i says with a level input, `s<i>_urgent`, whether something waits for its reads
//   now (a demand read asked for or outstanding). While it is high, or a burst of an urgent
//   client is outstanding (AR passed, RLAST not yet handed back), no other ("bulk") AR is
//   granted. While it is low, the client's ARs are speculative: granted only in a cycle in
//   which no bulk AR could be. With `bulkCapBeats`, the bulk clients together may have at most
//   that many R beats outstanding; a bulk AR that would exceed the cap waits, unless nothing
//   bulk is outstanding (so any burst can pass). Why: an urgent read (nic_tlb's page-table
//   line) then waits for at most the bulk beats requested before it, bulkCapBeats, whatever
//   order the slave answers in, however many payload bursts the engines could post (it waited
//   ~2,000 cycles behind 12 KiB of payload; docs/nic-top.md). Holding bulk while an urgent
//   burst is out matters for a slave that reorders IDs: bursts requested after the urgent one
//   could otherwise be answered before it, again and again; that holds for a speculative
//   burst too, since a miss may attach to it later (without it, page-table reads took up to
//   1,250 cycles AR -> RLAST in tb/tests/nic/e2e-bus-rate.test.ts, bound 576). Why the level:
//   nic_tlb's next-line prefetch is a read nothing waits for yet; when every urgent-client AR
//   went first, a prefetch asked for in the same cycle as a payload AR went ahead of it and
//   held it for the whole page-table line (a 64-byte WRITE's first TX beat 30 -> 40 cycles at
//   64 bits, memory latency 0; docs/bench.md). A speculative AR still waits for a bulk AR
//   asked in the same cycle, so the prefetch follows the payload AR it came with.
// - The client index is prepended to the ID (m_axi_*id = {client, s*_axi_*id}), so responses
//   (R beats, B) are routed back by ID with no state, and a slave may reorder and interleave
//   responses of different IDs as AXI allows.
// - Write data must follow AW order: every accepted AW pushes its client into a small FIFO,
//   and the W channel is locked to the client at the FIFO's head until its WLAST.
// - Write mux: every channel goes through a register slice (gen/lib skidBuffer) on the master
//   side, so no ready or valid passes combinationally from one side to the other, and
//   back-to-back bursts run at one beat per cycle.
// - Read mux: both memory reads in front of a TX frame (the WQE, then the payload) cross it,
//   so by default it adds no cycle: an AR granted while none is held drives m_axi_ar* in the
//   same cycle (`arBypass`; a refused one is held in a register until ARREADY, so ARVALID and
//   the payload stay stable and a later, higher-priority request cannot replace it), and R
//   beats pass a 2-word fall-through buffer (gen/lib syncFifo with `bypass`, `rSlice` false):
//   a beat meets an empty buffer and a ready client in the same cycle, and m_axi_rready is
//   the buffer's not-full register. Why not route R from the port directly: RREADY would then
//   follow RID through the routing to the client's ready, an input-to-output path the AXI
//   spec forbids on an interface. The combinational paths left: client ARVALID/AR payload ->
//   arbiter -> m_axi_ar*, and m_axi_r* -> buffer bypass mux -> client R. No ready reaches the
//   other side's ready (a client's ARREADY depends on registers and the grant; m_axi_rready
//   on registers). `arBypass: false` / `rSlice: true` restore a register slice per channel
//   (+1 cycle each) where the surrounding paths are too long.
//
// Client ports are `s<i>_axi_*` (IO keys c0, c1, ...); the shared port is `m_axi_*` with
// ID width idWidth + clientBits(n).

import { Bool, cat, defineModule, lit, mux, UInt, type Input, type ModuleBuilder, type Value, intIn, type ParamSpec } from '../hdl/index.ts';
import { rrArbiter } from '../lib/arbiter.ts';
import type { BundleIO } from '../lib/interfaces.ts';
import { syncFifo } from '../lib/fifo.ts';
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
  /** Read mux only: bit i set = client i may be urgent (input s<i>_urgent: while high it is
   *  served first and bulk ARs wait; never capped); 0 = none. */
  urgentMask: number;
  /** Read mux only: R beats the other clients may have outstanding together; 0 = no cap. */
  bulkCapBeats: number;
  /** Read mux only: an AR granted while none is held goes out in the same cycle (else through
   *  a register slice, +1 cycle per read). */
  arBypass: boolean;
  /** Read mux only: R beats pass a register slice before routing (+1 cycle per read; else a
   *  fall-through buffer, no cycle, m_axi_rready still from a register). */
  rSlice: boolean;
};
export const axiMuxDefaults: AxiMuxParams = {
  n: 2, dataWidth: 64, idWidth: 4, wOrderDepth: 4, urgentMask: 0, bulkCapBeats: 0, arBypass: true, rSlice: false,
};

/** Bits prepended to the client ID on the shared port. */
export function clientBits(n: number): number { return indexWidth(n); }

function checkParams(p: AxiMuxParams, who: string): void {
  positiveInt(p.n, `${who}: n`);
  positiveInt(p.idWidth, `${who}: idWidth`);
  log2Exact(p.dataWidth / 8, `${who}: dataWidth / 8`);
}

/** Urgent-client bursts outstanding at most: an urgent AR waits while this many are out
 *  (nic_tlb keeps at most two page-table reads in flight, one per fill engine, so it never
 *  waits for this). */
const URGENT_OPEN_BITS = 4;
const URGENT_OPEN_MAX = 2 ** URGENT_OPEN_BITS - 1;

/**
 * The read mux's AR request vector under `urgentMask` / `bulkCapBeats` (see the header), and
 * the counters behind it (`count` wires them once the grant and the R routing exist).
 * `urgentNow[i]` is client i's `s<i>_urgent` input (urgent clients only). Without either
 * parameter the request vector is just every ARVALID.
 */
function bulkGate(m: ModuleBuilder, p: AxiMuxParams, s: readonly BundleIO<Axi4ReadSpec, 'sink'>[], urgentNow: readonly (Value | null)[]) {
  if (p.urgentMask >= 2 ** p.n) throw new Error(`nic_axi_rd_mux: urgentMask ${p.urgentMask} names clients beyond n = ${p.n}`);
  if (!Number.isInteger(p.bulkCapBeats) || p.bulkCapBeats < 0) throw new Error(`nic_axi_rd_mux: bulkCapBeats ${p.bulkCapBeats} is not a count`);
  const urgentIdx = s.map((_c, i) => i).filter(i => urgentNow[i]);
  const bulkIdx = s.map((_c, i) => i).filter(i => !urgentNow[i]);
  // Urgent-client bursts accepted whose last R beat has not been handed back (demand or not).
  const urgentOpen = urgentIdx.length ? m.reg('urgent_open_reg', UInt(URGENT_OPEN_BITS)) : null;
  // A demand read is waiting, or an urgent-client burst is out: bulk ARs wait.
  const holdBulk = urgentOpen
    ? m.let('ar_hold_bulk', urgentIdx.map(i => urgentNow[i]!).reduce((a, b) => a.lor(b)).lor(urgentOpen.ne(0)))
    : null;
  // Outstanding bulk beats never exceed max(cap, one 256-beat burst admitted alone).
  const ow = Math.ceil(Math.log2(Math.max(p.bulkCapBeats, 256) + 1));
  const outstanding = p.bulkCapBeats > 0 && bulkIdx.length > 0 ? m.reg('bulk_outstanding_reg', UInt(ow)) : null;
  const bulkAsks = bulkIdx.map(i => {
    const c = s[i]!;
    // outstanding + arlen + 1 <= cap
    const fits = outstanding ? m.let(`ar_fits_${i}`, outstanding.eq(0).lor(outstanding.zext(ow + 1).addw(c.arlen.zext(ow + 1)).lt(p.bulkCapBeats))) : null;
    const ask = fits ? c.arvalid.land(fits) : c.arvalid;
    return holdBulk ? ask.land(holdBulk.lnot()) : ask;
  });
  // A speculative AR (its client's urgent input low) goes only when no bulk AR could.
  const bulkAsking = urgentIdx.length && bulkIdx.length ? m.let('ar_bulk_asking', bulkAsks.reduce((a, b) => a.lor(b))) : null;
  const urgentRoom = urgentOpen ? m.let('ar_urgent_room', urgentOpen.ne(URGENT_OPEN_MAX)) : null;
  const asks = s.map((c, i): Value => {
    const u = urgentNow[i];
    if (!u) return bulkAsks[bulkIdx.indexOf(i)]!;
    const ask = c.arvalid.land(urgentRoom!);
    return bulkAsking ? ask.land(u.lor(bulkAsking.lnot())) : ask;
  });
  const eligible = m.let('ar_eligible', cat(...asks.reverse()));
  const anyOf = (idx: readonly number[], f: (i: number) => Value): Value => idx.map(f).reduce((a, b) => a.lor(b));
  const count = (grant: Value, accepted: Value, rTaken: readonly Value[], rlast: Value): void => {
    if (urgentOpen) {
      const opened = m.let('ar_urgent_taken', accepted.land(anyOf(urgentIdx, i => grant.bit(i))));
      const closed = m.let('r_urgent_last', rlast.land(anyOf(urgentIdx, i => rTaken[i]!)));
      urgentOpen.set(urgentOpen.addw(opened.zext(URGENT_OPEN_BITS)).subw(closed.zext(URGENT_OPEN_BITS)));
      m.assert(closed.lnot().lor(urgentOpen.ne(0)), 'urgent RLAST with no urgent burst outstanding');
    }
    if (outstanding) {
      const opened = m.let('ar_bulk_taken', accepted.land(anyOf(bulkIdx, i => grant.bit(i))));
      const beats = m.let('ar_bulk_beats', oneHotMux(grant, s.map(c => c.arlen.zext(ow))).addw(1));
      const beat = m.let('r_bulk_taken', anyOf(bulkIdx, i => rTaken[i]!));
      outstanding.set(outstanding.addw(mux(opened, beats, lit(0, ow))).subw(beat.zext(ow)));
      m.assert(beat.lnot().lor(outstanding.ne(0)), 'bulk R beat with no bulk burst outstanding');
    }
  };
  return { eligible, count };
}

/** Widths of the packed AR above {client, id} and addr, low first: len, size, burst, lock, cache, prot. */
const AR_WIDTHS = [8, 3, 2, 1, 4, 3] as const;

/**
 * The granted AR (`valid`, packed `data`) onto m_axi_ar*. Returns `room`: the AR may be taken
 * from its client this cycle (a register, never m_axi_arready, so no ready path crosses).
 * - arBypass: while no AR is held, the granted AR drives m_axi_ar* in the cycle it is granted
 *   and is taken from its client at once; if the slave does not take it, it is held (and
 *   shown from the register, so ARVALID stays high with the same payload until ARREADY)
 *   and no client is granted until it leaves. One register instead of two: an AR waits for a
 *   slow slave with one idle cycle per held AR, which is plenty for per-burst requests.
 * - otherwise: a register slice (skidBuffer), one cycle of latency.
 */
function arStage(m: ModuleBuilder, p: AxiMuxParams, o: BundleIO<Axi4ReadSpec, 'source'>, valid: Value, data: Value): Value {
  let out: Value, outValid: Value, room: Value;
  if (p.arBypass) {
    const held = m.reg('ar_held_reg', Bool);
    const heldData = m.reg('ar_held_data_reg', UInt(data.width), { reset: null });
    room = held.lnot();
    outValid = m.let('ar_out_valid', held.lor(valid));
    out = m.let('ar_out', mux(held, heldData, data));
    m.if(held, () => m.if(o.arready, () => held.set(0)))
      .else(() => m.if(valid.land(o.arready.lnot()), () => { held.set(1); heldData.set(data); }));
  } else {
    const slice = m.instance('u_ar_slice', skidBuffer, { width: data.width });
    slice.s.data.set(data);
    slice.s.valid.set(valid);
    slice.m.ready.set(o.arready);
    room = slice.s.ready; outValid = slice.m.valid; out = slice.m.data;
  }
  const [arid, araddr, arlen, arsize, arburst, arlock, arcache, arprot] = unpack(out, [o.arid.width, ADDR_WIDTH, ...AR_WIDTHS]);
  o.arid.set(arid!); o.araddr.set(araddr!); o.arlen.set(arlen!); o.arsize.set(arsize!); o.arburst.set(arburst!);
  o.arlock.set(arlock!); o.arcache.set(arcache!); o.arprot.set(arprot!);
  o.arvalid.set(outValid);
  return room;
}

/** Words of the R fall-through buffer: two keep one beat per cycle with a registered RREADY. */
const R_BUFFER_WORDS = 2;

function rBuffer(m: ModuleBuilder, width: number) {
  const q = m.instance('u_r_buf', syncFifo, { width, depth: R_BUFFER_WORDS, bypass: true });
  for (const x of [q.count, q.full, q.empty]) m.unused(x, 'ready/valid only');
  return q;
}

/**
 * m_axi_r* as the routing sees it: through a register slice (rSlice, one cycle) or a
 * fall-through buffer (no cycle). Either way m_axi_rready comes from a register; `setReady`
 * takes the routed client's RREADY.
 */
function rStage(m: ModuleBuilder, p: AxiMuxParams, o: BundleIO<Axi4ReadSpec, 'source'>) {
  const idw = o.rid.width, width = idw + p.dataWidth + 2 + 1;
  const q = p.rSlice ? m.instance('u_r_slice', skidBuffer, { width }) : rBuffer(m, width);
  q.s.data.set(cat(o.rid, o.rdata, o.rresp, o.rlast));
  q.s.valid.set(o.rvalid);
  o.rready.set(q.s.ready);
  const [rlast, rresp, rdata, rid] = unpack(q.m.data, [1, 2, p.dataWidth, idw]);
  return { valid: q.m.valid, rid: rid!, rdata: rdata!, rresp: rresp!, rlast: rlast!, setReady: (v: Value) => q.m.ready.set(v) };
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
  // Each urgent client's level: a demand read of it is asked for or outstanding (see the header).
  const urgent: Record<string, Input<typeof Bool>> = {};
  const urgentNow = s.map((_c, i) => (((p.urgentMask >>> i) & 1) === 1 ? (urgent[`c${i}`] = m.input(`s${i}_urgent`, Bool)) : null));

  // ---- AR: round robin per burst, then straight out (arBypass) or through a register slice ----
  const arFields = (c: BundleIO<Axi4ReadSpec, 'sink'>): Value => cat(c.arprot, c.arcache, c.arlock, c.arburst, c.arsize, c.arlen, c.araddr);
  const arb = m.instance('u_ar_arb', rrArbiter, { n: p.n });
  const bulk = bulkGate(m, p, s, urgentNow);
  arb.req.set(bulk.eligible);
  const arSel = m.let('ar_sel', oneHotMux(arb.grant, s.map(c => arFields(c))));
  const arIdSel = m.let('ar_id_sel', oneHotMux(arb.grant, s.map(c => c.arid)));
  const arRoom = m.let('ar_room', arStage(m, p, o, arb.grant_valid, cat(arSel, arb.grant_index, arIdSel)));
  const arTaken = m.let('ar_taken', arb.grant_valid.land(arRoom));
  arb.accept.set(arTaken);
  s.forEach((c, i) => c.arready.set(arb.grant.bit(i).land(arRoom)));

  // ---- R: routed by the ID's client bits, behind a fall-through buffer or a slice (rSlice) --
  const r = rStage(m, p, o);
  const rClient = m.let('r_client', r.rid.bits(p.idWidth + cw - 1, p.idWidth));
  const rTaken: Value[] = [];
  const rReady: Value[] = [];
  s.forEach((c, i) => {
    const routed = m.let(`r_routed_${i}`, rClient.eq(i));
    const mine = m.let(`r_to_${i}`, r.valid.land(routed));
    c.rvalid.set(mine);
    c.rid.set(r.rid.bits(p.idWidth - 1, 0));
    c.rdata.set(r.rdata); c.rresp.set(r.rresp); c.rlast.set(r.rlast);
    rTaken.push(mine.land(c.rready));
    rReady.push(routed.land(c.rready));
  });
  r.setReady(m.let('r_ready', rReady.reduce((a, b) => a.lor(b))));
  if (p.n < 2 ** cw) m.assert(r.valid.lnot().lor(rClient.lt(p.n)), 'R beat whose ID names no client');
  bulk.count(arb.grant, arTaken, rTaken, r.rlast);

  return { clk, rst, s: clients, urgent, m_axi: o };
}, { doc: 'AXI4 read mux: N masters to one, round robin per burst, responses routed by ID', params: axiMuxSpec() });

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
}, { doc: 'AXI4 write mux: N masters to one, round robin per burst, W locked to AW order, B routed by ID', params: axiMuxSpec() });

/** The ranges both muxes check before they elaborate (checkParams above checks the rest).
 *  A function declaration, so the definitions above can use it (hoisted). */
function axiMuxSpec(): ParamSpec<AxiMuxParams> {
  return { rules: { n: intIn(1, 64), idWidth: intIn(1, 16), urgentMask: intIn(0, 2 ** 31 - 1), bulkCapBeats: intIn(0, 1 << 20) } };
}
