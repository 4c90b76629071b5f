// Bursts: captured frames fed back to back (--burst), for what one-at-a-time feeding cannot
// show: requests that arrive before the NIC has answered the previous ones (e.g. a third READ
// while two are outstanding, docs/nic-read.md). The NIC's counters and QP registers are read
// once for the whole burst, so a frame's verdict comes from what it drew (the replies are
// matched to frames by QP and PSN) and from the QP's expected PSN and state as the frames
// before it in the burst left them; the burst's counter totals and the QPs' registers after
// it are then compared with that account, and any difference is a note on every row.

import { QP_STATE } from '../../gen/nic/regmap.ts';
import { Opcode, Syndrome, opcodeInfo } from '../model/opcodes.ts';
import { decodeRoce, type RocePacket } from '../model/packet.ts';
import { psnAdd, psnCompare, psnDiff } from '../model/psn.ts';
import { readRequestPsns } from '../model/segment.ts';
import type { Counters, FeedResult, QpSnapshot } from './feeder.ts';
import type { QpConfig } from './scenario.ts';
import { judge, qpIndexOf, type QpView, type Verdict } from './verdict.ts';

/** Frames first..last (1-based, inclusive) are fed back to back. */
export interface FrameRange {
  readonly first: number;
  readonly last: number;
}

/** `--burst 1-3,10-12` or `all`: checked against the number of frames. */
export function parseBursts(text: string, frames: number): FrameRange[] {
  if (text === 'all') return frames >= 2 ? [{ first: 1, last: frames }] : [];
  const out = text.split(',').map(part => {
    const m = /^(\d+)-(\d+)$/.exec(part.trim());
    if (!m) throw new RangeError(`--burst ${text}: "${part}" is not a range FIRST-LAST of frame numbers (e.g. 1-3)`);
    const r = { first: Number(m[1]), last: Number(m[2]) };
    if (r.first < 1 || r.last <= r.first || r.last > frames) throw new RangeError(`--burst ${text}: ${part} must name at least two frames within 1-${frames}`);
    return r;
  });
  out.forEach((r, i) => { if (i > 0 && r.first <= out[i - 1]!.last) throw new RangeError(`--burst ${text}: ranges must be in order and must not overlap`); });
  return out;
}

export interface BurstReply {
  readonly pkt?: RocePacket;
}

/** One frame of a burst, as fed (QPN rewritten). */
export interface BurstFrame {
  readonly data: Uint8Array;
  readonly pkt?: RocePacket;
}

const isReadResponse = (op: number): boolean => op >= Opcode.RDMA_READ_RESPONSE_FIRST && op <= Opcode.RDMA_READ_RESPONSE_ONLY;

/** PSNs a request takes: a READ one per response packet, anything else one. */
function psnSpan(p: RocePacket, q: QpConfig): number {
  return p.bth.opcode === Opcode.RDMA_READ_REQUEST && p.reth ? readRequestPsns(p.reth.dmaLen, 2 ** q.pmtuLog2) : 1;
}

function within(psn: number, first: number, count: number): boolean {
  return psnCompare(psn, first) >= 0 && psnDiff(psn, first) < count;
}

/** Which frame of the burst drew each reply: per frame, the replies (in transmit order), and
 *  the replies no frame explains. */
export function attributeReplies<R extends BurstReply>(frames: readonly BurstFrame[], replies: readonly R[], qps: readonly QpConfig[], numQp: number): { perFrame: R[][]; unmatched: R[] } {
  const perFrame: R[][] = frames.map(() => []);
  const unmatched: R[] = [];
  const qpOf = (f: BurstFrame): number | undefined => (f.pkt ? qpIndexOf(f.pkt.bth.destQp, numQp) : undefined);
  for (const r of replies) {
    const p = r.pkt;
    const q = p ? qps.find(x => x.destQpn === p.bth.destQp && x.destIp === p.ip.dst) : undefined;
    const mine = (f: BurstFrame): boolean => q !== undefined && qpOf(f) === q.index;
    let k = -1;
    if (p && q && isReadResponse(p.bth.opcode)) {
      k = frames.findIndex(f => mine(f) && f.pkt!.bth.opcode === Opcode.RDMA_READ_REQUEST && within(p.bth.psn, f.pkt!.bth.psn, psnSpan(f.pkt!, q)));
    } else if (p && q && p.bth.opcode === Opcode.ACKNOWLEDGE && p.aeth) {
      // A NAK 0x60 carries the expected PSN: it answers the first frame ahead of it.
      const answers = p.aeth.syndrome === Syndrome.NAK_PSN_SEQUENCE
        ? (f: BurstFrame): boolean => psnCompare(f.pkt!.bth.psn, p.bth.psn) > 0
        : (f: BurstFrame): boolean => f.pkt!.bth.psn === p.bth.psn;
      k = frames.findIndex((f, i) => mine(f) && answers(f) && !perFrame[i]!.some(x => x.pkt?.bth.opcode === Opcode.ACKNOWLEDGE));
    }
    (k >= 0 ? perFrame[k]! : unmatched).push(r);
  }
  return { perFrame, unmatched };
}

/** The counters one frame would move, by the TS model's reading of its bytes. */
function modelDelta(frame: Uint8Array): Counters {
  const d = decodeRoce(frame);
  const zero = { dropIcrc: 0, dropOther: 0, rxFrames: 0, txFrames: 0 };
  if (d.ok) return { ...zero, rxFrames: 1 };
  return d.reason === 'bad-icrc' ? { ...zero, dropIcrc: 1 } : { ...zero, dropOther: 1 };
}

/** The QP as the burst's earlier frames leave it, by their verdicts. */
function advance(view: QpView, pkt: RocePacket, v: Verdict, q: QpConfig): QpSnapshot {
  const fatal = v.reason === 'invalid-request' || v.reason === 'remote-access' || v.reason === 'remote-operational';
  if (fatal) return { ...view.before, state: QP_STATE.ERROR };
  const kind = opcodeInfo(pkt.bth.opcode)?.kind;
  const request = kind === 'write' || kind === 'send' || kind === 'read-request';
  return v.accepted && request ? { ...view.before, expPsn: psnAdd(view.before.expPsn, psnSpan(pkt, q)) } : view.before;
}

export interface BurstJudgement {
  readonly verdicts: Verdict[];
  /** The QPs as the verdicts leave them (index -> snapshot), to compare with the registers. */
  readonly qps: ReadonlyMap<number, QpSnapshot>;
}

/** Judges each frame of a burst in order from the replies it drew and the QP as the frames
 *  before it left it (`viewOf`: the QP before the burst). */
export function judgeBurst<R extends BurstReply>(frames: readonly BurstFrame[], perFrame: readonly R[][], r: FeedResult, viewOf: (pkt: RocePacket | undefined) => QpView | undefined, qps: readonly QpConfig[]): BurstJudgement {
  const tracked = new Map<number, QpSnapshot>();
  const verdicts = frames.map((f, i) => {
    const base = viewOf(f.pkt);
    const view = base ? { index: base.index, before: tracked.get(base.index) ?? base.before } : undefined;
    const replies = perFrame[i]!.flatMap(x => (x.pkt ? [x.pkt] : []));
    const v = judge(f.data, { ...r, delta: modelDelta(f.data), accounted: true }, replies, view);
    const q = view ? qps.find(x => x.index === view.index) : undefined;
    if (view && q && f.pkt) tracked.set(view.index, advance(view, f.pkt, v, q));
    return v;
  });
  return { verdicts, qps: tracked };
}

const sum = (list: readonly Counters[], k: keyof Counters): number => list.reduce((a, c) => a + c[k], 0);

/** Where the NIC's registers after the burst disagree with the per-frame account (empty: none). */
export function burstDisagreements(frames: readonly BurstFrame[], r: FeedResult, judged: BurstJudgement, after: ReadonlyMap<number, QpSnapshot>, unmatched: number): string[] {
  const out: string[] = [];
  if (!r.accounted) out.push(`the counters did not count every frame of the burst before the time budget ran out`);
  const model = frames.map(f => modelDelta(f.data));
  const icrc = sum(model, 'dropIcrc');
  if (r.delta.dropIcrc !== icrc) out.push(`RX_DROP_ICRC moved ${r.delta.dropIcrc} for the burst, the TS model finds ${icrc} bad ICRCs`);
  if (r.delta.rxFrames !== sum(model, 'rxFrames')) out.push(`RX_FRAMES moved ${r.delta.rxFrames} for the burst, the TS model expects ${sum(model, 'rxFrames')}`);
  for (const [index, want] of judged.qps) {
    const got = after.get(index);
    if (got && (got.state !== want.state || got.expPsn !== want.expPsn)) {
      out.push(`QP ${index} after the burst: STATE ${got.state} EXP_PSN 0x${got.expPsn.toString(16)}, the verdicts imply STATE ${want.state} EXP_PSN 0x${want.expPsn.toString(16)}`);
    }
  }
  if (unmatched > 0) out.push(`${unmatched} transmitted frames match no frame of the burst (listed on its last row)`);
  return out;
}
