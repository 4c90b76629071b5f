// Skid buffer benches: random backpressure and source idles against a scoreboard (no loss,
// no duplication, order kept), the output obeying ready/valid, full rate when never
// stalled, and the registered-ready property probed every cycle.

import type { IOOf } from '../../../gen/hdl/index.ts';
import { skidBuffer, type SkidParams } from '../../../gen/lib/skid.ts';
import type { DutOf, TestBench, TestFn, TypedDesign } from '../../core/index.ts';
import { design } from '../../design.ts';
import { defineBench, type BenchGroup } from '../bench.ts';
import { big, bit, checkEq, checkThat } from '../check.ts';
import { HoldingSource, PhasedRates, type Rates } from './stimulus.ts';

type SkidIO = IOOf<typeof skidBuffer>;

/** s_ready is the inverse of a register, so no input written between two edges may move
 *  it: read it as the edge left it, then settle with the cycle's inputs and with m_ready
 *  and s_valid each flipped, and demand the same value every time. */
function probeRegisteredReady(dut: DutOf<SkidIO>, tb: TestBench, afterEdge: boolean): void {
  const valid = dut.s.valid.value, ready = dut.m.ready.value;
  const probes: [string, number, number][] = [['this cycle\'s inputs', valid, ready], ['m_ready flipped', valid, ready ^ 1], ['s_valid flipped', valid ^ 1, ready], ['both flipped', valid ^ 1, ready ^ 1]];
  for (const [what, v, r] of probes) {
    dut.s.valid.value = v;
    dut.m.ready.value = r;
    tb.settle();
    checkEq(tb, `s_ready with ${what} (s_valid=${v}, m_ready=${r}), compared with its value after the edge`, bit(dut.s.ready.value), afterEdge);
  }
  dut.s.valid.value = valid;
  dut.m.ready.value = ready;
  tb.settle();
}

interface Counts { sent: number; received: number; stallCycles: number; fullSkidCycles: number }

/** Drives `cycles` cycles with `rates()`, then drains with the sink always ready. */
async function drive(dut: DutOf<SkidIO>, tb: TestBench, p: SkidParams, cycles: number, rates: () => Rates, probe: boolean): Promise<Counts> {
  const src = new HoldingSource(tb.rng.fork(), p.width);
  const expected: bigint[] = [];
  const c: Counts = { sent: 0, received: 0, stallCycles: 0, fullSkidCycles: 0 };
  // The previous cycle's output, to check the skid buffer keeps its own output stable.
  let stalled: bigint | undefined;
  dut.s.valid.value = 0;
  dut.m.ready.value = 0;
  await tb.reset(2);
  for (let i = 0; ; i++) {
    const draining = i >= cycles;
    if (draining && expected.length === 0 && !bit(dut.m.valid.value)) break;
    checkThat(tb, i < cycles + 100, () => `${expected.length} words still inside 100 cycles into the drain (sent ${c.sent}, received ${c.received})`);
    const sReadyAfterEdge = bit(dut.s.ready.value);
    const r = draining ? { valid: 0, ready: 1 } : rates();
    const word = src.offer(r.valid);
    const ready = r.ready > 0 && tb.rng.bool(r.ready);
    dut.s.valid.value = word === undefined ? 0 : 1;
    dut.s.data.value = word ?? tb.rng.bigint(p.width);
    dut.m.ready.value = ready ? 1 : 0;
    tb.settle();
    if (probe) probeRegisteredReady(dut, tb, sReadyAfterEdge);
    const mValid = bit(dut.m.valid.value), mData = big(dut.m.data.value);
    if (stalled !== undefined) {
      checkThat(tb, mValid, () => `m_valid dropped before the handshake (word ${c.received}, 0x${stalled!.toString(16)}, was waiting for m_ready)`);
      checkEq(tb, `m_data while stalled (word ${c.received})`, mData, stalled);
    }
    if (!sReadyAfterEdge) c.fullSkidCycles++;
    if (word !== undefined && sReadyAfterEdge) { src.accepted(); expected.push(word); c.sent++; }
    if (mValid && ready) {
      const want = expected.shift();
      checkThat(tb, want !== undefined, () => `m side transferred 0x${mData.toString(16)} as word ${c.received}, but only ${c.sent} words were accepted (duplicate or invented)`);
      checkEq(tb, `m_data of word ${c.received}`, mData, want!);
      c.received++;
    }
    stalled = mValid && !ready ? mData : undefined;
    if (mValid && !ready) c.stallCycles++;
    await tb.rising();
  }
  checkEq(tb, 'words out (after the drain)', c.received, c.sent);
  return c;
}

export function skidRandom(p: SkidParams, cycles = 20_000): TestFn<SkidIO> {
  return async function skidRandomBench(dut, tb) {
    const phases = new PhasedRates(tb.rng.fork());
    // Phases set the mood; on top, each cycle is random, so single-cycle stalls occur too.
    const c = await drive(dut, tb, p, cycles, () => phases.next(), true);
    checkThat(tb, c.stallCycles > 100 && c.fullSkidCycles > 100 && c.received > cycles / 10,
      () => `coverage: ${c.received} words, ${c.stallCycles} stalled cycles, ${c.fullSkidCycles} cycles with the skid slot in use; want > 100 each`);
  };
}

/** Never stalled: one transfer per cycle after a one-cycle fill, and s_ready never drops. */
export function skidThroughput(p: SkidParams, cycles = 2_000): TestFn<SkidIO> {
  return async function skidThroughputBench(dut, tb) {
    const c = await drive(dut, tb, p, cycles, () => ({ valid: 1, ready: 1 }), false);
    checkEq(tb, `words accepted in ${cycles} cycles at full rate`, c.sent, cycles);
    checkEq(tb, 'cycles with s_ready low', c.fullSkidCycles, 0);
  };
}

const params: SkidParams = { width: 16 };
export const skidDesign = (): TypedDesign<SkidIO> => design(skidBuffer, params);

export const skidBenches: BenchGroup = {
  random: defineBench({ about: 'random backpressure and idles: scoreboard, output stability, s_ready registered (probed every cycle)', design: skidDesign, test: skidRandom(params) }),
  throughput: defineBench({ about: 'one transfer per cycle when never stalled', design: skidDesign, test: skidThroughput(params) }),
};
