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
import { QpCtx } from '../../../gen/nic/ctx.ts';
import { CQE_STATUS, MAX_SGE, QP_STATE, WQE_FLAG, WQE_OPCODE } from '../../../gen/nic/regmap.ts';
import { nicReqTx } from '../../../gen/nic/req-tx.ts';
import { XLATE_STATUS } from '../../../gen/nic/types.ts';
import { ClockPhases } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { reqTxModel, type DmaCmd, type PktCmd, type ReadCtxV, type ReqEntryV, type TxCfg, type TxQp } from '../../model/req-tx.ts';
import type { DecodedWqe } from '../../model/wqe-fetch.ts';
import { StructSink, StructSource, type StructOutPorts } from './stage-streams.ts';

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
}
interface Want { dma: DmaCmd[]; pkts: PktCmd[]; reqs: ReqEntryV[]; upd: { qp: number; value: number }[]; errs: { qp: number }[]; ctxs: ReadCtxV[] }
/** A READ the tracker stand-in holds: its QP's read_busy bit is set in cycles [from, until). */
interface BusyRead { qp: number; entry: number; from: number; until: number }
/** Per WQE: its model result and when s_wqe took it. */
interface WqeRun { w: DecodedWqe; res: ReturnType<typeof reqTxModel>; acceptedAt: number }

async function runReqTx(dut: Dut, tb: TestBench, sc: Scenario): Promise<{ got: Outcome; want: Want; runs: WqeRun[]; busy: BusyRead[] }> {
  const r = tb.rng;
  const mtus = Array.from({ length: NUM_QP }, () => r.int(8, 12));
  const qps: TxQp[] = Array.from({ length: NUM_QP }, (_, q) => ({
    state: sc.states?.[q] ?? QP_STATE.RTS, sqPsn: 0xff_ffff - r.int(0, 200), pmtu: mtus[q]!, pd: r.int(0, 0xffff),
    destQpn: r.int(0, 0xff_ffff), destMac: r.bigint(48), destIp: r.u32(), udpSport: 0xc000 | r.int(0, 0x3fff),
  }));
  const cfg: TxCfg = { mac: r.bigint(48), ipAddr: r.u32(), ttl: r.int(1, 255), dscp: r.int(0, 63) };
  const live = qps.map(q => ({ ...q }));
  const publish = (): void => {
    dut.qp_ctx.value = live.map(q => ({ ...Object.fromEntries(QpCtx.fields.map(f => [f.name, 0])), ...q })) as never;
  };
  publish();
  dut.cfg.value = { config: 1, mac: cfg.mac, ipAddr: cfg.ipAddr, ipCfg: cfg.ttl | (cfg.dscp << 8), irqMod: 0 } as never;
  dut.s_wqe.valid.value = 0;
  dut.s_dma_status.valid.value = 0;
  dut.read_busy.value = 0;
  await tb.reset(2);

  // The first WQE of each QP is always clean, so every seed has successes to check (a QP's
  // first error may be a protection error, which flushes everything after it). With errors
  // enabled, QP 0 then gets one WQE of each error kind, the QP-ending protection error last,
  // so every seed covers every status; random WQEs follow.
  const clean = { ...sc, pErr: 0 };
  const directed = sc.pErr > 0 ? ERROR_KINDS.map(kind => withError(randomWqe(tb, clean, 0, mtus), kind)) : [];
  const wqes = [
    ...Array.from({ length: NUM_QP }, (_, qp) => randomWqe(tb, clean, qp, mtus)),
    ...directed,
    ...Array.from({ length: Math.max(0, sc.wqes - NUM_QP - directed.length) }, () => randomWqe(tb, sc, r.int(0, NUM_QP - 1), mtus)),
  ];
  const dmaStatus = (cmds: DmaCmd[]): number => (cmds.some(c => c.key === BAD_LKEY) ? XLATE_STATUS.BAD_KEY : XLATE_STATUS.OK);
  const model = wqes.map(w => reqTxModel(w, qps[w.qp]!, cfg, dmaStatus));
  const want = {
    dma: model.flatMap(x => x.dma), pkts: model.flatMap(x => x.pkts), reqs: model.map(x => x.entry),
    upd: model.flatMap(x => (x.psnUpd ? [x.psnUpd] : [])), errs: model.flatMap(x => (x.qpError === null ? [] : [{ qp: x.qpError }])),
    ctxs: model.flatMap(x => (x.readCtx ? [x.readCtx] : [])),
  };
  const got: Outcome = { dma: [], pkts: [], reqs: [], upd: [], errs: [], ctxs: [], statusAt: [] };
  const runs: WqeRun[] = wqes.map((w, i) => ({ w, res: model[i]!, acceptedAt: -1 }));
  const busy = trackReads(dut, tb, sc, got.reqs);

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

  // Receivers with random ready.
  const receive = <T>(ch: StructOutPorts<unknown>, name: string, into: Stamped<T>[], big: string[], onTake?: (v: T) => void): void => {
    new StructSink<unknown>(tb, ch, name, {
      pause: 1 - sc.pReady,
      onItem: (raw, at) => { const v = norm<T>(raw, big); into.push({ cycle: afterEdge(at), v }); onTake?.(v); },
    });
  };
  const statusQueue: number[] = [];
  let msgCmds: DmaCmd[] = [];
  receive<DmaCmd>(dut.m_dma_cmd as never, 'm_dma_cmd', got.dma, ['va'], c => {
    msgCmds.push(c);
    if (c.last) { statusQueue.push(dmaStatus(msgCmds)); msgCmds = []; }
  });
  receive<PktCmd>(dut.m_pkt_cmd as never, 'm_pkt_cmd', got.pkts, ['rethVa', 'srcMac', 'dstMac']);
  receive<ReqEntryV>(dut.m_req as never, 'm_req', got.reqs, ['wrId']);
  receive<ReadCtxV>(dut.m_read_ctx as never, 'm_read_ctx', got.ctxs, ['wrId', 'addr']);

  // DMA status: in order, after a random translation delay.
  const status = new StructSource<{ status: number }>(tb, dut.s_dma_status as never, 's_dma_status');
  tb.fork(async () => {
    for (;;) {
      await tb.until(() => statusQueue.length > 0, { timeout: 1_000_000 });
      await tb.clockCycles(r.int(0, 8));
      got.statusAt.push(afterEdge(await status.transfer({ status: statusQueue.shift()! }, 1_000_000)));
    }
  }, 'dma');

  const wqeIn = new StructSource<DecodedWqe>(tb, dut.s_wqe as never, 's_wqe');
  for (const run of runs) {
    await tb.clockCycles(r.bool(0.3) ? r.int(0, 20) : 0);
    run.acceptedAt = afterEdge(await wqeIn.transfer(run.w, 400_000));
  }
  await tb.until(() => got.reqs.length === want.reqs.length && got.pkts.length >= want.pkts.length, { timeout: 400_000, what: 'all entries and packets' });
  await tb.clockCycles(50);
  return { got, want, runs, busy };
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

/** Fenced WQEs (that send something) that arrived while an earlier READ of their QP was busy. */
function fenceWaits(o: Awaited<ReturnType<typeof runReqTx>>): number {
  return o.runs.filter((run, i) => (run.w.flags & WQE_FLAG.FENCE) !== 0 && run.res.pkts.length > 0
    && o.busy.some(b => b.qp === run.w.qp && b.entry < i && b.until > run.acceptedAt)).length;
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
});
