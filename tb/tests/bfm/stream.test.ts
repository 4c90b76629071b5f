// The stream(T) bus models with a struct payload: StreamSource with random idles and
// StreamSink with random back-pressure move every word through a register stage in order,
// the monitor sees the same transfers, and the protocol checker catches a stage that changes
// its data or drops valid while stalled.

import { describe, expect, it } from 'vitest';
import { Bool, Struct, UInt, defineModule, mux } from '../../../gen/hdl/index.ts';
import { stream } from '../../../gen/lib/interfaces.ts';
import { StreamMonitor, StreamSink, StreamSource } from '../../bfm/index.ts';
import { runTest, TestFailure } from '../../core/index.ts';
import { design } from '../../design.ts';

const Hdr = Struct('hdr', { op: UInt(4), len: UInt(12), tag: UInt(20) });
const hdrStream = stream(Hdr);

/** One register stage that adds 1 to `len` (wrapping); `fault` breaks the protocol on purpose. */
const structStage = defineModule('bfm_struct_stage', { fault: 'none' as 'none' | 'data' | 'valid' }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const s = hdrStream.sink(m, 's');
  const o = hdrStream.source(m, 'm');
  const valid = m.reg('valid_reg', Bool);
  const data = m.reg('data_reg', Hdr, { reset: null });
  const stalledCycles = m.reg('stalled_reg', UInt(2));
  s.ready.set(valid.lnot().lor(o.ready));
  m.if(s.valid.land(s.ready), () => {
    data.set(s.data);
    data.setField('len', s.data.field('len').addw(1));
    valid.set(1);
  }).elif(o.ready, () => valid.set(0));
  m.if(valid.land(o.ready.lnot()), () => stalledCycles.set(stalledCycles.addw(1))).else(() => stalledCycles.set(0));
  const shown = p.fault === 'data' ? mux(stalledCycles.eq(2), data.as(UInt(36)).xor(1 << 20).as(Hdr), data) : data;
  o.data.set(shown);
  o.valid.set(p.fault === 'valid' ? valid.land(stalledCycles.ne(3)) : valid);
  return { clk, rst, s, m: o };
});

interface Hv { op: number; len: number; tag: number }

describe('stream(T) bus models', () => {
  it('move struct words through a stage with random idles and back-pressure, in order', async () => {
    await runTest(design(structStage), async (dut, tb) => {
      const src = new StreamSource(tb, dut.s, { pause: 0.3 });
      const sink = new StreamSink(tb, dut.m, { pause: 0.4 });
      const seen: Hv[] = [];
      const mon = new StreamMonitor(tb, dut.m, { name: 'm (monitor)', onTransfer: d => { seen.push(d as Hv); } });
      await tb.reset(2);
      const sent: Hv[] = [];
      for (let i = 0; i < 400; i++) {
        const h = { op: tb.rng.int(0, 15), len: tb.rng.int(0, 4095), tag: tb.rng.int(0, (1 << 20) - 1) };
        sent.push(h);
        src.send(h);
      }
      for (let i = 0; i < sent.length; i++) {
        const { data } = await sink.recv();
        expect(data, `word ${i}`).toEqual({ ...sent[i]!, len: (sent[i]!.len + 1) & 0xfff });
      }
      await src.wait();
      expect(src.stats.transfers).toBe(400);
      expect(seen).toHaveLength(400);
      expect(seen[399]).toEqual({ ...sent[399]!, len: (sent[399]!.len + 1) & 0xfff });
      // Both kinds of randomness happened: the stage was stalled, and the source idled.
      expect(sink.watch!.stalls).toBeGreaterThan(50);
      expect(mon.watch.transfers).toBe(400);
      expect(tb.cycle).toBeGreaterThan(400 / 0.7);
    }, { seed: 1 });
  });

  it('fails a stage that changes its data while stalled, naming the rule, the port and the cycle', async () => {
    const err = await runTest(design(structStage, { fault: 'data' }), async (dut, tb) => {
      const src = new StreamSource(tb, dut.s);
      new StreamSink(tb, dut.m, { pause: 0.8 });
      await tb.reset(2);
      for (let i = 0; i < 200; i++) src.send({ op: 1, len: i, tag: 7 });
      await src.wait();
    }, { seed: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    expect((err as Error).message).toMatch(/DATA_STABLE.*m_data changed while m_valid && !m_ready/);
    expect((err as Error).message).toMatch(/at cycle \d+ \([\d.]+ [pnuµm]?s\); seed 3/);
  });

  it('fails a stage that drops valid before the handshake', async () => {
    const err = await runTest(design(structStage, { fault: 'valid' }), async (dut, tb) => {
      const src = new StreamSource(tb, dut.s);
      new StreamSink(tb, dut.m, { pause: 0.9 });
      await tb.reset(2);
      for (let i = 0; i < 200; i++) src.send({ op: 2, len: i, tag: 9 });
      await src.wait();
    }, { seed: 4 }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/VALID_STABLE.*m_valid dropped before the handshake/);
  });
});
