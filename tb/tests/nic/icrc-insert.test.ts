// nic_icrc_insert: frames with zero ICRC placeholders in, the reference ICRC (tb/model
// icrc.ts) in the last four bytes out, every other byte unchanged, nothing extra; random idle
// and backpressure; full rate (one beat per cycle) with ready always high. Streams are
// tb/bfm's AXI-Stream source and sink, with their protocol checkers on both junctions.

import { describe, expect, it } from 'vitest';
import { AxiStreamSink, AxiStreamSource } from '../../bfm/index.ts';
import { runTest } from '../../core/index.ts';
import { encodeRoce } from '../../model/packet.ts';
import { ICRC_PARAMS } from '../../model/icrc.ts';
import { ROCE_ICRC } from '../../../gen/nic/icrc-params.ts';
import { diffBytes } from './frames.ts';
import { framingDesign, placeholderFrame, randomCase } from './framing-stim.ts';
import { drain } from './stage-streams.ts';

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
          const src = new AxiStreamSource(tb, dut.j1_in, { pause: 1 - vp });
          const out = new AxiStreamSink(tb, dut.j2_out, { pause: 1 - rp });
          const want: Uint8Array[] = [];
          const N = W === 64 ? 100 : 160;
          let beats = 0;
          for (let i = 0; i < N; i++) {
            const c = randomCase(tb.rng, B, i, i < 18 ? { opcode: i } : {});
            const user = tb.rng.bool(0.1) ? 1 : 0;
            src.send(placeholderFrame(c.pkt), { tuser: user });
            want.push(encodeRoce(c.pkt));
            beats += Math.ceil(want[i]!.length / B);
          }
          const t0 = tb.cycle;
          await tb.until(() => out.count === N, { timeout: 200_000, what: `icrc insert: ${N} frames out` });
          const cycles = tb.cycle - t0;
          const got = await drain(out);
          for (let i = 0; i < N; i++) {
            const d = diffBytes(got[i]!.data, want[i]!, B);
            if (d) throw new Error(`frame ${i} (${want[i]!.length} bytes, last beat in cycle ${got[i]!.cycle}): ${d}`);
          }
          await tb.clockCycles(20);
          expect(out.count, `frames after the ${N} sent`).toBe(0);
          if (vp === 1 && rp === 1) {
            console.log(`icrc_insert W=${W}: ${beats} beats in ${cycles} cycles`);
            expect(cycles, 'cycles for all beats (1 cycle latency + settle slack)').toBeLessThanOrEqual(beats + 3);
          }
        });
      });
    }
  });
}
