// Faults of an Ethernet link, per direction, seeded: random loss, bit-flip corruption,
// duplication, reordering (a frame is delivered after the next k), Gilbert-Elliott burst loss,
// and targeted faults for directed tests (drop or corrupt the n-th frame matching a
// predicate of tb/model/frame-match.ts). EthernetLink (link.ts) runs every sent frame through
// it; what comes out is what the receiver gets.
//
// Each kind of fault draws from its own generator (forked in a fixed order), so switching one
// on does not change which frames another one hits: a run with drop 1 % loses the same frames
// whether corruption is on or not.

import type { Rng } from '../core/index.ts';
import { RetransmissionTracker, viewFrame, type FramePredicate, type FrameView } from '../model/frame-match.ts';

export type LinkDir = 'a->b' | 'b->a';
export const LINK_DIRS: readonly LinkDir[] = ['a->b', 'b->a'];

/** Two-state burst loss: per frame the state moves good -> bad with `enter`, bad -> good with
 *  `leave`, then the frame is lost with the state's loss probability. Mean burst (time in the
 *  bad state) 1/leave frames; long-run loss (enter*lossBad + leave*lossGood) / (enter + leave). */
export interface GilbertElliott {
  readonly enter: number;
  readonly leave: number;
  /** Loss probability in the bad state (default 1). */
  readonly lossBad?: number;
  /** Loss probability in the good state (default 0). */
  readonly lossGood?: number;
  /** A burst lasts at most this many cycles: the first frame later than that after the frame
   *  that entered the bad state finds the link good again (default: no limit). Why: the
   *  state moves per frame, so a direction that carries one frame per ACK timeout (one QP's
   *  retry chain at the end of a run) would keep one burst for many timeouts and lose every
   *  retransmission of a packet; a real burst is an event in time (soak finding 4,
   *  docs/link-faults.md). */
  readonly maxCycles?: number;
}

/** Drop, corrupt, duplicate or delay the `nth` frame matching `match` (1-based), and the
 *  `count - 1` matches after it (count Infinity: every match from the nth on, e.g. every
 *  retransmission of a PSN). 'reorder' delivers it after the next `k` frames (default 1). */
export interface TargetedFault {
  readonly action: 'drop' | 'corrupt' | 'dup' | 'reorder';
  /** For 'reorder': how many later frames pass it (default 1). */
  readonly k?: number;
  readonly match: FramePredicate;
  /** Default 1. */
  readonly nth?: number;
  /** Default 1. */
  readonly count?: number;
  /** Names the fault in the stats. */
  readonly label?: string;
}

export interface FaultSpec {
  /** Probability that a frame is lost. */
  readonly drop?: number;
  /** Probability that one random bit of a frame is flipped. */
  readonly corrupt?: number;
  /** Probability that a frame is delivered twice. */
  readonly dup?: number;
  /** Probability that a frame is held back and delivered after the next k frames. */
  readonly reorder?: number;
  /** k is uniform in 1..reorderDepth (default 3). */
  readonly reorderDepth?: number;
  /** A held frame is delivered after this many cycles even if fewer than k frames followed
   *  (default 4096): reordering delays a frame, it never loses it. */
  readonly reorderHold?: number;
  readonly burst?: GilbertElliott;
  readonly targeted?: readonly TargetedFault[];
}

export type LinkFaultSpec = Readonly<Partial<Record<LinkDir, FaultSpec>>>;

export interface FaultStats {
  /** Frames the sender put on the link. */
  frames: number;
  /** Lost (random, burst or targeted). */
  dropped: number;
  /** Of those, lost in the bad state of the burst model. */
  burstDropped: number;
  corrupted: number;
  /** Extra copies delivered. */
  duplicated: number;
  reordered: number;
  /** Hits per targeted fault, in spec order. */
  readonly targeted: number[];
}

const probability = (v: number | undefined, what: string): void => {
  if (v !== undefined && !(Number.isFinite(v) && v >= 0 && v <= 1)) throw new RangeError(`${what} must be a probability in [0, 1], got ${v}`);
};

/** Throws a RangeError naming the first bad field. */
export function validateFaultSpec(spec: FaultSpec, where = 'link faults'): void {
  probability(spec.drop, `${where}: drop`);
  probability(spec.corrupt, `${where}: corrupt`);
  probability(spec.dup, `${where}: dup`);
  probability(spec.reorder, `${where}: reorder`);
  if (spec.reorderDepth !== undefined && !(Number.isInteger(spec.reorderDepth) && spec.reorderDepth >= 1)) throw new RangeError(`${where}: reorderDepth must be a whole number >= 1, got ${spec.reorderDepth}`);
  if (spec.reorderHold !== undefined && !(Number.isInteger(spec.reorderHold) && spec.reorderHold >= 1)) throw new RangeError(`${where}: reorderHold must be a whole number >= 1, got ${spec.reorderHold}`);
  if (spec.burst) {
    probability(spec.burst.enter, `${where}: burst enter`);
    probability(spec.burst.leave, `${where}: burst leave`);
    probability(spec.burst.lossBad, `${where}: burst lossBad`);
    probability(spec.burst.lossGood, `${where}: burst lossGood`);
    if (spec.burst.maxCycles !== undefined && !(Number.isInteger(spec.burst.maxCycles) && spec.burst.maxCycles >= 1)) throw new RangeError(`${where}: burst maxCycles must be a whole number >= 1, got ${spec.burst.maxCycles}`);
  }
  for (const [i, t] of (spec.targeted ?? []).entries()) {
    if (t.nth !== undefined && !(Number.isInteger(t.nth) && t.nth >= 1)) throw new RangeError(`${where}: targeted[${i}].nth must be a whole number >= 1, got ${t.nth}`);
    if (t.count !== undefined && !(t.count === Infinity || (Number.isInteger(t.count) && t.count >= 1))) throw new RangeError(`${where}: targeted[${i}].count must be >= 1 or Infinity, got ${t.count}`);
    if (t.k !== undefined && !(Number.isInteger(t.k) && t.k >= 1)) throw new RangeError(`${where}: targeted[${i}].k must be a whole number >= 1, got ${t.k}`);
  }
}

/** True when the spec can change a frame (an all-zero spec is a perfect link). */
export function hasFaults(spec: FaultSpec | undefined): boolean {
  if (!spec) return false;
  return (spec.drop ?? 0) > 0 || (spec.corrupt ?? 0) > 0 || (spec.dup ?? 0) > 0 || (spec.reorder ?? 0) > 0
    || (spec.burst !== undefined && ((spec.burst.lossBad ?? 1) > 0 || (spec.burst.lossGood ?? 0) > 0) && spec.burst.enter > 0)
    || (spec.targeted?.length ?? 0) > 0;
}

/** A copy of `data` with bit `bit` (0 = bit 0 of byte 0) flipped. */
export function flipBit(data: Uint8Array, bit: number): Uint8Array {
  const out = Uint8Array.from(data);
  out[bit >> 3]! ^= 1 << (bit & 7);
  return out;
}

interface Held { readonly data: Uint8Array; remaining: number; readonly deadline: number }

/** The faults of one direction. */
export class DirectionFaults {
  readonly stats: FaultStats;
  readonly #spec: FaultSpec;
  readonly #rng: { readonly burst: Rng; readonly drop: Rng; readonly corrupt: Rng; readonly dup: Rng; readonly reorder: Rng };
  readonly #tracker = new RetransmissionTracker();
  readonly #matches: number[];
  readonly #held: Held[] = [];
  #bad = false;
  /** Cycle of the frame that entered the bad state. */
  #badSince = 0;

  constructor(spec: FaultSpec, rng: Rng) {
    validateFaultSpec(spec);
    this.#spec = spec;
    // One generator per kind of fault, forked in a fixed order (see the file comment).
    this.#rng = { burst: rng.fork(), drop: rng.fork(), corrupt: rng.fork(), dup: rng.fork(), reorder: rng.fork() };
    this.#matches = (spec.targeted ?? []).map(() => 0);
    this.stats = { frames: 0, dropped: 0, burstDropped: 0, corrupted: 0, duplicated: 0, reordered: 0, targeted: this.#matches.map(() => 0) };
  }

  /** The sender put `data` on the link at `cycle`: the frames to deliver now, in order
   *  (held frames whose k frames have passed come right after the frame that completed them). */
  onFrame(data: Uint8Array, cycle: number): Uint8Array[] {
    const index = this.stats.frames++;
    const targeted = this.#spec.targeted ?? [];
    const t = targeted.length > 0 ? this.#applyTargeted(viewFrame(index, data, this.#tracker), targeted) : { frame: data, dup: false, hold: 0 };
    const frame = t.frame === null ? null : this.#random(t.frame, cycle);
    if (frame === null) return [];
    const out: Uint8Array[] = [];
    if (t.dup || ((this.#spec.dup ?? 0) > 0 && this.#rng.dup.bool(this.#spec.dup))) { this.stats.duplicated++; this.#pass(frame, out); }
    const hold = t.hold > 0 ? t.hold
      : (this.#spec.reorder ?? 0) > 0 && this.#rng.reorder.bool(this.#spec.reorder) ? this.#rng.reorder.int(1, this.#spec.reorderDepth ?? 3) : 0;
    if (hold > 0) {
      this.stats.reordered++;
      this.#held.push({ data: frame, remaining: hold, deadline: cycle + (this.#spec.reorderHold ?? 4096) });
      return out;
    }
    this.#pass(frame, out);
    return out;
  }

  /** Held frames whose hold time has run out by `cycle`, in the order they were held. */
  expire(cycle: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = 0; i < this.#held.length;) {
      const h = this.#held[i]!;
      if (h.deadline <= cycle) { this.#held.splice(i, 1); this.#pass(h.data, out); } else i++;
    }
    return out;
  }

  /** The earliest cycle at which expire() has something (Infinity: nothing held). */
  nextDeadline(): number {
    let d = Infinity;
    for (const h of this.#held) d = Math.min(d, h.deadline);
    return d;
  }

  /** Frames held back right now. */
  get holding(): number { return this.#held.length; }

  /** Delivers `f`, then every held frame it was the k-th for. */
  #pass(f: Uint8Array, out: Uint8Array[]): void {
    out.push(f);
    const due: Held[] = [];
    for (const h of this.#held) if (--h.remaining === 0) due.push(h);
    for (const h of due) { this.#held.splice(this.#held.indexOf(h), 1); this.#pass(h.data, out); }
  }

  /** The frame after the targeted faults that hit it, and whether one duplicates or holds it. */
  #applyTargeted(view: FrameView, faults: readonly TargetedFault[]): { frame: Uint8Array | null; dup: boolean; hold: number } {
    let frame: Uint8Array | null = view.data, dup = false, hold = 0;
    faults.forEach((t, i) => {
      if (!t.match(view)) return;
      const n = ++this.#matches[i]!;
      const nth = t.nth ?? 1;
      if (n < nth || n >= nth + (t.count ?? 1) || frame === null) return;
      this.stats.targeted[i]!++;
      if (t.action === 'drop') { this.stats.dropped++; frame = null; return; }
      if (t.action === 'dup') { dup = true; return; }
      if (t.action === 'reorder') { hold = t.k ?? 1; return; }
      this.stats.corrupted++;
      frame = flipBit(frame, this.#rng.corrupt.int(0, frame.length * 8 - 1));
    });
    return { frame, dup, hold };
  }

  /** Burst loss, then random loss, then corruption. */
  #random(frame: Uint8Array, cycle: number): Uint8Array | null {
    const s = this.#spec, r = this.#rng;
    if (s.burst) {
      const wasBad = this.#bad;
      // The same draws with or without maxCycles: a seed's faults differ only where it cuts.
      this.#bad = this.#bad ? !r.burst.bool(s.burst.leave) : r.burst.bool(s.burst.enter);
      if (this.#bad && !wasBad) this.#badSince = cycle;
      else if (this.#bad && s.burst.maxCycles !== undefined && cycle - this.#badSince > s.burst.maxCycles) this.#bad = false;
      const loss = this.#bad ? (s.burst.lossBad ?? 1) : (s.burst.lossGood ?? 0);
      if (loss > 0 && r.burst.bool(loss)) { this.stats.dropped++; if (this.#bad) this.stats.burstDropped++; return null; }
    }
    if ((s.drop ?? 0) > 0 && r.drop.bool(s.drop)) { this.stats.dropped++; return null; }
    if ((s.corrupt ?? 0) > 0 && r.corrupt.bool(s.corrupt)) {
      this.stats.corrupted++;
      return flipBit(frame, r.corrupt.int(0, frame.length * 8 - 1));
    }
    return frame;
  }
}

/** Both directions' faults, each seeded from `rng` (a->b first). */
export class LinkFaults {
  readonly dirs: Readonly<Record<LinkDir, DirectionFaults | undefined>>;

  constructor(spec: LinkFaultSpec, rng: Rng) {
    const a = spec['a->b'] ? new DirectionFaults(spec['a->b'], rng.fork()) : undefined;
    const b = spec['b->a'] ? new DirectionFaults(spec['b->a'], rng.fork()) : undefined;
    this.dirs = { 'a->b': a, 'b->a': b };
  }

  /** Stats of `dir` (all zero when that direction has no faults). */
  stats(dir: LinkDir): FaultStats {
    return this.dirs[dir]?.stats ?? { frames: 0, dropped: 0, burstDropped: 0, corrupted: 0, duplicated: 0, reordered: 0, targeted: [] };
  }
}
