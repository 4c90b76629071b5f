// nic_top's credit-gated translation-answer buffer (creditedXlateClient in
// gen/nic/top-axi-buffers.ts), wrapped alone between a random "engine" (offers requests,
// takes answers with random back-pressure) and a random "TLB" (takes requests at random,
// answers each in order 0..6 cycles later). Driven and checked cycle by cycle:
//  - the TLB never waits: its answer is taken in the cycle it is offered (the block's reason;
//    its assertion would stop the run too);
//  - answers reach the engine in request order, each once, unchanged;
//  - at most XLATE_CREDITS (4) requests are between the gate and the engine's answer port;
//  - fall-through: an offered answer is visible to the engine in the same cycle, and when no
//    answer is stored it is the TLB's answer itself.
// Lint of the wrapper with verilator -Wall, iverilog and yosys.

import { describe, expect, it } from 'vitest';
import { defineModule, UInt } from '../../../gen/hdl/index.ts';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { stream } from '../../../gen/lib/interfaces.ts';
import { creditedXlateClient } from '../../../gen/nic/top-axi-buffers.ts';
import { portsOf } from '../../../gen/nic/top-wiring.ts';
import { big, bit, checkEq, checkThat } from '../../benches/check.ts';
import { HoldingSource, PhasedRates } from '../../benches/lib/stimulus.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';

const REQ_W = 12;
const RESP_W = 20;
const CREDITS = 4;
const CYCLES = 20_000;

const xlateWrapper = defineModule('tb_xlate_client_buffer', {}, m => {
  const { clk, rst } = m.clockAndReset();
  // Port names as nic_top sees them: the engine's m_xlate_req / s_xlate_resp, TLB client 0.
  const engReq = stream(UInt(REQ_W)).sink(m, 'm_xlate_req');
  const engResp = stream(UInt(RESP_W)).source(m, 's_xlate_resp');
  const tlbReq = stream(UInt(REQ_W)).source(m, 's0_xlate_req');
  const tlbResp = stream(UInt(RESP_W)).sink(m, 'm0_xlate_resp');
  creditedXlateClient(m, 'buf', portsOf({ engReq, engResp }), portsOf({ tlbReq, tlbResp }), 0,
    (name, def, params) => portsOf(m.instance(name, def, params), name));
  return { clk, rst, engReq, engResp, tlbReq, tlbResp };
});

/** The TLB stand-in: answers the requests it took in order, each after 0..6 cycles; the
 *  answer carries the request in its low bits and random high bits. */
class TlbStandIn {
  readonly #tb: TestBench;
  readonly #due: { at: number; answer: bigint }[] = [];
  constructor(tb: TestBench) { this.#tb = tb; }
  take(req: bigint): void {
    const last = this.#due.at(-1)?.at ?? 0;
    const at = Math.max(last, this.#tb.cycle + 1 + this.#tb.rng.int(0, 6));
    this.#due.push({ at, answer: (this.#tb.rng.bigint(RESP_W - REQ_W) << BigInt(REQ_W)) | req });
  }
  /** The answer on offer this cycle (held until taken, like any AXI-style source). */
  get offer(): bigint | undefined {
    const head = this.#due[0];
    return head && head.at <= this.#tb.cycle ? head.answer : undefined;
  }
  taken(): void { this.#due.shift(); }
}

describe('nic_top translation-answer buffer', () => {
  it('wrapper lints clean (verilator -Wall, iverilog, yosys)', () => {
    const e = emitToDir(xlateWrapper, {});
    verilatorLint(e); iverilogCompile(e); yosysSynth(e);
  });

  it('answers in order, the TLB never waits, an answer reaches the engine in its cycle', async () => {
    await runTest(design(xlateWrapper, {}), async (dut, tb) => {
      const phases = new PhasedRates(tb.rng.fork());
      const engine = new HoldingSource(tb.rng.fork(), REQ_W);
      const tlb = new TlbStandIn(tb);
      const sent: bigint[] = [];   // requests the TLB took, in order
      const answers: bigint[] = []; // answers the TLB handed over, not yet taken by the engine
      let taken = 0, inFlight = 0, gated = 0, fellThrough = 0, fromStore = 0;
      dut.engReq.valid.value = 0; dut.engResp.ready.value = 0; dut.tlbReq.ready.value = 0; dut.tlbResp.valid.value = 0;
      await tb.reset(2);
      for (let i = 0; i < CYCLES; i++) {
        const r = phases.next();
        const req = engine.offer(r.valid);
        const engReady = r.ready > 0 && tb.rng.bool(r.ready);
        const tlbReady = tb.rng.bool(0.7);
        const answer = tlb.offer;
        dut.engReq.valid.value = req === undefined ? 0 : 1;
        dut.engReq.data.value = Number(req ?? tb.rng.bigint(REQ_W));
        dut.engResp.ready.value = engReady ? 1 : 0;
        dut.tlbReq.ready.value = tlbReady ? 1 : 0;
        dut.tlbResp.valid.value = answer === undefined ? 0 : 1;
        dut.tlbResp.data.value = Number(answer ?? tb.rng.bigint(RESP_W));
        tb.settle();

        const ctx = (): string => `after ${sent.length} requests and ${taken} answers (seed ${tb.seed})`;
        const stored = answers.length;
        if (answer !== undefined) {
          checkThat(tb, bit(dut.tlbResp.ready.value), () => `the TLB's answer 0x${answer.toString(16)} was refused; ${ctx()}`);
          checkThat(tb, bit(dut.engResp.valid.value), () => `an answer offered by the TLB is not visible to the engine in its cycle; ${ctx()}`);
        }
        const head = answers[0] ?? answer;
        checkEq(tb, 'engine-side answer valid', bit(dut.engResp.valid.value), head !== undefined, ctx);
        if (head !== undefined) checkEq(tb, `engine-side answer ${taken}`, big(dut.engResp.data.value), head, ctx);
        // The gate passes a request only with a credit; the TLB sees it as the engine offers it.
        const passes = bit(dut.tlbReq.valid.value);
        if (passes) checkEq(tb, 'request data at the TLB', big(dut.tlbReq.data.value), req ?? -1n, ctx);
        if (req !== undefined && !passes) gated++;
        if (req !== undefined) checkEq(tb, 'engine request taken exactly when the TLB takes it', bit(dut.engReq.ready.value), passes && tlbReady, ctx);

        if (passes && tlbReady) { engine.accepted(); sent.push(req!); tlb.take(req!); inFlight++; }
        if (answer !== undefined) { answers.push(answer); tlb.taken(); }
        if (head !== undefined && engReady) {
          const got = answers.shift()!;
          checkEq(tb, `answer ${taken}'s request bits`, got & ((1n << BigInt(REQ_W)) - 1n), sent[taken]!, ctx);
          if (stored === 0) fellThrough++; else fromStore++;
          taken++; inFlight--;
        }
        checkThat(tb, inFlight <= CREDITS, () => `${inFlight} translations in flight, credits allow ${CREDITS}; ${ctx()}`);
        await tb.rising();
      }
      expect(taken, `answers taken in ${CYCLES} cycles (seed ${tb.seed})`).toBeGreaterThan(CYCLES / 20);
      expect(gated, `cycles a request waited for a credit (coverage, seed ${tb.seed})`).toBeGreaterThan(0);
      expect(fellThrough, `answers that fell through (coverage, seed ${tb.seed})`).toBeGreaterThan(0);
      expect(fromStore, `answers taken from the FIFO (coverage, seed ${tb.seed})`).toBeGreaterThan(0);
    }, { maxCycles: CYCLES + 100 });
  });
});
