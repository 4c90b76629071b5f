// nic_wqe_fetch's active-list scheduler with many QPs (16 and 64): random doorbells (also on
// many QPs in one cycle) and random holds, against a TS reference of every ring:
// - every posted WQE is handed on exactly once, in ring order per QP, with its bytes;
// - no read is planned for a QP held in that cycle (a held QP is dropped from the list and
//   pushed again when its hold clears);
// - no QP starves: while a QP has work and is not held, the reads of other QPs before its
//   next read stay below a bound (the QPs ahead of it in the list, each one turn);
// - weights: with every QP busy, QP i gets weight_i / sum(weights) of the WQEs (gen/nic/
//   wqe-fetch.ts header, "Weights").
// The 4-QP behaviour (statuses, 4 KiB splits, rewinds, AR timing) is in wqe-fetch.test.ts.

import { describe, expect, it } from 'vitest';
import { CQE_STATUS, MAX_SGE, QP_STATE, WQE_BYTES } from '../../../gen/nic/regmap.ts';
import { nicWqeFetch } from '../../../gen/nic/wqe-fetch.ts';
import { AxiRam, ClockPhases, watchChannel } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { encodeWqe, normaliseWqe, randomWqe, type DecodedWqe } from '../../model/wqe-fetch.ts';
import { design as dslDesign } from '../../design.ts';
import { readMasterPorts } from './axi-halves.ts';
import { StructSink } from './stage-streams.ts';
import { emptyQpCtx } from './qp-ctx.ts';
import { sqPiLane } from './sq-pi-lane.ts';

type Design = ReturnType<typeof dslDesign<Parameters<typeof nicWqeFetch.elaborate>[0] & object, NonNullable<typeof nicWqeFetch['__io']>>>;
const designs = new Map<number, Design>();
const designFor = (numQp: number): Design => {
  let d = designs.get(numQp);
  if (!d) { d = dslDesign(nicWqeFetch, { numQp }); designs.set(numQp, d); }
  return d;
};
type Dut = Parameters<Parameters<typeof runTest<NonNullable<Design['__io']>>>[1]>[0];

const BUS_BYTES = 8;

interface Rings {
  sizeLog2: number[];
  base: bigint[];
  /** Next ring index software posts at (SQ_PI), and the next one the stage must hand on. */
  pi: number[];
  next: number[];
  /** What each posted index must decode to. */
  posted: Map<number, DecodedWqe>[];
}

/** Holds the stage's QPs and the memory model; `post` writes WQEs and rings the doorbell. */
function bench(tb: TestBench, dut: Dut, numQp: number, weights: number[], pReady: number, pBusy: number) {
  const mem = new HostMemory();
  const r: Rings = {
    sizeLog2: Array.from({ length: numQp }, () => tb.rng.int(2, 6)),
    // Separate 64 KiB areas; a random 128-byte offset lets rings cross 4 KiB pages.
    base: Array.from({ length: numQp }, (_, i) => BigInt(0x1000_0000 + i * 0x1_0000) + BigInt(tb.rng.int(0, 31) * WQE_BYTES)),
    pi: Array(numQp).fill(0), next: Array(numQp).fill(0), posted: Array.from({ length: numQp }, () => new Map()),
  };
  // SQ_PI reaches the stage as writes on sq_pi_wr, one QP per cycle (sq-pi-lane.ts): a storm
  // of doorbells is written one after another, as nic_regs' software lane does.
  const show = (sqPi: readonly number[]): void => {
    dut.qp_ctx.value = sqPi.map((pi, i) => ({
      ...emptyQpCtx(), state: QP_STATE.RTS, sqSizeLog2: r.sizeLog2[i]!, sqBase: r.base[i]!, sqPi: pi,
    })) as never;
  };
  const lane = sqPiLane(tb, dut.sq_pi_wr, numQp, show);
  const publish = (): void => { r.pi.forEach((pi, i) => { lane.want[i] = pi; }); };
  dut.weight.value = weights;
  dut.rewind.value = { valid: 0, qp: 0, ringIdx: 0 };
  dut.hold.value = 0n;
  dut.m_wqe.ready.value = 0;
  show(lane.shown);
  const free = (q: number): number => (1 << r.sizeLog2[q]!) - (r.pi[q]! - r.next[q]!);
  /** Writes up to n WQEs into QP q's ring (as many as are free); publish() rings the doorbell. */
  const post = (q: number, n: number): void => {
    const k = Math.min(n, free(q));
    for (let j = 0; j < k; j++) {
      const idx = r.pi[q]! + j;
      const w = { ...randomWqe(tb.rng), numSge: tb.rng.int(0, MAX_SGE) };
      mem.write(r.base[q]! + BigInt((idx & ((1 << r.sizeLog2[q]!) - 1)) * WQE_BYTES), encodeWqe(w, tb.rng.bytes(WQE_BYTES)));
      const sge = w.sge.map((s, i) => (i < w.numSge ? s : { addr: 0n, len: 0, lkey: 0 }));
      r.posted[q]!.set(idx, { ...w, sge, qp: q, ringIndex: idx & 0xffff, status: CQE_STATUS.SUCCESS });
    }
    r.pi[q] = r.pi[q]! + k;
  };
  const attach = (): { reads: { qp: number; cycle: number; n: number }[]; qpOf: (addr: bigint) => number } => {
    new AxiRam(tb, readMasterPorts(dut.m_axi), { name: 'nic_wqe_fetch.m_axi', memory: mem, reorder: false, backpressure: pBusy, stall: pBusy });
    const a = dut.m_axi;
    const reads: { qp: number; cycle: number; n: number }[] = [];
    const qpOf = (addr: bigint): number => r.base.findIndex((b, q) => addr >= b && addr < b + BigInt(WQE_BYTES << r.sizeLog2[q]!));
    watchChannel(tb, { valid: a.arvalid, ready: a.arready, payload: [a.araddr, a.arlen] }, 'nic_wqe_fetch.m_axi AR', {
      onHandshake: cycle => {
        const q = qpOf(BigInt(a.araddr.value));
        if (q < 0) throw new Error(`read at 0x${BigInt(a.araddr.value).toString(16)} (cycle ${cycle}, seed ${tb.seed}) is outside every ring`);
        reads.push({ qp: q, cycle, n: Math.ceil(((Number(a.arlen.value) + 1) * BUS_BYTES) / WQE_BYTES) });
      },
    });
    return { reads, qpOf };
  };
  /** The reference check of every WQE handed on: its QP's next ring index, with its bytes. */
  const consume = (onItem: (w: DecodedWqe) => void): void => {
    new StructSink<unknown>(tb, dut.m_wqe as never, 'm_wqe', {
      pause: 1 - pReady,
      onItem: (v, at) => {
        const w = normaliseWqe(v as never);
        const q = w.qp;
        const want = r.next[q]!;
        if (q >= numQp) throw new Error(`WQE of QP ${q} at cycle ${at}: there are ${numQp} QPs (seed ${tb.seed})`);
        if (w.ringIndex !== (want & 0xffff)) throw new Error(`QP ${q}: WQE at ring index ${w.ringIndex} handed on at cycle ${at}, expected ${want & 0xffff} (PI ${r.pi[q]}; a WQE lost, repeated or out of order; seed ${tb.seed})`);
        if (want >= r.pi[q]!) throw new Error(`QP ${q}: WQE at ring index ${w.ringIndex} handed on at cycle ${at} but only ${r.pi[q]} were posted (seed ${tb.seed})`);
        expect(w, `QP ${q} WQE at ring index ${want} (cycle ${at}, seed ${tb.seed})`).toEqual(r.posted[q]!.get(want));
        r.posted[q]!.delete(want);
        r.next[q] = want + 1;
        onItem(w);
      },
    });
  };
  const behind = (): string => r.pi.map((pi, q) => (pi !== r.next[q] ? `QP ${q}: ${r.next[q]} of ${pi}` : '')).filter(Boolean).join(', ');
  /** Waits for pred; a timeout says which QPs were behind. */
  const until = async (pred: () => boolean, what: string): Promise<void> => {
    try {
      await tb.until(pred, { timeout: 400_000, what });
    } catch (e) {
      throw new Error(`${(e as Error).message}; QPs behind (handed on of posted): ${behind() || 'none'}; seed ${tb.seed}`);
    }
  };
  return { r, lane, publish, post, free, attach, consume, until };
}

describe('nic_wqe_fetch active list', () => {
  for (const numQp of [16, 64]) {
    it(`fetches every WQE once, in ring order, with random doorbells and holds on ${numQp} QPs; no QP starves`, async () => {
      await runTest(designFor(numQp), async (dut, tb) => {
        const weights = Array.from({ length: numQp }, () => tb.rng.int(0, 3));
        const maxTurn = Math.max(1, ...weights);
        const b = bench(tb, dut, numQp, weights, 0.8, 0.2);
        await tb.reset(2);
        const { reads, qpOf } = b.attach();
        let got = 0;
        b.consume(() => { got++; });
        // Holds as the tracker drives them: a register, changed after a rising edge.
        let held = 0n;
        // Starvation: per QP, the reads of other QPs since it has had work (WQEs posted and not
        // yet read) and no hold.
        const waitingSince = Array<number>(numQp).fill(-1);
        const issued = Array<number>(numQp).fill(0);
        const worst = { others: 0, qp: -1, cycle: 0 };
        let seen = 0;
        // A held QP is not read: the stage plans a read (PLAN) the cycle before it offers it on
        // AR, and PLAN drops a QP held in that cycle.
        let heldBefore = 0n, arBefore = 0, offersWhileHeld = 0;
        ClockPhases.of(tb).onSample(() => {
          const arNow = Number(dut.m_axi.arvalid.value);
          if (arNow === 1 && arBefore === 0) {
            const q = qpOf(BigInt(dut.m_axi.araddr.value));
            if (((heldBefore >> BigInt(q)) & 1n) === 1n) {
              offersWhileHeld++;
              console.log(`QP ${q}: read offered at cycle ${tb.cycle}, planned while the QP was held (seed ${tb.seed})`);
            }
          }
          arBefore = arNow;
          heldBefore = held;
          for (; seen < reads.length; seen++) {
            const rd = reads[seen]!;
            if (waitingSince[rd.qp]! >= 0) {
              const others = seen - waitingSince[rd.qp]!;
              if (others > worst.others) Object.assign(worst, { others, qp: rd.qp, cycle: rd.cycle });
            }
            waitingSince[rd.qp] = -1;
            issued[rd.qp] = issued[rd.qp]! + rd.n;
          }
          for (let q = 0; q < numQp; q++) {
            // Work the stage knows of: the SQ_PI written to it so far (sq_pi_wr, one QP per cycle).
            const waits = b.lane.shown[q]! !== (issued[q]! & 0xffff) && ((held >> BigInt(q)) & 1n) === 0n;
            if (!waits) waitingSince[q] = -1;
            else if (waitingSince[q]! < 0) waitingSince[q] = reads.length;
          }
        });
        let storms = 0, holds = 0;
        const steps = numQp === 16 ? 400 : 500;
        for (let k = 0; k < steps; k++) {
          await tb.rising();
          if (tb.rng.bool(0.05)) {
            // A doorbell storm: a quarter of the QPs in the same cycle.
            for (let j = 0; j < numQp / 4; j++) b.post(tb.rng.int(0, numQp - 1), tb.rng.int(1, 4));
            storms++;
          } else {
            b.post(tb.rng.int(0, numQp - 1), tb.rng.int(1, 6));
          }
          b.publish();
          if (tb.rng.bool(0.3)) {
            held ^= 1n << BigInt(tb.rng.int(0, numQp - 1));
            holds++;
          }
          // A hold lasts long enough for its QP to be popped meanwhile (then it is dropped and
          // must be pushed again when the hold clears); the holds are cleared at the end.
          dut.hold.value = held;
          await tb.clockCycles(tb.rng.int(0, numQp === 16 ? 12 : 4));
        }
        await tb.rising();
        held = 0n;
        dut.hold.value = 0n;
        const total = (): number => b.r.pi.reduce((s, x) => s + x, 0);
        await b.until(() => got === total(), `all ${total()} posted WQEs fetched`);
        await tb.clockCycles(100);
        expect(got, `WQEs handed on after the last was posted (seed ${tb.seed})`).toBe(total());
        // The QPs ahead of a waiting one in the list, one turn each, plus the owner's turn and the
        // few QPs released and pushed again before it while it waited to be pushed.
        const bound = numQp * maxTurn + 8;
        console.log(`wqe_fetch active list ${numQp} QPs: seed ${tb.seed}, ${got} WQEs in ${reads.length} reads, ${storms} doorbell storms, ${holds} hold toggles; most reads of other QPs while a QP waited ${worst.others} (QP ${worst.qp}, read at cycle ${worst.cycle}; bound ${bound})`);
        expect(worst.others, `reads of other QPs while QP ${worst.qp} had work and no hold (read at cycle ${worst.cycle}, seed ${tb.seed})`).toBeLessThanOrEqual(bound);
        expect(offersWhileHeld, `reads planned for a held QP (seed ${tb.seed})`).toBe(0);
        expect(storms).toBeGreaterThan(5);
      }, { maxCycles: 800_000 });
    });
  }

  it('shares fetches by weight among 16 busy QPs within ±10 %', async () => {
    await runTest(designFor(16), async (dut, tb) => {
      const numQp = 16;
      const weights = Array.from({ length: numQp }, (_, i) => 1 + (i % 4));
      const b = bench(tb, dut, numQp, weights, 1, 0);
      // Big aligned rings: every read is a full burst of 4 WQEs, so WQE shares are read shares.
      b.r.sizeLog2.fill(6);
      b.r.base.forEach((_, i) => { b.r.base[i] = BigInt(0x2000_0000 + i * 0x1_0000); });
      await tb.reset(2);
      b.attach();
      const got: number[] = [];
      // Keep every ring full: a WQE handed on frees its slot for the next post.
      b.consume(w => { got.push(w.qp); b.post(w.qp, 1); b.publish(); });
      for (let q = 0; q < numQp; q++) b.post(q, b.free(q));
      b.publish();
      const window = 4_000;
      await b.until(() => got.length >= window, `${window} WQEs`);
      const sum = weights.reduce((a, x) => a + x, 0);
      const shares = weights.map((_, q) => got.slice(0, window).filter(x => x === q).length / window);
      console.log(`wqe_fetch active list shares, weights ${weights.join(':')}: ${shares.map(s => s.toFixed(4)).join(' ')} (seed ${tb.seed})`);
      weights.forEach((w, q) => {
        expect(Math.abs(shares[q]! - w / sum) / (w / sum), `QP ${q} (weight ${w}) share ${shares[q]!.toFixed(4)} vs ${(w / sum).toFixed(4)} (seed ${tb.seed})`).toBeLessThanOrEqual(0.1);
      });
    }, { maxCycles: 800_000 });
  });
});
