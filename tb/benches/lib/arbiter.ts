// Arbiter benches: rrArbiter and wrrArbiter against the round-robin model every cycle
// (exact grant, one-hot, never to a non-requester, grant_index/grant_valid consistent),
// starvation bounds under random requests, and grant shares with everyone asking.

import type { IOOf } from '../../../gen/hdl/index.ts';
import { rrArbiter, wrrArbiter, type RrParams, type WrrParams } from '../../../gen/lib/arbiter.ts';
import type { DutOf, Rng, TestBench, TestFn, TypedDesign } from '../../core/index.ts';
import { design } from '../../design.ts';
import { defineBench, type BenchGroup } from '../bench.ts';
import { bit, checkEq, checkThat, num } from '../check.ts';
import { RoundRobinModel } from './arbiter-model.ts';

type RrIO = IOOf<typeof rrArbiter>;
type WrrIO = IOOf<typeof wrrArbiter>;
/** The ports both arbiters share. */
type CommonDut = Pick<DutOf<RrIO>, 'req' | 'accept' | 'grant' | 'grant_index' | 'grant_valid'>;

const bin = (v: number, n: number): string => `0b${v.toString(2).padStart(n, '0')}`;

/** One cycle: present `req`, check the grant against the model, accept with probability
 *  `pAccept`, clock. Returns the accepted index or -1. */
async function cycle(dut: CommonDut, tb: TestBench, model: RoundRobinModel, req: number, pAccept: number, weights?: readonly number[]): Promise<number> {
  const n = model.n;
  dut.req.value = req;
  tb.settle();
  const grant = num(dut.grant.value);
  const ctx = (): string => `req=${bin(req, n)}${weights ? ` weights=[${weights.join(',')}]` : ''}`;
  checkThat(tb, (grant & (grant - 1)) === 0, () => `grant ${bin(grant, n)} is not one-hot (${ctx()})`);
  checkThat(tb, (grant & ~req) === 0, () => `grant ${bin(grant, n)} goes to a requester that does not ask (${ctx()})`);
  checkEq(tb, 'grant_valid', bit(dut.grant_valid.value), req !== 0, ctx);
  const want = model.pick(req, weights);
  checkEq(tb, 'grant', grant, want < 0 ? 0 : 1 << want, ctx);
  if (want >= 0) checkEq(tb, 'grant_index', num(dut.grant_index.value), want, ctx);
  const accept = req !== 0 && tb.rng.bool(pAccept);
  dut.accept.value = accept ? 1 : 0;
  model.edge(req, accept, weights);
  await tb.rising();
  return accept ? want : -1;
}

/** Random request masks: each phase picks a density, so sparse and dense patterns occur. */
function requests(rng: Rng, n: number): () => number {
  let left = 0, density = 0.5;
  return () => {
    if (left-- <= 0) { left = rng.int(20, 200); density = rng.pick([0.1, 0.3, 0.5, 0.8, 1]); }
    let r = 0;
    for (let i = 0; i < n; i++) if (rng.bool(density)) r |= 1 << i;
    return r;
  };
}

/** `waits[i]`: accepted grants to others since i started asking (reset when i is granted
 *  or stops asking). RR bounds it by n - 1; WRR by the sum of the others' turns. */
function trackWaits(waits: number[], req: number, granted: number): void {
  for (let i = 0; i < waits.length; i++) {
    if (!((req >> i) & 1) || granted === i) waits[i] = 0;
    else if (granted >= 0) waits[i]!++;
  }
}

// ---- round robin --------------------------------------------------------------------

export function rrRandom(p: RrParams, cycles = 20_000): TestFn<RrIO> {
  return async function rrRandomBench(dut, tb) {
    const model = new RoundRobinModel(p.n);
    const next = requests(tb.rng.fork(), p.n);
    const waits = new Array<number>(p.n).fill(0);
    dut.accept.value = 0;
    await tb.reset(2);
    for (let c = 0; c < cycles; c++) {
      const req = next();
      const g = await cycle(dut, tb, model, req, 0.7);
      trackWaits(waits, req, g);
      const worst = Math.max(...waits);
      checkThat(tb, worst <= p.n - 1, () => `requester ${waits.indexOf(worst)} waited ${worst} accepted grants; round robin bounds that by n-1 = ${p.n - 1}`);
    }
  };
}

/** Everyone asks, every grant is accepted: grants rotate 0, 1, ..., n-1, and over any
 *  window of k·n cycles each requester gets exactly k. */
export function rrFairness(p: RrParams, rounds = 200): TestFn<RrIO> {
  return async function rrFairnessBench(dut, tb) {
    const model = new RoundRobinModel(p.n);
    const all = (1 << p.n) - 1;
    const counts = new Array<number>(p.n).fill(0);
    dut.accept.value = 0;
    await tb.reset(2);
    for (let c = 0; c < rounds * p.n; c++) {
      const g = await cycle(dut, tb, model, all, 1);
      checkEq(tb, `grant ${c} with everyone asking`, g, c % p.n);
      counts[g]!++;
    }
    for (let i = 0; i < p.n; i++) checkEq(tb, `grants to requester ${i} out of ${rounds * p.n}`, counts[i]!, rounds);
  };
}

// ---- weighted round robin -----------------------------------------------------------

/** Everyone asks under fixed weights, grants accepted with probability `pAccept`: each
 *  requester's share of accepted grants is within `tolerance` (absolute) of
 *  max(w, 1) / sum(max(w, 1)). */
export function wrrShares(p: WrrParams, weights: readonly number[], grants = 2_000, pAccept = 1, tolerance = 0.02): TestFn<WrrIO> {
  return async function wrrSharesBench(dut, tb) {
    const model = new RoundRobinModel(p.n);
    const all = (1 << p.n) - 1;
    const counts = new Array<number>(p.n).fill(0);
    dut.weight.value = [...weights];
    dut.accept.value = 0;
    await tb.reset(2);
    let total = 0;
    while (total < grants) {
      const g = await cycle(dut, tb, model, all, pAccept, weights);
      if (g >= 0) { counts[g]!++; total++; }
    }
    const eff = weights.map(w => Math.max(1, w));
    const sum = eff.reduce((a, b) => a + b, 0);
    for (let i = 0; i < p.n; i++) {
      const share = counts[i]! / total, want = eff[i]! / sum;
      checkThat(tb, Math.abs(share - want) <= tolerance,
        () => `requester ${i} (weight ${weights[i]}) got ${(100 * share).toFixed(2)} % of ${total} grants, expected ${(100 * want).toFixed(2)} % ± ${100 * tolerance} (counts [${counts.join(', ')}])`);
    }
  };
}

/** Random requests, weights (0 included) changed every few hundred cycles, random accepts:
 *  exact grant against the model, and a starvation bound of the others' full turns. */
export function wrrRandom(p: WrrParams, cycles = 20_000): TestFn<WrrIO> {
  return async function wrrRandomBench(dut, tb) {
    const model = new RoundRobinModel(p.n);
    const rng = tb.rng.fork();
    const next = requests(rng, p.n);
    const waits = new Array<number>(p.n).fill(0);
    const maxW = (1 << p.weightWidth) - 1;
    let weights: number[] = [];
    dut.accept.value = 0;
    await tb.reset(2);
    for (let c = 0; c < cycles; c++) {
      // Change weights only between turns would be kinder; changing them mid-turn is legal
      // and the model follows the current inputs just as the RTL does.
      if (c % 300 === 0) {
        weights = Array.from({ length: p.n }, () => rng.pick([0, 1, 2, rng.int(0, maxW)]));
        dut.weight.value = [...weights];
      }
      const req = next();
      const g = await cycle(dut, tb, model, req, 0.7, weights);
      trackWaits(waits, req, g);
      // Bound: one full turn of everyone else (weights may change, so use the maximum).
      const bound = (p.n - 1) * maxW;
      const worst = Math.max(...waits);
      checkThat(tb, worst <= bound, () => `requester ${waits.indexOf(worst)} waited ${worst} accepted grants; bound (n-1)·max weight = ${bound}`);
    }
  };
}

const rrParams: RrParams = { n: 5 };
const wrrParams: WrrParams = { n: 4, weightWidth: 4 };
const rrDesign = (): TypedDesign<RrIO> => design(rrArbiter, rrParams);
const wrrDesign = (): TypedDesign<WrrIO> => design(wrrArbiter, wrrParams);

export const rrBenches: BenchGroup = {
  fairness: defineBench({ about: `${rrParams.n} requesters all asking: strict rotation, exactly 1/${rrParams.n} of grants each`, design: rrDesign, test: rrFairness(rrParams) }),
  random: defineBench({ about: 'random requests and accepts vs the model: one-hot, only requesters, starvation bound n-1', design: rrDesign, test: rrRandom(rrParams) }),
};

export const wrrBenches: BenchGroup = {
  shares_1234: defineBench({ about: 'weights [1,2,3,4], all asking, every grant accepted: shares within ±2 % of 10/20/30/40 %', design: wrrDesign, test: wrrShares(wrrParams, [1, 2, 3, 4]) }),
  shares_1234_stalls: defineBench({ about: 'weights [1,2,3,4], all asking, 60 % of grants accepted: shares within ±2 %', design: wrrDesign, test: wrrShares(wrrParams, [1, 2, 3, 4], 4_000, 0.6) }),
  weight0: defineBench({ about: 'weights [0,1,2,3]: a weight of 0 counts as 1 (shares 1/7, 1/7, 2/7, 3/7)', design: wrrDesign, test: wrrShares(wrrParams, [0, 1, 2, 3]) }),
  all_zero: defineBench({ about: 'weights all 0: plain round robin (1/4 each)', design: wrrDesign, test: wrrShares(wrrParams, [0, 0, 0, 0]) }),
  random: defineBench({ about: 'random requests, weights (with 0) and accepts vs the model: exact grant, one-hot, starvation bound', design: wrrDesign, test: wrrRandom(wrrParams) }),
};
