// Clock-domain crossing benches (asyncFifo, asyncFifoRam, syncHandshake): the two sides on two
// unrelated clocks (periods, duty cycles and phases in ticks; random from the seed, or fixed
// extremes), driven by the stream bus models with phased random idles and back-pressure,
// against a queue model: every word comes out once, in order, never before it went in. For the
// FIFOs also: the levels each side reports bound the true count from the right side; a stopped
// reader lets exactly the capacity in; and flat out the FIFO moves a word per cycle of the
// slower clock. The handshake moves a word per round trip (about 2 x stages + 2 cycles of each
// clock).

import type { IOOf } from '../../../gen/hdl/index.ts';
import { asyncFifo, asyncFifoRam, type AsyncFifoParams } from '../../../gen/lib/async-fifo.ts';
import { syncHandshake } from '../../../gen/lib/cdc.ts';
import { nextRise } from '../../../sim/clocks.ts';
import { StreamSink, StreamSource } from '../../bfm/index.ts';
import { ClockPhases } from '../../bfm/clock-phases.ts';
import type { DutOf, Rng, TestBench, TestFn, TypedDesign } from '../../core/index.ts';
import { design } from '../../design.ts';
import { defineBench, type BenchGroup } from '../bench.ts';
import { checkEq, checkThat, fmt, num } from '../check.ts';
import { PhasedRates } from './stimulus.ts';

type AsyncIO = IOOf<typeof asyncFifo>;
/** What every crossing has: the two clocks and resets and the two streams. */
type CrossingIO = Pick<AsyncIO, 's_clk' | 's_rst' | 'm_clk' | 'm_rst' | 's' | 'm'>;
type Dut = DutOf<CrossingIO>;
export type AsyncKind = 'reg' | 'ram' | 'handshake';

/** A clock schedule in ticks. */
interface Sched { readonly period: number; readonly high: number; readonly phase: number }
interface Clocks { readonly s: Sched; readonly m: Sched }

/** Unrelated clocks from the seed: periods 2..40 ticks each, any duty cycle and phase. */
function randomClocks(rng: Rng): Clocks {
  const one = (): Sched => {
    const period = rng.int(2, 40);
    return { period, high: rng.int(1, period - 1), phase: rng.int(0, period - 1) };
  };
  return { s: one(), m: one() };
}

const fixed = (sp: number, mp: number, mPhase = 0): (rng: Rng) => Clocks => () => ({
  s: { period: sp, high: Math.floor(sp / 2), phase: 0 },
  m: { period: mp, high: Math.floor(mp / 2), phase: mPhase },
});

const describeClocks = (c: Clocks): string => `s_clk ${c.s.period}/${c.s.high}/${c.s.phase}, m_clk ${c.m.period}/${c.m.high}/${c.m.phase} (period/high/phase in ticks)`;

type Phase = 'random' | 'fill' | 'drain' | 'flat';

/** Pause as the stream models take it: phased random rates of offering (source) or taking
 *  (sink), except where the phase of the bench says always or never. */
function phasedPause(rng: Rng, side: 'valid' | 'ready', phase: () => Phase): () => boolean {
  const rates = new PhasedRates(rng);
  return () => {
    const ph = phase();
    if (ph === 'flat' || (ph === 'fill' && side === 'valid')) return false;
    if (ph === 'fill') return true;
    return !rng.bool(rates.next()[side]);
  };
}

/** Holds both resets together for 4 edges of each clock, then releases them. */
async function resetBoth(dut: Dut): Promise<void> {
  dut.s_rst.value = 1;
  dut.m_rst.value = 1;
  await dut.s_clk.cycles(4);
  await dut.m_clk.cycles(4);
  dut.s_rst.value = 0;
  dut.m_rst.value = 0;
}

/** Words the FIFO holds at a tick: pushes whose s_clk edge is at or before it, minus pops likewise. */
class TrueCount {
  readonly #pushEdges: number[] = [];
  readonly #popEdges: number[] = [];
  #pi = 0;
  #qi = 0;
  #count = 0;
  push(edge: number): void { this.#pushEdges.push(edge); }
  pop(edge: number): void { this.#popEdges.push(edge); }
  /** Ticks only move forward between calls. */
  at(tick: number): number {
    while (this.#pi < this.#pushEdges.length && this.#pushEdges[this.#pi]! <= tick) { this.#pi++; this.#count++; }
    while (this.#qi < this.#popEdges.length && this.#popEdges[this.#qi]! <= tick) { this.#qi++; this.#count--; }
    return this.#count;
  }
}

/** Checks of the FIFOs that the handshake has no counterpart of. */
interface FifoChecks {
  readonly capacity: number;
  readonly depth: number;
  readonly levels: (dut: DutOf<AsyncIO>) => { s: number; m: number };
  /** The RAM FIFO's s_level leaves out the word in its output register. */
  readonly sLevelSlack: number;
}

function crossingTest(width: number, clocksOf: (rng: Rng) => Clocks, words: number, fifo: FifoChecks | null): TestFn<CrossingIO> {
  return async function crossingBench(dut, tb) {
    const clocks = clocksOf(tb.rng.fork());
    tb.setClocks({ s_clk: clocks.s, m_clk: clocks.m });
    const ctx = (): string => describeClocks(clocks);
    dut.s.valid.value = 0;
    dut.m.ready.value = 0;
    await resetBoth(dut);

    const sched = { s: tb.model.clockSchedule('s_clk'), m: tb.model.clockSchedule('m_clk') };
    const truth = new TrueCount();
    const expected: bigint[] = [];
    let popped = 0;
    let phase: Phase = 'random';
    const src = new StreamSource(tb, dut.s, { clock: dut.s_clk, pause: phasedPause(tb.rng.fork(), 'valid', () => phase), reset: dut.s_rst });
    new StreamSink(tb, dut.m, {
      clock: dut.m_clk, reset: dut.m_rst,
      pause: phasedPause(tb.rng.fork(), 'ready', () => phase),
      onTransfer: (data, cycle) => {
        truth.pop(nextRise(sched.m, cycle));
        checkThat(tb, expected.length > 0, () => `m_data ${fmt(data)} came out while no word was in the crossing (${popped} words popped so far; ${ctx()})`);
        const want = expected.shift()!;
        checkEq(tb, `m_data of word ${popped}`, BigInt(data), want, ctx);
        popped++;
      },
    });
    if (fifo) watchLevels(tb, dut as DutOf<AsyncIO>, fifo, truth, ctx);

    let sent = 0;
    const send = (n: number): void => {
      for (let i = 0; i < n; i++, sent++) {
        const w = tb.rng.bigint(width);
        src.send(Number(w), cycle => { expected.push(w); truth.push(nextRise(sched.s, cycle)); });
      }
    };
    const slowest = Math.max(clocks.s.period, clocks.m.period);
    const perWord = fifo ? slowest : 6 * (clocks.s.period + clocks.m.period);

    // 1. Random rates on both sides.
    send(words);
    await src.wait(words * perWord * 40);
    await tb.until(() => popped === sent, { timeout: 200 * perWord + 10_000, what: 'the crossing to drain' });

    if (fifo) {
      // 2. Reader stopped: exactly the capacity goes in, then s_ready stays low.
      phase = 'fill';
      const before = src.stats.transfers;
      send(fifo.capacity + 4);
      await dut.s_clk.cycles(fifo.capacity * 2 + 20);
      await dut.m_clk.cycles(20);
      await dut.s_clk.cycles(20);
      checkEq(tb, `words accepted with the reader stopped (capacity ${fifo.capacity})`, src.stats.transfers - before, fifo.capacity, ctx);
      checkEq(tb, 's_ready with the FIFO full', num(dut.s.ready.value), 0, ctx);
      phase = 'drain';
      await tb.until(() => popped === sent, { timeout: 400 * slowest + 10_000, what: 'the full FIFO to drain' });
    }

    // 3. Both sides flat out: a word per cycle of the slower clock (FIFOs), per round trip (handshake).
    phase = 'flat';
    const flatWords = 200;
    const t0 = tb.cycle, p0 = popped;
    send(flatWords);
    await tb.until(() => popped === sent, { timeout: flatWords * perWord * 4 + 10_000, what: 'the flat-out words' });
    const ticks = tb.cycle - t0;
    // Allowance: the first word's trip through both synchronizers, a few cycles of the slower clock.
    checkThat(tb, ticks <= (popped - p0) * perWord + 12 * slowest, () => `${popped - p0} words flat out took ${ticks} ticks, more than ${perWord} ticks a word and 12 cycles of the slower clock to start (${ctx()})`);
  };
}

/** The levels each FIFO side reports, against the words really held at that side's edges. */
function watchLevels(tb: TestBench, dut: DutOf<AsyncIO>, fifo: FifoChecks, truth: TrueCount, ctx: () => string): void {
  ClockPhases.of(tb, dut.s_clk).onSample(() => {
    if (dut.s_rst.value) return;
    const level = fifo.levels(dut).s;
    const held = truth.at(tb.cycle) - fifo.sLevelSlack;
    checkThat(tb, level >= held, () => `s_level ${level} is below the ${held} words the FIFO holds${fifo.sLevelSlack ? ' outside its output register' : ''} (${ctx()})`);
    checkThat(tb, level <= fifo.depth, () => `s_level ${level} is above the depth ${fifo.depth} (${ctx()})`);
  });
  ClockPhases.of(tb, dut.m_clk).onSample(() => {
    if (dut.m_rst.value) return;
    const level = fifo.levels(dut).m;
    const held = truth.at(tb.cycle);
    checkThat(tb, level <= held, () => `m_level ${level} is above the ${held} words the FIFO holds (${ctx()})`);
  });
}

function bench(kind: AsyncKind, clocks: (rng: Rng) => Clocks, about: string, words = 2000): ReturnType<typeof defineBench> {
  const p: AsyncFifoParams = { width: 16, depth: 8, stages: 2 };
  const levels = (dut: DutOf<AsyncIO>): { s: number; m: number } => ({ s: num(dut.s_level.value), m: num(dut.m_level.value) });
  const common = { about: '', test: crossingTest(p.width, clocks, words, kind === 'handshake' ? null : { capacity: kind === 'ram' ? p.depth + 1 : p.depth, depth: p.depth, levels, sLevelSlack: kind === 'ram' ? 1 : 0 }), maxCycles: 20_000_000 };
  if (kind === 'handshake') {
    return defineBench<CrossingIO>({ ...common, about: `${about} (width ${p.width}, ${p.stages}-flop toggles)`, design: () => design(syncHandshake, { width: p.width, stages: p.stages }) });
  }
  return defineBench<CrossingIO>({
    ...common,
    about: `${about} (width ${p.width}, depth ${p.depth}, ${kind === 'reg' ? 'flip-flops' : 'block RAM'})`,
    design: () => design(kind === 'reg' ? asyncFifo : asyncFifoRam, p) as TypedDesign<CrossingIO>,
  });
}

function group(kind: AsyncKind): BenchGroup {
  return {
    random_clocks: bench(kind, randomClocks, 'unrelated clocks from the seed, random rates, vs a queue model'),
    fast_writer: bench(kind, fixed(3, 29), 's_clk ten times m_clk'),
    fast_reader: bench(kind, fixed(29, 3), 'm_clk ten times s_clk'),
    near_equal: bench(kind, fixed(20, 21, 7), 'clocks 5 % apart, drifting through every phase'),
  };
}

export const asyncFifoBenches = group('reg');
export const asyncFifoRamBenches = group('ram');
export const syncHandshakeBenches = group('handshake');
