// Asynchronous (dual-clock) FIFOs: a ready/valid stream from the s_clk domain to the m_clk
// domain, with binary pointers for addressing and Gray-coded copies that cross through
// synchronizers (one bit changes per step, so a copy caught mid-change is the old or the new
// value, never a third). The classic design (Cummings, "Simulation and Synthesis Techniques for
// Asynchronous FIFO Design", 2002; verilog-axis axis_async_fifo works the same way).
//
// - Write side (s_clk): the read pointer's Gray copy, synchronized into s_clk, tells how far the
//   reader has got; full = the write pointer is one lap ahead of it (Gray: the top two bits
//   differ, the rest equal). s_ready = !full, from registers only.
// - Read side (m_clk): the write pointer's Gray copy, synchronized into m_clk, tells which words
//   are written; empty = the pointers are equal. The synchronized copies lag, so each side sees
//   the FIFO fuller (writer) or emptier (reader) than it is: never a lost or a phantom word, at
//   the cost of 2-3 cycles of latency and of some depth near full.
// - s_level / m_level: words held as each side sees them (the writer's count is an upper bound,
//   the reader's a lower bound). In asyncFifoRam, s_level counts the words in the RAM: the
//   output register may hold one more.
//
// asyncFifo keeps the words in flip-flops and shows the head word combinationally (m_data
// follows m_valid in the same cycle, from storage written in the s_clk domain: a path to
// constrain like any FIFO's, e.g. set_max_delay -datapath_only of one m_clk period).
// asyncFifoRam keeps them in a dual-clock block RAM (write port s_clk, registered read port
// m_clk) whose read register is the output register, as sync_fifo_ram: it holds depth + 1 words.
//
// Both resets must be asserted together, for at least `stages` + 1 cycles of the slower clock.
// Depth is a power of two (the pointers wrap for free, one extra bit tells full from empty).

import { Bool, UInt, Vec, cat, defineModule, type ModuleBuilder, type UIntShape, type Value, intIn, oneOf, powerOfTwoIn } from '../hdl/index.ts';
import type { Domain } from '../hdl/ir.ts';
import { checkStages, syncChain, twoClockStream } from './cdc.ts';
import { log2Exact, positiveInt } from './util.ts';

export type AsyncFifoParams = {
  /** Payload bits. */
  width: number;
  /** Words of storage; a power of two >= 2. */
  depth: number;
  /** Synchronizer flip-flops per pointer bit, 2..4. */
  stages: number;
  /** asyncFifoRam only: -1 (default) for a plain FIFO; else a frame FIFO whose frames end at
   *  words with this bit of s_data set (tlast): the reader sees a frame's words only once its
   *  last word is written (the write pointer that crosses is the one after the last complete
   *  frame), as verilog-axis axis_async_fifo's FRAME_FIFO. A frame longer than `depth` never
   *  completes: size depth for the longest frame. */
  frameBit?: number;
};

/** Binary to Gray code: neighbours differ in one bit. */
function toGray(b: Value<UIntShape>): Value<UIntShape> {
  return b.xor(b.shr(1)).as(UInt(b.width));
}

/** Gray code back to binary (named `name`): each bit is the XOR of the Gray bits from it up. */
function fromGray(m: ModuleBuilder, name: string, g: Value<UIntShape>): Value<UIntShape> {
  const bits: Value[] = [];
  let acc: Value = g.bit(g.width - 1);
  bits.push(acc);
  for (let i = g.width - 2; i >= 0; i--) {
    acc = acc.xor(g.bit(i));
    bits.push(acc);
  }
  return m.let(name, cat(...bits).as(UInt(g.width)));
}

/** A FIFO pointer of `aw + 1` bits (address plus lap) in `domain`, and its Gray copy. */
function pointer(m: ModuleBuilder, prefix: string, aw: number, domain: Domain) {
  const bin = m.reg(`${prefix}_ptr_reg`, UInt(aw + 1), { domain });
  const gray = m.reg(`${prefix}_ptr_gray_reg`, UInt(aw + 1), { domain });
  return {
    bin,
    gray,
    addr: m.let(`${prefix}_addr`, bin.bits(aw - 1, 0)),
    /** Advance by one at every edge where `step` is high. */
    advanceWhen(step: Value): void {
      const next = m.let(`${prefix}_ptr_next`, bin.addw(1).as(UInt(aw + 1)));
      m.if(step, () => {
        bin.set(next);
        gray.set(toGray(next));
      });
    },
  };
}

/** Ports, the two domains and the pointer synchronizers both variants have. */
function frame(m: ModuleBuilder, p: AsyncFifoParams) {
  positiveInt(p.width, 'width');
  const aw = log2Exact(p.depth, 'depth');
  checkStages(p.stages);
  const { clocks, s, o, src: wr, dst: rd } = twoClockStream(m, p.width);
  const s_level = m.output('s_level', UInt(aw + 1));
  const m_level = m.output('m_level', UInt(aw + 1));
  const rdSync = syncChain(m, 'rd_gray_sync', aw + 1, p.stages, wr, 'Gray-coded read pointer from the m_clk domain');
  const wrSync = syncChain(m, 'wr_gray_sync', aw + 1, p.stages, rd, 'Gray-coded write pointer from the s_clk domain');
  const io = { ...clocks, s, m: o, s_level, m_level };
  return { aw, io, s, o, s_level, m_level, wr, rd, rdSync, wrSync };
}

type Frame = ReturnType<typeof frame>;

/** The s_clk side: write pointer, full, s_ready, s_level; returns the push and its address. */
function writeSide(m: ModuleBuilder, f: Frame, frameBit = -1): { push: Value; addr: Value } {
  const ptr = pointer(m, 'wr', f.aw, f.wr);
  // One lap ahead of the reader as the writer sees it: in Gray code, the top two bits inverted.
  const full = m.let('full', ptr.gray.eq(f.rdSync.q.xor(3 << (f.aw - 1))));
  f.s.ready.set(full.lnot());
  const push = m.let('push', f.s.valid.land(full.lnot()));
  ptr.advanceWhen(push);
  f.s_level.set(ptr.bin.subw(fromGray(m, 'rd_ptr_sync', f.rdSync.q)));
  f.wrSync.d.set(frameBit < 0 ? ptr.gray : commitPointer(m, f, ptr, push, frameBit));
  return { push, addr: ptr.addr };
}

/**
 * A frame FIFO's committed write pointer (Gray): it moves to the write pointer after a word
 * with bit `frameBit` set is pushed, so the reader, which sees only this pointer, never sees
 * a word of a frame whose end is not written yet. Full still compares the write pointer itself.
 */
function commitPointer(m: ModuleBuilder, f: Frame, ptr: ReturnType<typeof pointer>, push: Value, frameBit: number): Value<UIntShape> {
  const commit = m.reg('wr_commit_gray_reg', UInt(f.aw + 1), { domain: f.wr });
  const ends = m.let('push_frame_end', push.land(f.s.data.bit(frameBit)));
  m.if(ends, () => commit.set(toGray(ptr.bin.addw(1).as(UInt(f.aw + 1)))));
  return commit;
}

export const asyncFifo = defineModule('async_fifo', { width: 8, depth: 16, stages: 2 } as AsyncFifoParams, (m, p) => {
  const f = frame(m, p);
  const w = writeSide(m, f);
  // Storage in the s_clk domain; the m_clk side reads only slots the synchronized write pointer covers.
  const storage = m.reg('storage_reg', Vec(UInt(p.width), p.depth), { reset: null, domain: f.wr });
  m.crossing(storage, 'a slot is read only after the write pointer that covers it crossed into m_clk, and rewritten only after the read pointer that frees it crossed back');
  m.if(w.push, () => {
    const sw = m.switch(w.addr);
    for (let i = 0; i < p.depth; i++) sw.case(i, () => storage.setBits(i * p.width + p.width - 1, i * p.width, f.s.data));
  });

  const rp = pointer(m, 'rd', f.aw, f.rd);
  const empty = m.let('empty', rp.gray.eq(f.wrSync.q));
  const pop = m.let('pop', f.o.ready.land(empty.lnot()));
  rp.advanceWhen(pop);
  f.o.valid.set(empty.lnot());
  f.o.data.set(storage.at(rp.addr));
  f.m_level.set(fromGray(m, 'wr_ptr_sync', f.wrSync.q).subw(rp.bin));
  f.rdSync.d.set(rp.gray);
  return f.io;
}, { doc: 'Asynchronous FIFO (two clocks) in flip-flops, Gray-coded pointers through synchronizers', params: { rules: { width: intIn(1, 65536), depth: powerOfTwoIn(2, 1024), stages: oneOf(2, 3, 4) } } });

export const asyncFifoRam = defineModule('async_fifo_ram', { width: 8, depth: 512, stages: 2, frameBit: -1 } as AsyncFifoParams, (m, p) => {
  const f = frame(m, p);
  const w = writeSide(m, f, p.frameBit ?? -1);
  const mem = m.memory('mem', UInt(p.width), p.depth, { domain: f.wr });
  m.crossing(mem, 'a word is read only after the write pointer that covers it crossed into m_clk, and rewritten only after the read pointer that frees it crossed back');
  m.if(w.push, () => mem.write(w.addr, f.s.data));

  // The RAM's read register is the output register (as sync_fifo_ram): read ahead whenever it
  // is empty or being emptied, so a pop every cycle sees a new word every cycle.
  const rp = pointer(m, 'rd', f.aw, f.rd);
  const outValid = m.reg('out_valid_reg', Bool, { domain: f.rd });
  const ramEmpty = m.let('ram_empty', rp.gray.eq(f.wrSync.q));
  const load = m.let('load', ramEmpty.lnot().land(outValid.lnot().lor(f.o.ready)));
  const word = mem.read(rp.addr, { enable: load, domain: f.rd });
  rp.advanceWhen(load);
  m.if(load, () => outValid.set(1)).elif(f.o.ready, () => outValid.set(0));
  f.o.valid.set(outValid);
  f.o.data.set(word);
  f.m_level.set(fromGray(m, 'wr_ptr_sync', f.wrSync.q).subw(rp.bin).addw(outValid.zext(f.aw + 1)));
  f.rdSync.d.set(rp.gray);
  return f.io;
}, { doc: 'Asynchronous FIFO (two clocks) in a dual-clock block RAM, Gray-coded pointers through synchronizers', params: {
  rules: { width: intIn(1, 65536), depth: powerOfTwoIn(2, 1 << 20), stages: oneOf(2, 3, 4), frameBit: intIn(-1, 65535) },
  check: p => ((p.frameBit ?? -1) >= p.width ? { param: 'frameBit', allowed: `-1..${p.width - 1}`, why: 'the frame-end bit is a bit of s_data' } : null),
} });
