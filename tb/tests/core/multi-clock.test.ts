// A model with two clocks: each follows its schedule in ticks (sim/clocks.ts). A counter per
// clock domain counts exactly that clock's rising edges; waits wake at the computed ticks; an
// input written after one clock's edge is sampled at that clock's next edge; idle stretches
// still run in one native call; waves show both clocks with their periods.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Bool, Clock, UInt, defineModule } from '../../../gen/hdl/index.ts';
import { levelAt, nextFall, nextRise, nthRise, schedule } from '../../../sim/clocks.ts';
import { CyclesOf, FallingOf, RisingOf, runTest, TestFailure } from '../../core/index.ts';
import { design } from '../../design.ts';

const twoClocks = defineModule('mc_two_counters', {}, m => {
  const clk_a = m.input('clk_a', Clock);
  const clk_b = m.input('clk_b', Clock);
  const rst_a = m.input('rst_a', Bool);
  const rst_b = m.input('rst_b', Bool);
  const en_a = m.input('en_a', Bool);
  const en_b = m.input('en_b', Bool);
  const count_a = m.output('count_a', UInt(16));
  const count_b = m.output('count_b', UInt(16));
  const a = m.domain('a', { clock: clk_a, reset: rst_a });
  const b = m.domain('b', { clock: clk_b, reset: rst_b });
  const ca = m.reg('ca_reg', UInt(16), { domain: a });
  const cb = m.reg('cb_reg', UInt(16), { domain: b });
  m.if(en_a, () => ca.set(ca.addw(1)));
  m.if(en_b, () => cb.set(cb.addw(1)));
  count_a.set(ca);
  count_b.set(cb);
  return { clk_a, clk_b, rst_a, rst_b, en_a, en_b, count_a, count_b };
});

const dut = design(twoClocks);

/** Rising edges of `s` at ticks 1..t, counted from the level formula. */
function risesUpTo(s: ReturnType<typeof schedule>, t: number): number {
  let n = 0;
  for (let i = 1; i <= t; i++) if (levelAt(s, i) === 1 && levelAt(s, i - 1) === 0) n++;
  return n;
}

describe('clock schedules (sim/clocks.ts)', () => {
  it('next rise, next fall and the n-th rise agree with the level formula', () => {
    for (const [period, high, phase] of [[2, 1, 0], [7, 3, 0], [7, 3, 4], [12, 11, 5], [5, 1, 4], [9, 4, 8]] as const) {
      const s = schedule('c', { period, high, phase });
      for (let after = 0; after < 40; after++) {
        const r = nextRise(s, after);
        expect(levelAt(s, r) === 1 && levelAt(s, r - 1) === 0, `rise ${period}/${high}/${phase} after ${after}`).toBe(true);
        for (let t = after + 1; t < r; t++) expect(levelAt(s, t) === 1 && levelAt(s, t - 1) === 0).toBe(false);
        const f = nextFall(s, after);
        expect(levelAt(s, f) === 0 && levelAt(s, f - 1) === 1, `fall ${period}/${high}/${phase} after ${after}`).toBe(true);
        for (let t = after + 1; t < f; t++) expect(levelAt(s, t) === 0 && levelAt(s, t - 1) === 1).toBe(false);
        for (const n of [1, 2, 3, 5]) expect(risesUpTo(s, nthRise(s, after, n)) - risesUpTo(s, after)).toBe(n);
      }
    }
  });

  it('refuses impossible schedules with the clock named', () => {
    expect(() => schedule('rd_clk', { period: 1 })).toThrow(/clock rd_clk: period must be a whole number of ticks >= 2, got 1/);
    expect(() => schedule('rd_clk', { period: 4, high: 4 })).toThrow(/high must be 1\.\.3 ticks/);
    expect(() => schedule('rd_clk', { period: 4, phase: -1 })).toThrow(/phase must be 0\.\.3 ticks/);
  });
});

describe('a model with two clocks', () => {
  it('counts each clock\'s rising edges in its own domain, at the ticks the schedule says', async () => {
    const sa = schedule('clk_a', { period: 7, high: 3, phase: 2 });
    const sb = schedule('clk_b', { period: 12, high: 6, phase: 5 });
    const r = await runTest(dut, async (d, tb) => {
      tb.setClocks({ clk_a: sa, clk_b: sb });
      d.en_a.value = 0;
      d.en_b.value = 0;
      await tb.reset(2, { port: 'rst_a' });
      await tb.reset(2, { port: 'rst_b' });
      expect(d.count_a.value).toBe(0);
      d.en_a.value = 1;
      d.en_b.value = 1;
      const start = tb.cycle;
      const startA = risesUpTo(sa, start), startB = risesUpTo(sb, start);
      // Wait on clk_b only: clk_a keeps running underneath.
      for (let i = 0; i < 30; i++) {
        await d.clk_b.rising();
        expect(levelAt(sb, tb.cycle)).toBe(1);
        expect(levelAt(sb, tb.cycle - 1)).toBe(0);
        // en_* were high from `start` on: every rise after it counted (the one at a tick's
        // first half sees the inputs already applied).
        expect(d.count_b.value).toBe(risesUpTo(sb, tb.cycle) - startB);
        expect(d.count_a.value).toBe(risesUpTo(sa, tb.cycle) - startA);
      }
      // An input written after an edge of clk_a is sampled at clk_a's next edge.
      await d.clk_a.rising();
      const before = d.count_a.value;
      d.en_a.value = 0;
      await d.clk_a.cycles(3);
      expect(d.count_a.value).toBe(before);
      d.en_a.value = 1;
      await d.clk_a.falling();
      expect(d.count_a.value).toBe(before);
      await d.clk_a.rising();
      expect(d.count_a.value).toBe(before + 1);
      // A long idle stretch is one native call.
      const calls = tb.nativeCalls;
      await d.clk_a.cycles(1000);
      expect(tb.nativeCalls - calls).toBe(1);
    }, { seed: 1 });
    expect(r.cycles).toBeGreaterThan(12 * 30);
  });

  it('generator tasks wait for one clock\'s edges with RisingOf / FallingOf / CyclesOf, at the ticks the async form wakes at', async () => {
    const sa = schedule('clk_a', { period: 7, high: 3, phase: 2 });
    const sb = schedule('clk_b', { period: 12, high: 5, phase: 5 });
    await runTest(dut, async (d, tb) => {
      tb.setClocks({ clk_a: sa, clk_b: sb });
      await tb.reset(2, { port: 'rst_a' });
      // The same waits in both forms, side by side: each records the ticks it woke at.
      const plan = [['rise', 'a', 1], ['fall', 'b', 0], ['cycles', 'b', 3], ['rise', 'b', 1], ['cycles', 'a', 0], ['fall', 'a', 0], ['cycles', 'a', 5]] as const;
      const clock = (c: 'a' | 'b') => (c === 'a' ? d.clk_a : d.clk_b);
      const gen = tb.fork(function* () {
        const at: number[] = [];
        for (const [k, c, n] of plan) {
          yield k === 'rise' ? RisingOf(clock(c)) : k === 'fall' ? FallingOf(clock(c)) : CyclesOf(clock(c), n);
          at.push(tb.cycle);
        }
        return at;
      }, 'gen');
      const asy = tb.fork(async () => {
        const at: number[] = [];
        for (const [k, c, n] of plan) {
          await (k === 'rise' ? clock(c).rising() : k === 'fall' ? clock(c).falling() : clock(c).cycles(n));
          at.push(tb.cycle);
        }
        return at;
      }, 'async');
      const g = await gen.join(), a = await asy.join();
      expect(g).toEqual(a);
      // And they are the edges: after a rise of clk_a, clk_a is high and was low a tick before.
      expect(levelAt(sa, g[0]!)).toBe(1);
      expect(levelAt(sa, g[0]! - 1)).toBe(0);
      expect(levelAt(sb, g[1]!)).toBe(0);
      expect(levelAt(sb, g[1]! - 1)).toBe(1);
      expect(g[4]).toBe(g[3]);   // CyclesOf(clk, 0): no wait
      expect(RisingOf(d.clk_a)).toBe(RisingOf(d.clk_a));   // made once per clock: yielding allocates nothing
    }, { seed: 1 });
  });

  it('dumps both clocks with their schedules into the waves', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-mc-'));
    const file = path.join(dir, 'mc.vcd');
    await runTest(dut, async (d, tb) => {
      tb.setClocks({ clk_a: { period: 4 }, clk_b: { period: 10, high: 3 } });
      tb.startTrace(file);
      d.en_a.value = 1;
      await d.clk_b.cycles(4);
    }, { seed: 1, build: { trace: 'vcd' } });
    const vcd = fs.readFileSync(file, 'utf8');
    // Each clock's changes, as times: clk_a toggles every 2 ticks (20 time units), clk_b
    // is high 3 ticks of 10.
    const changes = (name: string): number[] => {
      const id = new RegExp(`\\$var wire +1 (\\S+) ${name} `).exec(vcd)![1]!;
      const out: number[] = [];
      let time = 0;
      for (const line of vcd.split('\n')) {
        if (line.startsWith('#')) time = Number(line.slice(1));
        else if (line === `1${id}` || line === `0${id}`) out.push(time);
      }
      return [...new Set(out)];
    };
    // Both start low (the dump at time 0), then rise first at tick period - phase. A tick lasts
    // one clock period of the model's time (what a one-clock model's cycle lasts).
    const a = changes('clk_a').filter(t => t > 0), b = changes('clk_b').filter(t => t > 0);
    const tick = a[0]! / 4;
    expect(Number.isInteger(tick) && tick > 0).toBe(true);
    expect(a.slice(1, 6).map((t, i) => (t - a[i]!) / tick)).toEqual([2, 2, 2, 2, 2]);
    expect(b[0]! / tick).toBe(10);
    expect(b.slice(1, 5).map((t, i) => (t - b[i]!) / tick)).toEqual([3, 7, 3, 7]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a schedule change once time runs, and a clock name that is not a clock', async () => {
    const late = await runTest(dut, async (_d, tb) => {
      await tb.clock('clk_a').rising(); // period 2, phase 0: first rise at tick 2
      tb.setClocks({ clk_a: { period: 5 } });
    }, { seed: 1 }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(TestFailure);
    expect((late as Error).message).toMatch(/clock schedules of mc_two_counters can only be set before the first tick \(now at tick 2\)/);
    const bad = await runTest(dut, async (_d, tb) => { tb.setClocks({ en_a: { period: 5 } }); }, { seed: 1 }).catch((e: unknown) => e);
    expect((bad as Error).message).toMatch(/mc_two_counters has no clock input named en_a \(clocks: clk_a, clk_b\)/);
  });
});
