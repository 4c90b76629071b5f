// Every cycle number in a failure maps to its dump time, at the run's clock period: timeouts,
// scoreboard mismatches (the cycle a record was taken), the cycle limit, deadlocks, and the
// failure summary line. Run at 6.4 ns, so a message that kept the default 4 ns would differ.

import { describe, expect, it } from 'vitest';
import { runTest, TestFailure, typedDesign, type TestFn } from '../../core/index.ts';
import { ScoreboardMismatch } from '../../model/scoreboard.ts';
import { counterSources, type CounterIO } from './fixtures/counter.ts';

const design = typedDesign<CounterIO>(counterSources());

async function failure(fn: TestFn<CounterIO>, maxCycles?: number): Promise<string> {
  const err = await runTest(design, fn, { seed: 1, pictures: false, periodNs: 6.4, ...(maxCycles ? { maxCycles } : {}) }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TestFailure);
  return (err as TestFailure).message;
}

describe('cycle numbers and dump times in failures', () => {
  it('print both, at the configured period: timeout, scoreboard, cycle limit, deadlock, summary', async () => {
    const timeout = await failure(async (dut, tb) => {
      await tb.reset(2);
      await tb.until(() => dut.count.value === 3, { timeout: 10, what: 'count == 3' });
    });
    expect(timeout).toContain('(waiting since cycle 2 (12.8 ns), now cycle 12 (76.8 ns))');
    expect(timeout).toContain('  at cycle 12 (76.8 ns); seed 1');

    const scoreboard = await failure(async (_dut, tb) => {
      await tb.reset(3);
      const recorded = tb.cycle;
      await tb.clockCycles(5);
      throw new ScoreboardMismatch(`A qp 1: CQE status 0, want 4 at cycle ${tb.cycle}`, recorded);
    });
    expect(scoreboard).toContain('CQE status 0, want 4 at cycle 8 (51.2 ns) (recorded at cycle 3 (19.2 ns))');

    const limit = await failure(async (_dut, tb) => { await tb.clockCycles(100); }, 20);
    expect(limit).toContain('cycle limit of 20 (cycle 20, 128 ns)');

    const deadlock = await failure(async (_dut, tb) => {
      await tb.reset(1);
      const a = tb.fork(async () => { await b.join(); });
      const b = tb.fork(async () => { await a.join(); });
      await a.join();
    });
    expect(deadlock).toMatch(/deadlock at cycle 1 \(6\.4 ns\)/);
  });
});
