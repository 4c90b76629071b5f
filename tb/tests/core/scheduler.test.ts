// tb/core: coroutines, triggers, timeouts, limits, fast-forward, RNG, tracing.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  clockCycles, CycleLimitError, Rng, runTest, TaskCancelledError, TestFailure, TimeoutError, TriggerUsageError, typedDesign,
} from '../../core/index.ts';
import { counterSources, type CounterIO } from './fixtures/counter.ts';

const design = typedDesign<CounterIO>(counterSources());

describe('scheduler', () => {
  it('refuses two waits from one coroutine instead of hanging', async () => {
    const err = await runTest(design, async (dut, tb) => {
      await tb.reset(1);
      await Promise.all([tb.clockCycles(3), tb.until(() => dut.count.value === 2)]);
    }, { seed: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    expect((err as TestFailure).cause).toBeInstanceOf(TriggerUsageError);
    expect((err as Error).message).toMatch(/awaits until\(\) while already waiting for clockCycles\(\)/);
  });

  it('counts with rising edges and reads outputs after the edge', async () => {
    const seen: number[] = [];
    const r = await runTest(design, async (dut, tb) => {
      await tb.reset(2);
      expect(tb.cycle).toBe(2);
      dut.en.value = 1;
      for (let i = 0; i < 4; i++) {
        await dut.clk.rising();
        seen.push(dut.count.value);
      }
    }, { seed: 1 });
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(r.cycles).toBe(6);
  });

  it('applies a write after a rising edge at the next edge', async () => {
    await runTest(design, async (dut, tb) => {
      await tb.reset(1);
      dut.en.value = 1;
      await dut.clk.rising();
      expect(dut.count.value).toBe(1);
      dut.en.value = 0;             // sampled at the next edge: count stays 1 from here
      await dut.clk.rising();
      expect(dut.count.value).toBe(1);
    }, { seed: 1 });
  });

  it('supports falling edges between rising ones', async () => {
    const log: string[] = [];
    await runTest(design, async (dut, tb) => {
      await tb.reset(1);
      dut.en.value = 1;
      await dut.clk.falling();
      log.push(`fall ${tb.cycle} ${dut.count.value}`);
      await dut.clk.rising();
      log.push(`rise ${tb.cycle} ${dut.count.value}`);
      await dut.clk.falling();
      log.push(`fall ${tb.cycle} ${dut.count.value}`);
    }, { seed: 1 });
    expect(log).toEqual(['fall 1 0', 'rise 2 1', 'fall 2 1']);
  });

  it('forks, joins and cancels coroutines deterministically', async () => {
    const log: string[] = [];
    await runTest(design, async (_dut, tb) => {
      const a = tb.fork(async () => {
        for (let i = 0; i < 3; i++) { await tb.rising(); log.push(`a${tb.cycle}`); }
        return 'a-done';
      }, 'a');
      const b = tb.fork(async () => {
        for (;;) { await tb.rising(); log.push(`b${tb.cycle}`); }
      }, 'b');
      expect(await a.join()).toBe('a-done');
      b.cancel();
      await tb.clockCycles(2);
      log.push(`main${tb.cycle}`);
      await expect(b.join()).rejects.toBeInstanceOf(TaskCancelledError);
    }, { seed: 1 });
    expect(log).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'main5']);
  });

  it('fails until() with a timeout naming the cycle', async () => {
    const err = await runTest(design, async (dut, tb) => {
      await tb.reset(2);
      await tb.until(() => dut.count.value === 3, { timeout: 10, what: 'count == 3' });
    }, { seed: 5, pictures: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    expect((err as TestFailure).cause).toBeInstanceOf(TimeoutError);
    expect((err as TestFailure).message).toContain('until(count == 3) timed out after 10 cycles (waiting since cycle 2 (8 ns), now cycle 12 (48 ns))');
    // The wave window starts where the wait began, not a fixed distance before the timeout.
    expect((err as TestFailure).details.window).toEqual({ from: 0, to: 22 });
  });

  it('resolves until() when the condition holds', async () => {
    await runTest(design, async (dut, tb) => {
      await tb.reset(2);
      dut.en.value = 1;
      await tb.until(() => dut.count.value === 9, { timeout: 20 });
      expect(tb.cycle).toBe(11);
    }, { seed: 1 });
  });

  it('enforces the cycle limit', async () => {
    const err = await runTest(design, async (_dut, tb) => {
      await tb.clockCycles(5000);
    }, { maxCycles: 1000, seed: 3, pictures: false }).catch((e: unknown) => e);
    expect((err as TestFailure).cause).toBeInstanceOf(CycleLimitError);
    expect((err as TestFailure).message).toMatch(/cycle limit of 1000 \(cycle 1000, 4000 ns\)/);
  });

  it('fast-forwards waits into one native call with the same results', async () => {
    const run = async (batched: boolean): Promise<{ count: number; calls: number; w: bigint }> => {
      let count = -1;
      let w = 0n;
      const r = await runTest(design, async (dut, tb) => {
        await tb.reset(2);
        dut.en.value = 1;
        dut.w_in.value = 0x12_3456_789an;
        if (batched) await clockCycles(dut.clk, 1000);
        else for (let i = 0; i < 1000; i++) await dut.clk.rising();
        count = dut.count.value;
        w = dut.w_out.value;
      }, { seed: 1 });
      return { count, calls: r.nativeCalls, w };
    };
    const slow = await run(false);
    const fast = await run(true);
    expect(fast.count).toBe(slow.count);
    expect(fast.count).toBe(1000 % 256);
    expect(fast.w).toBe(slow.w);
    expect(slow.calls).toBe(1001);
    expect(fast.calls).toBe(2);
  });

  it('fast-forwards to the earliest of several coroutines', async () => {
    const log: string[] = [];
    const r = await runTest(design, async (_dut, tb) => {
      tb.fork(async () => { await tb.clockCycles(30); log.push(`x${tb.cycle}`); });
      await tb.clockCycles(100);
      log.push(`main${tb.cycle}`);
    }, { seed: 1 });
    expect(log).toEqual(['x30', 'main100']);
    expect(r.nativeCalls).toBe(2);
  });

  it('fails the test with the error thrown by a forked coroutine', async () => {
    const err = await runTest(design, async (_dut, tb) => {
      tb.fork(async () => { await tb.clockCycles(3); throw new Error('scoreboard mismatch'); });
      await tb.clockCycles(10);
    }, { seed: 9, pictures: false }).catch((e: unknown) => e);
    expect((err as TestFailure).message).toMatch(/^scoreboard mismatch\n  at cycle 3 \(12 ns\); seed 9\n  replay: NICGEN_SEED=9 npx vitest run tb\/tests\/core\/scheduler.test.ts -t /);
  });

  it('writes a non-empty FST for a window of cycles', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-wave-'));
    const file = path.join(dir, 'win.fst');
    try {
      await runTest(design, async (dut, tb) => {
        tb.startTrace(file, { from: 10, to: 20 });
        await tb.reset(2);
        dut.en.value = 1;
        await tb.clockCycles(50);
      }, { seed: 1 });
      const size = fs.statSync(file).size;
      expect(size).toBeGreaterThan(100);
      expect(fs.readFileSync(file).subarray(0, 1)[0]).toBe(0); // FST block type: header
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes VCD from a model built for it, only inside the window', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-wave-'));
    const file = path.join(dir, 'win.vcd');
    try {
      await runTest(design, async (dut, tb) => {
        await tb.reset(2);
        dut.en.value = 1;
        tb.startTrace(file, { from: 10, to: 13 });
        await tb.clockCycles(50);
      }, { seed: 1, build: { trace: 'vcd' } });
      const text = fs.readFileSync(file, 'utf8');
      expect(text).toContain('$var wire  8');
      // Real time, 4 ns per cycle in ps: opened at cycle 10 (40 ns), last edge dumped is cycle 13.
      expect(text).toMatch(/\$timescale\s+1ps\s+\$end/);
      const times = [...text.matchAll(/^#(\d+)$/gm)].map(m => Number(m[1]));
      expect(times[0]).toBe(40_000);
      expect(Math.max(...times)).toBe(52_000);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Rng', () => {
  it('is deterministic per seed and differs between seeds', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const c = new Rng(43);
    const seqA = Array.from({ length: 8 }, () => a.int(0, 1000));
    expect(Array.from({ length: 8 }, () => b.int(0, 1000))).toEqual(seqA);
    expect(Array.from({ length: 8 }, () => c.int(0, 1000))).not.toEqual(seqA);
  });

  it('fillBytes and skipBytes follow bytes() exactly (the memory model swaps them per beat)', () => {
    for (const n of [0, 1, 3, 4, 5, 8, 63, 64]) {
      const ref = new Rng(99), filled = new Rng(99), skipped = new Rng(99);
      const want = ref.bytes(n);
      const got = new Uint8Array(n);
      filled.fillBytes(got);
      skipped.skipBytes(n);
      expect(got, `fillBytes(${n})`).toEqual(want);
      const next = ref.u32();
      expect(filled.u32(), `stream after fillBytes(${n})`).toBe(next);
      expect(skipped.u32(), `stream after skipBytes(${n})`).toBe(next);
    }
  });

  it('stays in range and covers it', () => {
    const r = new Rng(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const v = r.int(-3, 3);
      expect(v).toBeGreaterThanOrEqual(-3);
      expect(v).toBeLessThanOrEqual(3);
      seen.add(v);
    }
    expect(seen.size).toBe(7);
    expect(r.bytes(5)).toHaveLength(5);
    expect(r.bigint(100) < 1n << 100n).toBe(true);
    const arr = [1, 2, 3, 4, 5];
    expect([...r.shuffle(arr)].sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('gives the test the seed it was asked for', async () => {
    const draws: number[][] = [];
    for (let i = 0; i < 2; i++) {
      await runTest(design, async (_dut, tb) => {
        draws.push([tb.rng.u32(), tb.rng.u32()]);
      }, { seed: 1234 });
    }
    expect(draws[0]).toEqual(draws[1]);
    expect(draws[0]).toEqual([new Rng(1234).u32(), (() => { const r = new Rng(1234); r.u32(); return r.u32(); })()]);
  });
});
