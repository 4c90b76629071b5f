// Generator tasks (tb.fork(function* () { yield Rising; })) against the async tasks they stand
// for: the same random programs give the same log in either form, mixed freely (joins and
// cancels across forms), and the same failures (timeouts, deadlock, cycle limit, misuse).

import { describe, expect, it } from 'vitest';
import {
  Cycles, CycleLimitError, DeadlockError, Falling, Rising, Rng, runTest, TaskCancelledError, TestFailure,
  TimeoutError, TriggerUsageError, typedDesign, Until, type Task, type TestBench, type Yieldable,
} from '../../core/index.ts';
import { counterSources, type CounterIO } from './fixtures/counter.ts';

const design = typedDesign<CounterIO>(counterSources());

type Step = readonly [op: number, arg: number];

/** A random program: waits of every kind, a join of an earlier task, a cancel of a later one. */
function plans(rng: Rng, tasks: number): Step[][] {
  return Array.from({ length: tasks }, (_, k) => Array.from({ length: 14 }, () => {
    const op = rng.int(0, k > 0 ? 5 : 3);
    return [op, op === 2 ? rng.int(0, 3) : op === 4 ? rng.int(0, k - 1) : 0] as const;
  }));
}

/** Runs the programs of `seed`; task k is a generator when `asGen(k)`. Returns what they saw. */
async function scenario(seed: number, asGen: (k: number) => boolean): Promise<string[]> {
  const log: string[] = [];
  await runTest(design, async (dut, tb) => {
    const rng = new Rng(seed);
    dut.en.value = 1;
    const all = plans(rng, 6);
    const tasks: Task<string>[] = [];
    const note = (k: number, what: string): void => { log.push(`t${k} ${what} @${tb.cycle} count ${dut.count.value}`); };
    const cond = (): boolean => dut.count.value % 5 === 0;
    all.forEach((plan, k) => {
      const gen = function* (): Generator<Yieldable, string, unknown> {
        for (const [op, arg] of plan) {
          if (op === 0) yield Rising;
          else if (op === 1) yield Falling;
          else if (op === 2) yield Cycles(arg);
          else if (op === 3) {
            try { yield Until(cond, { timeout: 2 }); } catch (e) { if (!(e instanceof TimeoutError)) throw e; note(k, 'timeout'); }
          } else {
            try { note(k, `joined ${String(yield tasks[arg]!)}`); } catch (e) { note(k, `join threw ${(e as Error).name}`); }
          }
          note(k, `op ${op}`);
        }
        if (k === 5) tasks[4]!.cancel();
        return `r${k}`;
      };
      const asy = async (): Promise<string> => {
        for (const [op, arg] of plan) {
          if (op === 0) await tb.rising();
          else if (op === 1) await tb.falling();
          else if (op === 2) await tb.clockCycles(arg);
          else if (op === 3) {
            try { await tb.until(cond, { timeout: 2 }); } catch (e) { if (!(e instanceof TimeoutError)) throw e; note(k, 'timeout'); }
          } else {
            try { note(k, `joined ${await tasks[arg]!.join()}`); } catch (e) { note(k, `join threw ${(e as Error).name}`); }
          }
          note(k, `op ${op}`);
        }
        if (k === 5) tasks[4]!.cancel();
        return `r${k}`;
      };
      tasks.push(asGen(k) ? tb.fork(gen, `t${k}`) : tb.fork(asy, `t${k}`));
    });
    for (const t of tasks) {
      try { log.push(`main joined ${await t.join()} @${tb.cycle}`); } catch (e) { log.push(`main join threw ${(e as Error).name}`); }
    }
  }, { seed });
  return log;
}

describe('generator tasks', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`run in the same order as async tasks, mixed with them (seed ${seed})`, async () => {
      const ref = await scenario(seed, () => false);
      expect(ref.length).toBeGreaterThan(60);
      expect(ref.some(l => l.includes('timeout'))).toBe(true);
      for (const [label, asGen] of [['all generators', () => true], ['even ones generators', (k: number) => k % 2 === 0], ['odd ones', (k: number) => k % 2 === 1]] as const) {
        const got = await scenario(seed, asGen);
        const at = got.findIndex((line, i) => line !== ref[i]);
        expect(at, `${label}: first difference at log line ${at}: "${got[at]}", async "${ref[at]}" (replay: seed ${seed})`).toBe(-1);
        expect(got.length).toBe(ref.length);
      }
    });
  }

  it('is the test body itself, returns results to async joiners and gets theirs', async () => {
    const log: string[] = [];
    await runTest(design, function* (dut, tb: TestBench) {
      dut.en.value = 1;
      const a = tb.fork(async () => { await tb.clockCycles(3); return 7; }, 'a');
      const g = tb.fork(function* () { yield Cycles(2); return 5; }, 'g');
      const b = tb.fork(async () => (await g.join()) * 10, 'b');
      log.push(`a ${String(yield a)} @${tb.cycle}`, `b ${String(yield b)} @${tb.cycle}`);
      const loop = tb.fork(function* () { for (;;) yield Rising; }, 'loop');
      yield Cycles(2);
      loop.cancel();
      try { yield loop; } catch (e) { log.push(`loop: ${(e as Error).name}`); }
      expect(loop.state).toBe('cancelled');
      log.push(`end @${tb.cycle} count ${dut.count.value}`);
    }, { seed: 1 });
    expect(log).toEqual(['a 7 @3', 'b 50 @3', `loop: ${TaskCancelledError.name}`, 'end @5 count 5']);
  });

  it('fails with the TimeoutError at the yield, naming the wait and its cycles', async () => {
    const err = await runTest(design, function* (dut, tb: TestBench) {
      yield* reset(tb);
      yield Until(() => dut.count.value === 3, { timeout: 10, what: 'count == 3' });
    }, { seed: 5, pictures: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    expect((err as TestFailure).cause).toBeInstanceOf(TimeoutError);
    expect((err as TestFailure).message).toContain('until(count == 3) timed out after 10 cycles (waiting since cycle 2 (8 ns), now cycle 12 (48 ns))');
  });

  it('fails the test with an error thrown by a generator, with its file and line', async () => {
    const err = await runTest(design, async (_dut, tb) => {
      tb.fork(function* () { yield Cycles(4); throw new Error('generator saw something bad'); }, 'bad');
      await tb.clockCycles(20);
    }, { seed: 1, pictures: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    expect((err as TestFailure).cycle).toBe(4);
    expect((err as Error).message).toMatch(/^generator saw something bad/);
    expect((err as Error).stack).toMatch(/generator-task\.test\.ts:\d+/);
  });

  it('finds a deadlock between a generator and an async task joining each other', async () => {
    const err = await runTest(design, async (_dut, tb) => {
      const box: { a?: Task<unknown> } = {};
      const g = tb.fork(function* () { yield Rising; yield box.a!; }, 'g');
      box.a = tb.fork(async () => { await tb.rising(); await g.join(); }, 'a');
      await g.join();
    }, { seed: 1, pictures: false }).catch((e: unknown) => e);
    expect((err as TestFailure).cause).toBeInstanceOf(DeadlockError);
  });

  it('enforces the cycle limit', async () => {
    const err = await runTest(design, function* () {
      for (;;) yield Rising;
    }, { maxCycles: 300, seed: 3, pictures: false }).catch((e: unknown) => e);
    expect((err as TestFailure).cause).toBeInstanceOf(CycleLimitError);
    expect((err as TestFailure).cycle).toBe(300);
  });

  it('refuses an await trigger, a promise or anything else yielded, naming the task', async () => {
    const helper = async (tb: TestBench): Promise<void> => { await tb.rising(); };
    const cases: [string, (tb: TestBench) => Generator<Yieldable, void, unknown>, RegExp][] = [
      ['await in a generator', function* (tb) { yield Rising; void tb.rising(); yield Rising; }, /rising\(\) awaited in generator task g/],
      ['an async helper', function* (tb) { yield helper(tb) as unknown as Yieldable; }, /rising\(\) awaited in generator task g/],
      ['a number', function* () { yield 3 as unknown as Yieldable; }, /generator task g yielded 3/],
      ['itself', function* (tb) { yield self!; void tb; }, /cannot join itself/],
    ];
    let self: Task<void> | undefined;
    for (const [label, body, msg] of cases) {
      const err = await runTest(design, async (_dut, tb) => {
        self = tb.fork(() => body(tb), 'g');
        await tb.clockCycles(5);
      }, { seed: 1, pictures: false }).catch((e: unknown) => e);
      expect((err as TestFailure).cause, label).toBeInstanceOf(TriggerUsageError);
      expect((err as Error).message, label).toMatch(msg);
    }
  });
});

/** A reusable generator step, as a bus model's sequence would be: reset for two cycles. */
function* reset(tb: TestBench): Generator<Yieldable, void, unknown> {
  const rst = tb.model.access('rst');
  rst.write(1);
  yield Cycles(2);
  rst.write(0);
}
