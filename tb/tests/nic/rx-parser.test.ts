// nic_rx_parser (fed at j3 with the frame length on tuser): good frames of every opcode
// layout give the reference decoder's header fields and payload bit-exact; frames broken in
// one field are dropped with the reason of the first failing check, and the next good frame
// still passes. Then check + parser together (fed at j2) with corrupted frames. Streams are
// tb/bfm's AXI-Stream models and the ready/valid checker on the header stream.

import { describe, expect, it } from 'vitest';
import { AxiStreamSink, AxiStreamSource } from '../../bfm/index.ts';
import { runTest, type Rng } from '../../core/index.ts';
import { encodeRoce } from '../../model/packet.ts';
import { appendIcrc } from '../../model/icrc.ts';
import { ipv4Checksum, writeU16 } from '../../model/headers.ts';
import { diffBytes, type Frame } from './frames.ts';
import { corruptions, expectedRx, framingDesign, normHdr, randomCase, type RxHdr } from './framing-stim.ts';
import { drain, PulseMonitor, StructSink } from './stage-streams.ts';

/** A good frame broken in one header field (checksum and ICRC recomputed where the break
 *  should not show up as a checksum or ICRC error). */
function broken(rng: Rng, f: Uint8Array): { bytes: Uint8Array; label: string } {
  const g = Uint8Array.from(f.subarray(0, f.length - 4));
  const fixIp = () => { g[24] = 0; g[25] = 0; writeU16(g, 24, ipv4Checksum(g.subarray(14, 34))); };
  const kind = rng.int(0, 7);
  switch (kind) {
    case 0: g[12] = 0x86; g[13] = 0xdd; return { bytes: appendIcrc2(g), label: 'ethertype' };
    case 1: g[14] = 0x46; fixIp(); return { bytes: appendIcrc2(g), label: 'IHL 6' };
    case 2: g[25]! ^= 0x10; return { bytes: appendIcrc2(g), label: 'IP checksum' };
    case 3: writeU16(g, 36, 4792); return { bytes: appendIcrc2(g), label: 'UDP port' };
    case 4: g[23] = 6; fixIp(); return { bytes: appendIcrc2(g), label: 'protocol' };
    case 5: g[43] = (g[43]! & 0xf0) | 1; return { bytes: appendIcrc2(g), label: 'TVer' };
    case 6: g[42] = 0x15; return { bytes: appendIcrc2(g), label: 'opcode' };
    default: g[20] = 0x20; fixIp(); return { bytes: appendIcrc2(g), label: 'fragment' };
  }
}
function appendIcrc2(g: Uint8Array): Uint8Array {
  // appendIcrc needs IPv4; an ethertype-broken frame gets its old trailer back instead.
  try { return appendIcrc(g); } catch { return Uint8Array.from([...g, 0, 0, 0, 0]); }
}

for (const W of [64, 512]) {
  const B = W / 8;
  describe(`nic_rx_parser ${W} bits`, () => {
    for (const [label, brk2] of [['parser alone', 0], ['ICRC check + parser', 1]] as const) {
      it(`recovers headers and payload, drops bad frames with their reason (${label})`, async () => {
        await runTest(framingDesign(W), async (dut, tb) => {
          console.log(`rx_parser W=${W} ${label} seed=${tb.seed}`);
          dut.j1_brk.value = 1; dut.j2_brk.value = brk2; dut.j3_brk.value = brk2 ? 0 : 1;
          await tb.reset(2);
          const src = new AxiStreamSource(tb, brk2 ? dut.j2_in : dut.j3_in, { pause: brk2 ? 0.5 : 0.2 });
          const hdrs = new StructSink(tb, dut.m_hdr, 'm_hdr', { pause: 0.3 });
          const pays = new AxiStreamSink(tb, dut.m_payload, { pause: 0.2 });
          const dChk = new PulseMonitor(tb, dut.chk_drop_valid, dut.chk_drop_reason);
          const dPrs = new PulseMonitor(tb, dut.prs_drop_valid, dut.prs_drop_reason);
          const frames: (Frame & { label: string })[] = [];
          for (let i = 0; i < (W === 64 ? 100 : 160); i++) {
            const c = randomCase(tb.rng, B, i, i < 18 ? { opcode: i } : {});
            let f = encodeRoce(c.pkt);
            if (f.length < 60 && tb.rng.bool(0.5)) f = Uint8Array.from([...f, ...tb.rng.bytes(60 - f.length)]);
            if (tb.rng.bool(0.25)) { const b = broken(tb.rng, f); frames.push({ bytes: b.bytes, user: b.bytes.length, label: b.label }); }
            if (brk2 && tb.rng.bool(0.15)) { const x = tb.rng.pick(corruptions(tb.rng, f)); frames.push({ ...x.frame, label: x.label }); }
            frames.push({ bytes: f, user: f.length, label: 'good' });
          }
          // On j2 tuser is the MAC's bad flag; the corruption list set it to 0/1 already.
          if (brk2) for (const f of frames) if (f.user > 1) f.user = 0;
          const want = frames.map(f => ({ f, v: expectedRx(f.bytes, brk2 === 1 && f.user === 1) }));
          const wantOk = want.filter(w => w.v.kind === 'ok');
          const wantPay = wantOk.filter(w => w.v.kind === 'ok' && w.v.payload.length > 0);
          for (const f of frames) src.send(f.bytes, { tuser: f.user });
          await tb.until(() => src.idle && hdrs.items.length >= wantOk.length && pays.count >= wantPay.length, {
            timeout: 300_000, what: `rx parser: ${wantOk.length} headers and ${wantPay.length} payloads out`,
          });
          await tb.clockCycles(20);
          const payloads = await drain(pays);
          // Each stage drops in frame order; the two stages' pulses interleave by pipeline timing.
          for (const [stage, mon] of [['check', dChk], ['parser', dPrs]] as const) {
            const exp = want.flatMap(w => (w.v.kind === 'drop' && w.v.stage === stage ? [{ value: w.v.reason, why: `${w.f.label}: ${w.v.why}` }] : []));
            expect(mon.events.map(e => e.value), `${stage} drops: ${exp.map(d => d.why).join(' | ')}`).toEqual(exp.map(d => d.value));
          }
          expect(hdrs.items.length).toBe(wantOk.length);
          let pi = 0;
          wantOk.forEach((w, i) => {
            if (w.v.kind !== 'ok') return;
            const got = normHdr(hdrs.items[i]!.value as Record<string, number | bigint>);
            const exp: RxHdr = w.v.hdr;
            for (const k of Object.keys(exp) as (keyof RxHdr)[]) {
              if (got[k] !== exp[k]) throw new Error(`header ${i} (cycle ${hdrs.items[i]!.cycle}): ${k} = ${got[k]} want ${exp[k]}`);
            }
            if (w.v.payload.length > 0) {
              const d = diffBytes(payloads[pi]!.data, w.v.payload, B);
              if (d) throw new Error(`payload of header ${i} (ending in cycle ${payloads[pi]!.cycle}): ${d}`);
              pi++;
            }
          });
          expect(payloads.length, 'payload packets').toBe(wantPay.length);
        });
      });
    }
  });
}
