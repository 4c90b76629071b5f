// nic_packetizer: random commands (every RC opcode layout, payload 0..4096 incl. every
// residue mod the bus width) under random idle and backpressure; each frame must equal the
// reference encoder's bytes with the ICRC still zero, IPv4 checksum included. Then the
// beats and cycles of 4096-byte MIDDLE packets at full rate, and the payload-length errors.

import { describe, expect, it } from 'vitest';
import { runTest } from '../../core/index.ts';
import { decodeRoce, describeRoce } from '../../model/packet.ts';
import { ipv4ChecksumOk } from '../../model/headers.ts';
import { appendIcrc } from '../../model/icrc.ts';
import { AxisSink, AxisSource, diffBytes, PulseMonitor, runAgents, StreamSource } from './framing-support.ts';
import { framingDesign, placeholderFrame, randomCase, type TxCase, type TxCmd } from './framing-stim.ts';

for (const W of [64, 512]) {
  const B = W / 8;
  describe(`nic_packetizer ${W} bits`, () => {
    it('builds the reference frames for random commands under backpressure', async () => {
      const r = await runTest(framingDesign(W), async (dut, tb) => {
        console.log(`packetizer W=${W} seed=${tb.seed}`);
        dut.j1_brk.value = 1; dut.j2_brk.value = 0; dut.j3_brk.value = 0;
        await tb.reset(2);
        const cmds = new StreamSource<TxCmd>(dut.s_cmd as never, tb.rng.fork(), 0.8);
        const pay = new AxisSource(dut.s_payload, B, tb.rng.fork(), 0.8);
        const out = new AxisSink(dut.j1_out, B, tb.rng.fork(), 0.7, 'j1_out');
        const err = new PulseMonitor(dut.pk_err, null);
        const cases: TxCase[] = [];
        const N = W === 64 ? 120 : 200;
        for (let i = 0; i < N; i++) {
          const c = randomCase(tb.rng, B, i, i < 18 ? { opcode: i } : {});
          cases.push(c);
          cmds.queue.push(c.cmd);
          if (c.payload.length) pay.push({ bytes: c.payload, user: 0 });
        }
        await runAgents(tb, [cmds, pay, out, err], () => out.frames.length === N, 400_000, 'packetizer');
        expect(err.events, 'err_payload pulses').toEqual([]);
        for (let i = 0; i < N; i++) {
          const want = placeholderFrame(cases[i]!.pkt);
          const got = out.frames[i]!.bytes;
          const d = diffBytes(got, want, B);
          if (d) {
            const dec = decodeRoce(appendIcrc(got.subarray(0, got.length - 4)), { checkIcrc: false });
            throw new Error(`frame ${i} (${describeRoce(cases[i]!.pkt)}), beats ending cycle ${out.frames[i]!.lastCycle}: ${d}\n decoded: ${dec.ok ? describeRoce(dec.pkt) : dec.detail}`);
          }
          expect(ipv4ChecksumOk(got.subarray(14, 34)), `frame ${i} IPv4 checksum`).toBe(true);
          expect(out.frames[i]!.beats, `frame ${i} beats`).toBe(Math.ceil(want.length / B));
        }
      });
      expect(r.cycles).toBeGreaterThan(0);
    });

    it('sends 4096-byte MIDDLE packets back to back at one beat per cycle', async () => {
      await runTest(framingDesign(W), async (dut, tb) => {
        dut.j1_brk.value = 1; dut.j2_brk.value = 0; dut.j3_brk.value = 0;
        await tb.reset(2);
        const cmds = new StreamSource<TxCmd>(dut.s_cmd as never, tb.rng.fork(), 1);
        const pay = new AxisSource(dut.s_payload, B, tb.rng.fork(), 1);
        const out = new AxisSink(dut.j1_out, B, tb.rng.fork(), 1, 'j1_out');
        const N = 8;
        for (let i = 0; i < N; i++) {
          const c = randomCase(tb.rng, B, i, { opcode: 0x07, len: 4096 });
          cmds.queue.push(c.cmd);
          pay.push({ bytes: c.payload, user: 0 });
        }
        await runAgents(tb, [cmds, pay, out], () => out.frames.length === N, 20_000, 'packetizer throughput');
        const beats = out.frames.map(f => f.beats);
        const span = out.frames[N - 1]!.lastCycle - out.frames[1]!.firstCycle + 1;
        const perPkt = span / (N - 1);
        console.log(`packetizer W=${W}: 4096-byte MIDDLE = ${beats[0]} beats; ${perPkt.toFixed(2)} cycles per packet back to back; goodput ${(4096 / (perPkt * B)).toFixed(4)} of the bus`);
        expect(beats[0]).toBe(Math.ceil((54 + 4096 + 4) / B));
        expect(perPkt).toBe(beats[0]);
      });
    });

    it('flags payload streams that disagree with payloadLen and recovers', async () => {
      await runTest(framingDesign(W), async (dut, tb) => {
        console.log(`packetizer errors W=${W} seed=${tb.seed}`);
        dut.j1_brk.value = 1; dut.j2_brk.value = 0; dut.j3_brk.value = 0;
        await tb.reset(2);
        const cmds = new StreamSource<TxCmd>(dut.s_cmd as never, tb.rng.fork(), 1);
        const pay = new AxisSource(dut.s_payload, B, tb.rng.fork(), 1);
        const out = new AxisSink(dut.j1_out, B, tb.rng.fork(), 0.8, 'j1_out');
        const err = new PulseMonitor(dut.pk_err, null);
        // short payload (3 beats' worth missing), long payload (2 extra beats), then a good one
        const short = randomCase(tb.rng, B, 0, { opcode: 0x07, len: 5 * B + 3 });
        const long = randomCase(tb.rng, B, 1, { opcode: 0x07, len: 2 * B + 1 });
        const good = randomCase(tb.rng, B, 2, { opcode: 0x0a, len: 3 * B + 5 });
        cmds.queue.push(short.cmd, long.cmd, good.cmd);
        pay.push({ bytes: short.payload.subarray(0, 2 * B), user: 0 }, { bytes: tb.rng.bytes(4 * B + 1), user: 0 }, { bytes: good.payload, user: 0 });
        await runAgents(tb, [cmds, pay, out, err], () => out.frames.length === 3, 5_000, 'packetizer errors');
        expect(err.events.length, 'two err_payload pulses').toBe(2);
        expect(out.frames[0]!.bytes.length, 'short payload frame keeps its announced length').toBe(placeholderFrame(short.pkt).length);
        expect(out.frames[1]!.bytes.length).toBe(placeholderFrame(long.pkt).length);
        expect(diffBytes(out.frames[2]!.bytes, placeholderFrame(good.pkt), B), 'the next good frame').toBeNull();
      });
    });
  });
}
