// nic_completion against the AXI4 memory slave: CQEs in memory byte-exact against the TS
// model, phase bit across ring wraps, back-pressure on a full CQ (nothing unconsumed is
// overwritten), CQ_PI updates, interrupt moderation by count and timer (cycle-exact), and a
// write error moving the QP to ERROR. Memory is tb/bfm's AxiRam (with its AXI4 checker) on
// the write half of m_axi; requests come through tb/bfm's channel driver and checker.

import { describe, expect, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { nicCompletion } from '../../../gen/nic/completion.ts';
import { CQE_BYTES, CQE_STATUS, QP_STATE } from '../../../gen/nic/regmap.ts';
import { AxiRam, burstBytes, ClockPhases, watchChannel, type AxiBurst } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { writeMasterPorts } from './axi-halves.ts';
import { cqePhase, encodeCqe, IrqModerator, type CqeFields } from '../../model/completion.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { design as dslDesign } from '../../design.ts';
import { hex } from './support/hex.ts';
import { StructSource } from './stage-streams.ts';
import { emptyQpCtx } from './qp-ctx.ts';

const NUM_QP = 4;
const SLVERR = 2;
/** `00 11 22 …` with a `|` every 8 bytes, so a diff points at the differing field. */
const bytesHex = (b: Uint8Array): string => [...b].map((x, i) => (i && i % 8 === 0 ? '| ' : '') + x.toString(16).padStart(2, '0')).join(' ');
type Design = ReturnType<typeof dslDesign<Parameters<typeof nicCompletion.elaborate>[0] & object, NonNullable<typeof nicCompletion['__io']>>>;
const designs = new Map<number, Design>();
const designFor = (dataWidth: number): Design => {
  let d = designs.get(dataWidth);
  if (!d) { d = dslDesign(nicCompletion, dataWidth === 64 ? {} : { dataWidth }); designs.set(dataWidth, d); }
  return d;
};
type Dut = Parameters<Parameters<typeof runTest<NonNullable<Design['__io']>>>[1]>[0];

interface Scenario {
  irqMod: number;
  requests: number;
  /** Probability per cycle that software consumes one CQE of a QP (0 = never). */
  pConsume: number;
  /** Probability per cycle that memory is ready for a write / offers a response. */
  pReady: number;
  /** QP whose ring answers SLVERR. */
  errorQp?: number;
  /** QPs that get requests. */
  qps: number[];
}

interface Outcome {
  consumed: number[]; pi: number[]; errors: number[]; events: number[]; responses: { cycle: number; resp: number }[];
  sent: CqeFields[]; stalledFull: number;
}

async function runCompletion(dut: Dut, tb: TestBench, dataWidth: number, sc: Scenario): Promise<Outcome> {
  const mem = new HostMemory();
  const sizeLog2 = Array.from({ length: NUM_QP }, () => tb.rng.int(1, 4));
  // Rings 32-byte aligned anywhere in their own 64 KiB area; garbage around them.
  const base = sizeLog2.map((_, q) => BigInt(0x3000_0000 + q * 0x1_0000 + tb.rng.int(0, 100) * CQE_BYTES));
  for (let q = 0; q < NUM_QP; q++) mem.fillRandom(base[q]!, CQE_BYTES << sizeLog2[q]!, tb.rng);
  const errLo = sc.errorQp === undefined ? 0n : base[sc.errorQp]!, errHi = sc.errorQp === undefined ? 0n : errLo + BigInt(CQE_BYTES << sizeLog2[sc.errorQp]!);
  const inError = (b: AxiBurst): boolean => b.addr < errHi && b.addr + BigInt(burstBytes(b, dataWidth / 8)) > errLo;
  const ci = Array.from({ length: NUM_QP }, () => 0);
  const pi = Array.from({ length: NUM_QP }, () => 0);
  const errors = Array.from({ length: NUM_QP }, () => 0);
  const consumed = Array.from({ length: NUM_QP }, () => 0);
  const expected: CqeFields[][] = Array.from({ length: NUM_QP }, () => []);
  const events: number[] = [];
  const responses: { cycle: number; resp: number }[] = [];
  let stalledFull = 0;
  const publish = (): void => {
    dut.qp_ctx.value = Array.from({ length: NUM_QP }, (_, q) => ({
      ...emptyQpCtx(), state: QP_STATE.RTS, cqBase: base[q]!, cqSizeLog2: sizeLog2[q]!, cqCi: ci[q]!,
    })) as never;
  };
  publish();
  dut.irq_mod.value = sc.irqMod;
  const reqs = new StructSource(tb, dut.s_req, 's_req', { pause: 0.75 });   // 3 idle cycles between requests on average
  await tb.reset(2);
  // Memory with random backpressure and response gaps; the failing ring answers SLVERR.
  const busy = 1 - sc.pReady;
  new AxiRam(tb, writeMasterPorts(dut.m_axi), {
    name: 'nic_completion.m_axi', memory: mem, backpressure: busy, stall: busy, writeLatency: { random: busy > 0 ? 3 : 0 },
    respond: b => (inError(b) ? SLVERR : 0),
  });
  // Write responses for the moderation model, at the edge that completes each (the monitor
  // below sees irq_event after edges too); the watch reports the cycle before that edge.
  watchChannel(tb, { valid: dut.m_axi.bvalid, ready: dut.m_axi.bready, payload: [dut.m_axi.bresp] }, 'nic_completion.m_axi B', {
    onHandshake: cycle => { responses.push({ cycle: cycle + 1, resp: Number(dut.m_axi.bresp.value) }); },
  });
  // Cycles a request waits while its QP's ring is full.
  ClockPhases.of(tb).onSample(() => {
    if (dut.s_req.valid.value !== 1 || dut.s_req.ready.value === 1) return;
    const qp = Number(dut.s_req.data.value.qp);
    if (((pi[qp]! - ci[qp]!) & 0xffff) === 1 << sizeLog2[qp]!) stalledFull++;
  });

  // Monitor (after each edge): CQ_PI updates, errors, interrupt events.
  tb.fork(async () => {
    for (;;) {
      await tb.rising();
      const u = dut.cq_pi_upd.value as { valid: number; qp: number; value: number };
      if (u.valid) {
        if (u.value !== ((pi[u.qp]! + 1) & 0xffff)) throw new Error(`cq_pi_upd QP ${u.qp}: ${pi[u.qp]} → ${u.value} at cycle ${tb.cycle}`);
        pi[u.qp] = u.value;
        const used = (pi[u.qp]! - ci[u.qp]!) & 0xffff;
        if (used > 1 << sizeLog2[u.qp]!) throw new Error(`QP ${u.qp}: CQ_PI ${pi[u.qp]} is ${used} ahead of CQ_CI ${ci[u.qp]} in a ring of ${1 << sizeLog2[u.qp]!} (overwrite) at cycle ${tb.cycle}`);
      }
      const e = dut.qp_error.value as { valid: number; qp: number };
      if (e.valid) errors[e.qp]!++;
      if (dut.irq_event.value === 1) events.push(tb.cycle);
    }
  }, 'monitor');

  // Software: consumes CQEs and checks each one byte for byte, phase included.
  tb.fork(async () => {
    for (;;) {
      await tb.rising();
      if (!tb.rng.bool(sc.pConsume)) continue;
      const q = tb.rng.int(0, NUM_QP - 1);
      if (pi[q] === ci[q]) continue;
      const k = ci[q]!;
      const slot = k & ((1 << sizeLog2[q]!) - 1);
      const addr = base[q]! + BigInt(slot * CQE_BYTES);
      const want = encodeCqe(expected[q]![consumed[q]!]!, cqePhase(k, sizeLog2[q]!));
      const got = mem.read(addr, CQE_BYTES);
      expect(bytesHex(got), `QP ${q} CQE #${consumed[q]} (index ${k}, slot ${slot}) at ${hex(addr)}, cycle ${tb.cycle}, seed ${tb.seed}`).toBe(bytesHex(want));
      consumed[q]!++;
      ci[q] = (k + 1) & 0xffff;
      publish();
    }
  }, 'software');

  // Requests, queued up front (they leave in order, so each ring's CQEs are expected in that order).
  const sent: CqeFields[] = [];
  for (let n = 0; n < sc.requests; n++) {
    const req: CqeFields = {
      qp: tb.rng.pick(sc.qps), wrId: tb.rng.bigint(64), byteLen: tb.rng.u32(), opcode: tb.rng.int(0, 255),
      status: tb.rng.pick(Object.values(CQE_STATUS)), syndrome: tb.rng.int(0, 255),
    };
    reqs.push(req);
    if (req.qp !== sc.errorQp) expected[req.qp]!.push(req);
    sent.push(req);
  }
  await reqs.wait(200_000);
  // Drain: software keeps consuming.
  const total = (): number => expected.reduce((s, l) => s + l.length, 0);
  const done = (): number => consumed.reduce((s, x) => s + x, 0);
  if (sc.pConsume > 0) await tb.until(() => done() === total(), { timeout: 50_000, what: 'all CQEs consumed' });
  await tb.clockCycles(Math.max(100, ((sc.irqMod >>> 16) & 0xffff) + 10));
  return { consumed, pi, errors, events, responses, sent, stalledFull };
}

/** The event cycles the moderation model predicts from the write responses. */
function modelEvents(irqMod: number, responses: { cycle: number; resp: number }[], upTo: number): number[] {
  const mod = new IrqModerator(irqMod);
  const okAt = new Set(responses.filter(r => r.resp === 0).map(r => r.cycle));
  const out: number[] = [];
  for (let c = 1; c <= upTo; c++) if (mod.step(okAt.has(c))) out.push(c);
  return out;
}

describe('nic_completion', () => {
  it('passes verilator -Wall, iverilog and yosys at 64 and 512 bits (and 128, 3 QPs)', () => {
    for (const params of [{}, { dataWidth: 512 }, { dataWidth: 128, numQp: 3 }]) {
      const e = emitToDir(nicCompletion, params);
      verilatorLint(e); iverilogCompile(e); yosysSynth(e);
    }
  });

  for (const dw of [64, 512]) {
    it(`writes CQEs byte-exact with phase across wraps, in order, never overwriting (${dw} bits)`, async () => {
      await runTest(designFor(dw), async (dut, tb) => {
        const sc: Scenario = { irqMod: 0x0100_0001, requests: 150, pConsume: 0.15, pReady: 0.7, qps: [0, 1, 2, 3] };
        const o = await runCompletion(dut, tb, dw, sc);
        const total = o.consumed.reduce((a, b) => a + b, 0);
        expect(total, 'CQEs consumed').toBe(sc.requests);
        expect(o.pi.reduce((a, b) => a + b, 0), 'sum of CQ_PI').toBe(sc.requests);
        expect(Math.max(...o.pi), 'some ring wrapped').toBeGreaterThan(2);
        expect(o.events, 'irq events (count 1: one per completion, cycle-exact)').toEqual(modelEvents(sc.irqMod, o.responses, tb.cycle));
        console.log(`completion ${dw}b: seed ${tb.seed}, ${total} CQEs, ${o.stalledFull} cycles stalled on a full CQ, ${o.events.length} events`);
      });
    });
  }

  it('back-pressures on a full CQ and continues when software consumes', async () => {
    await runTest(designFor(64), async (dut, tb) => {
      // Nothing consumed for a while: the QP's ring fills, then requests wait.
      const sc: Scenario = { irqMod: 0x0000_0004, requests: 40, pConsume: 0.02, pReady: 1, qps: [1] };
      const o = await runCompletion(dut, tb, 64, sc);
      expect(o.stalledFull, 'cycles a request waited on a full CQ').toBeGreaterThan(0);
      expect(o.consumed[1]).toBe(40);
      expect(o.events).toEqual(modelEvents(sc.irqMod, o.responses, tb.cycle));
      console.log(`completion back-pressure: seed ${tb.seed}, ${o.stalledFull} stalled cycles`);
    });
  });

  for (const irqMod of [0x0000_0004, 0x0032_0008, 0x0014_0020, 0x0007_0000, 0x0000_0028, 0x0003_0003]) {
    it(`moderates interrupts: count ${irqMod & 0x3f}, timer ${irqMod >>> 16} (cycle-exact)`, async () => {
      await runTest(designFor(64), async (dut, tb) => {
        const sc: Scenario = { irqMod, requests: 60, pConsume: 0.3, pReady: 0.8, qps: [0, 1, 2, 3] };
        const o = await runCompletion(dut, tb, 64, sc);
        const want = modelEvents(irqMod, o.responses, tb.cycle);
        expect(o.events, `event cycles (seed ${tb.seed})`).toEqual(want);
        expect(want.length).toBeGreaterThan(0);
      });
    });
  }

  // CQ_PI lives in a memory (pi_done_mem) with a "reads 0" flip-flop per QP: a QP reset to RESET
  // (also while its CQE is being written) and `rst` must make the next CQE land at slot 0
  // with phase 1, CQ_PI 1, as the flip-flop vector held at 0 in RESET did.
  it('CQ_PI starts at 0 again after RESET (also with a CQE under way) and after rst', async () => {
    await runTest(designFor(64), async (dut, tb) => {
      const mem = new HostMemory();
      const base = [0x4000_0000n, 0x4001_0000n, 0x4002_0000n, 0x4003_0000n];
      const state: number[] = [QP_STATE.RTS, QP_STATE.RTS, QP_STATE.RTS, QP_STATE.RTS];
      const ci = [0, 0, 0, 0];
      const publish = (): void => {
        dut.qp_ctx.value = base.map((b, q) => ({ ...emptyQpCtx(), state: state[q]!, cqBase: b, cqSizeLog2: 3, cqCi: ci[q]! })) as never;
      };
      publish();
      dut.irq_mod.value = 1;
      const reqs = new StructSource(tb, dut.s_req, 's_req');
      await tb.reset(2);
      new AxiRam(tb, writeMasterPorts(dut.m_axi), { name: 'nic_completion.m_axi', memory: mem, backpressure: 0, stall: 0 });
      const aws: bigint[] = [];
      watchChannel(tb, { valid: dut.m_axi.awvalid, ready: dut.m_axi.awready, payload: [dut.m_axi.awaddr] }, 'nic_completion.m_axi AW', {
        onHandshake: () => { aws.push(BigInt(dut.m_axi.awaddr.value)); },
      });
      const upd: { qp: number; value: number }[] = [];
      tb.fork(async () => {
        for (;;) {
          await tb.rising();
          const u = dut.cq_pi_upd.value as { valid: number; qp: number; value: number };
          if (u.valid) upd.push({ qp: u.qp, value: u.value });
        }
      }, 'monitor');
      const req = (qp: number): CqeFields => ({ qp, wrId: 7n, byteLen: 64, opcode: 0, status: CQE_STATUS.SUCCESS, syndrome: 0 });
      const slotOf = (qp: number): number => Number((aws.at(-1)! - base[qp]!) / BigInt(CQE_BYTES));
      const complete = async (qp: number): Promise<void> => {
        const n = aws.length;
        reqs.push(req(qp));
        await tb.until(() => aws.length > n, { timeout: 200, what: `CQE of QP ${qp}` });
        await tb.clockCycles(12);
      };
      // QP 1: three CQEs (slots 0, 1, 2), then RESET and back: the next is at slot 0.
      for (let k = 0; k < 3; k++) { await complete(1); expect(slotOf(1), `QP 1 CQE ${k}`).toBe(k); }
      await complete(2);
      state[1] = QP_STATE.RESET; publish();
      await tb.clockCycles(3);
      state[1] = QP_STATE.RTS; publish();
      await complete(1);
      expect(slotOf(1), 'QP 1 after RESET').toBe(0);
      expect(upd.at(-1), 'CQ_PI of QP 1 after RESET').toEqual({ qp: 1, value: 1 });
      await complete(2);
      expect(slotOf(2), 'QP 2 untouched by QP 1\'s RESET').toBe(1);
      // RESET while QP 2's CQE is being written: nothing published, CQ_PI still 0 after it.
      const before = upd.length;
      reqs.push(req(2));
      await tb.until(() => dut.m_axi.awvalid.value === 1, { timeout: 200, what: 'AW of QP 2' });
      state[2] = QP_STATE.RESET; publish();
      await tb.clockCycles(10);
      state[2] = QP_STATE.RTS; publish();
      await complete(2);
      expect(slotOf(2), 'QP 2 after a RESET during its CQE').toBe(0);
      expect(upd.slice(before), 'CQ_PI updates from the RESET on (none for the CQE written meanwhile)').toEqual([{ qp: 2, value: 1 }]);
      // rst: every CQ_PI is 0 again (memories have no reset).
      await complete(3);
      await tb.reset(2);
      for (const q of [1, 2, 3]) { await complete(q); expect(slotOf(q), `QP ${q} after rst`).toBe(0); }
    });
  });

  it('a write error moves the QP to ERROR and leaves its CQ_PI alone', async () => {
    await runTest(designFor(64), async (dut, tb) => {
      const sc: Scenario = { irqMod: 0x0000_0001, requests: 30, pConsume: 0.3, pReady: 1, qps: [0, 2], errorQp: 2 };
      const o = await runCompletion(dut, tb, 64, sc);
      const toErr = o.sent.filter(r => r.qp === 2).length;
      expect(o.errors[2], 'qp_error pulses for the failing ring').toBe(toErr);
      expect(o.pi[2], 'CQ_PI of the failing ring').toBe(0);
      expect(o.errors[0]).toBe(0);
      expect(o.consumed[0]).toBe(30 - toErr);
      expect(o.events).toEqual(modelEvents(sc.irqMod, o.responses, tb.cycle));
    });
  });
});
