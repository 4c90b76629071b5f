// Synchronous FIFOs with ready/valid ports (`s_*` in, `m_*` out) and count/full/empty.
//
// Two storage styles, one behaviour at the ports (a push and a pop every cycle at full rate):
// - `syncFifo`: storage in a memory read asynchronously (distributed RAM / LUTRAM on Xilinx
//   parts, flip-flops and a mux elsewhere); the first word is visible in the cycle after it
//   is pushed (shallow FIFOs, or where that latency matters).
// - `syncFifoRam`: storage in an inferred block RAM with a registered read; the RAM's read
//   register doubles as the output register, so (without bypass) data appear two cycles
//   after a push into an empty FIFO; it holds `depth + 1` words (depth in RAM, one in the
//   output register).
//
// `bypass` (fall-through, default off): while the FIFO holds no word, m_valid = s_valid and
// m_data = s_data in the same cycle, and a word taken there (m_ready high) is never stored.
// A word shown but not taken is stored and stays on the output (valid, same data) until
// taken, so a source that keeps its word until s_ready sees the output follow the AXI rule.
// The price is a combinational path s_* -> m_valid/m_data (and m_ready -> the write enable);
// s_ready still depends only on registers. The RAM FIFO then also loads its output stage
// straight from s_data when its RAM is empty (a separate output register, `width` flops, next
// to the RAM's read register), so no word waits for the RAM read while nothing is ahead of it.
// count and full describe stored words, and `empty` says that nothing stored can be popped: a
// word falling through is never counted, so with bypass m_valid can be high while `empty` is.
//
// Depth must be a power of two: the pointers then wrap for free, and carrying one extra
// bit tells full (same address, different lap) from empty (same address, same lap).
// s_ready depends only on registers, so no combinational path runs from m_ready to s_ready.

import { Bool, defineModule, mux, UInt, type ModuleBuilder, type Value } from '../hdl/index.ts';
import { stream } from './interfaces.ts';
import { log2Exact, positiveInt } from './util.ts';

export type FifoParams = {
  /** Payload bits. */
  width: number;
  /** Words of storage; a power of two. */
  depth: number;
  /** Fall-through: an empty FIFO shows s_valid/s_data on m_valid/m_data in the same cycle. */
  bypass: boolean;
};

export const syncFifo = defineModule('sync_fifo', { width: 8, depth: 16, bypass: false } as FifoParams, (m, p) => {
  positiveInt(p.width, 'width');
  const aw = log2Exact(p.depth, 'depth');
  const { clk, rst } = m.clockAndReset();
  const bus = stream(UInt(p.width));
  const s = bus.sink(m, 's');
  const o = bus.source(m, 'm');
  const count = m.output('count', UInt(aw + 1));
  const full = m.output('full', Bool);
  const empty = m.output('empty', Bool);

  const wrPtr = m.reg('wr_ptr_reg', UInt(aw + 1));
  const rdPtr = m.reg('rd_ptr_reg', UInt(aw + 1));
  // Storage is a memory read asynchronously, as verilog-axis' small FIFOs are: synthesis maps
  // it to distributed RAM (LUTRAM) on Xilinx parts instead of depth x width flip-flops and a
  // read mux. It needs no reset: a word is only read after it was written.
  const storage = m.memory('mem', UInt(p.width), p.depth);

  const wrAddr = m.let('wr_addr', wrPtr.bits(aw - 1, 0));
  const rdAddr = m.let('rd_addr', rdPtr.bits(aw - 1, 0));
  const isEmpty = m.let('is_empty', wrPtr.eq(rdPtr));
  // Full: same address, pointers one lap apart (top bits differ).
  const isFull = m.let('is_full', wrAddr.eq(rdAddr).land(wrPtr.bit(aw).ne(rdPtr.bit(aw))));
  const accept = s.valid.land(isFull.lnot());
  const head = storage.readAsync(rdAddr);
  // With bypass, a word offered to an empty FIFO whose output is taken leaves at once.
  const push = m.let('push', p.bypass ? accept.land(isEmpty.land(o.ready).lnot()) : accept);
  const pop = m.let('pop', o.ready.land(isEmpty.lnot()));

  s.ready.set(isFull.lnot());
  o.valid.set(p.bypass ? isEmpty.lnot().lor(s.valid) : isEmpty.lnot());
  o.data.set(p.bypass ? mux(isEmpty, s.data, head) : head);
  count.set(wrPtr.subw(rdPtr));
  full.set(isFull);
  empty.set(isEmpty);

  m.if(push, () => {
    wrPtr.set(wrPtr.addw(1));
    storage.write(wrAddr, s.data);
  });
  m.if(pop, () => rdPtr.set(rdPtr.addw(1)));

  return { clk, rst, s, m: o, count, full, empty };
}, { doc: 'Synchronous FIFO in distributed RAM (asynchronous read) with ready/valid ports' });

export const syncFifoRam = defineModule('sync_fifo_ram', { width: 8, depth: 512, bypass: false } as FifoParams, (m, p) => {
  positiveInt(p.width, 'width');
  const aw = log2Exact(p.depth, 'depth');
  const { clk, rst } = m.clockAndReset();
  const bus = stream(UInt(p.width));
  const s = bus.sink(m, 's');
  const o = bus.source(m, 'm');
  // Up to depth + 1 words are held; aw + 1 bits count to 2*depth - 1, enough for depth >= 2.
  const count = m.output('count', UInt(aw + 1));
  const full = m.output('full', Bool);
  const empty = m.output('empty', Bool);

  const mem = m.memory('mem', UInt(p.width), p.depth);
  const wrPtr = m.reg('wr_ptr_reg', UInt(aw + 1));
  // rd_ptr points at the next word to move from the RAM into the output register.
  const rdPtr = m.reg('rd_ptr_reg', UInt(aw + 1));
  const outValid = m.reg('out_valid_reg', Bool);

  const wrAddr = m.let('wr_addr', wrPtr.bits(aw - 1, 0));
  const rdAddr = m.let('rd_addr', rdPtr.bits(aw - 1, 0));
  const ramEmpty = m.let('ram_empty', wrPtr.eq(rdPtr));
  const ramFull = m.let('ram_full', wrAddr.eq(rdAddr).land(wrPtr.bit(aw).ne(rdPtr.bit(aw))));
  const accept = s.valid.land(ramFull.lnot());
  // Read ahead whenever the output register is empty or being emptied this cycle, so a
  // pop every cycle sees a new word every cycle despite the RAM's one-cycle read.
  const load = m.let('load', ramEmpty.lnot().land(outValid.lnot().lor(o.ready)));
  // The RAM read register is the output register: it holds while `load` is low.
  const ramOut = mem.read(rdAddr, { enable: load });
  const stage = p.bypass ? fallThroughStage(m, p.width, { sData: s.data, mReady: o.ready, accept, load, ramEmpty, outValid, ramOut })
    : { word: ramOut, fill: load, skipsRam: null };
  const push = m.let('push', stage.skipsRam ? accept.land(stage.skipsRam.lnot()) : accept);

  m.if(push, () => {
    mem.write(wrAddr, s.data);
    wrPtr.set(wrPtr.addw(1));
  });
  m.if(load, () => rdPtr.set(rdPtr.addw(1)));
  m.if(stage.fill, () => outValid.set(1)).elif(o.ready, () => outValid.set(0));

  s.ready.set(ramFull.lnot());
  o.valid.set(p.bypass ? outValid.lor(s.valid) : outValid);
  o.data.set(p.bypass ? mux(outValid, stage.word, s.data) : stage.word);
  count.set(wrPtr.subw(rdPtr).addw(outValid.zext(aw + 1)));
  full.set(ramFull);
  empty.set(outValid.lnot());

  return { clk, rst, s, m: o, count, full, empty };
}, { doc: 'Synchronous FIFO in block RAM with ready/valid ports, one push and one pop per cycle' });

/**
 * The RAM FIFO's output stage with fall-through. A word with nothing ahead of it (RAM empty,
 * output stage empty or being emptied) skips the RAM: it passes straight through when the
 * output stage is empty and m_ready is high, else it goes into `direct_data_reg`, which then
 * drives the output instead of the RAM read register. So the RAM holds words only while the
 * output stage does, and "output stage empty" means "FIFO empty" (asserted).
 */
function fallThroughStage(m: ModuleBuilder, width: number, x: { sData: Value; mReady: Value; accept: Value; load: Value; ramEmpty: Value; outValid: Value; ramOut: Value }): { word: Value; fill: Value; skipsRam: Value } {
  m.assert(x.outValid.lor(x.ramEmpty), 'fall-through FIFO: words in RAM behind an empty output stage');
  const skipsRam = m.let('skips_ram', x.ramEmpty.land(x.outValid.lnot().lor(x.mReady)));
  // Not taken this cycle while the FIFO is empty, or behind the word leaving the output stage.
  const direct = m.let('direct_load', x.accept.land(skipsRam).land(x.outValid.lor(x.mReady.lnot())));
  const directData = m.reg('direct_data_reg', UInt(width), { reset: null });
  // The output stage's word is in direct_data_reg, not in the RAM read register.
  const fromDirect = m.reg('out_direct_reg', Bool);
  m.if(direct, () => {
    directData.set(x.sData);
    fromDirect.set(1);
  }).elif(x.load, () => fromDirect.set(0));
  const word = m.let('out_word', mux(fromDirect, directData, x.ramOut));
  return { word, fill: m.let('out_fill', x.load.lor(direct)), skipsRam };
}
