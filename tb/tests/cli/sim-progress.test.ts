// The `nicgen sim` progress reporter: the percentage bar's text, and off a terminal one line
// per further 10 % of a bench's reported progress (not one every few seconds).

import { describe, expect, it } from 'vitest';
import { progressBar, SimProgress } from '../../../cli/sim-progress.ts';
import { ClockTime } from '../../../sim/clock.ts';
import { reportProgress } from '../../benches/progress.ts';
import type { TestBench } from '../../core/index.ts';

/** Just what SimProgress uses of a TestBench: the cycle, its clock, fork and clockCycles, stepped by hand. */
class SteppedBench {
  cycle = 0;
  readonly model = { clock: new ClockTime(4) };
  readonly #waiting: (() => void)[] = [];
  fork(fn: () => Promise<void>): void { void fn(); }
  clockCycles(n: number): Promise<void> {
    return new Promise(resolve => this.#waiting.push(() => { this.cycle += n; resolve(); }));
  }
  /** Lets the forked coroutine run one wait. */
  async step(): Promise<void> {
    this.#waiting.shift()?.();
    await new Promise(resolve => setImmediate(resolve));
  }
}

describe('sim progress', () => {
  it('draws a bar of done/total with the percentage and the unit', () => {
    expect(progressBar({ done: 0, total: 96, unit: 'messages' })).toBe(`[${'.'.repeat(24)}]   0 % 0/96 messages`);
    expect(progressBar({ done: 48, total: 96, unit: 'messages' })).toBe(`[${'#'.repeat(12)}${'.'.repeat(12)}]  50 % 48/96 messages`);
    expect(progressBar({ done: 96, total: 96, unit: 'messages' })).toBe(`[${'#'.repeat(24)}] 100 % 96/96 messages`);
  });

  it('off a terminal prints one line per further 10 %', async () => {
    const lines: string[] = [];
    const out = { isTTY: false, write: (t: string): boolean => { lines.push(t); return true; } };
    const tb = new SteppedBench();
    let done = 0;
    reportProgress(tb as unknown as TestBench, () => ({ done, total: 96, unit: 'messages' }));
    new SimProgress(out, 'demo').attach(tb as unknown as TestBench);
    for (; done <= 96; done += 3) await tb.step();
    const pct = lines.map(l => Number(/\] +(\d+) %/.exec(l)?.[1]));
    expect(lines.every(l => l.startsWith('demo: [') && l.endsWith('\n')), lines.join('')).toBe(true);
    // One line per tenth reached (0 %, 10 %, ... 100 %), in order, none repeated.
    expect(pct.map(p => Math.floor(p / 10))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
