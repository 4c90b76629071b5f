// The whole framing loop: TxPktCmd + payload → packetizer → ICRC insert → ICRC check → RX
// parser → RxPktHdr + payload, bit-exact, under random idle and backpressure; and the rate
// of 4096-byte MIDDLE packets through all four stages. Streams are tb/bfm's AXI-Stream models
// and the ready/valid checker on the command and header streams.

import { describe, expect, it } from 'vitest';
import { AxiStreamSink, AxiStreamSource } from '../../bfm/index.ts';
import { runTest } from '../../core/index.ts';
import { diffBytes } from './frames.ts';
import { framingDesign, normHdr, randomCase, rxHdrOf, type TxCase } from './framing-stim.ts';
import { drain, PulseMonitor, StructSink, StructSource } from './stage-streams.ts';

for (const W of [64, 512]) {
  const B = W / 8;
  describe(`framing loop ${W} bits`, () => {
    for (const [label, p] of [['random idle and backpressure', 0.7], ['full rate', 1]] as const) {
      it(`recovers every command and payload (${label})`, async () => {
        await runTest(framingDesign(W), async (dut, tb) => {
          console.log(`loop W=${W} ${label} seed=${tb.seed}`);
          dut.j1_brk.value = 0; dut.j2_brk.value = 0; dut.j3_brk.value = 0;
          await tb.reset(2);
          const cmds = new StructSource(tb, dut.s_cmd, 's_cmd', { pause: 1 - p });
          const pay = new AxiStreamSource(tb, dut.s_payload, { pause: 1 - p });
          const hdrs = new StructSink(tb, dut.m_hdr, 'm_hdr', { pause: p === 1 ? 0 : 0.2 });
          const pays = new AxiStreamSink(tb, dut.m_payload, { pause: p === 1 ? 0 : 0.2 });
          const drops = [new PulseMonitor(tb, dut.chk_drop_valid, dut.chk_drop_reason), new PulseMonitor(tb, dut.prs_drop_valid, dut.prs_drop_reason), new PulseMonitor(tb, dut.pk_err, null)];
          const cases: TxCase[] = [];
          const N = p === 1 ? 24 : (W === 64 ? 80 : 140);
          for (let i = 0; i < N; i++) {
            const c = p === 1 ? randomCase(tb.rng, B, i, { opcode: 0x07, len: 4096 }) : randomCase(tb.rng, B, i, i < 18 ? { opcode: i } : {});
            cases.push(c);
            cmds.push(c.cmd);
            if (c.payload.length) pay.send(c.payload);
          }
          const nPay = cases.filter(c => c.payload.length > 0).length;
          await tb.until(() => hdrs.items.length === N && pays.count === nPay, { timeout: 400_000, what: `loop: ${N} headers and ${nPay} payloads out` });
          await tb.clockCycles(20);
          expect([hdrs.items.length, pays.count], 'headers and payloads, 20 cycles after the last expected').toEqual([N, nPay]);
          const payloads = await drain(pays);
          expect(drops.map(d => d.events.length), 'no drops or payload errors (check, parser, packetizer)').toEqual([0, 0, 0]);
          let pi = 0;
          cases.forEach((c, i) => {
            const got = normHdr(hdrs.items[i]!.value as Record<string, number | bigint>), want = rxHdrOf(c.pkt);
            for (const k of Object.keys(want) as (keyof typeof want)[]) if (got[k] !== want[k]) throw new Error(`packet ${i} (header in cycle ${hdrs.items[i]!.cycle}): ${k} = ${got[k]} want ${want[k]}`);
            if (c.payload.length) {
              const d = diffBytes(payloads[pi]!.data, c.payload, B);
              if (d) throw new Error(`payload ${i} (ending in cycle ${payloads[pi]!.cycle}): ${d}`);
              pi++;
            }
          });
          if (p === 1) {
            const f = payloads;
            const per = (f[N - 1]!.cycle - f[3]!.cycle) / (N - 4);
            console.log(`loop W=${W}: ${per.toFixed(2)} cycles per 4096-byte MIDDLE packet end to end (wire beats ${Math.ceil(4154 / B)})`);
            expect(per).toBeLessThanOrEqual(Math.ceil(4154 / B) + 0.01);
          }
        });
      });
    }
  });
}
