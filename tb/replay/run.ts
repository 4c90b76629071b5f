// A whole replay: build (cached) and load nic_top for the scenario's parameters, program it,
// feed every captured frame in order, judge each, write what the NIC sent to a pcap and each
// MR's final contents to a folder. Same scenario and capture, same result: the run's seed is
// the scenario's memory.seed.

import { nicTop } from '../../gen/nic/nic-top.ts';
import { DEFAULT_PERIOD_NS } from '../../sim/clock.ts';
import { runTest, type TestBench } from '../core/index.ts';
import { design } from '../design.ts';
import { decodeRoce, type RocePacket } from '../model/packet.ts';
import { PcapWriter } from '../model/pcap.ts';
import { attributeReplies, burstDisagreements, judgeBurst, type FrameRange } from './burst.ts';
import { dumpMrs, type MrDump } from './dump.ts';
import { FrameFeeder, type FeedResult, type QpSnapshot, type TxFrame } from './feeder.ts';
import type { InputFrame } from './frame-cleanup.ts';
import { loadNic, type LoadedNic, type TopDut } from './loader.ts';
import { rewriteDestQp } from './rewrite.ts';
import type { Scenario } from './scenario.ts';
import { judge, packetOf, qpIndexOf, type QpView, type Verdict } from './verdict.ts';

export interface ReplayReply extends TxFrame {
  /** Decoded by the TS model (ICRC checked); undefined if the model rejects it. */
  readonly pkt?: RocePacket;
}

export interface ReplayRow {
  /** 1-based, as tshark and Wireshark number frames. */
  readonly frame: number;
  readonly length: number;
  /** Header fields as captured, when the model can parse the frame at all. */
  readonly pkt?: RocePacket;
  /** The QPN the frame was fed with, when a captureQpn mapping rewrote it. */
  readonly fedQpn?: number;
  readonly verdict: Verdict;
  readonly replies: readonly ReplayReply[];
  /** What the input clean-up did to the frame (VLAN tag, FCS, SLL, truncation) and, for a
   *  burst, that it was fed back to back with others. */
  readonly input: readonly string[];
  /** The burst the frame was fed in, if any. */
  readonly burst?: FrameRange;
  readonly start: number;
  readonly end: number;
}

export interface ReplayOptions {
  readonly scenario: Scenario;
  /** Frames as captured, or as cleaned up by frame-cleanup.ts (with its notes). */
  readonly frames: readonly (Uint8Array | InputFrame)[];
  /** Frame ranges fed back to back (burst.ts); the others are fed one at a time. */
  readonly bursts?: readonly FrameRange[];
  /** Write every frame the NIC transmits here (classic pcap, Ethernet). */
  readonly txPcap?: string;
  /** Write each MR's final contents here. */
  readonly dumpDir?: string;
  /** Idle cycles that end a frame (default 64). */
  readonly settle?: number;
  /** Cycles one frame may take at most (default 200 000). */
  readonly frameTimeout?: number;
  /** FST wave dump of the whole run. */
  readonly wave?: string;
  /** The simulation is about to start (the model is built). */
  readonly onStart?: (tb: TestBench) => void;
  readonly onFrame?: (row: ReplayRow, total: number, cycle: number) => void;
}

export interface ReplayResult {
  readonly rows: readonly ReplayRow[];
  /** Every frame the NIC transmitted, in order. */
  readonly tx: readonly ReplayReply[];
  readonly dumps: readonly MrDump[];
  readonly cycles: number;
  readonly built: boolean;
}

/** Captured dest QPN -> the NIC's QPN, from the scenario's captureQpn fields. */
export function captureQpnMap(s: Scenario): Map<number, number> {
  return new Map(s.qps.flatMap(q => (q.captureQpn === undefined ? [] : [[q.captureQpn, q.qpn] as const])));
}

function decodeReply(f: TxFrame): ReplayReply {
  const d = decodeRoce(f.data);
  return d.ok ? { ...f, pkt: d.pkt } : f;
}

/** Each scenario QP's STATE and EXP_PSN as they were before the frame being judged (only
 *  the frame's own QP can change while it is handled, so only that one is read again). */
class QpSnapshots {
  readonly #snap = new Map<number, QpSnapshot>();
  constructor(readonly feeder: FrameFeeder, readonly numQp: number) {}

  async readAll(s: Scenario): Promise<void> {
    for (const q of s.qps) this.#snap.set(q.index, await this.feeder.qpSnapshot(q.index));
  }

  /** The scenario QP a packet is for, as it was; undefined for QPs the scenario lacks. */
  viewOf(pkt: RocePacket | undefined): QpView | undefined {
    const index = pkt ? qpIndexOf(pkt.bth.destQp, this.numQp) : undefined;
    const before = index === undefined ? undefined : this.#snap.get(index);
    return before && index !== undefined ? { index, before } : undefined;
  }

  async refresh(view: QpView | undefined): Promise<void> {
    if (view) this.#snap.set(view.index, await this.feeder.qpSnapshot(view.index));
  }

  /** Reads the given QPs again and returns them. */
  async reread(indexes: Iterable<number>): Promise<Map<number, QpSnapshot>> {
    const out = new Map<number, QpSnapshot>();
    for (const i of indexes) { const v = await this.feeder.qpSnapshot(i); this.#snap.set(i, v); out.set(i, v); }
    return out;
  }
}

const dataOf = (f: Uint8Array | InputFrame): Uint8Array => (f instanceof Uint8Array ? f : f.data);
const notesOf = (f: Uint8Array | InputFrame): readonly string[] => (f instanceof Uint8Array ? [] : f.notes);
const lengthOf = (f: Uint8Array | InputFrame): number => (f instanceof Uint8Array ? f.length : f.capturedLength);

/** A frame ready to feed: rewritten, decoded, and its row's fixed fields. */
interface Prepared {
  readonly fed: Uint8Array;
  readonly pkt?: RocePacket;
  readonly fields: Pick<ReplayRow, 'frame' | 'length' | 'pkt' | 'fedQpn' | 'input'>;
}

function prepare(input: Uint8Array | InputFrame, n: number, qpnMap: ReadonlyMap<number, number>, extraNote?: string): Prepared {
  const captured = dataOf(input);
  const fed = rewriteDestQp(captured, qpnMap);
  const pkt = packetOf(fed);
  const asCaptured = fed === captured ? pkt : packetOf(captured);
  const fields = {
    frame: n, length: lengthOf(input), input: extraNote ? [...notesOf(input), extraNote] : notesOf(input),
    ...(asCaptured ? { pkt: asCaptured } : {}), ...(fed !== captured && pkt ? { fedQpn: pkt.bth.destQp } : {}),
  };
  return { fed, ...(pkt ? { pkt } : {}), fields };
}

/** Feeds and judges one frame. */
async function replayOne(feeder: FrameFeeder, qps: QpSnapshots, f: Prepared): Promise<ReplayRow> {
  const r = await feeder.feed(f.fed);
  const replies = r.replies.map(decodeReply);
  const view = qps.viewOf(f.pkt);
  const verdict = judge(f.fed, r, replies.flatMap(x => (x.pkt ? [x.pkt] : [])), view);
  await qps.refresh(view);
  return { ...f.fields, verdict, replies, start: r.start, end: r.end };
}

const withNote = (v: Verdict, extra: readonly string[]): Verdict => (extra.length ? { ...v, note: [v.note, ...extra].filter(Boolean).join('; ') } : v);

/** Feeds frames back to back and judges each (burst.ts); returns the rows and every reply in
 *  transmit order. */
async function replayBurst(feeder: FrameFeeder, qps: QpSnapshots, s: Scenario, list: readonly Prepared[], range: FrameRange): Promise<{ rows: ReplayRow[]; tx: ReplayReply[] }> {
  const r: FeedResult = await feeder.feed(list.map(f => f.fed));
  const tx = r.replies.map(decodeReply);
  const frames = list.map(f => ({ data: f.fed, ...(f.pkt ? { pkt: f.pkt } : {}) }));
  const { perFrame, unmatched } = attributeReplies(frames, tx, s.qps, s.nic.numQp);
  perFrame[perFrame.length - 1]!.push(...unmatched);
  const judged = judgeBurst(frames, perFrame, r, pkt => qps.viewOf(pkt), s.qps);
  const after = await qps.reread(judged.qps.keys());
  const disagree = burstDisagreements(frames, r, judged, after, unmatched.length);
  const rows = list.map((f, i) => ({ ...f.fields, burst: range, verdict: withNote(judged.verdicts[i]!, disagree), replies: perFrame[i]!, start: r.start, end: r.end }));
  return { rows, tx };
}

async function feedAll(tb: TestBench, dut: TopDut, nic: LoadedNic, o: ReplayOptions, pcap: PcapWriter | undefined): Promise<{ rows: ReplayRow[]; tx: ReplayReply[] }> {
  const feeder = await FrameFeeder.create(tb, dut, nic, { ...(o.settle ? { settle: o.settle } : {}), ...(o.frameTimeout ? { timeout: o.frameTimeout } : {}) });
  const qps = new QpSnapshots(feeder, o.scenario.nic.numQp);
  await qps.readAll(o.scenario);
  const qpnMap = captureQpnMap(o.scenario);
  const rows: ReplayRow[] = [], tx: ReplayReply[] = [];
  for (let i = 0; i < o.frames.length;) {
    const range = o.bursts?.find(b => b.first === i + 1);
    const note = range ? `fed back to back with frames ${range.first}-${range.last} (burst)` : undefined;
    const list = o.frames.slice(i, range ? range.last : i + 1).map((f, k) => prepare(f, i + k + 1, qpnMap, note));
    const done = range ? await replayBurst(feeder, qps, o.scenario, list, range) : await replayOne(feeder, qps, list[0]!).then(row => ({ rows: [row], tx: row.replies }));
    for (const f of done.tx) pcap?.write(f.data, tb.model.clock.nsFloor(f.cycle));   // the dump's time of the frame's cycle
    tx.push(...done.tx);
    for (const row of done.rows) { rows.push(row); o.onFrame?.(row, o.frames.length, tb.cycle); }
    i += list.length;
  }
  return { rows, tx };
}

export async function runReplay(o: ReplayOptions): Promise<ReplayResult> {
  const s = o.scenario;
  const pcap = o.txPcap ? PcapWriter.open(o.txPcap) : undefined;
  let out: { rows: ReplayRow[]; tx: ReplayReply[]; dumps: MrDump[] } | undefined;
  const perFrame = o.frameTimeout ?? 200_000;
  try {
    const r = await runTest(design(nicTop, { numQp: s.nic.numQp, numMr: s.nic.numMr }), async (dut, tb) => {
      o.onStart?.(tb);
      const nic = await loadNic(dut, tb, s);
      const fed = await feedAll(tb, dut, nic, o, pcap);
      out = { ...fed, dumps: o.dumpDir ? dumpMrs(o.dumpDir, s.mrs, nic.mrs) : [] };
    }, { seed: s.memory.seed, periodNs: DEFAULT_PERIOD_NS, maxCycles: 1_000_000 + perFrame * o.frames.length, ...(o.wave ? { wave: o.wave } : {}) });
    return { ...out!, cycles: r.cycles, built: r.built };
  } finally {
    pcap?.close();
  }
}
