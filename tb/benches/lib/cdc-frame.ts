// asyncFifoRam as a frame FIFO (frameBit: the word's top bit marks a frame's last word), on two
// unrelated clocks from the seed: frames of 1..depth words go in with random idles between
// their words, come out in order (queue model), and
//  - no word of a frame comes out before the frame's last word went in (its push edge);
//  - once a frame's first word is out, m_valid stays high until its last word is taken, whatever
//    the writer does meanwhile (what a MAC needs: it underruns otherwise);
//  - flat out, frames still pass (the commit crossing does not stall the FIFO).

import type { IOOf } from '../../../gen/hdl/index.ts';
import { asyncFifoRam, type AsyncFifoParams } from '../../../gen/lib/async-fifo.ts';
import { nextRise } from '../../../sim/clocks.ts';
import { StreamSink, StreamSource } from '../../bfm/index.ts';
import { ClockPhases } from '../../bfm/clock-phases.ts';
import type { DutOf, TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { defineBench, type BenchGroup } from '../bench.ts';
import { checkEq, checkThat, fmt, num } from '../check.ts';

type Dut = DutOf<NonNullable<IOOf<typeof asyncFifoRam>>>;

const P: AsyncFifoParams = { width: 12, depth: 16, stages: 2, frameBit: 11 };
const LAST = 1 << P.frameBit!;

async function frameBench(dut: Dut, tb: TestBench): Promise<void> {
  const rng = tb.rng.fork();
  const sched = (): { period: number; high: number; phase: number } => { const period = rng.int(2, 30); return { period, high: rng.int(1, period - 1), phase: rng.int(0, period - 1) }; };
  const clocks = { s_clk: sched(), m_clk: sched() };
  tb.setClocks(clocks);
  const ctx = (): string => `s_clk ${JSON.stringify(clocks.s_clk)}, m_clk ${JSON.stringify(clocks.m_clk)} (ticks)`;
  dut.s.valid.value = 0;
  dut.m.ready.value = 0;
  dut.s_rst.value = 1; dut.m_rst.value = 1;
  await dut.s_clk.cycles(4); await dut.m_clk.cycles(4);
  dut.s_rst.value = 0; dut.m_rst.value = 0;

  const m = { s: tb.model.clockSchedule('s_clk'), m: tb.model.clockSchedule('m_clk') };
  // Per word: its value and the push edge of its frame's last word (known once that word is in).
  const expected: { word: number; frame: number }[] = [];
  const frameEnd: number[] = [];
  let popped = 0, flat = false;
  const src = new StreamSource(tb, dut.s, { clock: dut.s_clk, reset: dut.s_rst, pause: () => !flat && rng.bool(0.4) });
  new StreamSink(tb, dut.m, {
    clock: dut.m_clk, reset: dut.m_rst, pause: () => !flat && rng.bool(0.3),
    onTransfer: (data, cycle) => {
      const want = expected[popped];
      checkThat(tb, want !== undefined, () => `m_data ${fmt(data)} came out while no word was in the FIFO (${ctx()})`);
      checkEq(tb, `m_data of word ${popped}`, num(data), want!.word, ctx);
      const end = frameEnd[want!.frame];
      checkThat(tb, end !== undefined && end < nextRise(m.m, cycle) , () => `word ${popped} (frame ${want!.frame}) came out at tick ${cycle} before its frame's last word went in (${end === undefined ? 'not yet' : `tick ${end}`}; ${ctx()})`);
      popped++;
    },
  });
  // m_valid held from a frame's first word taken to its last.
  let inFrame = false;
  ClockPhases.of(tb, dut.m_clk).onSample(() => {
    if (dut.m_rst.value) return;
    const valid = num(dut.m.valid.value) === 1;
    checkThat(tb, !inFrame || valid, () => `m_valid dropped inside a frame at tick ${tb.cycle} (word ${popped} next; ${ctx()})`);
    if (valid && num(dut.m.ready.value) === 1) inFrame = (num(dut.m.data.value) & LAST) === 0;
  });

  let frames = 0;
  const sendFrames = (n: number): void => {
    for (let f = 0; f < n; f++, frames++) {
      const len = rng.int(1, P.depth);
      const id = frames;
      for (let i = 0; i < len; i++) {
        const word = (rng.int(0, LAST - 1)) | (i === len - 1 ? LAST : 0);
        expected.push({ word, frame: id });
        src.send(word, i === len - 1 ? cycle => { frameEnd[id] = nextRise(m.s, cycle); } : undefined);
      }
    }
  };
  const slowest = Math.max(clocks.s_clk.period, clocks.m_clk.period);
  sendFrames(60);
  await tb.until(() => popped === expected.length, { timeout: expected.length * slowest * 20 + 20_000, what: 'random-rate frames to drain' });
  flat = true;
  sendFrames(30);
  await tb.until(() => popped === expected.length, { timeout: expected.length * slowest * 6 + 20_000, what: 'flat-out frames to drain' });
  console.log(`async_fifo_ram frame mode: ${frames} frames, ${popped} words (${ctx()})`);
}

export const asyncFifoRamFrameBenches: BenchGroup = {
  frame_fifo: defineBench({
    about: `frame FIFO (frameBit ${P.frameBit}, depth ${P.depth}): no word before its frame is whole, no gap inside a frame on m_*, clocks from the seed`,
    design: () => design(asyncFifoRam, P),
    maxCycles: 20_000_000,
    test: frameBench,
  }),
};
