// The whole framing loop: TxPktCmd + payload → packetizer → ICRC insert → ICRC check → RX
// parser → RxPktHdr + payload, bit-exact, under random idle and backpressure; and the rate
// of 4096-byte MIDDLE packets through all four stages.

import { describe, expect, it } from 'vitest';
import { runTest } from '../../core/index.ts';
import { AxisSink, AxisSource, diffBytes, PulseMonitor, runAgents, StreamSink, StreamSource } from './framing-support.ts';
import { framingDesign, normHdr, randomCase, rxHdrOf, type TxCase, type TxCmd } from './framing-stim.ts';

for (const W of [64, 512]) {
  const B = W / 8;
  describe(`framing loop ${W} bits`, () => {
    for (const [label, p] of [['random idle and backpressure', 0.7], ['full rate', 1]] as const) {
      it(`recovers every command and payload (${label})`, async () => {
        await runTest(framingDesign(W), async (dut, tb) => {
          console.log(`loop W=${W} ${label} seed=${tb.seed}`);
          dut.j1_brk.value = 0; dut.j2_brk.value = 0; dut.j3_brk.value = 0;
          await tb.reset(2);
          const cmds = new StreamSource<TxCmd>(dut.s_cmd as never, tb.rng.fork(), p);
          const pay = new AxisSource(dut.s_payload, B, tb.rng.fork(), p);
          const hdrs = new StreamSink<Record<string, number | bigint>>(dut.m_hdr as never, tb.rng.fork(), p === 1 ? 1 : 0.8);
          const pays = new AxisSink(dut.m_payload, B, tb.rng.fork(), p === 1 ? 1 : 0.8, 'm_payload');
          const drops = [new PulseMonitor(dut.chk_drop_valid, dut.chk_drop_reason), new PulseMonitor(dut.prs_drop_valid, dut.prs_drop_reason), new PulseMonitor(dut.pk_err, null)];
          const cases: TxCase[] = [];
          const N = p === 1 ? 24 : (W === 64 ? 80 : 140);
          for (let i = 0; i < N; i++) {
            const c = p === 1 ? randomCase(tb.rng, B, i, { opcode: 0x07, len: 4096 }) : randomCase(tb.rng, B, i, i < 18 ? { opcode: i } : {});
            cases.push(c);
            cmds.queue.push(c.cmd);
            if (c.payload.length) pay.push({ bytes: c.payload, user: 0 });
          }
          const nPay = cases.filter(c => c.payload.length > 0).length;
          await runAgents(tb, [cmds, pay, hdrs, pays, ...drops], () => hdrs.items.length === N && pays.frames.length === nPay, 400_000, 'loop');
          expect(drops.map(d => d.events.length), 'no drops or payload errors (check, parser, packetizer)').toEqual([0, 0, 0]);
          let pi = 0;
          cases.forEach((c, i) => {
            const got = normHdr(hdrs.items[i]!.value), want = rxHdrOf(c.pkt);
            for (const k of Object.keys(want) as (keyof typeof want)[]) if (got[k] !== want[k]) throw new Error(`packet ${i}: ${k} = ${got[k]} want ${want[k]}`);
            if (c.payload.length) {
              const d = diffBytes(pays.frames[pi]!.bytes, c.payload, B);
              if (d) throw new Error(`payload ${i}: ${d}`);
              pi++;
            }
          });
          if (p === 1) {
            const f = pays.frames;
            const per = (f[N - 1]!.lastCycle - f[3]!.lastCycle) / (N - 4);
            console.log(`loop W=${W}: ${per.toFixed(2)} cycles per 4096-byte MIDDLE packet end to end (wire beats ${Math.ceil(4154 / B)})`);
            expect(per).toBeLessThanOrEqual(Math.ceil(4154 / B) + 0.01);
          }
        });
      });
    }
  });
}
