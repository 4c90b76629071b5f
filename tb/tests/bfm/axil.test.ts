// AXI4-Lite master against a DSL register file: reads and writes with random delays,
// byte strobes, error responses, and overlapping accesses from several coroutines.

import { describe, expect, it } from 'vitest';
import { AxiLiteMaster, BusResponseError } from '../../bfm/index.ts';
import { runTest, TestFailure } from '../../core/index.ts';
import { AXIL_REGS, axilRegsDesign } from './duts.ts';

describe('AXI4-Lite master', () => {
  it('writes and reads back every register with random delays', async () => {
    const r = await runTest(axilRegsDesign, async (dut, tb) => {
      await tb.reset(2);
      const regs = new AxiLiteMaster(tb, dut.s_axil, { pause: 0.4, backpressure: 0.4 });
      const model = new Array<number>(AXIL_REGS).fill(0);
      for (let i = 0; i < 200; i++) {
        const reg = tb.rng.int(0, AXIL_REGS - 1);
        if (tb.rng.bool()) {
          const v = tb.rng.u32();
          const strb = tb.rng.bool(0.7) ? 0xf : tb.rng.int(0, 15);
          await regs.write(reg * 4, v, strb);
          let m = model[reg]!;
          for (let b = 0; b < 4; b++) if (strb & (1 << b)) m = (m & ~(0xff << (8 * b))) | (v & (0xff << (8 * b)));
          model[reg] = m >>> 0;
        } else {
          expect(await regs.read(reg * 4), `reg ${reg} (seed ${tb.seed})`).toBe(model[reg]);
        }
      }
      const ch = regs.checker!.channels;
      expect(ch.reduce((s, c) => s + c.stalls, 0)).toBeGreaterThan(0);
    });
    console.log(`axil: seed ${r.seed}, ${r.cycles} cycles`);
  });

  it('queues overlapping accesses from several coroutines', async () => {
    await runTest(axilRegsDesign, async (dut, tb) => {
      await tb.reset(2);
      const regs = new AxiLiteMaster(tb, dut.s_axil, { pause: 0.3 });
      const tasks = Array.from({ length: 4 }, (_, t) => tb.fork(async () => {
        for (let i = 0; i < 10; i++) {
          const v = (t << 24) | i;
          await regs.write(t * 4, v);
          expect(await regs.read(t * 4)).toBe(v);
        }
      }));
      for (const t of tasks) await t.join();
    });
  });

  it('raises on SLVERR unless the test expects it', async () => {
    await runTest(axilRegsDesign, async (dut, tb) => {
      await tb.reset(2);
      const regs = new AxiLiteMaster(tb, dut.s_axil);
      expect(await regs.read(0x40, { expect: 'SLVERR' })).toBe(0xdeadbeef);
      await regs.write(0x40, 1, 0xf, { expect: 'SLVERR' });
      await expect(regs.write(0x44, 1)).rejects.toThrow(/s_axil: write 0x44 got SLVERR, expected OKAY \(cycle \d+\)/);
      await expect(regs.read(0x4, { expect: 'SLVERR' })).rejects.toBeInstanceOf(BusResponseError);
    });
  });

  it('fails the test on an unexpected error response', async () => {
    const err = await runTest(axilRegsDesign, async (dut, tb) => {
      await tb.reset(2);
      await new AxiLiteMaster(tb, dut.s_axil).read(0x100);
    }, { seed: 5, pictures: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    expect((err as TestFailure).message).toMatch(/^s_axil: read 0x100 got SLVERR, expected OKAY \(cycle \d+, \d+ ns\)\n  at cycle \d+ \(\d+ ns\); seed 5/);
  });
});
