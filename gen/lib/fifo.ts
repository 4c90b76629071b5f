// Synchronous FIFOs with ready/valid ports (`s_*` in, `m_*` out) and count/full/empty.
//
// Two storage styles, one behaviour at the ports (a push and a pop every cycle at full rate):
// - `syncFifo`: storage in flip-flops, the output word is a mux of them (shallow FIFOs, or
//   where the first word must be visible in the cycle after it is pushed).
// - `syncFifoRam`: storage in an inferred block RAM with a registered read; the RAM's read
//   register doubles as the output register, so data appear two cycles after a push into an
//   empty FIFO and it holds `depth + 1` words (depth in RAM, one in the output register).
//
// Depth must be a power of two: the pointers then wrap for free, and carrying one extra
// bit tells full (same address, different lap) from empty (same address, same lap).
// s_ready depends only on registers, so no combinational path runs from m_ready to s_ready.

import { Bool, defineModule, UInt, Vec } from '../hdl/index.ts';
import { stream } from './interfaces.ts';
import { log2Exact, positiveInt } from './util.ts';

export type FifoParams = {
  /** Payload bits. */
  width: number;
  /** Words of storage; a power of two. */
  depth: number;
};

export const syncFifo = defineModule('sync_fifo', { width: 8, depth: 16 } as FifoParams, (m, p) => {
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
  // Storage needs no reset: a word is only read after it was written.
  const storage = m.reg('storage_reg', Vec(UInt(p.width), p.depth), { reset: null });

  const wrAddr = m.let('wr_addr', wrPtr.bits(aw - 1, 0));
  const rdAddr = m.let('rd_addr', rdPtr.bits(aw - 1, 0));
  const isEmpty = m.let('is_empty', wrPtr.eq(rdPtr));
  // Full: same address, pointers one lap apart (top bits differ).
  const isFull = m.let('is_full', wrAddr.eq(rdAddr).land(wrPtr.bit(aw).ne(rdPtr.bit(aw))));
  const push = m.let('push', s.valid.land(isFull.lnot()));
  const pop = m.let('pop', o.ready.land(isEmpty.lnot()));

  s.ready.set(isFull.lnot());
  o.valid.set(isEmpty.lnot());
  o.data.set(storage.at(rdAddr));
  count.set(wrPtr.subw(rdPtr));
  full.set(isFull);
  empty.set(isEmpty);

  m.if(push, () => {
    wrPtr.set(wrPtr.addw(1));
    const sw = m.switch(wrAddr);
    for (let i = 0; i < p.depth; i++) sw.case(i, () => storage.setBits(i * p.width + p.width - 1, i * p.width, s.data));
  });
  m.if(pop, () => rdPtr.set(rdPtr.addw(1)));

  return { clk, rst, s, m: o, count, full, empty };
}, { doc: 'Synchronous FIFO in flip-flops with ready/valid ports' });

export const syncFifoRam = defineModule('sync_fifo_ram', { width: 8, depth: 512 } as FifoParams, (m, p) => {
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
  const push = m.let('push', s.valid.land(ramFull.lnot()));
  // Read ahead whenever the output register is empty or being emptied this cycle, so a
  // pop every cycle sees a new word every cycle despite the RAM's one-cycle read.
  const load = m.let('load', ramEmpty.lnot().land(outValid.lnot().lor(o.ready)));

  m.if(push, () => {
    mem.write(wrAddr, s.data);
    wrPtr.set(wrPtr.addw(1));
  });
  m.if(load, () => rdPtr.set(rdPtr.addw(1)));
  // The RAM read register is the output register: it holds while `load` is low.
  o.data.set(mem.read(rdAddr, { enable: load }));
  m.if(load, () => outValid.set(1)).elif(o.ready, () => outValid.set(0));

  s.ready.set(ramFull.lnot());
  o.valid.set(outValid);
  count.set(wrPtr.subw(rdPtr).addw(outValid.zext(aw + 1)));
  full.set(ramFull);
  empty.set(outValid.lnot());

  return { clk, rst, s, m: o, count, full, empty };
}, { doc: 'Synchronous FIFO in block RAM with ready/valid ports, one push and one pop per cycle' });
