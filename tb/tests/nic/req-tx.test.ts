// nic_req_tx against its TS model (tb/model/req-tx.ts): random WQEs (0..64 KiB, 0–4 SGEs,
// per-QP path MTU 256..4096, SQ_PSN just below 2^24 so messages wrap), random back-pressure
// on every output, a DMA emulator that answers each message's commands with a status after a
// random delay, and nic_regs emulated for SQ_PSN and STATE updates (one cycle late, as the
// real registers). Checked: the DmaReadCmd list, the TxPktCmd sequence, the ReqEntries, the
// SQ_PSN updates and qp_error events, element by element; error paths: bad fetch status,
// QP not in RTS, bad opcode, length mismatch, too many SGEs, DMA error.
// READs (mixed with WRITEs, 0 B .. 2 GiB): READ REQUEST commands, read_ctx contexts (each
// out no later than its request's command), no DMA. Fence: read_busy comes from a tracker
// stand-in that marks a READ busy from 0-1 cycles after its ReqEntry for a random time; a
// fenced WQE's first packet must leave only after every earlier READ of its QP completed.
// Every message's ReqEntry is taken no later than its first packet command. Timing: with no
// back-pressure and one packet per message, a WRITE's ReqEntry goes in the cycle its DMA
// status is taken and its first packet command is offered in the next one.

import { describe, expect, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { CQE_STATUS, MAX_SGE, QP_STATE, WQE_FLAG, WQE_OPCODE } from '../../../gen/nic/regmap.ts';
import { nicReqTx } from '../../../gen/nic/req-tx.ts';
import { PARK } from '../../../gen/nic/qp-transport.ts';
import { psnAdd, psnCompare } from '../../model/psn.ts';
import { XLATE_STATUS } from '../../../gen/nic/types.ts';
import { ClockPhases } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { reqTxModel, type DmaCmd, type PktCmd, type ReadCtxV, type ReqEntryV, type TxCfg, type TxQp } from '../../model/req-tx.ts';
import type { DecodedWqe } from '../../model/wqe-fetch.ts';
import { PulseMonitor, StructSink, StructSource, type StructOutPorts } from './stage-streams.ts';
import { emptyQpCtx } from './qp-ctx.ts';

const NUM_QP = 4;
/** An lkey the DMA emulator rejects (BAD_KEY), as the TLB would a stale one. */
const BAD_LKEY = 0xbad0_00ee;
type Dut = Parameters<Parameters<typeof runTest<NonNullable<typeof nicReqTx['__io']>>>[1]>[0];

interface Scenario {
  wqes: number;
  pReady: number;
  /** Probability of each error kind per WQE. */
  pErr: number;
  /** QP states (default all RTS). */
  states?: number[];
  /** Largest message. */
  maxLen: number;
  /** Extra cycles before a qp_error shows as STATE = ERROR. */
  errorDelay?: number;
  /** Share of RDMA READs among the WQEs (default 0). */
  pRead?: number;
  /** Longest time the tracker stand-in keeps a READ outstanding (default 200 cycles). */
  maxReadBusy?: number;
  /** Every message at most 256 B (the smallest path MTU), so one packet each. */
  onePacket?: boolean;
  /** Tracker entries per QP (tp.room) and READ contexts per QP (ctx_room); each held for up to
   *  entryHold / ctxHold cycles after it was taken (default: no limit). */
  entryLimit?: number; entryHold?: number; ctxLimit?: number; ctxHold?: number;
  /** Rewinds the tracker stand-in sends, at random times, to a QP's recent entries. */
  rewinds?: number;
}

/** `cycle`: the cycle just after the edge that completed the handshake (or, for the regs
 *  outputs, the cycle whose rising edge showed the pulse), the convention of every cycle here. */
interface Stamped<T> { cycle: number; v: T }
/** The bus models name a handshake by its sample phase's cycle; this file by the next one. */
const afterEdge = (sampleCycle: number): number => sampleCycle + 1;

/** Normalise a DUT struct value: fields named in `big` as bigint, the rest as number. */
function norm<T>(v: unknown, big: readonly string[]): T {
  const o = v as Record<string, number | bigint>;
  const one = (k: string, x: unknown): unknown => (Array.isArray(x) ? x.map(e => norm(e, big)) : big.includes(k) ? BigInt(x as number) : Number(x));
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, one(k, x)])) as T;
}
const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `0x${x.toString(16)}` : x));

/** First difference between what the DUT produced and the model, with index and cycle. */
function expectSeq<T extends object>(what: string, got: Stamped<T>[], want: T[], seed: number, pick: (t: T) => Partial<T> = t => t): void {
  const n = Math.min(got.length, want.length);
  for (let i = 0; i < n; i++) {
    // Only the fields the model names, in its order (the DUT's struct has a few more).
    const keys = Object.keys(want[i]!) as (keyof T)[];
    const gv = Object.fromEntries(keys.map(k => [k, got[i]!.v[k]])) as T;
    const g = show(pick(gv)), w = show(pick(want[i]!));
    if (g !== w) throw new Error(`${what} #${i} at cycle ${got[i]!.cycle} (seed ${seed}):\n  got  ${g}\n  want ${w}`);
  }
  if (got.length !== want.length) throw new Error(`${what}: got ${got.length}, want ${want.length} (seed ${seed}); next expected ${show(want[n])}, next got ${show(got[n]?.v)}`);
}

/** Compare RETH fields only where the packet carries one (the rest is don't-care). */
const pktView = (p: PktCmd): Partial<PktCmd> => (p.hasReth ? p : { ...p, rethVa: 0n, rethRkey: 0, rethLen: 0 });

function randomWqe(tb: TestBench, sc: Scenario, qpIdx: number, mtus: number[]): DecodedWqe {
  const r = tb.rng;
  const mtu = 1 << mtus[qpIdx]!;
  // Lengths near packet boundaries are where cutting goes wrong.
  const read = r.bool(sc.pRead ?? 0);
  // A READ moves no data here, so it may be huge (up to 2 GiB: 2^23 PSNs at MTU 256).
  const len = sc.onePacket ? r.int(0, 1 << 8) : read && r.bool(0.1) ? r.int(0, 2 ** 31)
    : r.pick([0, 1, mtu - 1, mtu, mtu + 1, 64 * mtu, r.int(0, sc.maxLen), r.int(0, sc.maxLen), r.int(0, 4 * mtu)]);
  const numSge = len === 0 && r.bool(0.5) ? 0 : r.int(1, MAX_SGE);
  const lens = Array.from({ length: MAX_SGE }, () => r.u32());
  if (numSge > 0) {
    let left = len;
    for (let i = 0; i < numSge; i++) { const l = i === numSge - 1 ? left : r.int(0, left); lens[i] = l; left -= l; }
  }
  const w: DecodedWqe = {
    qp: qpIdx, ringIndex: r.int(0, 0xffff), status: CQE_STATUS.SUCCESS, opcode: read ? WQE_OPCODE.RDMA_READ : WQE_OPCODE.RDMA_WRITE, flags: r.int(0, 255),
    numSge, length: len, wrId: r.bigint(64), remoteVa: r.bigint(64), rkey: r.u32(),
    sge: lens.map(l => ({ addr: r.bigint(64), len: l, lkey: r.u32() & 0x7fff_ffff })),
  };
  if (r.bool(sc.pErr)) w.status = r.pick([CQE_STATUS.LOCAL_QP_ERROR, CQE_STATUS.FLUSH_ERROR, CQE_STATUS.BAD_OPCODE]);
  if (r.bool(sc.pErr)) w.opcode = r.int(2, 255);
  if (r.bool(sc.pErr)) w.length = (w.length + r.int(1, 10)) >>> 0;
  if (r.bool(sc.pErr / 2)) w.numSge = r.int(MAX_SGE + 1, 255);
  if (r.bool(sc.pErr)) w.sge[r.int(0, Math.max(0, numSge - 1))]!.lkey = BAD_LKEY;
  return w;
}

/** One error of each kind a WQE can carry; `lkey` (a DMA protection error) ends the QP. */
const ERROR_KINDS = ['status-qp', 'status-flush', 'status-opcode', 'opcode', 'length', 'lkey'] as const;
function withError(w: DecodedWqe, kind: typeof ERROR_KINDS[number]): DecodedWqe {
  switch (kind) {
    case 'status-qp': return { ...w, status: CQE_STATUS.LOCAL_QP_ERROR };
    case 'status-flush': return { ...w, status: CQE_STATUS.FLUSH_ERROR };
    case 'status-opcode': return { ...w, status: CQE_STATUS.BAD_OPCODE };
    case 'opcode': return { ...w, opcode: 0x80 };
    case 'length': return { ...w, length: (w.length + 1) >>> 0 };
    case 'lkey': {
      // A WRITE with at least one byte, so the DMA engine translates (and rejects) the lkey.
      w = { ...w, opcode: WQE_OPCODE.RDMA_WRITE };
      const sge = w.sge.map((e, i) => (i === 0 ? { ...e, len: e.len + 1, lkey: BAD_LKEY } : e));
      return { ...w, numSge: Math.max(1, w.numSge), length: (w.numSge === 0 ? 1 : w.length + 1) >>> 0, sge: w.numSge === 0 ? [{ ...sge[0]!, len: 1 }, ...sge.slice(1)] : sge };
    }
  }
}

interface Outcome {
  dma: Stamped<DmaCmd>[]; pkts: Stamped<PktCmd>[]; reqs: Stamped<ReqEntryV>[]; upd: Stamped<{ qp: number; value: number }>[]; errs: Stamped<{ qp: number }>[];
  ctxs: Stamped<ReadCtxV>[];
  /** Cycle after each DmaStatus handshake. */
  statusAt: number[];
  parks: Stamped<{ qp: number; ringIdx: number; reason: number }>[];
  rewinds: Stamped<{ qp: number; ringIdx: number; sqPsn: number; resume: number }>[];
  retx: number;
}
interface Want { dma: DmaCmd[]; pkts: PktCmd[]; reqs: ReqEntryV[]; upd: { qp: number; value: number }[]; errs: { qp: number }[]; ctxs: ReadCtxV[]; retx: number }
/** A READ the tracker stand-in holds: its QP's read_busy bit is set in cycles [from, until). */
interface BusyRead { qp: number; entry: number; from: number; until: number }
/** Per WQE processed (a ReqEntry came out): its model result and when s_wqe took it. */
interface WqeRun { w: DecodedWqe; res: ReturnType<typeof reqTxModel>; acceptedAt: number }

/** What the ACK tracker holds for a QP that req_tx reads (tp port) or waits on. */
interface TrackerQp { expIdx: number; resumeValid: number; resumePsn: number; highValid: number; sentHigh: number; entries: number; ctxs: number }

async function runReqTx(dut: Dut, tb: TestBench, sc: Scenario): Promise<{ got: Outcome; want: Want; runs: WqeRun[]; busy: BusyRead[]; stale: number }> {
  const r = tb.rng;
  const mtus = Array.from({ length: NUM_QP }, () => r.int(8, 12));
  const qps: TxQp[] = Array.from({ length: NUM_QP }, (_, q) => ({
    state: sc.states?.[q] ?? QP_STATE.RTS, sqPsn: 0xff_ffff - r.int(0, 200), pmtu: mtus[q]!, pd: r.int(0, 0xffff),
    destQpn: r.int(0, 0xff_ffff), destMac: r.bigint(48), destIp: r.u32(), udpSport: 0xc000 | r.int(0, 0x3fff),
  }));
  const cfg: TxCfg = { mac: r.bigint(48), ipAddr: r.u32(), ttl: r.int(1, 255), dscp: r.int(0, 63) };
  const live = qps.map(q => ({ ...q }));
  const publish = (): void => {
    dut.qp_ctx.value = live.map(q => ({ ...emptyQpCtx(), ...q })) as never;
  };
  publish();
  dut.cfg.value = { config: 1, mac: cfg.mac, ipAddr: cfg.ipAddr, ipCfg: cfg.ttl | (cfg.dscp << 8), irqMod: 0 } as never;
  dut.s_wqe.valid.value = 0;
  dut.s_dma_status.valid.value = 0;
  dut.s_rewind.valid.value = 0;
  dut.read_busy.value = 0;
  dut.ctx_room.value = (1 << NUM_QP) - 1;
  await tb.reset(2);

  // The first WQE of each QP is always clean, so every seed has successes to check (a QP's
  // first error may be a protection error, which flushes everything after it). With errors
  // enabled, QP 0 then gets one WQE of each error kind, the QP-ending protection error last,
  // so every seed covers every status; random WQEs follow. Each QP's WQEs have consecutive
  // ring indices (a send ring), presented by a fetch stand-in.
  const clean = { ...sc, pErr: 0 };
  const directed = sc.pErr > 0 ? ERROR_KINDS.map(kind => withError(randomWqe(tb, clean, 0, mtus), kind)) : [];
  const order = [
    ...Array.from({ length: NUM_QP }, (_, qp) => randomWqe(tb, clean, qp, mtus)),
    ...directed,
    ...Array.from({ length: Math.max(0, sc.wqes - NUM_QP - directed.length) }, () => randomWqe(tb, sc, r.int(0, NUM_QP - 1), mtus)),
  ];
  const rings: DecodedWqe[][] = Array.from({ length: NUM_QP }, () => []);
  const ring0 = Array.from({ length: NUM_QP }, () => r.int(0, 0xffff));
  for (const w of order) { w.ringIndex = (ring0[w.qp]! + rings[w.qp]!.length) & 0xffff; rings[w.qp]!.push(w); }
  const dmaStatus = (cmds: DmaCmd[]): number => (cmds.some(c => c.key === BAD_LKEY) ? XLATE_STATUS.BAD_KEY : XLATE_STATUS.OK);
  const got: Outcome = { dma: [], pkts: [], reqs: [], upd: [], errs: [], ctxs: [], statusAt: [], parks: [], rewinds: [], retx: 0 };
  const busy = trackReads(dut, tb, sc, got.reqs);
  const busyNow = (q: number): boolean => busy.some(b => b.qp === q && b.from <= tb.cycle && tb.cycle < b.until);

  // nic_regs: an update valid in cycle t shows in qp_ctx from cycle t + 1; STATE = ERROR
  // optionally later (nic_top merges the stages' qp_error events, which can delay one).
  tb.fork(async () => {
    let pending: { at: number; apply: () => void }[] = [];
    for (;;) {
      await tb.rising();
      const due = pending.filter(x => x.at <= tb.cycle);
      if (due.length) { for (const x of due) x.apply(); pending = pending.filter(x => x.at > tb.cycle); publish(); }
      const u = dut.sq_psn_upd.value as { valid: number; qp: number; value: number };
      const e = dut.qp_error.value as { valid: number; qp: number };
      if (u.valid) {
        got.upd.push({ cycle: tb.cycle, v: { qp: Number(u.qp), value: Number(u.value) } });
        pending.push({ at: tb.cycle + 1, apply: () => { live[u.qp]!.sqPsn = Number(u.value); } });
      }
      if (e.valid) {
        got.errs.push({ cycle: tb.cycle, v: { qp: Number(e.qp) } });
        pending.push({ at: tb.cycle + 1 + (sc.errorDelay ?? 0), apply: () => { live[e.qp]!.state = QP_STATE.ERROR; } });
      }
    }
  }, 'regs');

  // ---- the ACK tracker and READ receiver stand-ins (what req_tx reads and waits on) -----------
  const trk: TrackerQp[] = ring0.map(i => ({ expIdx: i, resumeValid: 0, resumePsn: 0, highValid: 0, sentHigh: 0, entries: 0, ctxs: 0 }));
  const entryLimit = sc.entryLimit ?? 1 << 20, ctxLimit = sc.ctxLimit ?? 1 << 20;
  const release = (at: number, f: () => void): void => { releases.push({ at, f }); };
  const releases: { at: number; f: () => void }[] = [];
  /** At the start of every cycle: the room bits (the tracker's and nic_read_resp_rx's, registered). */
  ClockPhases.of(tb).onDrive(() => {
    for (let i = releases.length - 1; i >= 0; i--) if (releases[i]!.at <= tb.cycle) { releases[i]!.f(); releases.splice(i, 1); }
    dut.ctx_room.value = trk.reduce((a, t, q) => (t.ctxs < ctxLimit ? a | (1 << q) : a), 0);
  });

  // Receivers with random ready.
  const receive = <T>(ch: StructOutPorts<unknown>, name: string, into: Stamped<T>[], big: string[], onTake?: (v: T, at: number) => void): void => {
    new StructSink<unknown>(tb, ch, name, {
      pause: 1 - sc.pReady,
      onItem: (raw, at) => { const v = norm<T>(raw, big); into.push({ cycle: afterEdge(at), v }); onTake?.(v, at); },
    });
  };
  const statusQueue: number[] = [];
  let msgCmds: DmaCmd[] = [];
  receive<DmaCmd>(dut.m_dma_cmd as never, 'm_dma_cmd', got.dma, ['va'], c => {
    msgCmds.push(c);
    if (c.last) { statusQueue.push(dmaStatus(msgCmds)); msgCmds = []; }
  });
  receive<PktCmd>(dut.m_pkt_cmd as never, 'm_pkt_cmd', got.pkts, ['rethVa', 'srcMac', 'dstMac']);
  receive<ReqEntryV>(dut.m_req as never, 'm_req', got.reqs, ['wrId'], (e, at) => {
    const t = trk[e.qp]!;
    if (t.entries >= entryLimit) throw new Error(`QP ${e.qp}: ReqEntry (ring ${e.ringIndex}) taken at cycle ${at} with the tracker's ${entryLimit} entries in use: it should have been parked (seed ${tb.seed})`);
    t.expIdx = (e.ringIndex + 1) & 0xffff;
    t.resumeValid = 0;
    if (e.status === CQE_STATUS.SUCCESS && (!t.highValid || psnCompare(e.lastPsn, t.sentHigh) > 0)) { t.sentHigh = e.lastPsn; t.highValid = 1; }
    t.entries++;
    release(at + r.int(1, sc.entryHold ?? 1), () => { t.entries = Math.max(0, t.entries - 1); });
  });
  receive<ReadCtxV>(dut.m_read_ctx as never, 'm_read_ctx', got.ctxs, ['wrId', 'addr'], (c, at) => {
    const t = trk[c.qp]!;
    if (t.ctxs >= ctxLimit) throw new Error(`QP ${c.qp}: read_ctx taken at cycle ${at} with ${ctxLimit} READ contexts in use: it should have been parked (seed ${tb.seed})`);
    t.ctxs++;
    release(at + r.int(1, sc.ctxHold ?? 1), () => { t.ctxs--; });
  });
  new PulseMonitor(tb, { get value() { return (dut.m_park.value as { valid: number }).valid; } } as never, null);
  ClockPhases.of(tb).onSample(() => {
    const pk = dut.m_park.value as { valid: number; qp: number; ringIdx: number; reason: number };
    if (pk.valid) got.parks.push({ cycle: tb.cycle, v: { qp: Number(pk.qp), ringIdx: Number(pk.ringIdx), reason: Number(pk.reason) } });
    got.retx += Number(dut.cnt_retx.value);
  });

  // DMA status: in order, after a random translation delay.
  const status = new StructSource<{ status: number }>(tb, dut.s_dma_status as never, 's_dma_status');
  tb.fork(async () => {
    for (;;) {
      await tb.until(() => statusQueue.length > 0, { timeout: 1_000_000 });
      await tb.clockCycles(r.int(0, 8));
      got.statusAt.push(afterEdge(await status.transfer({ status: statusQueue.shift()! }, 1_000_000)));
    }
  }, 'dma');

  // ---- the fetch stand-in: each QP's ring from its pointer; a park or rewind moves it back ----
  const wqeIn = new StructSource<DecodedWqe>(tb, dut.s_wqe as never, 's_wqe');
  const ptr = rings.map(() => 0);
  const heldBy = rings.map((): number => PARK.NONE);
  const accepted = new Map<string, number>();
  let stale = 0;
  const key = (w: DecodedWqe): string => `${w.qp}/${w.ringIndex}`;
  const woken = (q: number): boolean => heldBy[q] === PARK.NONE || (heldBy[q] === PARK.FENCE ? !busyNow(q) : heldBy[q] === PARK.READ_LIMIT ? trk[q]!.ctxs < ctxLimit : trk[q]!.entries < entryLimit);
  let parksSeen = 0, rewindsSeen = 0;
  ClockPhases.of(tb).onDrive(() => {
    for (; parksSeen < got.parks.length; parksSeen++) {
      const pk = got.parks[parksSeen]!.v;
      ptr[pk.qp] = (pk.ringIdx - ring0[pk.qp]!) & 0xffff;
      heldBy[pk.qp] = pk.reason;
    }
    for (; rewindsSeen < got.rewinds.length; rewindsSeen++) {
      const rw = got.rewinds[rewindsSeen]!.v;
      ptr[rw.qp] = (rw.ringIdx - ring0[rw.qp]!) & 0xffff;
      heldBy[rw.qp] = PARK.NONE;
    }
    for (let q = 0; q < NUM_QP; q++) if (heldBy[q] !== PARK.NONE && woken(q)) heldBy[q] = PARK.NONE;
    // A couple of WQEs may be on their way (the WQE queue): those are the stale copies a park or rewind leaves behind.
    if (wqeIn.pending >= 2 || tb.rng.bool(0.3)) return;
    const ready = rings.map((_, q) => q).filter(q => ptr[q]! < rings[q]!.length && heldBy[q] === PARK.NONE);
    if (ready.length === 0) return;
    const q = r.pick(ready);
    wqeIn.push(rings[q]![ptr[q]!++]!);
  });
  // Which presented WQEs the DUT took in IDLE, for the fence check (acceptedAt).
  ClockPhases.of(tb).onSample(() => {
    if (dut.s_wqe.valid.value === 1 && dut.s_wqe.ready.value === 1) {
      const w = norm<DecodedWqe>(dut.s_wqe.data.value, ['wrId', 'remoteVa', 'addr']);
      if (w.ringIndex !== trk[w.qp]!.expIdx) stale++;
      else accepted.set(key(w), afterEdge(tb.cycle));
    }
  });

  // ---- rewinds (the tracker's go-back-N): back to the oldest entry a QP still holds ------------
  const rwSrc = new StructSource<{ qp: number; ringIdx: number; sqPsn: number }>(tb, dut.s_rewind as never, 's_rewind');
  const planned: { qp: number; ringIdx: number; sqPsn: number; resume: number }[] = [];
  let rwTaken = 0;
  if (sc.rewinds) {
    tb.fork(async () => {
      for (let k = 0; k < sc.rewinds!; k++) {
        await tb.clockCycles(r.int(20, 200));
        // A QP with SUCCESS entries of its own that the stand-in still holds.
        const cands = [...Array(NUM_QP).keys()].filter(q => got.reqs.some(e => e.v.qp === q && e.v.status === CQE_STATUS.SUCCESS));
        if (cands.length === 0 || rwSrc.pending > 0) continue;
        const q = r.pick(cands);
        const mine = got.reqs.filter(e => e.v.qp === q && e.v.status === CQE_STATUS.SUCCESS).slice(-3);
        const e = r.pick(mine).v;
        const n = ((e.lastPsn - e.msgFirstPsn) & 0xffffff) + 1;
        const resume = psnAdd(e.msgFirstPsn, r.int(0, n - 1));
        planned.push({ qp: q, ringIdx: e.ringIndex, sqPsn: e.msgFirstPsn, resume });
        rwSrc.push({ qp: q, ringIdx: e.ringIndex, sqPsn: e.msgFirstPsn });
      }
    }, 'rewinds');
  }
  ClockPhases.of(tb).onSample(() => {
    for (; rwTaken < rwSrc.sent.length; rwTaken++) {
      const x = planned[rwTaken]!;
      got.rewinds.push({ cycle: afterEdge(rwSrc.sent[rwTaken]!.cycle), v: x });
      const t = trk[x.qp]!;
      t.expIdx = x.ringIdx; t.resumeValid = x.resume !== x.sqPsn ? 1 : 0; t.resumePsn = x.resume; t.entries = 0;
    }
  });
  // The tracker's send-pointer read port (tp_qp -> tp), answered in the same cycle: registered
  // last, after every driver, so tp_qp is what the DUT shows once this cycle's inputs settled.
  ClockPhases.of(tb).onDrive(() => {
    tb.settle();
    const t = trk[Number(dut.tp_qp.value)]!;
    dut.tp.value = { expIdx: t.expIdx, resumeValid: t.resumeValid, resumePsn: t.resumePsn, highValid: t.highValid, sentHigh: t.sentHigh, room: t.entries < entryLimit ? 1 : 0 } as never;
  });

  const done = (): boolean => rings.every((l, q) => ptr[q]! >= l.length) && wqeIn.idle && statusQueue.length === 0 && rwSrc.idle;
  await tb.until(done, { timeout: 400_000, what: 'every WQE presented' });
  await tb.clockCycles(300);
  const want = modelRun(got, rings, ring0, qps, cfg, dmaStatus, tb.seed);
  const runs = want.runs.map(x => ({ ...x, acceptedAt: accepted.get(key(x.w)) ?? -1 }));
  return { got, want: want.want, runs, busy, stale };
}

/** The model, in the order the DUT processed WQEs (its ReqEntries) and took rewinds. Also
 *  checks the send pointer: per QP the ReqEntries follow the ring from each rewind on. */
function modelRun(got: Outcome, rings: DecodedWqe[][], ring0: number[], qps: TxQp[], cfg: TxCfg, dmaStatus: (cmds: DmaCmd[]) => number, seed: number): { want: Want; runs: { w: DecodedWqe; res: ReturnType<typeof reqTxModel> }[] } {
  const want: Want = { dma: [], pkts: [], reqs: [], upd: [], errs: [], ctxs: [], retx: 0 };
  const runs: { w: DecodedWqe; res: ReturnType<typeof reqTxModel> }[] = [];
  type E = { cycle: number; rank: number; entry?: ReqEntryV; rewind?: Outcome['rewinds'][number]['v'] };
  const evs: E[] = [...got.reqs.map(x => ({ cycle: x.cycle, rank: 1, entry: x.v })), ...got.rewinds.map(x => ({ cycle: x.cycle, rank: 0, rewind: x.v }))]
    .sort((a, b) => a.cycle - b.cycle || a.rank - b.rank);
  const next = ring0.map(i => i);
  const resume: (number | undefined)[] = ring0.map(() => undefined);
  const high: (number | undefined)[] = ring0.map(() => undefined);
  for (const ev of evs) {
    if (ev.rewind) {
      const x = ev.rewind;
      qps[x.qp]!.sqPsn = x.sqPsn;
      next[x.qp] = x.ringIdx;
      resume[x.qp] = x.resume;
      want.upd.push({ qp: x.qp, value: x.sqPsn });
      continue;
    }
    const e = ev.entry!;
    if (e.ringIndex !== next[e.qp]) throw new Error(`QP ${e.qp}: ReqEntry at cycle ${ev.cycle} is for ring index ${e.ringIndex}, the send pointer is at ${next[e.qp]} (seed ${seed})`);
    next[e.qp] = (e.ringIndex + 1) & 0xffff;
    const w = rings[e.qp]![(e.ringIndex - ring0[e.qp]!) & 0xffff]!;
    const res = reqTxModel(w, qps[e.qp]!, cfg, dmaStatus, resume[e.qp]);
    resume[e.qp] = undefined;
    const h = high[e.qp];
    if (res.entry.status === CQE_STATUS.SUCCESS) {
      if (h !== undefined) want.retx += res.pkts.filter(p => psnCompare(p.psn, h) <= 0).length;
      if (h === undefined || psnCompare(res.entry.lastPsn, h) > 0) high[e.qp] = res.entry.lastPsn;
    }
    runs.push({ w, res });
    want.dma.push(...res.dma); want.pkts.push(...res.pkts); want.reqs.push(res.entry);
    if (res.psnUpd) want.upd.push(res.psnUpd);
    if (res.qpError !== null) want.errs.push({ qp: res.qpError });
    if (res.readCtx) want.ctxs.push(res.readCtx);
  }
  // Nothing lost: every QP's ring was worked to its end after its last rewind.
  next.forEach((n, q) => {
    const end = (ring0[q]! + rings[q]!.length) & 0xffff;
    if (n !== end) throw new Error(`QP ${q}: the send pointer ended at ring index ${n}, the ring ends at ${end} (seed ${seed})`);
  });
  return { want, runs };
}

/**
 * The ACK tracker's read_busy, as the stand-in for it: a READ ReqEntry (SUCCESS) taken at
 * cycle c makes its QP busy from c or c + 1 (the tracker may take a cycle) for a random
 * time; READs of a QP complete in order. read_busy is written in the drive phase, so in
 * cycle t it knows every entry taken by the edge that began t.
 */
function trackReads(dut: Dut, tb: TestBench, sc: Scenario, reqs: Stamped<ReqEntryV>[]): BusyRead[] {
  const r = tb.rng.fork();
  const busy: BusyRead[] = [];
  const lastUntil = Array.from({ length: NUM_QP }, () => 0);
  let seen = 0;
  ClockPhases.of(tb).onDrive(() => {
    for (; seen < reqs.length; seen++) {
      const e = reqs[seen]!;
      if (e.v.opcode !== WQE_OPCODE.RDMA_READ || e.v.status !== CQE_STATUS.SUCCESS) continue;
      const from = e.cycle + r.int(0, 1);
      const hold = r.bool(0.3) ? r.int(1, 4) : r.int(1, sc.maxReadBusy ?? 200);
      const until = Math.max(from + hold, lastUntil[e.v.qp]!);
      lastUntil[e.v.qp] = until;
      busy.push({ qp: e.v.qp, entry: seen, from, until });
    }
    let bits = 0;
    for (const b of busy) if (b.from <= tb.cycle && tb.cycle < b.until) bits |= 1 << b.qp;
    dut.read_busy.value = bits;
  });
  return busy;
}

function check(tb: TestBench, o: Awaited<ReturnType<typeof runReqTx>>): void {
  expectSeq('ReqEntry', o.got.reqs, o.want.reqs, tb.seed);
  expect(o.got.retx, `cnt_retx pulses: packets at or below the newest PSN sent before (seed ${tb.seed})`).toBe(o.want.retx);
  expectSeq('DmaReadCmd', o.got.dma, o.want.dma, tb.seed);
  expectSeq('TxPktCmd', o.got.pkts, o.want.pkts, tb.seed, pktView);
  expectSeq('sq_psn_upd', o.got.upd, o.want.upd, tb.seed);
  expectSeq('qp_error', o.got.errs, o.want.errs, tb.seed);
  expectSeq('read_ctx', o.got.ctxs, o.want.ctxs, tb.seed);
  checkReadOrder(tb, o);
  checkEntryFirst(tb, o);
  checkFence(tb, o);
}

/** Each message's ReqEntry is taken no later than its first packet command (the tracker must
 *  know a message before any of its packets can be acknowledged). */
function checkEntryFirst(tb: TestBench, o: Awaited<ReturnType<typeof runReqTx>>): void {
  let pkt = 0;
  o.runs.forEach((run, i) => {
    const first = o.got.pkts[pkt], entry = o.got.reqs[i];
    if (run.res.pkts.length > 0 && first && entry && entry.cycle > first.cycle) {
      throw new Error(`WQE #${i} (qp ${run.w.qp}): first packet command at cycle ${first.cycle}, before its ReqEntry at cycle ${entry.cycle} (seed ${tb.seed})`);
    }
    pkt += run.res.pkts.length;
  });
}

/** Each READ's context is out no later than its READ REQUEST command. */
function checkReadOrder(tb: TestBench, o: Awaited<ReturnType<typeof runReqTx>>): void {
  const reqPkts = o.got.pkts.filter(p => p.v.opcode === 0x0c);
  expect(reqPkts.length, `READ REQUEST commands (seed ${tb.seed})`).toBe(o.got.ctxs.length);
  o.got.ctxs.forEach((c, k) => {
    if (c.cycle > reqPkts[k]!.cycle) throw new Error(`read_ctx #${k} (qp ${c.v.qp}, PSN ${c.v.firstPsn}) at cycle ${c.cycle}, after its READ REQUEST at cycle ${reqPkts[k]!.cycle} (seed ${tb.seed})`);
  });
}

/** A fenced WQE's first packet leaves only after every earlier READ of its QP completed. */
function checkFence(tb: TestBench, o: Awaited<ReturnType<typeof runReqTx>>): void {
  let pkt = 0, entry = 0;
  for (const run of o.runs) {
    const first = o.got.pkts[pkt];
    const fenced = (run.w.flags & WQE_FLAG.FENCE) !== 0;
    if (fenced && run.res.pkts.length > 0 && first) {
      const blocking = o.busy.filter(b => b.qp === run.w.qp && b.entry < entry && b.until >= first.cycle);
      if (blocking.length) {
        const b = blocking[0]!;
        throw new Error(`fenced WQE #${entry} (qp ${run.w.qp}) sent its first packet at cycle ${first.cycle}, but READ entry #${b.entry} was busy until ${b.until} (seed ${tb.seed})`);
      }
    }
    pkt += run.res.pkts.length;
    entry++;
  }
}

/** Fenced WQEs put back (parked) because an earlier READ of their QP was busy. */
function fenceWaits(o: Awaited<ReturnType<typeof runReqTx>>): number {
  return o.got.parks.filter(p => p.v.reason === PARK.FENCE).length;
}

const countBy = (l: ReqEntryV[], s: number): number => l.filter(e => e.status === s).length;

describe('nic_req_tx', () => {
  it('passes verilator -Wall, iverilog and yosys at 64 and 512 bits (and 3 QPs)', () => {
    for (const params of [{}, { dataWidth: 512 }, { numQp: 3 }]) {
      const e = emitToDir(nicReqTx, params);
      verilatorLint(e); iverilogCompile(e); yosysSynth(e);
    }
  });

  it('cuts random WRITEs into packets exactly as the model (PSN wrap, 0..64 KiB, 0-4 SGEs)', async () => {
    await runTest(design(nicReqTx, {}), async (dut, tb) => {
      const o = await runReqTx(dut, tb, { wqes: 60, pReady: 0.8, pErr: 0, maxLen: 65536 });
      check(tb, o);
      const wrapped = o.want.reqs.some(e => e.status === CQE_STATUS.SUCCESS && e.lastPsn < e.firstPsn);
      expect(wrapped, 'some message crossed PSN 2^24').toBe(true);
      expect(o.want.pkts.filter(p => p.opcode === 0x07).length, 'MIDDLE packets').toBeGreaterThan(0);
      console.log(`req_tx random: seed ${tb.seed}, ${o.got.pkts.length} packets, ${o.got.reqs.length} messages, ${tb.cycle} cycles`);
    });
  });

  it('starts a WRITE in the cycle its DMA status arrives and offers its first packet command the next cycle (idle generator, no back-pressure)', async () => {
    await runTest(design(nicReqTx, {}), async (dut, tb) => {
      const o = await runReqTx(dut, tb, { wqes: 40, pReady: 1, pErr: 0, maxLen: 256, onePacket: true });
      check(tb, o);
      // One packet per message, so the generator is idle whenever a status arrives.
      expect(o.got.statusAt.length, `statuses (seed ${tb.seed})`).toBe(o.got.reqs.length);
      o.got.reqs.forEach((e, i) => {
        const status = o.got.statusAt[i]!, pkt = o.got.pkts[i]!.cycle;
        if (e.cycle !== status || pkt !== e.cycle + 1) {
          throw new Error(`WRITE #${i} (qp ${e.v.qp}): status taken at cycle ${status}, ReqEntry at ${e.cycle} (want ${status}), first packet command at ${pkt} (want ${e.cycle + 1}) (seed ${tb.seed})`);
        }
      });
    });
  });

  it('mixes READs (0 B..2 GiB) and WRITEs; read_ctx before each READ REQUEST; fenced WQEs wait for the QP\'s READs', async () => {
    await runTest(design(nicReqTx, {}), async (dut, tb) => {
      const o = await runReqTx(dut, tb, { wqes: 100, pReady: 0.8, pErr: 0, maxLen: 20000, pRead: 0.5 });
      check(tb, o);
      const reads = o.want.reqs.filter(e => e.opcode === WQE_OPCODE.RDMA_READ && e.status === CQE_STATUS.SUCCESS);
      expect(reads.length, `READs sent (seed ${tb.seed})`).toBeGreaterThan(10);
      expect(reads.some(e => e.length === 0), `a zero-length READ (seed ${tb.seed})`).toBe(true);
      expect(reads.some(e => e.lastPsn !== e.firstPsn), `a READ expecting several responses (seed ${tb.seed})`).toBe(true);
      expect(o.want.reqs.some(e => e.status === CQE_STATUS.SUCCESS && e.lastPsn < e.firstPsn), `a message crossing PSN 2^24 (seed ${tb.seed})`).toBe(true);
      const waits = fenceWaits(o);
      expect(waits, `fenced WQEs that found a READ of their QP busy (seed ${tb.seed})`).toBeGreaterThan(3);
      console.log(`req_tx READ mix: seed ${tb.seed}, ${reads.length} READs, ${o.got.pkts.length} packets, ${waits} fence waits, ${tb.cycle} cycles`);
    });
  });

  it('error paths: bad fetch status, QP not in RTS, bad opcode, length mismatch, DMA error -> LOCAL_PROTECTION_ERROR + qp_error, later WQEs flushed even if STATE lags', async () => {
    await runTest(design(nicReqTx, {}), async (dut, tb) => {
      const o = await runReqTx(dut, tb, { wqes: 120, pReady: 0.6, pErr: 0.12, maxLen: 9000, errorDelay: 30, pRead: 0.3, maxReadBusy: 60, states: [QP_STATE.RTS, QP_STATE.RTS, QP_STATE.RTS, QP_STATE.RTR] });
      check(tb, o);
      for (const s of [CQE_STATUS.LOCAL_PROTECTION_ERROR, CQE_STATUS.LOCAL_LENGTH_ERROR, CQE_STATUS.BAD_OPCODE, CQE_STATUS.LOCAL_QP_ERROR, CQE_STATUS.FLUSH_ERROR, CQE_STATUS.SUCCESS]) {
        expect(countBy(o.want.reqs, s), `entries with status ${s} (seed ${tb.seed})`).toBeGreaterThan(0);
      }
      expect(o.got.errs.length, 'qp_error events').toBeGreaterThan(0);
      console.log(`req_tx errors: seed ${tb.seed}, ${o.got.reqs.length} entries, ${o.got.errs.length} QP errors`);
    });
  });

  it('rewinds: SQ_PSN from the rewind, the ring again from its index, the first WQE resumed inside (same packets from the resume PSN, DMA from that byte, a READ asks for the rest); stale copies dropped; RETX counted', async () => {
    await runTest(design(nicReqTx, {}), async (dut, tb) => {
      const o = await runReqTx(dut, tb, { wqes: 90, pReady: 0.8, pErr: 0, maxLen: 20000, pRead: 0.35, rewinds: 12 });
      check(tb, o);
      const inside = o.got.rewinds.filter(x => x.v.resume !== x.v.sqPsn).length;
      console.log(`req_tx rewinds: seed ${tb.seed}, ${o.got.rewinds.length} rewinds (${inside} resumed inside a message), ${o.stale} stale copies dropped, ${o.got.retx} packets counted as retransmissions, ${o.got.pkts.length} packets`);
      expect(o.got.rewinds.length, 'rewinds taken').toBeGreaterThanOrEqual(6);
      expect(inside, 'rewinds resuming inside a message').toBeGreaterThan(0);
      expect(o.stale, 'stale copies dropped').toBeGreaterThan(0);
      expect(o.got.retx).toBeGreaterThan(0);
    });
  });

  it('parks instead of waiting: a READ without a free READ context, any WQE without a tracker entry; re-presented once room frees, never over the limits', async () => {
    await runTest(design(nicReqTx, {}), async (dut, tb) => {
      const o = await runReqTx(dut, tb, { wqes: 80, pReady: 0.9, pErr: 0, maxLen: 6000, pRead: 0.5, ctxLimit: 1, ctxHold: 60, entryLimit: 2, entryHold: 80 });
      check(tb, o);
      const by = (reason: number): number => o.got.parks.filter(x => x.v.reason === reason).length;
      console.log(`req_tx parks: seed ${tb.seed}, READ limit ${by(PARK.READ_LIMIT)}, tracker full ${by(PARK.TRACKER_FULL)}, fence ${by(PARK.FENCE)}, ${o.stale} stale copies`);
      expect(by(PARK.READ_LIMIT), 'parks for the READ limit').toBeGreaterThan(2);
      expect(by(PARK.TRACKER_FULL), 'parks for tracker room').toBeGreaterThan(2);
    });
  });
});
