// nic_icrc_check: store-and-forward. Good frames come out unchanged, in order, with their
// length on tuser; frames with a bad ICRC (a bit flipped in a covered byte), the MAC's bad
// flag, or too big for the buffer are dropped with their reason and the next good frame still
// passes. Frames whose ICRC cannot be located (not IPv4, truncated) are passed on for the
// parser to name. Short frames carry Ethernet padding after the ICRC. Input at full rate
// (a MAC cannot be stalled), output with random backpressure. Streams are tb/bfm's AXI-Stream
// source and sink, with their protocol checkers.

import { describe, expect, it } from 'vitest';
import { AxiStreamSink, AxiStreamSource } from '../../bfm/index.ts';
import { runTest } from '../../core/index.ts';
import { encodeRoce } from '../../model/packet.ts';
import { RX_DROP } from '../../../gen/nic/types.ts';
import { diffBytes } from './frames.ts';
import { corruptions, expectedRx, framingDesign, randomCase, type Item } from './framing-stim.ts';
import { drain, PulseMonitor } from './stage-streams.ts';

for (const W of [64, 512]) {
  const B = W / 8;
  describe(`nic_icrc_check ${W} bits`, () => {
    it('forwards good frames, drops bad ones with their reason', async () => {
      await runTest(framingDesign(W), async (dut, tb) => {
        console.log(`icrc_check W=${W} seed=${tb.seed}`);
        dut.j1_brk.value = 1; dut.j2_brk.value = 1; dut.j3_brk.value = 1;
        await tb.reset(2);
        const src = new AxiStreamSource(tb, dut.j2_in, { pause: 0.5 }); // slower than the reader on average: no overflow but the forced one
        const out = new AxiStreamSink(tb, dut.j3_out, { pause: 0.2 });
        const drops = new PulseMonitor(tb, dut.chk_drop_valid, dut.chk_drop_reason);
        const items: Item[] = [];
        for (let i = 0; i < (W === 64 ? 90 : 150); i++) {
          const c = randomCase(tb.rng, B, i, i < 18 ? { opcode: i } : {});
          let f = encodeRoce(c.pkt);
          if (f.length < 60) f = Uint8Array.from([...f, ...tb.rng.bytes(60 - f.length)]); // MAC padding
          if (tb.rng.bool(0.3)) items.push(tb.rng.pick(corruptions(tb.rng, f)));
          items.push({ frame: { bytes: f, user: 0 }, label: 'good' });
        }
        // too big for the buffer, then a good one
        items.push({ frame: { bytes: tb.rng.bytes(20000), user: 0 }, label: 'overflow' });
        const last = encodeRoce(randomCase(tb.rng, B, 7, { opcode: 0x07, len: 4096 }).pkt);
        items.push({ frame: { bytes: last, user: 0 }, label: 'good after overflow' });
        const wantOut: Item[] = [], wantDrops: { value: number; label: string }[] = [];
        for (const it of items) {
          if (it.label === 'overflow') { wantDrops.push({ value: RX_DROP.BAD_FRAME, label: it.label }); continue; }
          const v = expectedRx(it.frame.bytes, it.frame.user === 1);
          if (v.kind === 'drop' && v.stage === 'check') wantDrops.push({ value: v.reason, label: `${it.label} (${v.why})` });
          else wantOut.push(it);
        }
        for (const it of items) src.send(it.frame.bytes, { tuser: it.frame.user });
        await src.wait(300_000);
        // Missing frames are reported below with what did come out, not as a timeout.
        await tb.until(() => out.count >= wantOut.length, { timeout: 20_000, what: 'icrc check output' }).catch(() => undefined);
        await tb.clockCycles(20);
        const frames = await drain(out);
        const summary = `got ${frames.length} frames, drops [${drops.events.map(e => `${e.value}@${e.cycle}`).join(' ')}]; items: ${items.map(i => `${i.label}/${i.frame.bytes.length}`).join(', ')}`;
        if (frames.length !== wantOut.length) {
          for (let i = 0; i < Math.min(frames.length, wantOut.length); i++) {
            const d = diffBytes(frames[i]!.data, wantOut[i]!.frame.bytes, B);
            if (d) throw new Error(`forwarded frame ${i} (${wantOut[i]!.label}) ending in cycle ${frames[i]!.cycle}: ${d}\n${summary}`);
          }
          throw new Error(`expected ${wantOut.length} forwarded frames: ${summary}`);
        }
        expect(drops.events.map(e => e.value), `drop reasons: ${wantDrops.map(d => d.label).join(', ')}`).toEqual(wantDrops.map(d => d.value));
        for (let i = 0; i < wantOut.length; i++) {
          const d = diffBytes(frames[i]!.data, wantOut[i]!.frame.bytes, B);
          if (d) throw new Error(`forwarded frame ${i} (${wantOut[i]!.label}) ending in cycle ${frames[i]!.cycle}: ${d}`);
          expect(Number(frames[i]!.tuser), `frame ${i} (ending in cycle ${frames[i]!.cycle}) length on tuser`).toBe(wantOut[i]!.frame.bytes.length);
        }
      });
    });

    it('reads frames out back to back at one beat per cycle', async () => {
      await runTest(framingDesign(W), async (dut, tb) => {
        dut.j1_brk.value = 1; dut.j2_brk.value = 1; dut.j3_brk.value = 1;
        await tb.reset(2);
        const src = new AxiStreamSource(tb, dut.j2_in);
        const out = new AxiStreamSink(tb, dut.j3_out);
        const N = 6;
        for (let i = 0; i < N; i++) src.send(encodeRoce(randomCase(tb.rng, B, i, { opcode: 0x07, len: 4096 }).pkt), { tuser: 0 });
        await tb.until(() => out.count === N, { timeout: 20_000, what: 'icrc check rate' });
        const frames = await drain(out);
        // From frame 1 on (frame 0 waits to be stored whole), frames leave back to back: their
        // last beats are one frame's beats apart.
        const per = (frames[N - 1]!.cycle - frames[1]!.cycle) / (N - 2);
        console.log(`icrc_check W=${W}: ${frames[0]!.beats} beats per 4096-byte MIDDLE, ${per.toFixed(2)} cycles per frame out`);
        expect(per, `cycles per frame (last beats in cycles ${frames.map(f => f.cycle).join(' ')})`).toBe(frames[0]!.beats);
      });
    });
  });
}
