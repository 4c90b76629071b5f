// Small designs that together use every construct of the DSL. The emitter tests check
// their text; the gate test runs Verilator, Icarus and Yosys over all of them.

import { Bool, Clock, Enum, SInt, Struct, UInt, Vec, cat, defineBlackBox, defineModule, lit, mux, pack, repeat } from '../hdl/index.ts';

export const Hdr = Struct('hdr', { op: UInt(4), len: UInt(12), delta: SInt(4) });
export const Mode = Enum('mode', ['OFF', 'SLOW', 'FAST', 'TURBO']);

/** Combinational constructs: assign vs always @*, struct fields, shifts, selects, signed ops. */
export const CombOps = defineModule('comb_ops', {}, m => {
  const a = m.input('a', UInt(8));
  const s = m.input('s', SInt(8));
  const h = m.input('h', Hdr);
  const sel = m.input('sel', UInt(3));
  const lane = m.input('lane', UInt(2));
  const v = m.input('v', Vec(UInt(8), 4));
  const mode = m.input('mode', Mode);
  const c = m.input('c', Bool);
  const sum = m.output('sum', UInt(13));
  const cond = m.output('cond', UInt(8));
  const op = m.output('op', UInt(4));
  const delta = m.output('delta', SInt(8));
  const shl = m.output('shl', UInt(8));
  const shr = m.output('shr', UInt(8));
  const ashr = m.output('ashr', SInt(8));
  const bitsel = m.output('bitsel', Bool);
  const elem = m.output('elem', UInt(8));
  const lt = m.output('lt', Bool);
  const fast = m.output('fast', Bool);
  const packd = m.output('packd', Hdr);
  const sext = m.output('sext', SInt(12));
  const sw = m.output('sw', UInt(2));
  sum.set(a.add(h.field('len'))); // @here:sum
  m.if(c, () => cond.set(a.not())); // @here:cond
  op.set(h.field('op'));
  delta.set(h.field('delta').sext(8));
  shl.set(a.shl(3));
  shr.set(a.shr(2));
  ashr.set(s.shr(2));
  bitsel.set(a.bit(sel));
  elem.set(v.at(lane));
  lt.set(s.lt(-3).lor(s.lt(h.field('delta'))));
  fast.set(mode.is('FAST'));
  packd.set(pack(Hdr, { op: 1, len: a.zext(12), delta: lit(-1, 4, true) }));
  sext.set(s.sext(12));
  m.switch(mode).case('OFF', () => sw.set(0)).case(['SLOW', 'TURBO'], () => sw.set(1)).default(() => sw.set(3));
  return { a, s, h, sel, lane, v, mode, c, sum, cond, op, delta, shl, shr, ashr, bitsel, elem, lt, fast, packd, sext, sw };
});

/** Clocked constructs: sync reset at the end, enable, reset-less register, signed reset. */
export const Regs = defineModule('regs', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const en = m.input('en', Bool);
  const d = m.input('d', UInt(8));
  const q = m.output('q', UInt(8));
  const qe = m.output('qe', UInt(8));
  const qn = m.output('qn', UInt(8));
  const qs = m.output('qs', SInt(4));
  const cnt = m.reg('cnt', UInt(8), { reset: 3 }); // @here:cnt
  const held = m.reg('held', UInt(8), { enable: en });
  const raw = m.reg('raw', UInt(8), { reset: null });
  const sr = m.reg('sr', SInt(4), { reset: -2 });
  m.if(en, () => cnt.set(cnt.addw(1))).else(() => cnt.set(d)); // @here:cnt-if
  held.set(d);
  raw.set(d.xor(raw));
  sr.set(sr.subw(1));
  q.set(cnt);
  qe.set(held);
  qn.set(raw);
  qs.set(sr);
  return { clk, rst, en, d, q, qe, qn, qs };
});

/** A second clock domain with an asynchronous reset. */
export const AsyncDomain = defineModule('async_domain', {}, m => {
  const clk_io = m.input('clk_io', Clock);
  const arst = m.input('arst', Bool);
  const d = m.input('d', UInt(4));
  const q = m.output('q', UInt(4));
  const io = m.domain('io', { clock: clk_io, reset: arst, resetKind: 'async' });
  const r = m.reg('r', UInt(4), { reset: 9, domain: io });
  r.set(d);
  q.set(r);
  return { clk_io, arst, d, q };
});

/** An FSM, and an enum with members that are never used (their localparams must not appear). */
export const Fsm = defineModule('fsm_demo', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const go = m.input('go', Bool);
  const done = m.output('done', Bool);
  const fsm = m.fsm('state', ['IDLE', 'RUN', 'DONE'] as const);
  fsm.states({
    IDLE: () => { m.if(go, () => fsm.goto('RUN')); },
    RUN: () => fsm.goto('DONE'),
  });
  done.set(fsm.is('DONE'));
  return { clk, rst, go, done };
});

/** Block RAM: byte-enable write, registered read with enable, initial contents. */
export const Ram = defineModule('ram_demo', { depth: 16 }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const we = m.input('we', Bool);
  const be = m.input('be', UInt(4));
  const waddr = m.input('waddr', UInt(4));
  const wdata = m.input('wdata', UInt(32));
  const re = m.input('re', Bool);
  const raddr = m.input('raddr', UInt(4));
  const rdata = m.output('rdata', UInt(32));
  const rom = m.output('rom', UInt(8));
  const ram = m.memory('ram', UInt(32), p.depth);
  const lut = m.memory('lut', UInt(8), 4, { init: [0x11, 0, 0x33] });
  m.if(we, () => ram.write(waddr, wdata, { enable: be, laneWidth: 8 }));
  m.unused(rst, 'memories have no reset');
  rdata.set(ram.read(raddr, { enable: re })); // @here:read
  rom.set(lut.read(raddr.trunc(2)));
  return { clk, rst, we, be, waddr, wdata, re, raddr, rdata, rom };
});

/** A child whose `tag` parameter does not change the hardware (dedup). */
export const Stage = defineModule('stage', { width: 8, tag: 'a' }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const d = m.input('d', UInt(p.width));
  const q = m.output('q', UInt(p.width));
  const r = m.reg('r', UInt(p.width));
  r.set(d);
  q.set(r);
  return { clk, rst, d, q };
});

export const VendorInv = defineBlackBox('vendor_inv', m => ({ i: m.input('i', UInt(4)), o: m.output('o', UInt(4)) }), {
  verilog: '`default_nettype none\nmodule vendor_inv (input wire [3:0] i, output wire [3:0] o);\nassign o = ~i;\nendmodule\n',
});

/** Instances: auto clk/rst, two param sets with identical hardware, a black box. */
export const Pipeline = defineModule('pipeline', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const d = m.input('d', UInt(8));
  const q = m.output('q', UInt(8));
  const inv = m.output('inv', UInt(4));
  const s1 = m.instance('u_s1', Stage, { tag: 'first' }); // @here:u_s1
  const s2 = m.instance('u_s2', Stage, { tag: 'second' });
  const bb = m.instance('u_inv', VendorInv);
  s1.d.set(d);
  s2.d.set(s1.q);
  q.set(s2.q);
  bb.i.set(d.trunc(4));
  inv.set(bb.o);
  return { clk, rst, d, q, inv };
});

/** Simulation-only assertions in two domains. */
export const Asserts = defineModule('asserts', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const clk2 = m.input('clk2', Clock);
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  const other = m.domain('other', { clock: clk2 });
  const r = m.reg('r', UInt(4));
  r.set(a);
  y.set(r);
  m.assert(a.ne(15), 'a is never "15" (100%)'); // @here:assert1
  m.if(r.eq(1), () => m.assert(a.ne(2), 'no 2 after 1')); // @here:assert2
  m.assert(a.ne(14), 'other clock', other); // @here:assert3
  return { clk, rst, clk2, a, y };
});

/** Wide values: constants above 32 bits, replication, concatenation, a mux chain. */
export const Wide = defineModule('wide', {}, m => {
  const a = m.input('a', UInt(64));
  const b = m.input('b', UInt(16));
  const c = m.input('c', Bool);
  const y = m.output('y', UInt(64));
  const z = m.output('z', UInt(32));
  y.set(mux(c, a.xor(0xdead_beef_cafe_f00dn), a.addw(1)));
  z.set(cat(repeat(c, 8), b.bits(15, 8), b.mul(lit(3, 2)).trunc(16).bits(7, 0), lit(0xa5, 8)));
  return { a, b, c, y, z };
});

/** Two memories with initial contents in one module. */
export const TwoRoms = defineModule('two_roms', {}, m => {
  const clk = m.input('clk', Clock);
  const addr = m.input('addr', UInt(1));
  const y = m.output('y', UInt(8));
  const lo = m.memory('lo', UInt(4), 2, { init: [1, 2] });
  const hi = m.memory('hi', UInt(4), 2, { init: [3, 4] });
  y.set(cat(hi.read(addr), lo.read(addr)));
  return { clk, addr, y };
});

/** Corners: temporaries for slices of expressions, non-power-of-two Vec index, mixed
 *  reset / reset-less registers in one async block, a partly read instance output. */
export const Corners = defineModule('corners', {}, m => {
  const clk = m.input('clk', Clock);
  const arst = m.input('arst', Bool);
  const a = m.input('a', UInt(8));
  const b = m.input('b', UInt(8));
  const i = m.input('i', UInt(2));
  const v = m.input('v', Vec(UInt(4), 3));
  const s = m.input('s', SInt(6));
  const mid = m.output('mid', UInt(4));
  const el = m.output('el', UInt(4));
  const q = m.output('q', UInt(8));
  const neg = m.output('neg', SInt(7));
  const part = m.output('part', UInt(2));
  const d = m.domain('d', { clock: clk, reset: arst, resetKind: 'async' });
  const r1 = m.reg('r1', UInt(4), { reset: 1, domain: d });
  const r2 = m.reg('r2', UInt(4), { reset: null, domain: d });
  m.if(a.eq(0), () => { r1.set(b.trunc(4)); r2.set(a.trunc(4)); });
  mid.set(a.add(b).bits(8, 5));
  el.set(v.at(i));
  q.set(cat(r1, r2));
  neg.set(s.neg());
  const u = m.instance('u_child', Stage, { width: 4 });
  u.d.set(a.bits(7, 4));
  part.set(u.q.bits(1, 0));
  u.rst.set(0);
  return { clk, arst, a, b, i, v, s, mid, el, q, neg, part };
});

/** Every design above, for the gate test. */
export const allDesigns = { CombOps, Regs, AsyncDomain, Fsm, Ram, Pipeline, Asserts, Wide, Corners } as const;
