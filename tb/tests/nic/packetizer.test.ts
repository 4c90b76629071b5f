// nic_packetizer: random commands (every RC opcode layout, payload 0..4096 incl. every
// residue mod the bus width) under random idle and backpressure; each frame must equal the
// reference encoder's bytes with the ICRC still zero, IPv4 checksum included. Then the
// beats and cycles of 4096-byte MIDDLE packets at full rate, and the payload-length errors.
// Streams are tb/bfm models (stage-streams.ts for the command), each with its checker.

import { describe, expect, it } from 'vitest';
import { AxiStreamSink, AxiStreamSource } from '../../bfm/index.ts';
import { runTest, type DutOf, type TestBench } from '../../core/index.ts';
import { decodeRoce, describeRoce } from '../../model/packet.ts';
import { ipv4ChecksumOk } from '../../model/headers.ts';
import { appendIcrc } from '../../model/icrc.ts';
import { diffBytes } from './frames.ts';
import { framingDesign, placeholderFrame, randomCase, type FramingIO, type TxCase, type TxCmd } from './framing-stim.ts';
import { drain, PulseMonitor, StructSource } from './stage-streams.ts';

/** The packetizer's command and payload inputs and its frame output (junction j1 broken). */
function packetizerBench(dut: DutOf<FramingIO>, tb: TestBench, pIn: number, pOut: number) {
  const cmds = new StructSource<TxCmd>(tb, dut.s_cmd as never, 's_cmd', { pause: 1 - pIn });
  const pay = new AxiStreamSource(tb, dut.s_payload, { pause: 1 - pIn });
  const out = new AxiStreamSink(tb, dut.j1_out, { pause: 1 - pOut });
  const err = new PulseMonitor(tb, dut.pk_err, null);
  return { cmds, pay, out, err };
}

async function resetPacketizer(dut: DutOf<FramingIO>, tb: TestBench): Promise<void> {
  dut.j1_brk.value = 1; dut.j2_brk.value = 0; dut.j3_brk.value = 0;
  await tb.reset(2);
}

for (const W of [64, 512]) {
  const B = W / 8;
  describe(`nic_packetizer ${W} bits`, () => {
    it('builds the reference frames for random commands under backpressure', async () => {
      const r = await runTest(framingDesign(W), async (dut, tb) => {
        console.log(`packetizer W=${W} seed=${tb.seed}`);
        await resetPacketizer(dut, tb);
        const { cmds, pay, out, err } = packetizerBench(dut, tb, 0.8, 0.7);
        const cases: TxCase[] = [];
        const N = W === 64 ? 120 : 200;
        for (let i = 0; i < N; i++) {
          const c = randomCase(tb.rng, B, i, i < 18 ? { opcode: i } : {});
          cases.push(c);
          cmds.push(c.cmd);
          if (c.payload.length) pay.send(c.payload);
        }
        await tb.until(() => out.count === N, { timeout: 400_000, what: `packetizer: ${N} frames out` });
        expect(err.events, 'err_payload pulses (cycle, 1)').toEqual([]);
        const frames = await drain(out);
        for (let i = 0; i < N; i++) {
          const want = placeholderFrame(cases[i]!.pkt);
          const got = frames[i]!.data;
          const d = diffBytes(got, want, B);
          if (d) {
            const dec = decodeRoce(appendIcrc(got.subarray(0, got.length - 4)), { checkIcrc: false });
            throw new Error(`frame ${i} (${describeRoce(cases[i]!.pkt)}), last beat in cycle ${frames[i]!.cycle}: ${d}\n decoded: ${dec.ok ? describeRoce(dec.pkt) : dec.detail}`);
          }
          expect(ipv4ChecksumOk(got.subarray(14, 34)), `frame ${i} IPv4 checksum (last beat cycle ${frames[i]!.cycle})`).toBe(true);
          expect(frames[i]!.beats, `frame ${i} beats (last beat cycle ${frames[i]!.cycle})`).toBe(Math.ceil(want.length / B));
        }
      });
      expect(r.cycles).toBeGreaterThan(0);
    });

    it('sends 4096-byte MIDDLE packets back to back at one beat per cycle', async () => {
      await runTest(framingDesign(W), async (dut, tb) => {
        await resetPacketizer(dut, tb);
        const { cmds, pay, out } = packetizerBench(dut, tb, 1, 1);
        const N = 8;
        for (let i = 0; i < N; i++) {
          const c = randomCase(tb.rng, B, i, { opcode: 0x07, len: 4096 });
          cmds.push(c.cmd);
          pay.send(c.payload);
        }
        await tb.until(() => out.count === N, { timeout: 20_000, what: `packetizer throughput: ${N} frames out` });
        const frames = await drain(out);
        const beats = frames.map(f => f.beats);
        const span = frames[N - 1]!.cycle - frames[1]!.firstCycle + 1;
        const perPkt = span / (N - 1);
        console.log(`packetizer W=${W}: 4096-byte MIDDLE = ${beats[0]} beats; ${perPkt.toFixed(2)} cycles per packet back to back; goodput ${(4096 / (perPkt * B)).toFixed(4)} of the bus`);
        expect(beats[0]).toBe(Math.ceil((54 + 4096 + 4) / B));
        expect(perPkt, `cycles per packet (frames in cycles ${frames.map(f => `${f.firstCycle}..${f.cycle}`).join(', ')})`).toBe(beats[0]);
      });
    });

    it('flags payload streams that disagree with payloadLen and recovers', async () => {
      await runTest(framingDesign(W), async (dut, tb) => {
        console.log(`packetizer errors W=${W} seed=${tb.seed}`);
        await resetPacketizer(dut, tb);
        const { cmds, pay, out, err } = packetizerBench(dut, tb, 1, 0.8);
        // short payload (3 beats' worth missing), long payload (2 extra beats), then a good one
        const short = randomCase(tb.rng, B, 0, { opcode: 0x07, len: 5 * B + 3 });
        const long = randomCase(tb.rng, B, 1, { opcode: 0x07, len: 2 * B + 1 });
        const good = randomCase(tb.rng, B, 2, { opcode: 0x0a, len: 3 * B + 5 });
        for (const c of [short, long, good]) cmds.push(c.cmd);
        pay.send(short.payload.subarray(0, 2 * B));
        pay.send(tb.rng.bytes(4 * B + 1));
        pay.send(good.payload);
        await tb.until(() => out.count === 3, { timeout: 5_000, what: 'packetizer errors: 3 frames out' });
        const frames = await drain(out);
        expect(err.events.length, `two err_payload pulses (cycles ${err.events.map(e => e.cycle).join(', ')})`).toBe(2);
        expect(frames[0]!.data.length, 'short payload frame keeps its announced length').toBe(placeholderFrame(short.pkt).length);
        expect(frames[1]!.data.length, 'long payload frame keeps its announced length').toBe(placeholderFrame(long.pkt).length);
        expect(diffBytes(frames[2]!.data, placeholderFrame(good.pkt), B), `the next good frame (last beat cycle ${frames[2]!.cycle})`).toBeNull();
      });
    });
  });
}
