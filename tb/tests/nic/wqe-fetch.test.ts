// nic_wqe_fetch against the AXI4 memory slave: WQEs written by the TS model into send rings,
// random PI updates on 1–4 QPs, ring wrap, 4 KiB boundaries, bursts of several WQEs, QPs not
// in RTS, AXI read errors, the fairness of the weighted round robin, and the go-back-N
// controls: a rewind (re-read the ring from an index, also while a burst of the QP is under
// way) and hold (a parked QP is not read).
// A slot is free again once its WQE was handed on (the ACK tracker's SQ_CI in nic_top, which
// comes later; here the consumer stands in for it).

import { describe, expect, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { CQE_STATUS, MAX_SGE, QP_STATE, WQE_BYTES } from '../../../gen/nic/regmap.ts';
import { DOORBELL_TO_AR, MAX_BURST, nicWqeFetch } from '../../../gen/nic/wqe-fetch.ts';
import { AxiRam, ClockPhases, watchChannel } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { readMasterPorts } from './axi-halves.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { burstWqes, encodeWqe, normaliseWqe, randomWqe, wqeStatus, type DecodedWqe } from '../../model/wqe-fetch.ts';
import { design as dslDesign } from '../../design.ts';
import { hex } from './support/hex.ts';
import { StructSink } from './stage-streams.ts';
import { emptyQpCtx } from './qp-ctx.ts';
import { sqPiLane } from './sq-pi-lane.ts';

const NUM_QP = 4;
/** Bytes of a WQE that can be used: header and MAX_SGE SGEs. */
const WQE_USED_MAX = 0x20 + 16 * MAX_SGE;
type Design = ReturnType<typeof dslDesign<Parameters<typeof nicWqeFetch.elaborate>[0] & object, NonNullable<typeof nicWqeFetch['__io']>>>;
const designs = new Map<number, Design>();
const designFor = (dataWidth: number): Design => {
  let d = designs.get(dataWidth);
  if (!d) { d = dslDesign(nicWqeFetch, dataWidth === 64 ? {} : { dataWidth }); designs.set(dataWidth, d); }
  return d;
};
type Dut = Parameters<Parameters<typeof runTest<NonNullable<Design['__io']>>>[1]>[0];

interface QpSetup { state: number; sizeLog2: number; base: bigint }
interface Scenario {
  qps: QpSetup[];
  weights: number[];
  /** Posts per active QP driver (random mode) or total WQEs to measure (fairness mode). */
  posts: number;
  fairness: boolean;
  pReady: number;
  errorQp?: number;
}

interface Outcome { got: DecodedWqe[]; validAt: number[]; rlastAt: number[]; expected: Map<number, DecodedWqe[]>; bursts: { qp: number; slot: number; n: number }[]; ci: number[]; pi: number[] }

const SLVERR = 2;

/** Read bursts as the DUT issued them (AR handshakes), with the sample cycle of each. */
interface Burst { addr: bigint; len: number; cycle: number }

/** tb/bfm's AxiRam on the DUT's read port (its AXI4 checker included), answering in order
 *  with random ready and beat gaps; bursts touching `errorRanges` answer SLVERR. Every AR
 *  must be an INCR burst of full bus-width beats (what the stage is specified to issue). */
function memory(tb: TestBench, dut: Dut, mem: HostMemory, busBytes: number, pBusy: number, errorRanges: { lo: bigint; hi: bigint }[]): Burst[] {
  const inError = (addr: bigint, bytes: number): boolean => errorRanges.some(r => addr < r.hi && addr + BigInt(bytes) > r.lo);
  new AxiRam(tb, readMasterPorts(dut.m_axi), {
    name: 'nic_wqe_fetch.m_axi', memory: mem, reorder: false, backpressure: pBusy, stall: pBusy,
    respond: b => (inError(b.addr, (b.len + 1) << b.size) ? SLVERR : 0),
  });
  const a = dut.m_axi;
  const reads: Burst[] = [];
  watchChannel(tb, { valid: a.arvalid, ready: a.arready, payload: [a.araddr, a.arlen, a.arsize, a.arburst] }, 'nic_wqe_fetch.m_axi AR', {
    onHandshake: cycle => {
      const b = { addr: BigInt(a.araddr.value), len: Number(a.arlen.value), cycle };
      if (Number(a.arburst.value) !== 1) throw new Error(`read burst at cycle ${cycle}: burst type ${a.arburst.value}, expected INCR`);
      if (1 << Number(a.arsize.value) !== busBytes) throw new Error(`read burst at cycle ${cycle}: size ${a.arsize.value} is not the bus width`);
      reads.push(b);
    },
  });
  return reads;
}

async function runFetch(dut: Dut, tb: TestBench, dataWidth: number, sc: Scenario): Promise<Outcome> {
  const busBytes = dataWidth / 8;
  const mem = new HostMemory();
  const errorRanges = sc.errorQp === undefined ? [] : [{ lo: sc.qps[sc.errorQp]!.base, hi: sc.qps[sc.errorQp]!.base + BigInt(WQE_BYTES << sc.qps[sc.errorQp]!.sizeLog2) }];
  const ctx = sc.qps.map(q => ({ ...emptyQpCtx(), state: q.state, sqSizeLog2: q.sizeLog2, sqBase: q.base }));
  const pi = sc.qps.map(() => 0);
  const ci = sc.qps.map(() => 0);
  const expected = new Map<number, DecodedWqe[]>(sc.qps.map((_, i) => [i, []]));
  const got: DecodedWqe[] = [];
  // Cycle each received WQE first showed valid, and cycle of every rlast beat (one burst at a time).
  const validAt: number[] = [];
  const rlastAt: number[] = [];
  // SQ_PI reaches the stage as writes on sq_pi_wr, one QP per cycle (sq-pi-lane.ts).
  const lane = sqPiLane(tb, dut.sq_pi_wr, sc.qps.length, shown => { dut.qp_ctx.value = ctx.map((c, i) => ({ ...c, sqPi: shown[i]! })) as never; });
  const publish = (): void => { pi.forEach((v, i) => { lane.want[i] = v; }); };
  dut.weight.value = sc.weights;
  dut.m_wqe.ready.value = 0;
  dut.qp_ctx.value = ctx.map(c => ({ ...c, sqPi: 0 })) as never;
  await tb.reset(2);
  const reads = memory(tb, dut, mem, busBytes, 1 - sc.pReady, errorRanges);

  /** Writes n WQEs into QP q's ring and rings the "doorbell" (PI in the context). */
  const post = (q: number, n: number): void => {
    const s = sc.qps[q]!;
    for (let k = 0; k < n; k++) {
      const idx = (pi[q]! + k) & 0xffff;
      const w0 = randomWqe(tb.rng, 0.1);
      // Mostly legal SGE counts (each decodes at its own beat), some out of range.
      const w = tb.rng.bool(0.8) ? { ...w0, numSge: tb.rng.int(0, MAX_SGE) } : w0;
      const slot = idx & ((1 << s.sizeLog2) - 1);
      mem.write(s.base + BigInt(slot * WQE_BYTES), encodeWqe(w, tb.rng.bytes(WQE_BYTES)));
      expected.get(q)!.push({ ...w, sge: fetchedSges(w), qp: q, ringIndex: idx, status: wqeStatus(w.opcode, s.state, q === sc.errorQp) });
    }
    pi[q] = (pi[q]! + n) & 0xffff;
    publish();
  };
  const free = (q: number): number => (1 << sc.qps[q]!.sizeLog2) - ((pi[q]! - ci[q]!) & 0xffff);
  dut.rewind.value = { valid: 0, qp: 0, ringIdx: 0 };
  dut.hold.value = 0;
  // rlast beats, and the cycle each WQE first showed valid, read from the ports in the
  // sample phase (independent of the order in which the bus models sample).
  let shownAt = -1;
  ClockPhases.of(tb).onSample(() => {
    const r = dut.m_axi, w = dut.m_wqe;
    if (r.rvalid.value === 1 && r.rready.value === 1 && r.rlast.value === 1) rlastAt.push(tb.cycle);
    if (w.valid.value !== 1) return;
    if (shownAt < 0) shownAt = tb.cycle;
    if (w.ready.value === 1) { validAt.push(shownAt); shownAt = -1; }
  });
  // Consumer with random ready.
  new StructSink<unknown>(tb, dut.m_wqe as never, 'm_wqe', {
    pause: 1 - sc.pReady,
    onItem: v => {
      const w = normaliseWqe(v as never);
      got.push(w);
      if (w.ringIndex !== ci[w.qp]) throw new Error(`QP ${w.qp}: WQE at ring index ${w.ringIndex} handed on, expected ${ci[w.qp]} (cycle ${tb.cycle}, seed ${tb.seed})`);
      ci[w.qp] = (ci[w.qp]! + 1) & 0xffff;
      if (sc.fairness) post(w.qp, free(w.qp));
    },
  });

  const active = sc.qps.map((q, i) => (q.state !== QP_STATE.RESET ? i : -1)).filter(i => i >= 0);
  if (sc.fairness) {
    for (const q of active) post(q, free(q));
    await tb.until(() => got.length >= sc.posts, { timeout: 200_000, what: `${sc.posts} WQEs` });
  } else {
    for (let k = 0; k < sc.posts; k++) {
      const q = tb.rng.pick(active);
      const f = free(q);
      if (f > 0) post(q, tb.rng.int(1, Math.min(f, 6)));
      await tb.clockCycles(tb.rng.int(0, 40));
    }
    // A QP in RESET with a non-zero PI must be ignored.
    for (let q = 0; q < sc.qps.length; q++) if (sc.qps[q]!.state === QP_STATE.RESET) { pi[q] = 3; publish(); }
    const total = (): number => [...expected.values()].reduce((s, l) => s + l.length, 0);
    await tb.until(() => got.length >= total(), { timeout: 100_000, what: 'all posted WQEs fetched' });
    await tb.clockCycles(50);
  }
  const bursts = reads.map(b => {
    const q = sc.qps.findIndex(s => b.addr >= s.base && b.addr < s.base + BigInt(WQE_BYTES << s.sizeLog2));
    if (q < 0) throw new Error(`read burst at ${hex(b.addr)} (cycle ${b.cycle}) is outside every ring`);
    // The last WQE of a burst is read only up to its last SGE (byte 0x60).
    const n = Math.ceil(((b.len + 1) * busBytes) / WQE_BYTES);
    const beats = (n - 1) * (WQE_BYTES / busBytes) + Math.ceil(WQE_USED_MAX / busBytes);
    if (b.len + 1 !== beats) throw new Error(`read burst at ${hex(b.addr)} (cycle ${b.cycle}): ${b.len + 1} beats, want ${beats} for ${n} WQEs (the last one up to byte 0x${WQE_USED_MAX.toString(16)})`);
    return { qp: q, slot: Number(b.addr - sc.qps[q]!.base) / WQE_BYTES, n };
  });
  return { got, validAt, rlastAt, expected, bursts, ci, pi };
}

/** The stage hands a WQE on once its used SGEs are in: the SGEs at or past num_sge read zero. */
function fetchedSges(w: { numSge: number; sge: DecodedWqe['sge'] }): DecodedWqe['sge'] {
  return w.sge.map((s, i) => (i < w.numSge ? s : { addr: 0n, len: 0, lkey: 0 }));
}

/** Beat (0-based) at which a WQE with `numSge` SGEs is complete: header + min(numSge, 4) SGEs. */
const decodeBeat = (numSge: number, busBytes: number): number => Math.ceil((0x20 + 16 * Math.min(numSge, MAX_SGE)) / busBytes) - 1;
/** Beats of a burst's last WQE (it is read only up to byte WQE_USED_MAX). */
const lastWqeBeats = (busBytes: number): number => Math.ceil(WQE_USED_MAX / busBytes);

/** Early hand-over: the last WQE of a burst shows valid at most one cycle after its decode
 *  beat, so at least (its beats read - 1 - decode beat) - 1 cycles before the burst's rlast.
 *  Returns how many WQEs were handed on before their last beat. */
function checkEarlyHandover(o: Outcome, dataWidth: number, seed: number): number {
  const busBytes = dataWidth / 8;
  expect(o.rlastAt.length, 'one rlast per burst').toBe(o.bursts.length);
  const gotOf = new Map<number, number[]>(); // QP -> indices into o.got, in order
  o.got.forEach((w, i) => gotOf.set(w.qp, [...(gotOf.get(w.qp) ?? []), i]));
  const next = new Map<number, number>();
  let early = 0;
  o.bursts.forEach((b, k) => {
    const first = next.get(b.qp) ?? 0;
    next.set(b.qp, first + b.n);
    // The burst's last WQE: its decode beat is that many beats before the burst's rlast.
    const i = gotOf.get(b.qp)?.[first + b.n - 1];
    if (i === undefined) return;
    const d = decodeBeat(o.got[i]!.numSge, busBytes);
    const latest = o.rlastAt[k]! - (lastWqeBeats(busBytes) - 1 - d) + 1;
    expect(o.validAt[i], `QP ${b.qp} last WQE of burst ${k} (num_sge ${o.got[i]!.numSge}, decode beat ${d}): valid at cycle ${o.validAt[i]}, rlast at ${o.rlastAt[k]}, must be valid by ${latest} (seed ${seed})`).toBeLessThanOrEqual(latest);
    if (d < lastWqeBeats(busBytes) - 1) early++;
  });
  return early;
}

function checkOrder(o: Outcome, sc: Scenario, seed: number): void {
  for (const [q, exp] of o.expected) {
    const at = o.got.flatMap((w, k) => (w.qp === q ? [k] : []));
    const got = at.map(k => o.got[k]!);
    const n = sc.fairness ? got.length : exp.length;
    expect(got.length, `QP ${q}: WQEs received (seed ${seed})`).toBe(n);
    for (let i = 0; i < n; i++) expect(got[i], `QP ${q} WQE #${i} (ring index ${exp[i]!.ringIndex}, valid from cycle ${o.validAt[at[i]!]}), seed ${seed}`).toEqual(exp[i]);
  }
  for (const b of o.bursts) {
    const s = sc.qps[b.qp]!;
    expect(Number.isInteger(b.n) && b.n >= 1 && b.n <= 4, `burst of ${b.n} WQEs`).toBe(true);
    // The ring-end / 4 KiB / 4-WQE limits of the model, as if plenty were posted.
    expect(b.n, `QP ${b.qp} burst at slot ${b.slot}: ${b.n} WQEs passes the ring end or a 4 KiB page`).toBeLessThanOrEqual(burstWqes(s.base, s.sizeLog2, b.slot + 4, b.slot));
  }
}

function randomScenario(tb: TestBench, states: number[], errorQp?: number): Scenario {
  const qps = states.map((state, i) => ({
    state, sizeLog2: tb.rng.int(2, 5),
    // Separate 64 KiB areas; a random 128-byte offset lets rings cross 4 KiB pages.
    base: BigInt(0x1000_0000 + i * 0x1_0000) + BigInt(tb.rng.int(0, 31) * WQE_BYTES),
  }));
  return { qps, weights: qps.map(() => 1), posts: 40, fairness: false, pReady: 0.7, ...(errorQp === undefined ? {} : { errorQp }) };
}

describe('nic_wqe_fetch', () => {
  it('passes verilator -Wall, iverilog and yosys at 64 and 512 bits, 4 and 3 QPs', () => {
    for (const params of [{}, { dataWidth: 512 }, { numQp: 3 }]) {
      const e = emitToDir(nicWqeFetch, params);
      verilatorLint(e); iverilogCompile(e); yosysSynth(e);
    }
  });

  for (const dw of [64, 512]) {
    it(`fetches random posts on 1–4 QPs in order, byte-exact, with wrap and 4 KiB splits (${dw} bits)`, async () => {
      let multi = 0;
      let early = 0;
      let fetched = 0;
      const statuses = new Set<number>();
      for (let run = 0; run < 2; run++) {
        const r = await runTest(designFor(dw), async (dut, tb) => {
          const nActive = tb.rng.int(1, NUM_QP);
          const states = Array.from({ length: NUM_QP }, (_, i) => (i < nActive ? QP_STATE.RTS : QP_STATE.RESET));
          const sc = randomScenario(tb, states);
          const o = await runFetch(dut, tb, dw, sc);
          checkOrder(o, sc, tb.seed);
          early += checkEarlyHandover(o, dw, tb.seed);
          for (let q = 0; q < NUM_QP; q++) expect(o.ci[q], `WQEs of QP ${q} handed on`).toBe(states[q] === QP_STATE.RESET ? 0 : o.pi[q]);
          multi += o.bursts.filter(b => b.n > 1).length;
          fetched += o.got.length;
          for (const w of o.got) statuses.add(w.status);
          console.log(`wqe_fetch ${dw}b run ${run}: seed ${tb.seed}, ${nActive} QPs, ${o.got.length} WQEs in ${o.bursts.length} bursts`);
        });
        expect(r.cycles).toBeGreaterThan(0);
      }
      expect(multi, 'some bursts carry several WQEs').toBeGreaterThan(0);
      expect(early, 'bursts whose last WQE was handed on before its last beat').toBeGreaterThan(5);
      expect(fetched).toBeGreaterThan(20);
      expect([...statuses].sort(), 'RTS QPs give SUCCESS and, for random bad opcodes, BAD_OPCODE').toEqual([CQE_STATUS.SUCCESS, CQE_STATUS.BAD_OPCODE]);
    });
  }

  for (const dw of [64, 512]) {
    it(`offers the WQE read DOORBELL_TO_AR cycles after an idle stage first sees SQ_PI != CI, from registers, held until taken (${dw} bits)`, async () => {
      await runTest(designFor(dw), async (dut, tb) => {
        const busBytes = dw / 8;
        const mem = new HostMemory();
        const qps = Array.from({ length: NUM_QP }, (_, i) => ({ sizeLog2: 4, base: BigInt(0x3000_0000 + i * 0x1_0000) }));
        const pi = qps.map(() => 0);
        const publish = (): void => { dut.qp_ctx.value = qps.map((q, i) => ({ ...emptyQpCtx(), state: QP_STATE.RTS, sqSizeLog2: q.sizeLog2, sqBase: q.base, sqPi: pi[i]! })) as never; };
        dut.weight.value = qps.map(() => 1);
        dut.m_wqe.ready.value = 0;
        dut.sq_pi_wr.value = { valid: 0, qp: 0, pi: 0 };
        publish();
        await tb.reset(2);
        // Random arready: some reads are taken at once (IDLE straight to DATA), some wait in ADDR;
        // the AXI checker of the memory model fails any change of AR while it waits.
        const reads = memory(tb, dut, mem, busBytes, 0.5, []);
        dut.rewind.value = { valid: 0, qp: 0, ringIdx: 0 };
        dut.hold.value = 0;
        let got = 0;
        new StructSink<unknown>(tb, dut.m_wqe as never, 'm_wqe', { onItem: () => { got++; } });
        let rlasts = 0;
        ClockPhases.of(tb).onSample(() => { if (dut.m_axi.rvalid.value === 1 && dut.m_axi.rready.value === 1 && dut.m_axi.rlast.value === 1) rlasts++; });
        let posted = 0;
        const taken = { atOnce: 0, afterWaiting: 0 };
        for (let k = 0; k < 24; k++) {
          const q = tb.rng.int(0, NUM_QP - 1);
          const slot = pi[q]! & 15;
          // Never past the ring's end: one read per post.
          const n = tb.rng.int(1, Math.min(MAX_BURST, 16 - slot));
          for (let j = 0; j < n; j++) mem.write(qps[q]!.base + BigInt(((slot + j) & 15) * WQE_BYTES), encodeWqe(randomWqe(tb.rng)));
          // The SQ_PI write is driven after a rising edge and taken at the next one (as nic_regs'
          // software lane writes SQ_PI): the stage sees the new SQ_PI from the falling edge after it.
          await tb.rising();
          pi[q] = (pi[q]! + n) & 0xffff;
          dut.sq_pi_wr.value = { valid: 1, qp: q, pi: pi[q]! };
          await tb.rising();
          dut.sq_pi_wr.value = { valid: 0, qp: 0, pi: 0 };
          publish();
          posted += n;
          const a = dut.m_axi;
          const why = `post ${k}: QP ${q} PI ${pi[q]} at cycle ${tb.cycle} (seed ${tb.seed})`;
          // Push, LOAD and PLAN: the read is offered from registers DOORBELL_TO_AR cycles on.
          for (let c = 0; c < DOORBELL_TO_AR; c++) {
            await tb.falling();
            expect(a.arvalid.value, `${why}: arvalid ${c} cycles after the stage first sees the PI`).toBe(0);
            await tb.rising();
          }
          await tb.falling();
          expect(a.arvalid.value, `${why}: arvalid ${DOORBELL_TO_AR} cycles after the stage first sees the PI`).toBe(1);
          expect(BigInt(a.araddr.value), `${why}: araddr`).toBe(qps[q]!.base + BigInt(slot * WQE_BYTES));
          const offeredAt = tb.cycle;
          // Idle again once the burst's last beat is in and its WQEs are out; then a random pause.
          const reads0 = reads.length;
          await tb.until(() => rlasts === reads0 + 1 && got === posted, { timeout: 2_000, what: `${why}: burst done` });
          await tb.clockCycles(1);
          expect(reads.length, `${why}: reads issued`).toBe(reads0 + 1);
          taken[reads[reads0]!.cycle === offeredAt ? 'atOnce' : 'afterWaiting']++;
          // The QP's turn ends 2 cycles after its last beat (LOAD again, PLAN finds no work).
          await tb.clockCycles(tb.rng.int(2, 5));
        }
        console.log(`wqe_fetch AR timing ${dw}b: seed ${tb.seed}, ${posted} WQEs in ${reads.length} reads, taken at once ${taken.atOnce}, after waiting ${taken.afterWaiting}`);
        // Both ways out of IDLE: straight to DATA, and through ADDR.
        expect(taken.atOnce, 'reads taken in the cycle offered').toBeGreaterThan(2);
        expect(taken.afterWaiting, 'reads that waited for arready').toBeGreaterThan(2);
      });
    });
  }

  it('gives QPs not in RTS and bad opcodes an error status; AXI read errors too; RESET QPs are not read', async () => {
    await runTest(designFor(64), async (dut, tb) => {
      const states = [QP_STATE.RTS, QP_STATE.ERROR, QP_STATE.INIT, QP_STATE.RESET];
      const sc = randomScenario(tb, states, 0);
      const o = await runFetch(dut, tb, 64, sc);
      checkOrder(o, sc, tb.seed);
      expect(o.bursts.filter(b => b.qp === 3), 'reads of a QP in RESET').toEqual([]);
      const statuses = new Set(o.got.map(w => w.status));
      expect(statuses.size, `statuses seen: ${[...statuses].join(',')}`).toBeGreaterThanOrEqual(2);
      console.log(`wqe_fetch error paths: seed ${tb.seed}, ${o.got.length} WQEs, statuses ${[...statuses].join(',')}`);
    });
  });

  for (const dw of [64, 512]) {
    it(`rewinds re-read a ring from the given index (also with a burst of the QP under way); a held QP is not read (${dw} bits)`, async () => {
      await runTest(designFor(dw), async (dut, tb) => {
        console.log(`wqe_fetch rewind/hold ${dw}b: seed ${tb.seed}`);
        const busBytes = dw / 8;
        const mem = new HostMemory();
        const sizeLog2 = 5;
        const qps = Array.from({ length: NUM_QP }, (_, i) => ({ base: BigInt(0x4000_0000 + i * 0x1_0000) + BigInt(tb.rng.int(0, 31) * WQE_BYTES) }));
        const pi = qps.map(() => 0);
        const ring: DecodedWqe[][] = qps.map(() => []);
        const show = (sqPi: readonly number[]): void => { dut.qp_ctx.value = qps.map((q, i) => ({ ...emptyQpCtx(), state: QP_STATE.RTS, sqSizeLog2: sizeLog2, sqBase: q.base, sqPi: sqPi[i]! })) as never; };
        const lane = sqPiLane(tb, dut.sq_pi_wr, NUM_QP, show);
        const publish = (): void => { pi.forEach((v, i) => { lane.want[i] = v; }); };
        dut.weight.value = qps.map(() => 1);
        dut.m_wqe.ready.value = 0;
        dut.rewind.value = { valid: 0, qp: 0, ringIdx: 0 };
        dut.hold.value = 0;
        show(lane.shown);
        await tb.reset(2);
        const reads = memory(tb, dut, mem, busBytes, 0.3, []);
        watchChannel(tb, { valid: dut.m_axi.arvalid, ready: dut.m_axi.arready, payload: [dut.m_axi.araddr, dut.m_axi.arlen] }, 'AR (WQE count)', {
          onHandshake: () => {
            const addr = BigInt(dut.m_axi.araddr.value);
            burstWqes.push({ q: qps.findIndex(x => addr >= x.base && addr < x.base + BigInt(WQE_BYTES << sizeLog2)), n: Math.ceil(((Number(dut.m_axi.arlen.value) + 1) * busBytes) / WQE_BYTES), out: 0 });
          },
        });
        // Per QP: the index the next WQE must have (the model of the fetch pointer), and the
        // stale copies still to come from a burst that was under way when the QP was rewound.
        const next = qps.map(() => 0);
        const stale = qps.map(() => ({ left: 0, next: 0 }));
        // WQEs of each read burst handed on so far (a burst's WQEs come in order, bursts one at a time).
        const burstWqes: { q: number; n: number; out: number }[] = [];
        let got = 0, staleCopies = 0;
        new StructSink<unknown>(tb, dut.m_wqe as never, 'm_wqe', {
          pause: 0.3,
          onItem: (v, at) => {
            const w = normaliseWqe(v as never);
            got++;
            const same = (x: DecodedWqe | undefined): boolean => x !== undefined && x.wrId === w.wrId && x.length === w.length;
            const actually = ring.map((r, q) => `${q}:${r.findIndex(same)}`).join(' ');
            expect(w, `QP ${w.qp} WQE at ring index ${w.ringIndex} (cycle ${at}, seed ${tb.seed}; its bytes are those of QP:index ${actually}; PI ${pi[w.qp]}, done ${done[w.qp]})`).toEqual(ring[w.qp]![w.ringIndex]);
            const b = burstWqes.find(x => x.q === w.qp && x.out < x.n);
            if (b) b.out++;
            // A burst already under way when its QP was rewound still delivers (stale copies,
            // nic_req_tx drops them); after it the ring is read from the rewind index.
            const st = stale[w.qp]!;
            if (st.left > 0) {
              expect(w.ringIndex, `QP ${w.qp}: stale copy at cycle ${at} (seed ${tb.seed})`).toBe(st.next);
              st.left--; st.next++; staleCopies++;
              return;
            }
            expect(w.ringIndex, `QP ${w.qp}: ring index of the WQE handed on at cycle ${at} (seed ${tb.seed})`).toBe(next[w.qp]);
            next[w.qp] = w.ringIndex + 1;
          },
        });
        // Slots below done[q] are complete: a rewind never goes back past them, so they may be
        // written again (the ring never holds more than its size from done on).
        const done = qps.map(() => 0);
        const post = (q: number, want: number): void => {
          if (pi[q]! - done[q]! > (1 << sizeLog2)) throw new Error('test: ring over-full');
          const n = Math.min(want, (1 << sizeLog2) - (pi[q]! - done[q]!));
          for (let k = 0; k < n; k++) {
            const idx = pi[q]! + k;
            const w = { ...randomWqe(tb.rng), numSge: tb.rng.int(0, MAX_SGE) };
            mem.write(qps[q]!.base + BigInt((idx & 31) * WQE_BYTES), encodeWqe(w, tb.rng.bytes(WQE_BYTES)));
            ring[q]![idx] = { ...w, sge: fetchedSges(w), qp: q, ringIndex: idx, status: CQE_STATUS.SUCCESS };
          }
          pi[q] = pi[q]! + n;
          publish();
        };
        let rewinds = 0, duringBurst = 0, heldReads = 0, rlasts = 0;
        ClockPhases.of(tb).onSample(() => { if (dut.m_axi.rvalid.value === 1 && dut.m_axi.rready.value === 1 && dut.m_axi.rlast.value === 1) rlasts++; });
        const qpOf = (addr: bigint): number => qps.findIndex(x => addr >= x.base && addr < x.base + BigInt(WQE_BYTES << sizeLog2));
        const burstUnderWay = (q: number): boolean => reads.length > rlasts && qpOf(reads[reads.length - 1]!.addr) === q;
        const readsOf = (q: number): number => reads.filter(b => b.addr >= qps[q]!.base && b.addr < qps[q]!.base + BigInt(WQE_BYTES << sizeLog2)).length;
        for (let round = 0; round < 12; round++) {
          for (let q = 0; q < NUM_QP; q++) post(q, tb.rng.int(1, 6));
          await tb.clockCycles(tb.rng.int(5, 60));
          // Rewind one QP to a random index it has already handed on (or is about to).
          const q = tb.rng.int(0, NUM_QP - 1);
          // Every other round, wait for a burst of the QP to be under way: the rewind then
          // lands in the middle of it.
          if (round % 2 === 0) {
            post(q, 4);
            for (let t = 0; t < 2_000 && pi[q]! > next[q]! && !burstUnderWay(q); t++) await tb.clockCycles(1);
          }
          // Inputs change right after a rising edge (drive phase), as a register would drive them:
          // the AR offered in IDLE depends on them combinationally.
          await tb.rising();
          done[q] = Math.max(done[q]!, next[q]! - 8);
          const r = tb.rng.int(done[q]!, next[q]!);
          const burstOfQ = burstUnderWay(q);
          dut.rewind.value = { valid: 1, qp: q, ringIdx: r };
          await tb.rising();
          dut.rewind.value = { valid: 0, qp: 0, ringIdx: 0 };
          // WQEs of a burst that was already reading may still come; then it goes on from r.
          const under = burstWqes.find(x => x.q === q && x.out < x.n);
          // (Its WQEs are the next ones to come: from the index the QP expected before the rewind.)
          if (under) stale[q] = { left: under.n - under.out, next: stale[q]!.left > 0 ? stale[q]!.next : next[q]! };
          next[q] = r;
          rewinds++;
          if (burstOfQ) duringBurst++;
          // Hold another QP for a while: no read of it may start.
          const h = (q + 1) % NUM_QP;
          await tb.rising();
          dut.hold.value = 1 << h;
          await tb.clockCycles(1);
          await tb.until(() => dut.m_axi.arvalid.value === 0, { timeout: 1_000, what: 'no read offered' });
          const before = readsOf(h);
          post(h, 2);
          await tb.clockCycles(tb.rng.int(30, 80));
          heldReads += readsOf(h) - before;
          await tb.rising();
          dut.hold.value = 0;
        }
        await tb.until(() => qps.every((_, q) => next[q] === pi[q]), { timeout: 100_000, what: 'every ring read to its PI' });
        console.log(`wqe_fetch rewind/hold ${dw}b: seed ${tb.seed}, ${got} WQEs (${staleCopies} stale copies), ${rewinds} rewinds (${duringBurst} with a read under way), reads of held QPs ${heldReads}`);
        expect(heldReads, 'reads started for a held QP').toBe(0);
        expect(rewinds).toBe(12);
        expect(duringBurst, 'rewinds that hit a burst of their QP under way').toBeGreaterThanOrEqual(3);
      }, { maxCycles: 400_000, ...(process.env['NICGEN_DEBUG_WAVE'] ? { wave: process.env['NICGEN_DEBUG_WAVE'] } : {}) });
    });
  }

  // "Has work" is kept per QP by events (a SQ_PI write, a burst end, a rewind), not compared
  // for every QP in every cycle: each event of a cycle must see the others of the same QP.
  it('a SQ_PI write racing a rewind or a burst end of its QP, and RESET, leave the right work', async () => {
    await runTest(designFor(64), async (dut, tb) => {
      const mem = new HostMemory();
      const qps = Array.from({ length: NUM_QP }, (_, i) => ({ base: BigInt(0x5000_0000 + i * 0x1_0000) }));
      const state: number[] = qps.map(() => QP_STATE.RTS);
      const pi = qps.map(() => 0);
      const show = (): void => { dut.qp_ctx.value = qps.map((q, i) => ({ ...emptyQpCtx(), state: state[i]!, sqSizeLog2: 4, sqBase: q.base, sqPi: pi[i]! })) as never; };
      dut.weight.value = qps.map(() => 1);
      dut.m_wqe.ready.value = 0;
      dut.rewind.value = { valid: 0, qp: 0, ringIdx: 0 };
      dut.hold.value = 0;
      dut.sq_pi_wr.value = { valid: 0, qp: 0, pi: 0 };
      show();
      await tb.reset(2);
      new AxiRam(tb, readMasterPorts(dut.m_axi), { name: 'nic_wqe_fetch.m_axi', memory: mem, reorder: false, backpressure: 0, stall: 0 });
      const got: { qp: number; idx: number }[] = [];
      new StructSink<unknown>(tb, dut.m_wqe as never, 'm_wqe', { onItem: v => { const w = normaliseWqe(v as never); got.push({ qp: w.qp, idx: w.ringIndex }); } });
      for (let q = 0; q < NUM_QP; q++) for (let k = 0; k < 16; k++) mem.write(qps[q]!.base + BigInt(k * WQE_BYTES), encodeWqe(randomWqe(tb.rng)));
      /** Drives one cycle's inputs after a rising edge; the next edge takes them; qp_ctx shows SQ_PI after it. */
      const cycle = async (db?: { qp: number; pi: number }, rw?: { qp: number; ringIdx: number }): Promise<void> => {
        await tb.rising();
        dut.sq_pi_wr.value = db ? { valid: 1, ...db } : { valid: 0, qp: 0, pi: 0 };
        dut.rewind.value = rw ? { valid: 1, ...rw } : { valid: 0, qp: 0, ringIdx: 0 };
        await tb.rising();
        dut.sq_pi_wr.value = { valid: 0, qp: 0, pi: 0 };
        dut.rewind.value = { valid: 0, qp: 0, ringIdx: 0 };
        if (db) pi[db.qp] = db.pi;
        show();
      };
      const fetched = async (want: { qp: number; idx: number }[], what: string, n = got.length): Promise<void> => {
        await tb.until(() => got.length >= n + want.length, { timeout: 2_000, what });
        await tb.clockCycles(200);
        expect(got.slice(n), `${what} (seed ${tb.seed})`).toEqual(want);
      };
      const idxs = (qp: number, from: number, to: number): { qp: number; idx: number }[] => Array.from({ length: to - from }, (_, k) => ({ qp, idx: from + k }));
      // QP 0 fetches 0..3; then a rewind to 2 and a SQ_PI write of the same PI (4) in one
      // cycle: 2 and 3 are read again (the write's compare takes the rewound ci, 2).
      await cycle({ qp: 0, pi: 4 });
      await fetched(idxs(0, 0, 4), 'QP 0: 0..3');
      await cycle({ qp: 0, pi: 4 }, { qp: 0, ringIdx: 2 });
      await fetched(idxs(0, 2, 4), 'QP 0: 2..3 again after a rewind racing a SQ_PI write of the same PI');
      // The other way round: a rewind to the current ci with a SQ_PI write of more work.
      await cycle({ qp: 0, pi: 6 }, { qp: 0, ringIdx: 4 });
      await fetched(idxs(0, 4, 6), 'QP 0: 4..5 after a SQ_PI write racing a rewind to its ci');
      // A SQ_PI write in the cycle the last beat of a burst of its QP is taken.
      const before = got.length;
      await cycle({ qp: 1, pi: 2 });
      for (let t = 0; ; t++) {
        if (t > 1_000) throw new Error('no last beat of QP 1');
        await tb.falling();
        const a = dut.m_axi;
        if (a.rvalid.value === 1 && a.rready.value === 1 && a.rlast.value === 1) break;
      }
      dut.sq_pi_wr.value = { valid: 1, qp: 1, pi: 3 };
      await tb.rising();
      dut.sq_pi_wr.value = { valid: 0, qp: 0, pi: 0 };
      pi[1] = 3;
      show();
      await fetched(idxs(1, 0, 3), 'QP 1: 0..2, the last posted by a SQ_PI write racing the end of the burst of 0..1', before);
      // RESET (nic_regs clears SQ_PI with it: a write of 0), back to RTS: QP 1 reads from 0.
      state[1] = QP_STATE.RESET;
      await cycle({ qp: 1, pi: 0 });
      await tb.clockCycles(3);
      state[1] = QP_STATE.RTS;
      await cycle({ qp: 1, pi: 2 });
      await fetched(idxs(1, 0, 2), 'QP 1: 0..1 after RESET');
      // A SQ_PI write while in RESET counts once the QP leaves RESET.
      state[2] = QP_STATE.RESET;
      await cycle({ qp: 2, pi: 0 });
      await cycle({ qp: 2, pi: 2 });
      await tb.clockCycles(20);
      expect(got.filter(w => w.qp === 2), 'reads of QP 2 in RESET').toEqual([]);
      state[2] = QP_STATE.RTS;
      show();
      await fetched(idxs(2, 0, 2), 'QP 2: 0..1, posted while in RESET');
    });
  });

  for (const weights of [[1, 1, 1, 1], [1, 2, 3, 4]]) {
    it(`shares fetches by weight ${weights.join(':')} within ±10 % with 4 busy QPs`, async () => {
      await runTest(designFor(64), async (dut, tb) => {
        const qps = weights.map((_, i) => ({ state: QP_STATE.RTS, sizeLog2: 6, base: BigInt(0x2000_0000 + i * 0x1_0000) }));
        const sc: Scenario = { qps, weights, posts: 800, fairness: true, pReady: 1 };
        const o = await runFetch(dut, tb, 64, sc);
        checkOrder(o, sc, tb.seed);
        const window = o.got.slice(0, sc.posts);
        const sum = weights.reduce((a, b) => a + b, 0);
        const shares = weights.map((_, q) => window.filter(w => w.qp === q).length / window.length);
        console.log(`wqe_fetch fairness ${weights.join(':')}: shares ${shares.map(s => s.toFixed(3)).join(' ')} (seed ${tb.seed})`);
        weights.forEach((w, q) => {
          const want = w / sum;
          expect(Math.abs(shares[q]! - want) / want, `QP ${q} share ${shares[q]!.toFixed(3)} vs ${want.toFixed(3)}`).toBeLessThanOrEqual(0.1);
        });
      }, { maxCycles: 400_000 });
    });
  }
});
