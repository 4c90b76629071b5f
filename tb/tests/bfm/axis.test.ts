// AXI-Stream source and sink through a FIFO + skid buffer, and the stream checker failing
// tests on a deliberately broken stage.

import { describe, expect, it } from 'vitest';
import { AxiStreamSink, AxiStreamSource, ProtocolError } from '../../bfm/index.ts';
import { runTest, TestFailure } from '../../core/index.ts';
import { AXIS_FAULT, axisBrokenDesign, axisPassDesign } from './duts.ts';

/** Sends `n` random packets (1..300 bytes) and checks they come out whole, once, in order. */
async function streamRandom(n: number, srcPause: number, sinkPause: number, seed?: number): Promise<{ seed: number; cycles: number; stalls: number }> {
  let stalls = 0;
  const r = await runTest(axisPassDesign, async (dut, tb) => {
    await tb.reset(2);
    const src = new AxiStreamSource(tb, dut.s_axis, { pause: srcPause });
    const sink = new AxiStreamSink(tb, dut.m_axis, { pause: sinkPause });
    const sent: { data: Uint8Array; tuser: number }[] = [];
    for (let i = 0; i < n; i++) {
      const p = { data: tb.rng.bytes(tb.rng.int(1, 300)), tuser: tb.rng.int(0, 1) };
      sent.push(p);
      src.send(p.data, { tuser: p.tuser });
    }
    for (let i = 0; i < n; i++) {
      const got = await sink.recv({ timeout: 5000 });
      expect(got.data, `packet ${i} (seed ${tb.seed})`).toEqual(sent[i]!.data);
      expect(got.tuser).toBe(BigInt(sent[i]!.tuser));
    }
    await tb.clockCycles(20);
    expect(sink.count, 'no extra packets').toBe(0);
    expect(src.queued).toBe(0);
    expect(sink.stats.bytes).toBe(sent.reduce((s, p) => s + p.data.length, 0));
    stalls = sink.watch!.stalls;
  }, seed === undefined ? {} : { seed });
  return { seed: r.seed, cycles: r.cycles, stalls };
}

describe('AXI-Stream source and sink', () => {
  it('move random packets with idles and backpressure: no loss, duplication or reordering', async () => {
    const r = await streamRandom(200, 0.3, 0.4);
    console.log(`axis random: seed ${r.seed}, ${r.cycles} cycles, ${r.stalls} stall cycles`);
    expect(r.stalls).toBeGreaterThan(0);
  });

  it('run at one beat per cycle with no pauses', async () => {
    const r = await runTest(axisPassDesign, async (dut, tb) => {
      await tb.reset(2);
      const src = new AxiStreamSource(tb, dut.s_axis);
      const sink = new AxiStreamSink(tb, dut.m_axis);
      const pkt = tb.rng.bytes(8 * 100);
      src.send(pkt);
      const start = tb.cycle;
      const got = await sink.recv();
      expect(got.data).toEqual(pkt);
      expect(got.beats).toBe(100);
      // 100 beats, plus the FIFO + skid latency.
      expect(got.cycle - start).toBeLessThan(100 + 8);
    });
    expect(r.cycles).toBeLessThan(130);
  });

  it('are deterministic for a seed', async () => {
    const a = await streamRandom(20, 0.5, 0.5, 1234);
    const b = await streamRandom(20, 0.5, 0.5, 1234);
    expect(b.cycles).toBe(a.cycles);
    expect(b.stalls).toBe(a.stalls);
  });
});

describe('AXI-Stream checker bites on a broken DUT', () => {
  const broken = (fault: number, sinkPause: number, seed = 7) => runTest(axisBrokenDesign, async (dut, tb) => {
    dut.fault.value = fault;
    await tb.reset(2);
    const src = new AxiStreamSource(tb, dut.s_axis);
    const sink = new AxiStreamSink(tb, dut.m_axis, { pause: sinkPause });
    const sent: Uint8Array[] = [];
    for (let i = 0; i < 30; i++) { sent.push(tb.rng.bytes(tb.rng.int(1, 40))); src.send(sent[i]!); }
    for (let i = 0; i < 30; i++) expect((await sink.recv({ timeout: 2000 })).data).toEqual(sent[i]);
  }, { seed, pictures: false });

  it('passes when the stage is correct', async () => {
    await broken(AXIS_FAULT.NONE, 0.5);
  });

  it('fails on tdata changing while tvalid && !tready, naming rule, signal and cycle', async () => {
    const err = await broken(AXIS_FAULT.MUTATE_STALLED, 0.5).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    expect((err as TestFailure).cause).toBeInstanceOf(ProtocolError);
    const pe = (err as TestFailure).cause as ProtocolError;
    expect(pe.rule).toBe('TDATA_STABLE');
    expect(pe.cycle).toBe((err as TestFailure).cycle);
    await expect(Promise.reject(err)).rejects.toThrow(
      /m_axis: TDATA_STABLE violated in cycle \d+ \(\d+ ns\): m_axis_tdata changed while m_axis_tvalid && !m_axis_tready: was 0x[0-9a-f]+, now 0x[0-9a-f]+/);
  });

  it('fails on tvalid dropped before the handshake', async () => {
    await expect(broken(AXIS_FAULT.DROP_VALID, 0.5)).rejects.toThrow(/m_axis: TVALID_STABLE violated in cycle \d+ \(\d+ ns\): m_axis_tvalid dropped before the handshake/);
  });

  it('fails on a tkeep hole before tlast', async () => {
    await expect(broken(AXIS_FAULT.KEEP_HOLE, 0, 3)).rejects.toThrow(/m_axis: TKEEP_(CONTIGUOUS|FULL) violated in cycle \d+ \(\d+ ns\): m_axis_tkeep = 0b[01]+/);
  });

  it('fails (by data, not protocol) when a beat is lost', async () => {
    await expect(broken(AXIS_FAULT.DROP_BEAT, 0.3)).rejects.toThrow(/expected|timed out/);
  });
});
