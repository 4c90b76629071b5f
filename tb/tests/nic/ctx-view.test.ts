// The QP context out of flip-flops (gen/nic/ctx-view.ts): nic_regs' lanes into a stage's view,
// rows out, against the Vec model (tb/model/nic-regs.ts, what qp_ctx showed when nic_regs held
// every QP register in flip-flops) in every cycle: random AXI4-Lite writes of every QP
// register (byte strobes, STATE = RESET clears, ro registers ignored), random datapath
// updates of SQ_CI, CQ_PI, SQ_PSN, EXP_PSN and MSN and hw_error moves, including updates of
// the same field of the same QP in the cycle a software write (or the RESET clear) lands
// (hardware wins), and a reset in the middle: after it, once the sweep has written every row
// (AXI waits meanwhile), every row shows the reset values again. The view is read at two
// QPs per cycle, chosen at random, as a stage reads it (combinationally, after the edge).

import { describe, expect, it } from 'vitest';
import { HW_QP_FIELDS, regSlots } from '../../../gen/nic/ctx.ts';
import { QP_REGS, QP_STATE } from '../../../gen/nic/regmap.ts';
import { AxiLiteMaster } from '../../bfm/index.ts';
import { runTest } from '../../core/index.ts';
import { design } from '../../design.ts';
import { qpReg, RegsModel, type QpRegName } from '../../model/nic-regs.ts';
import { ctxViewBench } from './ctx-view-bench.ts';

/** The QpCtx struct the model predicts for QP `q` (pairs joined). */
function expectedRow(model: RegsModel, q: number): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const s of regSlots(QP_REGS)) out[s.field] = (out[s.field] ?? 0n) | (BigInt(model.values.get(qpReg(q, s.reg.name as QpRegName))!) << BigInt(s.lsb));
  return out;
}
const asBig = (o: unknown): Record<string, bigint> => Object.fromEntries(Object.entries(o as Record<string, unknown>).map(([k, v]) => [k, BigInt(v as number | bigint)]));
const width = (name: string): number => QP_REGS.find(r => r.name === name)!.width;
/** Which register an address of the QP block is (or undefined). */
const qpRegAt = (numQp: number, addr: number): { qp: number; name: QpRegName } | undefined => {
  for (let q = 0; q < numQp; q++) for (const r of QP_REGS) if (qpReg(q, r.name) === addr) return { qp: q, name: r.name };
  return undefined;
};

describe('QP context view (ctx-view.ts)', () => {
  for (const numQp of [4, 3]) {
    it(`lanes -> view rows equal the flip-flop model every cycle, hardware wins ties, reset sweep (numQp ${numQp})`, async () => {
      const r = await runTest(design(ctxViewBench, { numQp }), async (dut, tb) => {
        const hwPorts = { SQ_CI: dut.hw_sq_ci, CQ_PI: dut.hw_cq_pi, SQ_PSN: dut.hw_sq_psn, EXP_PSN: dut.hw_exp_psn, MSN: dut.hw_msn } as const;
        const idle = (): void => {
          for (const p of Object.values(hwPorts)) p.value = { valid: 0, qp: 0, value: 0 };
          dut.hw_error.value = { valid: 0, qp: 0 };
        };
        idle();
        dut.rd_a.value = 0;
        dut.rd_b.value = 0;
        const m = new AxiLiteMaster(tb, dut.s_axil, { pause: 0.3, backpressure: 0.3 });
        await tb.reset(2);
        let model = new RegsModel(numQp, 2);
        let resetting = false, sweepDone = false, forced: number | undefined;
        const stats = { checks: 0, ties: 0, clrTies: 0, hwUpdates: 0, errors: 0, swWrites: 0, duringSweep: 0 };
        const p = dut.s_axil;
        tb.fork(async () => {
          let aw: number | undefined, w: { data: number; strb: number } | undefined;
          for (;;) {
            await tb.falling();
            if (resetting) { aw = w = undefined; sweepDone = false; idle(); continue; }
            // The rows after the last edge, at the QPs driven since the last falling edge.
            if (sweepDone) {
              for (const [port, q] of [[dut.row_a, Number(dut.rd_a.value)], [dut.row_b, Number(dut.rd_b.value)]] as const) {
                expect(asBig(port.value), `row of QP ${q} at cycle ${tb.cycle} (seed ${tb.seed})`).toEqual(expectedRow(model, q));
                stats.checks++;
              }
            } else if (p.awready.value === 1) sweepDone = true;
            // A write lands at the coming edge when it completes AW and W.
            if (p.awvalid.value === 1 && p.awready.value === 1) aw = Number(p.awaddr.value);
            if (p.wvalid.value === 1 && p.wready.value === 1) w = { data: Number(p.wdata.value) >>> 0, strb: Number(p.wstrb.value) };
            const landing = aw !== undefined && w !== undefined ? { addr: aw, ...w } : undefined;
            if (landing) aw = w = undefined;
            // Datapath events for the coming edge; some on the field and QP software writes now.
            idle();
            const events: { name: keyof typeof hwPorts; qp: number; value: number }[] = [];
            for (const name of HW_QP_FIELDS) {
              if (tb.rng.bool(0.12)) events.push({ name, qp: tb.rng.int(0, numQp - 1), value: tb.rng.int(0, 2 ** width(name) - 1) });
            }
            const sw = landing ? qpRegAt(numQp, landing.addr & ~3) : undefined;
            if (sw && (HW_QP_FIELDS as readonly string[]).includes(sw.name) && tb.rng.bool(0.5)) {
              const others = events.filter(e => e.name !== sw.name);
              events.length = 0;
              events.push(...others, { name: sw.name as keyof typeof hwPorts, qp: sw.qp, value: tb.rng.int(0, 2 ** width(sw.name) - 1) });
              stats.ties++;
            }
            if (sw && sw.name === 'STATE' && tb.rng.bool(0.5)) {
              const name = tb.rng.pick(['SQ_CI', 'CQ_PI', 'MSN'] as const);
              const others = events.filter(e => e.name !== name);
              events.length = 0;
              events.push(...others, { name, qp: sw.qp, value: tb.rng.int(1, 2 ** width(name) - 1) });
              stats.clrTies++;
            }
            for (const e of events) hwPorts[e.name].value = { valid: 1, qp: e.qp, value: e.value };
            const err = tb.rng.bool(0.02) ? tb.rng.int(0, numQp - 1) : undefined;
            if (err !== undefined) dut.hw_error.value = { valid: 1, qp: err };
            dut.rd_a.value = forced ?? tb.rng.int(0, numQp - 1);
            dut.rd_b.value = tb.rng.int(0, numQp - 1);
            await tb.rising();
            if (resetting) continue;
            // What nic_regs' registers did at that edge: the software write, then the updates (they win).
            if (landing) { model.write(landing.addr, landing.data, landing.strb); stats.swWrites++; }
            for (const e of events) model.hwSet(e.qp, e.name, e.value);
            if (err !== undefined) model.values.set(qpReg(err, 'STATE'), QP_STATE.ERROR);
            stats.hwUpdates += events.length;
            stats.errors += err !== undefined ? 1 : 0;
            if (!sweepDone) stats.duringSweep += events.length;
          }
        }, 'row monitor');

        const writes = async (n: number): Promise<void> => {
          for (let k = 0; k < n; k++) {
            const q = tb.rng.int(0, numQp - 1);
            const reg = tb.rng.pick(QP_REGS);
            let data = tb.rng.u32();
            if (reg.name === 'STATE') data = ((data & ~7) | tb.rng.int(0, 4)) >>> 0;
            const strb = tb.rng.bool(0.6) ? 0xf : tb.rng.int(0, 15);
            await m.write(qpReg(q, reg.name), data, strb);
          }
        };
        /** Shows every QP's row on rd_a once (after a reset: the reset values). */
        const everyRow = async (): Promise<void> => {
          await tb.until(() => sweepDone, { timeout: 1000, what: 'the reset sweep' });
          for (let q = 0; q < numQp; q++) { forced = q; await tb.clockCycles(1); }
          forced = undefined;
          await tb.clockCycles(2);
        };
        await everyRow();
        await writes(600);
        // A reset in the middle: the memories keep their words, the sweep rewrites them.
        resetting = true;
        await tb.reset(2);
        model = new RegsModel(numQp, 2);
        resetting = false;
        await everyRow();
        await writes(300);
        await tb.clockCycles(4);
        console.log(`ctx view numQp ${numQp}: ${JSON.stringify(stats)}`);
        expect(stats.ties, 'same-cycle software and hardware writes of one field of one QP').toBeGreaterThan(10);
        expect(stats.clrTies, 'hardware updates in the cycle of a STATE write').toBeGreaterThan(10);
        expect(stats.checks, `rows compared (seed ${tb.seed})`).toBeGreaterThan(4000);
      });
      console.log(`ctx view numQp ${numQp}: seed ${r.seed}, ${r.cycles} cycles`);
    });
  }
});
