// nic_icrc_insert: frames with zero ICRC placeholders in, the reference ICRC (tb/model
// icrc.ts) in the last four bytes out, every other byte unchanged; random idle and
// backpressure; full rate (one beat per cycle) with ready always high.

import { describe, expect, it } from 'vitest';
import { runTest } from '../../core/index.ts';
import { encodeRoce } from '../../model/packet.ts';
import { ICRC_PARAMS } from '../../model/icrc.ts';
import { ROCE_ICRC } from '../../../gen/nic/icrc-params.ts';
import { AxisSink, AxisSource, diffBytes, runAgents } from './framing-support.ts';
import { framingDesign, placeholderFrame, randomCase } from './framing-stim.ts';

describe('ICRC parameters', () => {
  it('equal the reference model ICRC', () => {
    expect({ ...ROCE_ICRC, name: '' }).toEqual({ ...ICRC_PARAMS, name: '' });
  });
});

for (const W of [64, 512]) {
  const B = W / 8;
  describe(`nic_icrc_insert ${W} bits`, () => {
    for (const [label, vp, rp] of [['random idle and backpressure', 0.7, 0.6], ['full rate', 1, 1]] as const) {
      it(`writes the reference ICRC into every frame (${label})`, async () => {
        await runTest(framingDesign(W), async (dut, tb) => {
          console.log(`icrc_insert W=${W} ${label} seed=${tb.seed}`);
          dut.j1_brk.value = 1; dut.j2_brk.value = 1; dut.j3_brk.value = 0;
          await tb.reset(2);
          const src = new AxisSource(dut.j1_in, B, tb.rng.fork(), vp);
          const out = new AxisSink(dut.j2_out, B, tb.rng.fork(), rp, 'j2_out');
          const want: Uint8Array[] = [];
          const N = W === 64 ? 100 : 160;
          let beats = 0;
          for (let i = 0; i < N; i++) {
            const c = randomCase(tb.rng, B, i, i < 18 ? { opcode: i } : {});
            const user = tb.rng.bool(0.1) ? 1 : 0;
            src.push({ bytes: placeholderFrame(c.pkt), user });
            want.push(encodeRoce(c.pkt));
            beats += Math.ceil(want[i]!.length / B);
          }
          const t0 = tb.cycle;
          await runAgents(tb, [src, out], () => out.frames.length === N, 200_000, 'icrc insert');
          for (let i = 0; i < N; i++) {
            const d = diffBytes(out.frames[i]!.bytes, want[i]!, B);
            if (d) throw new Error(`frame ${i} (${want[i]!.length} bytes, last beat at cycle ${out.frames[i]!.lastCycle}): ${d}`);
          }
          if (vp === 1 && rp === 1) {
            console.log(`icrc_insert W=${W}: ${beats} beats in ${tb.cycle - t0} cycles`);
            expect(tb.cycle - t0, 'cycles for all beats (1 cycle latency + settle slack)').toBeLessThanOrEqual(beats + 3);
          }
        });
      });
    }
  });
}
