// watchChannel on its own, as NIC tests will use it on internal streams: any handles, a
// name of the test's choosing, payload as a list, counters, and reset gating.

import { describe, expect, it } from 'vitest';
import { AxiStreamSink, AxiStreamSource, ProtocolError, watchChannel } from '../../bfm/index.ts';
import { runTest, TestFailure } from '../../core/index.ts';
import { AXIS_FAULT, axisBrokenDesign } from './duts.ts';

describe('watchChannel', () => {
  const run = (fault: number, holdReset: boolean) => runTest(axisBrokenDesign, async (dut, tb) => {
    dut.fault.value = fault;
    await tb.reset(2);
    // The sink's own checker is off: only the standalone watcher may report.
    const src = new AxiStreamSource(tb, dut.s_axis, { check: false });
    const sink = new AxiStreamSink(tb, dut.m_axis, { check: false, pause: 0.5 });
    const o = dut.m_axis;
    // A stand-in reset the test controls, to show that checks pause while it is high.
    const fakeReset = { name: 'test_reset', value: holdReset ? 1 : 0 };
    const w = watchChannel(tb, { valid: o.tvalid, ready: o.tready, payload: [o.tdata, o.tlast!] }, 'stage out', { reset: fakeReset });
    for (let i = 0; i < 20; i++) src.send(tb.rng.bytes(24));
    for (let i = 0; i < 20; i++) await sink.recv({ timeout: 2000 });
    expect(w.transfers).toBe(holdReset ? 0 : 60);
    expect(holdReset || w.stalls > 0).toBe(true);
  }, { seed: 21, pictures: false });

  it('counts transfers and stalls on a correct channel', async () => {
    await run(AXIS_FAULT.NONE, false);
  });

  it('reports a payload change under stall with the name the test gave', async () => {
    const err = await run(AXIS_FAULT.MUTATE_STALLED, false).catch((e: unknown) => e);
    expect((err as TestFailure).cause).toBeInstanceOf(ProtocolError);
    expect((err as Error).message).toMatch(/^stage out: TDATA_STABLE violated in cycle \d+ \(\d+ ns\): m_axis_tdata changed while m_axis_tvalid && !m_axis_tready/);
  });

  it('stays quiet while its reset is asserted', async () => {
    await run(AXIS_FAULT.MUTATE_STALLED, true);
  });
});
