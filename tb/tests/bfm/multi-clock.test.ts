// Bus models in a design with two clocks: each takes the clock of its bus (`clock` option). The
// design has one AXI-Stream register stage per clock domain; a source and a sink on each stage,
// each on its stage's clock, move random packets through both at once (clocks unrelated, periods
// and phase from the seed). A sink given the other stage's clock fails with CLOCK_DOMAIN, naming
// the signal and the clock to give instead; one given no clock fails at once, listing the clocks.

import { describe, expect, it } from 'vitest';
import { Bool, Clock, defineModule, UInt, type ModuleBuilder } from '../../../gen/hdl/index.ts';
import { axiStream } from '../../../gen/lib/interfaces.ts';
import { AxiStreamSink, AxiStreamSource } from '../../bfm/index.ts';
import { envSeed, runTest, type Task, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';

const bus = axiStream({ dataWidth: 32 });

/** A register stage (tvalid/tdata registered, tready = free) in domain `d`. */
function stage(m: ModuleBuilder, name: string, d: ReturnType<ModuleBuilder['domain']>) {
  const s = bus.sink(m, `s_${name}_axis`);
  const o = bus.source(m, `m_${name}_axis`);
  const valid = m.reg(`${name}_valid_reg`, Bool, { domain: d });
  const data = m.reg(`${name}_data_reg`, UInt(32), { reset: null, domain: d });
  const keep = m.reg(`${name}_keep_reg`, UInt(4), { reset: null, domain: d });
  const last = m.reg(`${name}_last_reg`, Bool, { reset: null, domain: d });
  const free = m.let(`${name}_free`, o.tready.lor(valid.lnot()));
  s.tready.set(free);
  m.if(free, () => {
    valid.set(s.tvalid);
    data.set(s.tdata); keep.set(s.tkeep); last.set(s.tlast);
  });
  o.tvalid.set(valid); o.tdata.set(data); o.tkeep.set(keep); o.tlast.set(last);
  return { s, o };
}

const twoStages = defineModule('bfm_two_clock_axis', {}, m => {
  const clk_a = m.input('clk_a', Clock), clk_b = m.input('clk_b', Clock);
  const rst_a = m.input('rst_a', Bool), rst_b = m.input('rst_b', Bool);
  const a = stage(m, 'a', m.domain('a', { clock: clk_a, reset: rst_a }));
  const b = stage(m, 'b', m.domain('b', { clock: clk_b, reset: rst_b }));
  return { clk_a, clk_b, rst_a, rst_b, s_a_axis: a.s, m_a_axis: a.o, s_b_axis: b.s, m_b_axis: b.o };
}, { doc: 'one AXI-Stream register stage per clock domain, for the bus models\' clock option' });

const dut = design(twoStages);
const SEED = envSeed() ?? 1;

/** Unrelated clocks from the seed (each high for at least 2 ticks), both resets. */
async function start(tb: TestBench): Promise<void> {
  const pa = tb.rng.int(5, 9), pb = tb.rng.int(6, 13);
  tb.setClocks({ clk_a: { period: pa }, clk_b: { period: pb, phase: tb.rng.int(0, pb - 1) } });
  await tb.reset(2, { port: 'rst_a' });
  await tb.reset(2, { port: 'rst_b' });
}

const packets = (tb: TestBench, n: number): Uint8Array[] => Array.from({ length: n }, () => tb.rng.bytes(tb.rng.int(1, 40)));

describe('bus models on one clock of several (clock option)', () => {
  it('a source and a sink per stage, each on its stage\'s clock, deliver every packet byte-exact', async () => {
    console.log(`bfm multi-clock: seed ${SEED} (NICGEN_SEED=${SEED} replays)`);
    await runTest(dut, async (d, tb) => {
      await start(tb);
      const ends = [['a', d.clk_a, d.s_a_axis, d.m_a_axis], ['b', d.clk_b, d.s_b_axis, d.m_b_axis]] as const;
      const checks: Task<void>[] = [];
      for (const [name, clock, s, o] of ends) {
        const src = new AxiStreamSource(tb, s, { clock, pause: 0.3 });
        const sink = new AxiStreamSink(tb, o, { clock, pause: 0.3 });
        const sent = packets(tb, 12);
        for (const p of sent) src.send(p);
        checks.push(tb.fork(async () => {
          for (const p of sent) expect((await sink.recv({ timeout: 20_000 })).data, `stage ${name}`).toEqual(p);
        }, `check ${name}`));
      }
      for (const t of checks) await t.join();
    }, { seed: SEED, maxCycles: 100_000 });
  }, 300_000);

  it('a sink given the other stage\'s clock fails with CLOCK_DOMAIN and says which clock to give', async () => {
    const run = runTest(dut, async (d, tb) => {
      await start(tb);
      const src = new AxiStreamSource(tb, d.s_b_axis, { clock: d.clk_b });
      new AxiStreamSink(tb, d.m_b_axis, { clock: d.clk_a });   // wrong: stage b runs on clk_b
      for (const p of packets(tb, 20)) src.send(p);
      await src.wait(20_000);
      await d.clk_b.cycles(100);
    }, { seed: SEED, maxCycles: 100_000 });
    // The sink's own checker sees stage b's outputs move while clk_a is high; the source's may see
    // s_b_axis_tready move while clk_b is high (it follows the sink's tready, written on clk_a).
    const err = await run.then(() => undefined, (e: unknown) => e as Error);
    console.log(`bfm multi-clock wrong clock: ${err?.message.split('\n')[0]}`);
    expect(err?.message).toMatch(/CLOCK_DOMAIN violated in cycle \d+[^:]*: (m_b_axis_t\w+ changed while clk_a was high.*\{ clock: dut\.clk_b \}|s_b_axis_tready changed while clk_b was high.*\{ clock: dut\.clk_a \})/s);
  }, 300_000);

  it('a bus model given no clock fails at once and lists the clocks', async () => {
    const run = runTest(dut, async (d, tb) => {
      await start(tb);
      new AxiStreamSink(tb, d.m_a_axis);
    }, { seed: SEED, maxCycles: 1000 });
    await expect(run).rejects.toThrow(/several clocks \(clk_a, clk_b\): give the bus model the clock of its bus/);
  }, 300_000);
});
