// Small designs the bus-model self-tests run against, written with the DSL. Kept to four so
// the cold build cost (one Verilator model each) stays small; every test shares them.
//
// - axisPass:   AXI-Stream through a FIFO and a skid buffer (latency, real backpressure).
// - axisBroken: a one-register stream stage with switchable faults (the checks must bite).
// - axiPass:    AXI4 s_axi -> m_axi through a skid buffer per channel (a register slice).
// - axilRegs:   an AXI4-Lite register file with SLVERR above its registers.

import { emitTop } from '../../../gen/emit/index.ts';
import {
  Bool, cat, defineModule, lit, mux, UInt, type IORecord, type ModuleDef, type Value,
} from '../../../gen/hdl/index.ts';
import type { Params } from '../../../gen/hdl/define.ts';
import { syncFifo } from '../../../gen/lib/fifo.ts';
import { axi4, axiLite, axiStream, unusedFields } from '../../../gen/lib/interfaces.ts';
import { skidBuffer } from '../../../gen/lib/skid.ts';
import { typedDesign, type TypedDesign } from '../../core/index.ts';

export const AXIS_WIDTH = 64;
export const AXIS_USER = 1;

const axisBus = axiStream({ dataWidth: AXIS_WIDTH, userWidth: AXIS_USER });

/** Splits a packed payload back into fields, low bits first (the reverse of `cat`). */
function unpack(v: Value, widths: readonly number[]): Value[] {
  const out: Value[] = [];
  let lo = 0;
  for (const w of widths) { out.push(v.bits(lo + w - 1, lo)); lo += w; }
  return out;
}

export const bfmAxisPass = defineModule('bfm_axis_pass', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const s = axisBus.sink(m, 's_axis');
  const o = axisBus.source(m, 'm_axis');
  const widths = [AXIS_WIDTH, AXIS_WIDTH / 8, 1, AXIS_USER];
  const width = widths.reduce((a, b) => a + b, 0);
  const fifo = m.instance('fifo', syncFifo, { width, depth: 4 });
  const skid = m.instance('skid', skidBuffer, { width });
  // cat is MSB first: the reversed field list puts tdata in the low bits.
  fifo.s.data.set(cat(s.tuser!, s.tlast!, s.tkeep!, s.tdata));
  fifo.s.valid.set(s.tvalid);
  s.tready.set(fifo.s.ready);
  skid.s.data.set(fifo.m.data);
  skid.s.valid.set(fifo.m.valid);
  fifo.m.ready.set(skid.s.ready);
  const [tdata, tkeep, tlast, tuser] = unpack(skid.m.data, widths);
  o.tdata.set(tdata!); o.tkeep!.set(tkeep!); o.tlast!.set(tlast!); o.tuser!.set(tuser!);
  o.tvalid.set(skid.m.valid);
  skid.m.ready.set(o.tready);
  m.unused(fifo.count, 'occupancy is not needed by the test');
  m.unused(fifo.full, 'occupancy is not needed by the test');
  m.unused(fifo.empty, 'occupancy is not needed by the test');
  return { clk, rst, s_axis: s, m_axis: o };
}, { doc: 'AXI-Stream pass-through (FIFO + skid buffer) for the bus-model self-tests' });

/** Faults of `bfm_axis_broken`, selected at run time by its `fault` input. */
export const AXIS_FAULT = {
  /** A correct register stage. */
  NONE: 0,
  /** tdata counts up every cycle the output is stalled. */
  MUTATE_STALLED: 1,
  /** tvalid drops after one stalled cycle, before the handshake. */
  DROP_VALID: 2,
  /** Every third accepted beat is lost. */
  DROP_BEAT: 3,
  /** tkeep has a hole (bit 1 cleared) on beats that are not the last. */
  KEEP_HOLE: 4,
} as const;

export const bfmAxisBroken = defineModule('bfm_axis_broken', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const s = axisBus.sink(m, 's_axis');
  const o = axisBus.source(m, 'm_axis');
  const fault = m.input('fault', UInt(3));

  const valid = m.reg('valid_reg', Bool);
  const stalled = m.reg('stalled_reg', Bool);
  const data = m.reg('data_reg', UInt(AXIS_WIDTH), { reset: null });
  const keep = m.reg('keep_reg', UInt(AXIS_WIDTH / 8), { reset: null });
  const last = m.reg('last_reg', Bool, { reset: null });
  const user = m.reg('user_reg', UInt(AXIS_USER), { reset: null });
  const count = m.reg('count_reg', UInt(2));

  const free = m.let('free', o.tready.lor(valid.lnot()));
  const take = m.let('take', s.tvalid.land(free));
  // DROP_BEAT: accept the beat but do not present it.
  const lose = m.let('lose', fault.eq(AXIS_FAULT.DROP_BEAT).land(count.eq(2)));
  s.tready.set(free);
  m.if(take, () => {
    count.set(mux(count.eq(2), 0, count.addw(1)));
    valid.set(lose.lnot());
    data.set(s.tdata); keep.set(s.tkeep!); last.set(s.tlast!); user.set(s.tuser!);
    stalled.set(0);
  }).elif(free, () => {
    valid.set(0);
  }).else(() => {
    stalled.set(1);
    m.if(fault.eq(AXIS_FAULT.MUTATE_STALLED), () => data.set(data.addw(1)));
    m.if(fault.eq(AXIS_FAULT.DROP_VALID).land(stalled), () => valid.set(0));
  });

  o.tvalid.set(valid);
  o.tdata.set(data);
  o.tkeep!.set(mux(fault.eq(AXIS_FAULT.KEEP_HOLE).land(last.lnot()), keep.and(0xfd), keep));
  o.tlast!.set(last);
  o.tuser!.set(user);
  return { clk, rst, fault, s_axis: s, m_axis: o };
}, { doc: 'Stream register stage with deliberate protocol faults, to prove the checkers fail tests' });

export const AXI_ID = 4;
export const AXI_ADDR = 64;
export const AXI_DATA = 64;
const axiBus = axi4({ idWidth: AXI_ID, addrWidth: AXI_ADDR, dataWidth: AXI_DATA });

export const bfmAxiPass = defineModule('bfm_axi_pass', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const s = axiBus.sink(m, 's_axi');
  const o = axiBus.source(m, 'm_axi');
  // One skid buffer per channel: a full register slice, so the bus models see the
  // latency and the decoupled ready of real interconnect rather than plain wires.
  const slice = (name: string, valid: Value, ready: { set(v: Value): void }, fields: Value[],
    outValid: { set(v: Value): void }, outReady: Value, outs: { set(v: Value): void }[]): void => {
    const width = fields.reduce((a, f) => a + f.width, 0);
    const k = m.instance(name, skidBuffer, { width });
    k.s.data.set(cat(...[...fields].reverse()));
    k.s.valid.set(valid);
    ready.set(k.s.ready);
    outValid.set(k.m.valid);
    k.m.ready.set(outReady);
    unpack(k.m.data, fields.map(f => f.width)).forEach((v, i) => outs[i]!.set(v));
  };
  slice('aw', s.awvalid, s.awready, [s.awid, s.awaddr, s.awlen, s.awsize, s.awburst, s.awlock, s.awcache, s.awprot],
    o.awvalid, o.awready, [o.awid, o.awaddr, o.awlen, o.awsize, o.awburst, o.awlock, o.awcache, o.awprot]);
  slice('w', s.wvalid, s.wready, [s.wdata, s.wstrb, s.wlast], o.wvalid, o.wready, [o.wdata, o.wstrb, o.wlast]);
  slice('ar', s.arvalid, s.arready, [s.arid, s.araddr, s.arlen, s.arsize, s.arburst, s.arlock, s.arcache, s.arprot],
    o.arvalid, o.arready, [o.arid, o.araddr, o.arlen, o.arsize, o.arburst, o.arlock, o.arcache, o.arprot]);
  slice('b', o.bvalid, o.bready, [o.bid, o.bresp], s.bvalid, s.bready, [s.bid, s.bresp]);
  slice('r', o.rvalid, o.rready, [o.rid, o.rdata, o.rresp, o.rlast], s.rvalid, s.rready, [s.rid, s.rdata, s.rresp, s.rlast]);
  return { clk, rst, s_axi: s, m_axi: o };
}, { doc: 'AXI4 register slice (skid buffer per channel) for the bus-model self-tests' });

export const AXIL_REGS = 8;
const axilBus = axiLite({ addrWidth: 16, dataWidth: 32 });

export const bfmAxilRegs = defineModule('bfm_axil_regs', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const s = axilBus.sink(m, 's_axil');
  unusedFields(m, s, ['awprot', 'arprot'], 'no protection checks in a test register file');
  const regs = Array.from({ length: AXIL_REGS }, (_, i) => m.reg(`reg${i}`, UInt(32)));

  // Write: take AW and W together, once no response is waiting (simple and legal).
  const bvalid = m.reg('bvalid_reg', Bool);
  const bresp = m.reg('bresp_reg', UInt(2));
  const wtake = m.let('wtake', s.awvalid.land(s.wvalid).land(bvalid.lnot()));
  s.awready.set(wtake);
  s.wready.set(wtake);
  const waddr = m.let('waddr', s.awaddr.bits(15, 2));
  m.if(wtake, () => {
    bvalid.set(1);
    bresp.set(mux(waddr.lt(AXIL_REGS), lit(0, 2), lit(2, 2)));
    regs.forEach((r, i) => m.if(waddr.eq(i), () => {
      for (let b = 0; b < 4; b++) m.if(s.wstrb.bit(b), () => r.setBits(8 * b + 7, 8 * b, s.wdata.bits(8 * b + 7, 8 * b)));
    }));
  }).elif(s.bready, () => bvalid.set(0));
  s.bvalid.set(bvalid);
  s.bresp.set(bresp);

  const rvalid = m.reg('rvalid_reg', Bool);
  const rdata = m.reg('rdata_reg', UInt(32));
  const rresp = m.reg('rresp_reg', UInt(2));
  const rtake = m.let('rtake', s.arvalid.land(rvalid.lnot()));
  s.arready.set(rvalid.lnot());
  const raddr = m.let('raddr', s.araddr.bits(15, 2));
  m.if(rtake, () => {
    rvalid.set(1);
    rresp.set(mux(raddr.lt(AXIL_REGS), lit(0, 2), lit(2, 2)));
    const sw = m.switch(raddr);
    regs.forEach((r, i) => sw.case(i, () => rdata.set(r)));
    sw.default(() => rdata.set(0xdeadbeef));
  }).elif(s.rready, () => rvalid.set(0));
  s.rvalid.set(rvalid);
  s.rdata.set(rdata);
  s.rresp.set(rresp);
  m.unused(s.awaddr, 'only word addresses 2..15 decode');
  m.unused(s.araddr, 'only word addresses 2..15 decode');
  return { clk, rst, s_axil: s };
}, { doc: 'AXI4-Lite register file (8 x 32 bit, SLVERR above) for the bus-model self-tests' });

function design<P extends Params, IO extends IORecord>(def: ModuleDef<P, IO>): TypedDesign<IO> {
  const e = emitTop(def);
  return typedDesign<IO>({ manifest: e.manifest, files: e.files });
}

// Emitted once per test file (module scope), built once per machine (the sim cache).
export const axisPassDesign = design(bfmAxisPass);
export const axisBrokenDesign = design(bfmAxisBroken);
export const axiPassDesign = design(bfmAxiPass);
export const axilRegsDesign = design(bfmAxilRegs);
