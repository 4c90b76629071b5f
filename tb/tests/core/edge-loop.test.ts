// tb.everyEdge (the promise-free loop the bus models' clock phases run on) against the
// coroutine it stands for, and the raw `words` view of port handles.

import { describe, expect, it } from 'vitest';
import { Rng, runTest, TestFailure, typedDesign, type TestBench } from '../../core/index.ts';
import { counterSources, type CounterIO } from './fixtures/counter.ts';

const design = typedDesign<CounterIO>(counterSources());

/** Random coroutines that wait on edges and cycle counts and log what they see, plus one
 *  edge watcher started by `watch` (as everyEdge or as the equivalent coroutine). */
async function scenario(seed: number, watch: (tb: TestBench, log: string[], count: () => number) => void): Promise<string[]> {
  const log: string[] = [];
  await runTest(design, async (dut, tb) => {
    const rng = new Rng(seed);
    dut.en.value = 1;
    const tasks = [];
    for (let k = 0; k < 4; k++) {
      if (k === 2) watch(tb, log, () => dut.count.value);
      const plan = Array.from({ length: 12 }, () => rng.int(0, 3));
      tasks.push(tb.fork(async () => {
        for (const step of plan) {
          if (step === 0) await tb.rising();
          else if (step === 1) await tb.falling();
          else if (step === 2) await tb.clockCycles(rng.int(1, 3));
          else await tb.until(() => dut.count.value % 3 === 0, { timeout: 10 });
          log.push(`t${k} ${step} @${tb.cycle} count ${dut.count.value}`);
        }
      }, `t${k}`));
    }
    for (const t of tasks) await t.join();
  }, { seed });
  return log;
}

describe('everyEdge', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`runs in the same order as the coroutine it replaces (seed ${seed})`, async () => {
      const asLoop = await scenario(seed, (tb, log, count) => {
        tb.everyEdge(() => log.push(`fall @${tb.cycle} count ${count()}`), () => log.push(`rise @${tb.cycle} count ${count()}`));
      });
      const asCoroutine = await scenario(seed, (tb, log, count) => {
        tb.fork(async () => {
          for (;;) {
            await tb.falling();
            log.push(`fall @${tb.cycle} count ${count()}`);
            await tb.rising();
            log.push(`rise @${tb.cycle} count ${count()}`);
          }
        });
      });
      expect(asLoop.length).toBeGreaterThan(40);
      const at = asLoop.findIndex((line, i) => line !== asCoroutine[i]);
      expect(at, `first difference at log line ${at}: everyEdge "${asLoop[at]}", coroutine "${asCoroutine[at]}" (replay: seed ${seed})`).toBe(-1);
      expect(asLoop.length).toBe(asCoroutine.length);
    });
  }

  it('fails the test with the error a callback throws, at its cycle', async () => {
    const err = await runTest(design, async (_dut, tb) => {
      tb.everyEdge(() => { if (tb.cycle === 5) throw new Error('sampled something bad'); }, () => {});
      await tb.clockCycles(20);
    }, { seed: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    expect((err as TestFailure).cycle).toBe(5);
    expect((err as Error).message).toMatch(/^sampled something bad/);
  });
});

describe('port words', () => {
  it('show the same bits as value, LSB word first, both ways', async () => {
    await runTest(design, async (dut, tb) => {
      const rng = new Rng(9);
      for (let i = 0; i < 20; i++) {
        const a = rng.bigint(100), b = rng.bigint(100);
        dut.add.a.value = a;
        // Writing the words is writing the value.
        const w = dut.add.b.words;
        expect(w.length).toBe(4);
        for (let k = 0; k < 4; k++) w[k] = Number((b >> BigInt(32 * k)) & 0xffffffffn);
        expect(dut.add.b.value).toBe(b);
        tb.settle();
        const sum = dut.add.sum.words;
        let got = 0n;
        for (let k = sum.length - 1; k >= 0; k--) got = (got << 32n) | BigInt(sum[k]!);
        expect(got, `sum words for ${a} + ${b}`).toBe(a + b);
        expect(dut.add.sum.value).toBe(a + b);
      }
    }, { seed: 9 });
  });
});
