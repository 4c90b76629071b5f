// A whole replay: build (cached) and load nic_top for the scenario's parameters, program it,
// feed every captured frame in order, judge each, write what the NIC sent to a pcap and each
// MR's final contents to a folder. Same scenario and capture, same result: the run's seed is
// the scenario's memory.seed.

import { nicTop } from '../../gen/nic/nic-top.ts';
import { runTest, type TestBench } from '../core/index.ts';
import { design } from '../design.ts';
import { decodeRoce, type RocePacket } from '../model/packet.ts';
import { cycleToNs, PcapWriter } from '../model/pcap.ts';
import { dumpMrs, type MrDump } from './dump.ts';
import { FrameFeeder, type QpSnapshot, type TxFrame } from './feeder.ts';
import { loadNic, type LoadedNic, type TopDut } from './loader.ts';
import { rewriteDestQp } from './rewrite.ts';
import type { Scenario } from './scenario.ts';
import { judge, packetOf, qpIndexOf, type QpView, type Verdict } from './verdict.ts';

/** nic_top's clock for pcap timestamps (the benches use the same). */
export const REPLAY_CLOCK_HZ = 250_000_000;

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
  readonly start: number;
  readonly end: number;
}

export interface ReplayOptions {
  readonly scenario: Scenario;
  readonly frames: readonly Uint8Array[];
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
}

/** Rewrites, feeds and judges one captured frame. */
async function replayOne(feeder: FrameFeeder, qps: QpSnapshots, qpnMap: ReadonlyMap<number, number>, captured: Uint8Array, n: number): Promise<ReplayRow> {
  const frame = rewriteDestQp(captured, qpnMap);
  const r = await feeder.feed(frame);
  const replies = r.replies.map(decodeReply);
  const pkt = packetOf(frame);
  const view = qps.viewOf(pkt);
  const verdict = judge(frame, r, replies.flatMap(x => (x.pkt ? [x.pkt] : [])), view);
  await qps.refresh(view);
  const asCaptured = frame === captured ? pkt : packetOf(captured);
  const fed = frame !== captured && pkt ? { fedQpn: pkt.bth.destQp } : {};
  return { frame: n, length: captured.length, ...(asCaptured ? { pkt: asCaptured } : {}), ...fed, verdict, replies, start: r.start, end: r.end };
}

async function feedAll(tb: TestBench, dut: TopDut, nic: LoadedNic, o: ReplayOptions, pcap: PcapWriter | undefined): Promise<{ rows: ReplayRow[]; tx: ReplayReply[] }> {
  const feeder = await FrameFeeder.create(tb, dut, nic, { ...(o.settle ? { settle: o.settle } : {}), ...(o.frameTimeout ? { timeout: o.frameTimeout } : {}) });
  const qps = new QpSnapshots(feeder, o.scenario.nic.numQp);
  await qps.readAll(o.scenario);
  const qpnMap = captureQpnMap(o.scenario);
  const rows: ReplayRow[] = [], tx: ReplayReply[] = [];
  for (const [i, captured] of o.frames.entries()) {
    const row = await replayOne(feeder, qps, qpnMap, captured, i + 1);
    for (const f of row.replies) pcap?.write(f.data, cycleToNs(f.cycle, REPLAY_CLOCK_HZ));
    tx.push(...row.replies);
    rows.push(row);
    o.onFrame?.(row, o.frames.length, tb.cycle);
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
    }, { seed: s.memory.seed, maxCycles: 1_000_000 + perFrame * o.frames.length, ...(o.wave ? { wave: o.wave } : {}) });
    return { ...out!, cycles: r.cycles, built: r.built };
  } finally {
    pcap?.close();
  }
}
