// nic_regs: every register over AXI4-Lite against the TS model (tb/model/nic-regs.ts):
// reset values, read/write with byte strobes, ro ignores writes, w1c, unmapped → DECERR,
// random access order; doorbell and mr_changed pulses; hardware updates and counters seen
// by software; the context outputs and the MR table's read port (block RAM: the entry one
// clock after mr_rd_en; cleared by a sweep after every reset). Software is tb/bfm's AXI4-Lite master, with its checker
// (ready/valid rules, no response before its request) on the bus.

import { describe, expect, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { CFG_REGS, regSlots } from '../../../gen/nic/ctx.ts';
import { AXIL_SPACE, GLOBAL_REGS, MR_BASE, MR_REGS, QP_REGS, QP_STATE, type RegField } from '../../../gen/nic/regmap.ts';
import { COUNTER_REGS, nicRegs } from '../../../gen/nic/regs.ts';
import { AXI_RESP, AxiLiteMaster, type AxiRespName } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { AXIL_RESP, allRegs, globalReg, mrReg, qpReg, RegsModel, type QpRegName } from '../../model/nic-regs.ts';
import { design as dslDesign } from '../../design.ts';
import { hex } from './support/hex.ts';

const NUM_QP = 4;
const NUM_MR = 16;
const design = dslDesign(nicRegs, {});
type Dut = Parameters<Parameters<typeof runTest<NonNullable<typeof design['__io']>>>[1]>[0];
/** The response the model gives, as the master's `expect` option takes it. */
const RESP = Object.fromEntries(Object.entries(AXI_RESP).map(([k, v]) => [v, k])) as Record<number, AxiRespName>;

function zeroInputs(dut: Dut): void {
  for (const u of [dut.hw_sq_ci, dut.hw_cq_pi, dut.hw_sq_psn, dut.hw_exp_psn, dut.hw_msn]) u.value = { valid: 0, qp: 0, value: 0 };
  dut.hw_error.value = { valid: 0, qp: 0 };
  dut.irq_event.value = 0;
  dut.mr_rd_en.value = 0;
  dut.mr_rd_addr.value = 0;
  for (const h of Object.values(dut.inc)) (h as { value: number }).value = 0;
}

/**
 * Resets the DUT behind a master. `random`: idle cycles before each AW, W and AR valid, drawn
 * per channel (so AW and W come in either order, apart or together), and slow BREADY/RREADY;
 * otherwise every access goes at full speed, for the tests that place an event on the edge
 * a write lands.
 */
async function start(dut: Dut, tb: TestBench, random: boolean): Promise<AxiLiteMaster> {
  zeroInputs(dut);
  const m = new AxiLiteMaster(tb, dut.s_axil, random ? { pause: 0.3, backpressure: 0.3 } : {});
  await tb.reset(2);
  return m;
}

/** Compares one register with the model (data, and the response through `expect`), naming address and cycle. */
async function check(m: AxiLiteMaster, tb: TestBench, model: RegsModel, addr: number, why: string): Promise<void> {
  const exp = model.read(addr);
  const got = await m.read(addr, { expect: RESP[exp.resp]! });
  expect(got, `${why}: read ${hex(addr)} at cycle ${tb.cycle} (seed ${tb.seed})`).toBe(exp.data);
}

/**
 * Writes `value` to `addr` at full speed and holds `drive` high for one cycle so the design
 * samples it at the edge the write lands on (`sameEdge`), or at the edge before. nic_regs
 * writes a register at the edge that completes both AW and W; those handshakes are read off
 * the bus at each falling edge, where inputs written are sampled at the next edge. For the
 * edge before, the event goes first and the write is issued right after it; the edges are
 * checked, so a change in the master's or the design's timing fails here instead of turning
 * the tie test into a test of something else.
 */
async function writeWithEvent(m: AxiLiteMaster, tb: TestBench, dut: Dut, addr: number, value: number, sameEdge: boolean, drive: (on: boolean) => void): Promise<void> {
  const p = dut.s_axil;
  let eventEdge = -1;
  const pulse = async (): Promise<void> => {
    drive(true);
    await tb.rising();
    eventEdge = tb.cycle;
    drive(false);
  };
  if (!sameEdge) await pulse();
  let landEdge = -1;
  const watch = tb.fork(async () => {
    let aw = false, w = false;
    while (!(aw && w)) {
      await tb.falling();
      aw ||= p.awvalid.value === 1 && p.awready.value === 1;
      w ||= p.wvalid.value === 1 && p.wready.value === 1;
    }
    // The coming edge completes the handshakes, and the write lands at it.
    if (sameEdge) await pulse();
    else await tb.rising();
    landEdge = tb.cycle;
  }, `landing of ${hex(addr)}`);
  await m.write(addr, value);
  await watch.join();
  expect(landEdge - eventEdge, `write of ${hex(addr)} landed at edge ${landEdge}, event at edge ${eventEdge} (seed ${tb.seed})`).toBe(sameEdge ? 0 : 1);
}

/** The struct value the model predicts for one block (pairs joined). */
function expectedStruct(model: RegsModel, regs: readonly RegField[], addrOf: (r: RegField) => number): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const s of regSlots(regs)) out[s.field] = (out[s.field] ?? 0n) | (BigInt(model.values.get(addrOf(s.reg))!) << BigInt(s.lsb));
  return out;
}
const asBig = (o: Record<string, unknown>): Record<string, bigint> => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, BigInt(v as number | bigint)]));

/** MR j's entry through the TLB's read port: enable for one edge, the word after it; the
 *  word must then hold while the enable is low (two more edges). */
async function readMr(dut: Dut, tb: TestBench, j: number): Promise<Record<string, bigint>> {
  dut.mr_rd_en.value = 1;
  dut.mr_rd_addr.value = j;
  await tb.rising();
  dut.mr_rd_en.value = 0;
  dut.mr_rd_addr.value = (j + 1) % NUM_MR;
  const word = asBig(dut.mr_rd_data.value);
  await tb.clockCycles(2);
  expect(asBig(dut.mr_rd_data.value), `mr_rd_data of MR ${j} must hold while mr_rd_en is low (seed ${tb.seed})`).toEqual(word);
  return word;
}

describe('nic_regs', () => {
  it('passes verilator -Wall, iverilog and yosys (numQp 4/2, numMr 16/3)', () => {
    for (const params of [{}, { numQp: 2, numMr: 3 }]) {
      const e = emitToDir(nicRegs, params);
      verilatorLint(e);
      iverilogCompile(e);
      yosysSynth(e);
    }
  });

  it('reset values, random writes in random order with strobes, ro/w1c rules, context outputs', async () => {
    const r = await runTest(design, async (dut, tb) => {
      const m = await start(dut, tb, true);
      const model = new RegsModel(NUM_QP, NUM_MR);
      const regs = allRegs(NUM_QP, NUM_MR);
      for (const { addr } of regs) await check(m, tb, model, addr, 'reset value');
      // Keep STATE away from RESET after the first pass so indices stay (RESET clears them; tested below).
      for (let pass = 0; pass < 2; pass++) {
        for (const { addr, d } of tb.rng.shuffle([...regs])) {
          let data = tb.rng.u32();
          if (d.reg.name === 'STATE') data = ((data & ~7) | tb.rng.int(1, 4)) >>> 0;
          const strb = tb.rng.bool(0.6) ? 0xf : tb.rng.int(0, 15);
          // A response other than the model's fails the write, naming address and cycle.
          const exp = model.write(addr, data, strb);
          await m.write(addr, data, strb, { expect: RESP[exp.resp]! });
          if (tb.rng.bool(0.3)) await check(m, tb, model, addr, `after write ${hex(data)} strb ${strb}`);
        }
      }
      for (const { addr, d } of tb.rng.shuffle([...regs])) await check(m, tb, model, addr, `final ${d.reg.name}[${d.index}]`);
      // The flip-flop vectors show the same values (the other QP registers are memories,
      // published as writes: qp_wr; ctx-view.test.ts checks the copies they build).
      await tb.clockCycles(1);
      const vecs = { STATE: dut.qp_state, RETRY: dut.qp_retry } as const;
      for (const [name, port] of Object.entries(vecs)) {
        for (let i = 0; i < NUM_QP; i++) expect(Number((port.value as number[])[i]), `qp_${name.toLowerCase()}[${i}]`).toBe(model.values.get(qpReg(i, name as QpRegName)));
      }
      for (const j of tb.rng.shuffle([...Array(NUM_MR).keys()])) {
        expect(await readMr(dut, tb, j), `MR table entry ${j} (seed ${tb.seed})`).toEqual(expectedStruct(model, MR_REGS, r => mrReg(j, r.name as never)));
      }
      expect(asBig(dut.cfg.value), 'cfg').toEqual(expectedStruct(model, CFG_REGS, r => r.offset));
    });
    console.log(`nic_regs random access: seed ${r.seed}, ${r.cycles} cycles`);
  });

  it('answers unmapped and out-of-range addresses with DECERR and data 0', async () => {
    await runTest(design, async (dut, tb) => {
      const m = await start(dut, tb, true);
      const model = new RegsModel(NUM_QP, NUM_MR);
      const mapped = new Set(allRegs(NUM_QP, NUM_MR).map(x => x.addr));
      // The first word past the last global register (the counters grow: computed, not fixed).
      const pastGlobals = Math.max(...GLOBAL_REGS.map(r => r.offset)) + 4;
      const probes = [pastGlobals, 0x0fc, 0x0ffc, qpReg(NUM_QP, 'STATE'), qpReg(0, 'MSN') + 4, 0x3ffc, MR_BASE - 4, mrReg(NUM_MR, 'TAG'), mrReg(0, 'PT_BASE_HI') + 4, mrReg(NUM_MR - 1, 'PT_BASE_HI') + 4, 0xfffc, AXIL_SPACE - 4];
      // Low addresses (globals and QPs) and the whole map (MRs sit at MR_BASE, high in it).
      for (let k = 0; k < 40; k++) probes.push(tb.rng.int(0, k < 20 ? 0x3fff : AXIL_SPACE / 4 - 1) * 4);
      let n = 0;
      for (const a of probes.filter(x => !mapped.has(x))) {
        const before = await m.read(globalReg('MAC_LO'));
        await m.write(a, tb.rng.u32(), 0xf, { expect: 'DECERR' });
        expect(await m.read(a, { expect: 'DECERR' }), `read ${hex(a)} data (cycle ${tb.cycle})`).toBe(0);
        expect(await m.read(globalReg('MAC_LO')), `an unmapped write to ${hex(a)} changed MAC_LO (cycle ${tb.cycle})`).toBe(before);
        n++;
      }
      expect(n).toBeGreaterThan(5);
      expect(model.read(pastGlobals).resp).toBe(AXIL_RESP.DECERR);
    });
  });

  it('a reset clears the MR table (block RAM, no reset of its own) before software gets the bus', async () => {
    await runTest(design, async (dut, tb) => {
      const m = await start(dut, tb, true);
      const written = tb.rng.shuffle([...Array(NUM_MR).keys()]).slice(0, 6);
      for (const j of written) for (const r of MR_REGS) await m.write(mrReg(j, r.name), (tb.rng.u32() | 1) >>> 0);
      for (const j of written) expect((await readMr(dut, tb, j)).tag, `MR ${j} written`).not.toBe(0n);
      await tb.reset(2);
      const zero = expectedStruct(new RegsModel(NUM_QP, NUM_MR), MR_REGS, r => mrReg(0, r.name as never));
      // Software's first read after the reset already sees zeros (AR waits for the sweep) ...
      for (const j of written) for (const r of MR_REGS) expect(await m.read(mrReg(j, r.name)), `${r.name}[${j}] after reset (seed ${tb.seed})`).toBe(0);
      // ... and so does the TLB's port, for every MR.
      for (let j = 0; j < NUM_MR; j++) expect(await readMr(dut, tb, j), `MR table entry ${j} after reset (seed ${tb.seed})`).toEqual(zero);
    });
  });

  it('doorbells, mr_changed pulses, QP reset clears indices', async () => {
    await runTest(design, async (dut, tb) => {
      const m = await start(dut, tb, true);
      const model = new RegsModel(NUM_QP, NUM_MR);
      const seenDb: { qp: number; pi: number; cycle: number }[] = [];
      const seenMr: { mr: number; cycle: number }[] = [];
      tb.fork(async () => {
        for (;;) {
          await tb.rising();
          if (dut.doorbell_valid.value === 1) seenDb.push({ ...(dut.doorbell.value as { qp: number; pi: number }), cycle: tb.cycle });
          const mc = dut.mr_changed.value as { valid: number; mr: number };
          if (mc.valid === 1) seenMr.push({ mr: mc.mr, cycle: tb.cycle });
        }
      }, 'monitor');
      const expDb: { qp: number; pi: number }[] = [];
      const expMr: number[] = [];
      for (let k = 0; k < 60; k++) {
        const qp = tb.rng.int(0, NUM_QP - 1);
        const mr = tb.rng.int(0, NUM_MR - 1);
        const which = tb.rng.int(0, 2);
        const addr = which === 0 ? qpReg(qp, 'SQ_PI') : which === 1 ? mrReg(mr, tb.rng.pick(MR_REGS).name) : qpReg(qp, 'DEST_IP');
        const data = tb.rng.u32();
        const strb = tb.rng.bool(0.8) ? 0xf : tb.rng.int(1, 15);
        const e = model.write(addr, data, strb);
        await m.write(addr, data, strb, { expect: RESP[e.resp]! });
        if (e.doorbell) expDb.push(e.doorbell);
        if (e.mrChanged !== undefined) expMr.push(e.mrChanged);
      }
      await tb.clockCycles(3);
      expect(seenDb.map(x => ({ qp: x.qp, pi: x.pi })), 'doorbell pulses (qp, new SQ_PI)').toEqual(expDb);
      expect(seenMr.map(x => x.mr), 'mr_changed pulses').toEqual(expMr);
      // QP reset: indices cleared, other fields kept.
      const qp = 2;
      await m.write(qpReg(qp, 'CQ_CI'), 77);
      await m.write(qpReg(qp, 'SQ_PI'), 99);
      dut.hw_sq_ci.value = { valid: 1, qp, value: 55 };
      await tb.rising();
      dut.hw_sq_ci.value = { valid: 0, qp: 0, value: 0 };
      expect(await m.read(qpReg(qp, 'SQ_CI')), 'SQ_CI after a hardware update').toBe(55);
      await m.write(qpReg(qp, 'STATE'), QP_STATE.RESET);
      for (const n of ['SQ_PI', 'SQ_CI', 'CQ_CI', 'CQ_PI', 'MSN'] as const) expect(await m.read(qpReg(qp, n)), `${n} after RESET`).toBe(0);
      expect(await m.read(qpReg(qp, 'DEST_IP')), 'DEST_IP after RESET').toBe(model.values.get(qpReg(qp, 'DEST_IP')));
    });
  });

  it('a write lands at the edge completing its AW and W, in either order: SQ_PI on the qp_wr lane and the doorbell pulse', async () => {
    await runTest(design, async (dut, tb) => {
      zeroInputs(dut);
      // Long random pauses so AW comes first, W comes first, or both come together.
      const m = new AxiLiteMaster(tb, dut.s_axil, { pause: 0.5, backpressure: 0.3 });
      await tb.reset(2);
      const model = new RegsModel(NUM_QP, NUM_MR);
      const p = dut.s_axil;
      const pending: { qp: number; pi: number }[] = [];
      const orders = { awFirst: 0, wFirst: 0, together: 0 };
      let checked = 0;
      tb.fork(async () => {
        let awIn = false, wIn = false;
        for (;;) {
          await tb.falling();
          const aw = p.awvalid.value === 1 && p.awready.value === 1;
          const w = p.wvalid.value === 1 && p.wready.value === 1;
          if (!((aw || awIn) && (w || wIn))) { awIn ||= aw; wIn ||= w; continue; }
          // The coming edge completes the write: qp_wr carries it in this cycle (the stages' SQ_PI
          // memories and nic_wqe_fetch's "has work" bits take it at that edge), the doorbell pulse follows.
          const exp = pending.shift();
          if (!exp) throw new Error(`write handshakes at cycle ${tb.cycle} with no write issued`);
          orders[awIn ? 'awFirst' : wIn ? 'wFirst' : 'together']++;
          awIn = wIn = false;
          const lane = dut.qp_wr.value as { valid: number; init: number; clr: number; qp: number; reg: number; data: number };
          const why = `SQ_PI[${exp.qp}] := ${hex(exp.pi)}, edge ${tb.cycle + 1} (seed ${tb.seed})`;
          expect({ ...lane, data: Number(lane.data) & 0xffff }, `${why}: qp_wr in the cycle of the edge completing AW and W`).toEqual({ valid: 1, init: 0, clr: 0, qp: exp.qp, reg: QP_REGS.find(r => r.name === 'SQ_PI')!.offset >> 2, data: exp.pi });
          await tb.rising();
          expect(dut.doorbell_valid.value, `${why}: doorbell_valid right after that edge`).toBe(1);
          expect(dut.doorbell.value, `${why}: doorbell`).toEqual(exp);
          checked++;
        }
      }, 'landing monitor');
      for (let k = 0; k < 80; k++) {
        const qp = tb.rng.int(0, NUM_QP - 1);
        const data = tb.rng.u32();
        pending.push(model.write(qpReg(qp, 'SQ_PI'), data).doorbell!);
        await m.write(qpReg(qp, 'SQ_PI'), data);
      }
      await tb.clockCycles(2);
      expect(checked, 'writes checked').toBe(80);
      for (const [k, n] of Object.entries(orders)) expect(n, `writes with ${k} (seed ${tb.seed})`).toBeGreaterThan(3);
    });
  });

  it('hardware updates, error moves, counters and IRQ w1c are visible to software; hardware wins ties', async () => {
    await runTest(design, async (dut, tb) => {
      const m = await start(dut, tb, false);
      const model = new RegsModel(NUM_QP, NUM_MR);
      const ports = { SQ_CI: dut.hw_sq_ci, CQ_PI: dut.hw_cq_pi, SQ_PSN: dut.hw_sq_psn, EXP_PSN: dut.hw_exp_psn, MSN: dut.hw_msn } as const;
      for (let k = 0; k < 40; k++) {
        const name = tb.rng.pick(Object.keys(ports) as (keyof typeof ports)[]);
        const qp = tb.rng.int(0, NUM_QP - 1);
        const width = QP_REGS.find(r => r.name === name)!.width;
        const value = tb.rng.int(0, 2 ** width - 1);
        ports[name].value = { valid: 1, qp, value };
        await tb.rising();
        ports[name].value = { valid: 0, qp: 0, value: 0 };
        model.hwSet(qp, name, value);
        await check(m, tb, model, qpReg(qp, name), `hw update of ${name}[${qp}]`);
      }
      // Same cycle: software writes SQ_PSN while hardware updates it → hardware's value stays;
      // one edge earlier, the software write lands last and wins (so the tie really is one).
      const qp = 1;
      const hwPsn = (on: boolean): void => { dut.hw_sq_psn.value = on ? { valid: 1, qp, value: 0xabcdef } : { valid: 0, qp: 0, value: 0 }; };
      await writeWithEvent(m, tb, dut, qpReg(qp, 'SQ_PSN'), 0x123456, false, hwPsn);
      expect(await m.read(qpReg(qp, 'SQ_PSN')), 'a software write one edge after the hardware update').toBe(0x123456);
      await writeWithEvent(m, tb, dut, qpReg(qp, 'SQ_PSN'), 0x123456, true, hwPsn);
      expect(await m.read(qpReg(qp, 'SQ_PSN')), 'hardware update must win over the same-cycle software write').toBe(0xabcdef);
      // STATE → ERROR from hardware.
      await m.write(qpReg(3, 'STATE'), QP_STATE.RTS);
      dut.hw_error.value = { valid: 1, qp: 3 };
      await tb.rising();
      dut.hw_error.value = { valid: 0, qp: 0 };
      expect(await m.read(qpReg(3, 'STATE')), 'STATE after hw_error').toBe(QP_STATE.ERROR);
      // Counters: random increments on every counter input; writes are ignored.
      const counts = new Map<string, number>();
      const inc = dut.inc as unknown as Record<string, { value: number }>;
      const keys = Object.keys(inc);
      expect(keys.length).toBe(COUNTER_REGS.length);
      for (let c = 0; c < 200; c++) {
        for (const k of keys) { const on = tb.rng.bool(0.4) ? 1 : 0; inc[k]!.value = on; counts.set(k, (counts.get(k) ?? 0) + on); }
        await tb.rising();
      }
      for (const k of keys) inc[k]!.value = 0;
      await tb.rising();
      for (const r of COUNTER_REGS) {
        const key = keys.find(k => k.toLowerCase() === r.name.replace(/_/g, '').toLowerCase())!;
        await m.write(r.offset, 0);   // OKAY, and ignored
        expect(await m.read(r.offset), `counter ${r.name}`).toBe(counts.get(key));
      }
      // IRQ: event sets, w1c clears, writing 0 does not clear, event wins over a same-cycle clear.
      expect(dut.irq.value).toBe(0);
      dut.irq_event.value = 1;
      await tb.rising();
      dut.irq_event.value = 0;
      await tb.rising();
      expect(dut.irq.value, 'irq after an event').toBe(1);
      await m.write(globalReg('IRQ_STATUS'), 0);
      expect(dut.irq.value, 'writing 0 must not clear IRQ_STATUS').toBe(1);
      await m.write(globalReg('IRQ_STATUS'), 1);
      expect(dut.irq.value, 'w1c clears').toBe(0);
      // A one-cycle event one edge before the w1c write lands: the clear wins; exactly at
      // that edge: the event wins.
      const irqEvent = (on: boolean): void => { dut.irq_event.value = on ? 1 : 0; };
      dut.irq_event.value = 1;
      await tb.rising();
      dut.irq_event.value = 0;
      await writeWithEvent(m, tb, dut, globalReg('IRQ_STATUS'), 1, false, irqEvent);
      await tb.rising();
      expect(dut.irq.value, 'an event one edge before the w1c clear is cleared').toBe(0);
      await writeWithEvent(m, tb, dut, globalReg('IRQ_STATUS'), 1, true, irqEvent);
      await tb.rising();
      expect(dut.irq.value, 'an event in the cycle of the w1c clear must win').toBe(1);
    });
  });
});
