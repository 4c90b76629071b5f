// The go-back-N goodput bound (bench/gbn-bound.ts): its limits (no loss: the framing limit; a
// loss that costs only itself: limit x (1 - p); the window caps the cost), and agreement with a
// slot-by-slot simulation of a go-back-N sender and an in-order responder that NAKs a gap once
// per round (seeded; within 3 % at 0.1 %, 1 % and 5 % loss for several round trips).

import { describe, expect, it } from 'vitest';
import { goBackNBound } from '../../../bench/gbn-bound.ts';
import type { Rng } from '../../core/rng.ts';
import { testRng } from '../seed.ts';

/** Delivered packets per transmission slot when `n` packets are sent back to back (one per
 *  slot of `t` cycles) by a go-back-N sender, each transmission lost with probability `p`,
 *  and an in-order receiver. Detection is idealised as in the bound: the loss of the packet
 *  the receiver expects reaches the sender `r` cycles after the end of its slot (the next
 *  packet's arrival makes the responder NAK; the NAK comes back), also when the lost packet
 *  was itself a resend (a real responder NAKs a gap once and leaves a lost resend to the
 *  requester's timeout, which the bound leaves out). */
function simulateGoBackN(rng: Rng, n: number, p: number, r: number, t: number): number {
  let next = 0, expected = 0, slots = 0;
  const naks: { at: number; psn: number }[] = [];
  while (expected < n) {
    const now = slots * t;
    // A NAK that has arrived sends the sender back to the PSN the receiver expects.
    while (naks.length > 0 && naks[0]!.at <= now) next = Math.min(next, naks.shift()!.psn);
    const psn = next < n ? next++ : -1;
    slots++;
    if (psn < 0) continue; // all sent once: waiting for a NAK
    if (rng.bool(p)) {
      if (psn === expected) naks.push({ at: now + t + r, psn }); // r after the end of its slot
      continue;
    }
    if (psn === expected) expected++; // anything else is out of sequence (dropped) or a duplicate
  }
  return n / slots;
}

describe('go-back-N goodput bound', () => {
  const base = { windowPackets: 64, roundTripCycles: 400, packetCycles: 100, limit: 0.98 };

  it('is the framing limit without loss, limit x (1 - p) when a loss costs only itself, and capped by the window', () => {
    expect(goBackNBound({ ...base, loss: 0 })).toEqual({ k: 5, efficiency: 1, bound: 0.98 });
    expect(goBackNBound({ ...base, loss: 0.01, roundTripCycles: 0 }).bound).toBeCloseTo(0.98 * 0.99, 12);
    expect(goBackNBound({ ...base, loss: 0.01, windowPackets: 1 }).k).toBe(1);
    expect(goBackNBound({ ...base, loss: 0.01, windowPackets: 3 }).k).toBe(3);
    // K = 1 + ceil(400 / 100) = 5: efficiency 0.99 / (1 + 4 x 0.01).
    expect(goBackNBound({ ...base, loss: 0.01 }).efficiency).toBeCloseTo(0.99 / 1.04, 12);
    expect(() => goBackNBound({ ...base, loss: 1 })).toThrow('loss 1 must be in [0, 1)');
    expect(() => goBackNBound({ ...base, loss: 0.1, windowPackets: 0 })).toThrow('window 0');
  });

  it('falls as loss and round trip grow', () => {
    const at = (loss: number, rt: number) => goBackNBound({ ...base, loss, roundTripCycles: rt }).bound;
    expect(at(0.001, 400)).toBeGreaterThan(at(0.01, 400));
    expect(at(0.01, 400)).toBeGreaterThan(at(0.01, 4000));
  });

  it('agrees with a slot-by-slot go-back-N simulation within 3 %', () => {
    const rng = testRng('go-back-N simulation');
    for (const p of [0.001, 0.01, 0.05]) {
      for (const rt of [130, 400, 1300]) {
        const sim = simulateGoBackN(rng, 200_000, p, rt, 100);
        const f = goBackNBound({ loss: p, windowPackets: 1 << 20, roundTripCycles: rt, packetCycles: 100, limit: 1 }).efficiency;
        expect(Math.abs(sim - f) / f, `p ${p}, round trip ${rt}: simulation ${sim.toFixed(4)}, formula ${f.toFixed(4)}`).toBeLessThan(0.03);
      }
    }
  });
});
