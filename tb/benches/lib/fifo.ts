// FIFO benches (syncFifo, syncFifoRam, each with and without bypass): random push/pop
// against a cycle-accurate queue model with every port checked every cycle, and full-rate
// streaming.

import type { IOOf } from '../../../gen/hdl/index.ts';
import { syncFifo, syncFifoRam, type FifoParams } from '../../../gen/lib/fifo.ts';
import type { DutOf, TestBench, TestFn, TypedDesign } from '../../core/index.ts';
import { design } from '../../design.ts';
import { defineBench, type Bench, type BenchGroup } from '../bench.ts';
import { big, bit, checkEq, checkThat, num } from '../check.ts';
import { RamFifoModel, RegFifoModel, type FifoModel } from './fifo-model.ts';
import { HoldingSource, PhasedRates } from './stimulus.ts';

type FifoIO = IOOf<typeof syncFifo>;
export type FifoKind = 'reg' | 'ram';

function newModel(kind: FifoKind, p: FifoParams): FifoModel {
  return kind === 'reg' ? new RegFifoModel(p.depth, p.bypass) : new RamFifoModel(p.depth, p.bypass);
}

/** Port values in this cycle (after the last edge, with this cycle's inputs settled) against
 *  the model. */
function checkPorts(dut: DutOf<FifoIO>, tb: TestBench, model: FifoModel, word: bigint | undefined, pushed: number, popped: number): void {
  const ctx = (): string => `after ${pushed} pushes and ${popped} pops, s_valid ${word !== undefined ? 1 : 0}`;
  const shown = model.shown(word !== undefined, word ?? 0n);
  checkEq(tb, 'count', num(dut.count.value), model.count, ctx);
  checkEq(tb, 'full', bit(dut.full.value), model.full, ctx);
  checkEq(tb, 'empty', bit(dut.empty.value), model.empty, ctx);
  checkEq(tb, 's_ready', bit(dut.s.ready.value), !model.full, ctx);
  checkEq(tb, 'm_valid', bit(dut.m.valid.value), shown !== undefined, ctx);
  if (shown !== undefined) checkEq(tb, `m_data (word ${popped})`, big(dut.m.data.value), shown, ctx);
}

/** The output side's protocol, independent of the model: a word shown and not taken is
 *  shown again in the next cycle, unchanged. */
class OutputHold {
  #held: bigint | undefined;
  check(dut: DutOf<FifoIO>, tb: TestBench): void {
    if (this.#held === undefined) return;
    checkThat(tb, bit(dut.m.valid.value) && big(dut.m.data.value) === this.#held,
      () => `m_valid/m_data dropped or changed before m_ready: held 0x${this.#held!.toString(16)}, now valid ${num(dut.m.valid.value)} data 0x${big(dut.m.data.value).toString(16)}`);
  }
  edge(dut: DutOf<FifoIO>, ready: boolean): void {
    this.#held = bit(dut.m.valid.value) && !ready ? big(dut.m.data.value) : undefined;
  }
}

/** Runs `cycles` cycles; `rates()` gives this cycle's offer/ready probabilities. Every
 *  popped word is also checked against a plain queue of accepted words (order, no loss,
 *  no duplication), independent of the model's timing. */
async function drive(dut: DutOf<FifoIO>, tb: TestBench, kind: FifoKind, p: FifoParams, cycles: number, rates: () => { valid: number; ready: number }): Promise<{ pushed: number; popped: number; fullCycles: number; emptyCycles: number; fellThrough: number }> {
  const model = newModel(kind, p);
  const src = new HoldingSource(tb.rng.fork(), p.width);
  const hold = new OutputHold();
  const expected: bigint[] = [];
  let pushed = 0, popped = 0, fullCycles = 0, emptyCycles = 0;
  dut.s.valid.value = 0;
  dut.m.ready.value = 0;
  await tb.reset(2);
  for (let i = 0; i < cycles; i++) {
    const r = rates();
    const word = src.offer(r.valid);
    const ready = r.ready > 0 && tb.rng.bool(r.ready);
    dut.s.valid.value = word === undefined ? 0 : 1;
    // While idle the data lines carry junk: the FIFO must ignore them.
    dut.s.data.value = word ?? tb.rng.bigint(p.width);
    dut.m.ready.value = ready ? 1 : 0;
    tb.settle();
    checkPorts(dut, tb, model, word, pushed, popped);
    hold.check(dut, tb);
    hold.edge(dut, ready);
    if (model.full) fullCycles++;
    if (model.count === 0) emptyCycles++;
    const moved = model.edge(word !== undefined, word ?? 0n, ready);
    if (moved.accepted) { src.accepted(); expected.push(word!); pushed++; }
    if (moved.popped !== undefined) {
      const want = expected.shift();
      checkThat(tb, want === moved.popped, () => `word ${popped} left the FIFO as 0x${moved.popped!.toString(16)} but 0x${want?.toString(16)} was pushed ${popped}th`);
      popped++;
    }
    await tb.rising();
  }
  return { pushed, popped, fullCycles, emptyCycles, fellThrough: model.fellThrough };
}

/** Random phases of idle/bursty traffic on both sides for `cycles` cycles. */
export function fifoRandom(kind: FifoKind, p: FifoParams, cycles = 20_000): TestFn<FifoIO> {
  return async function fifoRandomBench(dut, tb) {
    const phases = new PhasedRates(tb.rng.fork());
    const r = await drive(dut, tb, kind, p, cycles, () => phases.next());
    // Coverage: a run that never filled or never drained did not test the flags.
    checkThat(tb, r.fullCycles > 0 && r.emptyCycles > 0, () => `coverage: ${r.fullCycles} cycles full, ${r.emptyCycles} empty; both should be > 0`);
    checkThat(tb, r.popped > cycles / 10, () => `coverage: only ${r.popped} words went through in ${cycles} cycles`);
    // With bypass both paths must be used: words falling through and words stored.
    if (p.bypass) checkThat(tb, r.fellThrough > 0 && r.fellThrough < r.popped, () => `coverage: ${r.fellThrough} of ${r.popped} words fell through; want some but not all`);
  };
}

/** Source always valid, sink always ready: after the fill latency (0 with bypass: every
 *  word falls through), one push and one pop in every cycle, and s_ready never drops. */
export function fifoThroughput(kind: FifoKind, p: FifoParams, cycles = 2_000): TestFn<FifoIO> {
  return async function fifoThroughputBench(dut, tb) {
    const latency = p.bypass ? 0 : kind === 'reg' ? 1 : 2;
    const r = await drive(dut, tb, kind, p, cycles, () => ({ valid: 1, ready: 1 }));
    checkEq(tb, `pushes in ${cycles} cycles at full rate`, r.pushed, cycles);
    checkEq(tb, `pops in ${cycles} cycles at full rate (fill latency ${latency})`, r.popped, cycles - latency);
  };
}

/** The FIFO benches: two sizes of each flavour (one narrow, one wide or deep), each with and
 *  without bypass. */
function group(kind: FifoKind, configs: readonly Omit<FifoParams, 'bypass'>[]): BenchGroup {
  const def = kind === 'reg' ? syncFifo : syncFifoRam;
  const out: Record<string, Bench> = {};
  for (const size of configs) for (const bypass of [false, true]) {
    const p: FifoParams = { ...size, bypass };
    const tag = `w${p.width}_d${p.depth}${bypass ? '_bypass' : ''}`;
    const d = (): TypedDesign<FifoIO> => design(def, p);
    out[`random_${tag}`] = defineBench({ about: `random push/pop phases vs the queue model, all ports every cycle (width ${p.width}, depth ${p.depth}, bypass ${bypass})`, design: d, test: fifoRandom(kind, p) });
    out[`throughput_${tag}`] = defineBench({ about: `a push and a pop every cycle when never stalled (width ${p.width}, depth ${p.depth}, bypass ${bypass})`, design: d, test: fifoThroughput(kind, p) });
  }
  return out;
}

export const syncFifoBenches = group('reg', [{ width: 8, depth: 4 }, { width: 32, depth: 16 }]);
export const syncFifoRamBenches = group('ram', [{ width: 16, depth: 2 }, { width: 36, depth: 32 }]);
