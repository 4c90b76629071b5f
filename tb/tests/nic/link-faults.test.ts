// The link's fault model on its own (no simulator): the same seed gives the same faults, each
// kind of fault hits at its rate (within 5 standard deviations over 200k frames), the burst
// model has the loss and burst length its parameters imply, a targeted fault hits exactly the
// n-th matching frame, reordered frames come out after exactly k others, and a bad spec is
// refused naming its field. Seed from NICGEN_SEED (make test: 1), printed on failure.

import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/index.ts';
import { frames } from '../../model/frame-match.ts';
import { encodeRoce, type RocePacket } from '../../model/packet.ts';
import { ackPacket, segmentReadResponse, segmentWrite, type RocePath } from '../../model/segment.ts';
import { DirectionFaults, LinkFaults, validateFaultSpec, type FaultSpec } from '../../nic/link-faults.ts';
import { testRng } from '../seed.ts';

/** A 16-byte frame: its index in bytes 0..3, the complement in 4..7, zeros after: a frame
 *  with one bit flipped anywhere shows exactly one bit of inconsistency (see flippedBits). */
function tagged(i: number): Uint8Array {
  const f = new Uint8Array(16);
  const v = new DataView(f.buffer);
  v.setUint32(0, i); v.setUint32(4, ~i >>> 0);
  return f;
}
const tagOf = (f: Uint8Array): number => new DataView(f.buffer, f.byteOffset).getUint32(0);
function popcount(x: number): number { let n = 0; for (let v = x >>> 0; v; v &= v - 1) n++; return n; }
/** Bits in which a frame differs from a well-formed tagged frame (0: intact, 1: one flip). */
function flippedBits(f: Uint8Array): number {
  const v = new DataView(f.buffer, f.byteOffset);
  let n = popcount(v.getUint32(0) ^ ~v.getUint32(4));
  for (let i = 8; i < 16; i++) n += popcount(f[i]!);
  return n;
}

/** Runs n tagged frames through `spec`, one per cycle; returns what came out, in order. */
/** n tagged frames through one direction's faults, one every `gap` cycles. */
function run(spec: FaultSpec, seed: number, n: number, gap = 1): { out: Uint8Array[]; faults: DirectionFaults } {
  const faults = new DirectionFaults(spec, new Rng(seed));
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) out.push(...faults.onFrame(tagged(i), i * gap));
  out.push(...faults.expire(Infinity));
  return { out, faults };
}

/** |count - n p| within 5 standard deviations of a binomial(n, p). */
function expectRate(what: string, count: number, n: number, p: number): void {
  const sd = Math.sqrt(n * p * (1 - p));
  expect(Math.abs(count - n * p), `${what}: ${count} of ${n}, expected ${n * p} ± ${(5 * sd).toFixed(0)}`).toBeLessThanOrEqual(5 * sd);
}

const PATH: RocePath = {
  eth: { dst: 0x02_00_00_00_00_0b, src: 0x02_00_00_00_00_0a },
  ip: { dscp: 26, ecn: 0, id: 1, df: true, ttl: 64, src: 0x0a000001, dst: 0x0a000002 },
  udp: { srcPort: 0xc001 }, destQp: 0x101,
};

describe('link faults', () => {
  it('are deterministic per seed and differ between seeds', () => {
    const rng = testRng('link faults determinism');
    const spec: FaultSpec = { drop: 0.05, corrupt: 0.05, dup: 0.05, reorder: 0.05, burst: { enter: 0.01, leave: 0.3 } };
    const seed = rng.u32();
    const a = run(spec, seed, 5000), b = run(spec, seed, 5000), c = run(spec, (seed + 1) >>> 0, 5000);
    expect(b.out).toEqual(a.out);
    expect(b.faults.stats).toEqual(a.faults.stats);
    expect(c.out).not.toEqual(a.out);
  });

  it('hit each kind at its rate; corruption flips exactly one bit; every frame not dropped arrives', () => {
    const rng = testRng('link fault rates');
    const n = 200_000;
    const spec: FaultSpec = { drop: 0.01, corrupt: 0.005, dup: 0.005, reorder: 0.005, reorderDepth: 4 };
    const { out, faults } = run(spec, rng.u32(), n);
    const s = faults.stats;
    expect(s.frames).toBe(n);
    expectRate('dropped', s.dropped, n, 0.01);
    expectRate('corrupted', s.corrupted, n - s.dropped, 0.005);
    expectRate('duplicated', s.duplicated, n - s.dropped, 0.005);
    expectRate('reordered', s.reordered, n - s.dropped, 0.005);
    expect(out.length, 'delivered = sent - dropped + duplicated').toBe(n - s.dropped + s.duplicated);
    // A corrupted frame differs from a tagged frame in exactly one bit; every other is intact.
    const flips = out.map(flippedBits);
    expect(flips.filter(x => x > 1), 'frames with more than one bit flipped').toEqual([]);
    const flipped = flips.filter(x => x === 1).length;
    expect(flipped, 'frames with one flipped bit (a corrupted frame that was also duplicated counts twice)').toBeGreaterThanOrEqual(s.corrupted);
    expect(flipped).toBeLessThanOrEqual(s.corrupted + s.duplicated);
  });

  it('keep the kinds independent: switching the others on loses the same frames', () => {
    const seed = testRng('link fault independence').u32();
    const lost = (spec: FaultSpec): number[] => {
      const got = new Set(run(spec, seed, 20_000).out.map(tagOf));
      return Array.from({ length: 20_000 }, (_, i) => i).filter(i => !got.has(i));
    };
    const dropOnly = lost({ drop: 0.02 });
    expect(dropOnly.length).toBeGreaterThan(300);
    expect(lost({ drop: 0.02, dup: 0.3, reorder: 0.3 })).toEqual(dropOnly);
    // Corruption may hit a tag, so there only the number lost is compared.
    expect(run({ drop: 0.02, corrupt: 0.3 }, seed, 20_000).faults.stats.dropped).toBe(dropOnly.length);
  });

  it('deliver a reordered frame after exactly k (1..depth) later frames, or at its hold deadline', () => {
    const rng = testRng('link fault reorder');
    const n = 20_000;
    const { out, faults } = run({ reorder: 0.02, reorderDepth: 3, reorderHold: 1_000_000 }, rng.u32(), n);
    expect(out.length).toBe(n);
    // Without drops a frame held for k later frames comes out k places after its own index
    // (where holds do not overlap: no other held frame within 6 places).
    const shift = new Int32Array(n);
    out.forEach((f, k) => { shift[tagOf(f)] = k - tagOf(f); });
    const held = [...shift.keys()].filter(i => shift[i]! > 0);
    expect(held.length, "held frames come out later (two held in a row may not)").toBeLessThanOrEqual(faults.stats.reordered);
    const isolated = held.filter(i => !held.some(j => j !== i && Math.abs(j - i) <= 6));
    expect(isolated.length).toBeGreaterThan(faults.stats.reordered / 2);
    const ks = new Set(isolated.map(i => shift[i]!));
    expect([...ks].sort(), 'displacements of isolated held frames').toEqual([1, 2, 3]);
    // A frame held with nothing after it comes out at its deadline, not never.
    const f = new DirectionFaults({ reorder: 1, reorderHold: 50 }, new Rng(rng.u32()));
    expect(f.onFrame(tagged(7), 100)).toEqual([]);
    expect(f.nextDeadline()).toBe(150);
    expect(f.expire(149)).toEqual([]);
    expect(f.expire(150).map(tagOf)).toEqual([7]);
  });

  it('burst loss (Gilbert-Elliott) has the long-run loss and burst length of its parameters', () => {
    const rng = testRng('link burst loss');
    const n = 400_000, enter = 0.002, leave = 0.25;
    const { out, faults } = run({ burst: { enter, leave } }, rng.u32(), n);
    const lost = new Set(Array.from({ length: n }, (_, i) => i));
    for (const f of out) lost.delete(tagOf(f));
    const loss = enter / (enter + leave);
    expect(faults.stats.burstDropped).toBe(faults.stats.dropped);
    // Bursts are correlated, so allow 15 % around the long-run loss and the mean burst length.
    expect(Math.abs(lost.size / n - loss) / loss, `loss ${lost.size / n}, expected ${loss}`).toBeLessThan(0.15);
    let bursts = 0;
    for (const i of lost) if (!lost.has(i - 1)) bursts++;
    expect(Math.abs(lost.size / bursts - 1 / leave) * leave, `mean burst ${lost.size / bursts}, expected ${1 / leave}`).toBeLessThan(0.15);
  });

  it('a burst lasts at most burst.maxCycles: sparse frames lose a few in a row, dense ones the same as without it', () => {
    const rng = testRng('link burst maxCycles');
    const seed = rng.u32(), n = 20_000;
    // Long bursts (50 frames on average), frames 1000 cycles apart, bursts of at most 2500
    // cycles: a burst takes the frame that entered it and at most the two after it.
    const burst = { enter: 0.05, leave: 0.02 };
    const longestRun = (out: Uint8Array[]): number => {
      const got = new Set(out.map(tagOf));
      let best = 0, cur = 0;
      for (let i = 0; i < n; i++) { cur = got.has(i) ? 0 : cur + 1; best = Math.max(best, cur); }
      return best;
    };
    const capped = run({ burst: { ...burst, maxCycles: 2500 } }, seed, n, 1000);
    const free = run({ burst }, seed, n, 1000);
    expect(capped.faults.stats.burstDropped, 'bursts happened').toBeGreaterThan(100);
    expect(longestRun(capped.out), 'frames lost in a row, bursts cut at 2500 cycles').toBeLessThanOrEqual(3);
    expect(longestRun(free.out), 'frames lost in a row without the cut').toBeGreaterThan(20);
    // One frame per cycle: no burst reaches 2500 cycles, so the same frames are lost.
    const dense = run({ burst: { ...burst, maxCycles: 2500 } }, seed, n, 1);
    expect(dense.out.map(tagOf)).toEqual(run({ burst }, seed, n, 1).out.map(tagOf));
    expect(() => run({ burst: { ...burst, maxCycles: 0 } }, seed, 1)).toThrow(/maxCycles/);
  });

  it('hit exactly the n-th frame matching a predicate (READ RESPONSE MIDDLE, ACK, retransmission)', () => {
    const rng = testRng('targeted faults');
    const pkts: RocePacket[] = [
      ...segmentWrite({ path: PATH, payload: rng.bytes(1000), mtu: 256, startPsn: 10, va: 0x1000n, rkey: 0x105 }),
      ...segmentReadResponse({ path: PATH, payload: rng.bytes(1500), mtu: 256, requestPsn: 20, msn: 1 }),
      ackPacket({ path: PATH, psn: 13, msn: 1 }), ackPacket({ path: PATH, psn: 13, msn: 1 }), ackPacket({ path: PATH, psn: 14, msn: 2 }),
    ];
    const wire = pkts.map(encodeRoce);
    // The WRITE resent from PSN 12 (go-back-N): its LAST (PSN 13) goes by twice more.
    wire.push(wire[2]!, wire[3]!, wire[3]!);
    const f = new DirectionFaults({
      targeted: [
        { action: 'drop', match: frames.readResponse('middle'), nth: 3 },
        { action: 'corrupt', match: frames.ack(), nth: 2 },
        { action: 'drop', match: frames.and(frames.retransmission(), frames.psn(13)), nth: 1, count: Infinity },
      ],
    }, new Rng(rng.u32()));
    const out = wire.map((w, i) => f.onFrame(w, i));
    const gone = out.flatMap((o, i) => (o.length === 0 ? [i] : []));
    const changed = out.flatMap((o, i) => (o.length === 1 && o[0] !== wire[i] ? [i] : []));
    // Frames: 0-3 WRITE PSN 10..13, 4 RR FIRST, 5-8 RR MIDDLE (PSN 21..24), 9 RR LAST, 10-12 ACKs,
    // 13 WRITE PSN 12 again, 14 and 15 WRITE PSN 13 again.
    expect(gone).toEqual([7, 14, 15]);
    expect(changed).toEqual([11]);
    expect(f.stats.targeted).toEqual([1, 1, 2]);
    expect(f.stats.dropped).toBe(3);
    expect(f.stats.corrupted).toBe(1);
  });

  it('duplicate or delay exactly the n-th matching frame (targeted dup and reorder)', () => {
    const rng = testRng('targeted dup/reorder');
    const wire = [
      ...segmentWrite({ path: PATH, payload: rng.bytes(600), mtu: 256, startPsn: 10, va: 0x1000n, rkey: 0x105 }), // PSN 10, 11, 12 (LAST)
      ackPacket({ path: PATH, psn: 11, msn: 0 }), ackPacket({ path: PATH, psn: 12, msn: 1 }),
      ...segmentWrite({ path: PATH, payload: rng.bytes(10), mtu: 256, startPsn: 13, va: 0x2000n, rkey: 0x105 }), // PSN 13 (ONLY)
    ].map(encodeRoce);
    const f = new DirectionFaults({ targeted: [
      { action: 'dup', match: frames.write('last') },
      { action: 'reorder', match: frames.ack(), nth: 1, k: 2 },
    ] }, new Rng(rng.u32()));
    const out = wire.flatMap((w, i) => f.onFrame(w, i));
    const order = out.map(o => wire.indexOf(o));
    // Frame 2 (WRITE LAST) twice; frame 3 (first ACK) after the next two frames (4 and 5).
    expect(order).toEqual([0, 1, 2, 2, 4, 5, 3]);
    expect(f.stats).toMatchObject({ duplicated: 1, reordered: 1, targeted: [1, 1] });
  });

  it('refuse a bad spec naming the field', () => {
    expect(() => validateFaultSpec({ drop: 1.5 })).toThrow('link faults: drop must be a probability in [0, 1], got 1.5');
    expect(() => validateFaultSpec({ burst: { enter: 0.1, leave: -1 } })).toThrow('burst leave');
    expect(() => validateFaultSpec({ reorderDepth: 0 })).toThrow('reorderDepth');
    expect(() => validateFaultSpec({ targeted: [{ action: 'drop', match: frames.any(), nth: 0 }] })).toThrow('targeted[0].nth');
    expect(() => validateFaultSpec({ targeted: [{ action: 'reorder', match: frames.any(), k: 0 }] })).toThrow('targeted[0].k');
    expect(new LinkFaults({ 'b->a': { drop: 0.5 } }, new Rng(1)).dirs['a->b']).toBeUndefined();
  });
});

