// A random mix of RDMA WRITEs and READs between two NICs, in both directions, on 1-4 QP pairs
// (each with its own path MTU and PSNs starting just below 2^24): lengths 0, 1, MTU-1, MTU,
// MTU+1 .. 64 KiB, 1-4 unaligned, page-crossing SGEs. Checked by the scoreboard (every READ
// returns the bytes its QP's earlier WRITEs left, CQEs in order, nothing else changes on either
// host) and recorded as the packets each NIC must send (requests, READ responses).
//
// Memory layout per host: `src` (read-only WRITE sources, shared by all QPs), `rw` (remote read
// and write; QP i of the peer owns slice i: WRITE targets and READ sources of one requester
// overlap each other on purpose, never another QP's), `land` (local READ destinations; QP i owns
// slice i; some WRITEs take their source from it, i.e. from what an earlier READ fetched).
// FENCE is set where the ordering rules need it (tb/model/memory-image.ts), on every third READ
// since the last fence (the responder serves 2 READs per QP; the requester does not count
// them, so software must), and at random.

import { ACCESS, CQE_STATUS, QP_STATE, WQE_OPCODE } from '../../gen/nic/regmap.ts';
import type { Rng, TestBench } from '../core/index.ts';
import type { QueuePair, SgeRef, WorkRequest } from '../model/driver.ts';
import type { MemoryRegion } from '../model/mr.ts';
import type { RdmaScoreboard } from '../model/scoreboard.ts';
import { readRequestPacket, readResponsePackets, responseKey, writePackets, type ExpectedPacket } from '../model/wire-expect.ts';
import type { Host, PairEnv } from './env.ts';
import { describeQps, setupHosts, startPoller, waitForCompletions, waitForRoom, wireKey } from './write-scenario.ts';

export interface MixedScenarioOptions {
  readonly wqes: number;
  /** QP pairs used (1..4). */
  readonly qps: number;
  /** Probability that a WQE is a READ (default 0.5). */
  readonly readShare?: number;
  /** Largest message (default 64 KiB). */
  readonly maxLen?: number;
  /** WQEs from both hosts (default true). */
  readonly bothDirections?: boolean;
  /** Probability of a FENCE nobody needs (default 0.1). */
  readonly extraFence?: number;
  /** Cycles to wait for the last completion (default 4M). */
  readonly timeout?: number;
  /** Fail when no completion arrives for this many cycles (default 400k). */
  readonly stallCycles?: number;
  /** The link has faults (tb/nic/link-faults.ts) or carries hostile frames: RX drops and
   *  retransmissions are expected. Without (default), no frame may be dropped and nothing
   *  retransmitted (RETX_PKTS, ACK_TIMEOUTS, SEQ_NAK_*, DUP_REQ_RX, RETRY_EXC all 0): a retry
   *  there would be a spurious one. */
  readonly lossy?: boolean;
  /** Every QP's RETRY register (regmap.ts retryReg: retry count, ACK timeout); default its
   *  reset value (3 retries, 2^20 cycles). */
  readonly retry?: number;
  /** Called once set-up is done and the scoreboard has started, before the first WQE is
   *  posted (e.g. to allow more ranges, or to start injecting frames). */
  readonly onStart?: (setup: { readonly mrs: ReadonlyMap<string, MixedMrs> }) => void;
}

export interface MixedScenarioResult {
  readonly reads: number;
  readonly writes: number;
  readonly fences: number;
  readonly bytes: number;
  readonly cycles: number;
  /** Expected request packets per wireKey and READ responses per responseKey(wireKey). */
  readonly wire: Map<string, ExpectedPacket[]>;
}

/** Per host: the MRs of the layout above. */
export interface MixedMrs { readonly src: MemoryRegion; readonly rw: MemoryRegion; readonly land: MemoryRegion }

const SLICE = 128 * 1024;

/** What planning needs of a host: its name and driver (no simulator). */
export type Side = Pick<Host, 'name' | 'drv'>;

/** One requester stream (host + QP): its PSN, the responder's MSN for it, and what the next
 *  WQE must FENCE against (intervals touched by READs since the stream's last fence). */
export interface Stream {
  readonly h: Side; readonly peer: Side; readonly qp: QueuePair; readonly rqpn: number;
  psn: number; msn: number;
  readsSinceFence: number;
  remote: [number, number][];
  local: [number, number][];
}

const overlaps = (list: readonly [number, number][], lo: number, hi: number): boolean => list.some(([a, b]) => lo < b && a < hi);

function pickLen(rng: Rng, mtu: number, maxLen: number): number {
  const l = rng.pick([0, 1, mtu - 1, mtu, mtu + 1, 2 * mtu + 3, rng.int(1, 4 * mtu), rng.int(1, maxLen), rng.int(1, 64), maxLen]);
  return Math.min(l, maxLen);
}

/** 1..4 SGEs of total `len` in [base, base + room) of `mr`, in order, not overlapping, at
 *  random gaps (some empty). */
function scatter(rng: Rng, mr: MemoryRegion, base: number, room: number, len: number): SgeRef[] {
  const n = rng.int(1, 4);
  const cuts = [0, ...Array.from({ length: n - 1 }, () => rng.int(0, len)).sort((x, y) => x - y), len];
  let slack = room - len, at = base;
  return Array.from({ length: n }, (_, i) => {
    const gap = rng.int(0, Math.min(slack, 5000));
    slack -= gap; at += gap;
    const s = { mr, offset: at, len: cuts[i + 1]! - cuts[i]! };
    at += s.len;
    return s;
  });
}

/** Registers `rw` and `land` on both hosts (random contents) next to setupHosts' MRs. */
export async function registerMixedMrs(sides: readonly Side[], rng: Rng, src: Map<string, MemoryRegion>): Promise<Map<string, MixedMrs>> {
  const pd = { A: 0x11, B: 0x22 };
  const out = new Map<string, MixedMrs>();
  for (const h of sides) {
    const rw = await h.drv.registerMr({ len: 4 * SLICE, access: ACCESS.REMOTE_READ | ACCESS.REMOTE_WRITE | ACCESS.LOCAL_WRITE, pd: pd[h.name] });
    const land = await h.drv.registerMr({ len: 4 * SLICE, access: ACCESS.LOCAL_WRITE, pd: pd[h.name] });
    for (const m of [rw, land]) m.write(0, rng.bytes(m.len));
    out.set(h.name, { src: src.get(h.name)!, rw, land });
  }
  return out;
}

export interface Planned { readonly s: Stream; wr: WorkRequest; readonly remoteOff: number; readonly len: number }

/** The next WQE of stream `s`, with the FENCE it needs; updates PSN, MSN and the wire lists. */
function planOne(rng: Rng, s: Stream, mrs: Map<string, MixedMrs>, o: MixedScenarioOptions, k: number, wire: Map<string, ExpectedPacket[]>): Planned {
  const mine = mrs.get(s.h.name)!, theirs = mrs.get(s.peer.name)!;
  const mtu = 1 << s.qp.opts.pmtuLog2;
  const len = pickLen(rng, mtu, o.maxLen ?? 65536);
  const slice = s.qp.index * SLICE;
  const remoteOff = slice + rng.int(0, SLICE - len);
  const isRead = rng.bool(o.readShare ?? 0.5);
  const add = (key: string, p: readonly ExpectedPacket[]): void => { wire.set(key, [...(wire.get(key) ?? []), ...p]); };
  const key = wireKey(s.h.name, s.rqpn);
  const wrId = BigInt(k) | (BigInt(rng.u32()) << 32n);
  const signaled = rng.bool(0.8);
  let fence = rng.bool(o.extraFence ?? 0.1);
  let wr: WorkRequest;
  if (isRead) {
    const sges = scatter(rng, mine.land, slice, SLICE, len);
    const lo = sges[0]!.offset, hi = sges[sges.length - 1]!.offset + sges[sges.length - 1]!.len;
    fence ||= s.readsSinceFence >= 2 || overlaps(s.local, lo, hi);
    wr = s.h.drv.readRequest(wrId, sges, theirs.rw.va + BigInt(remoteOff), theirs.rw.key, signaled, fence);
    const r = readRequestPacket(len, mtu, s.psn, s.rqpn, wr.remoteVa, wr.rkey);
    s.msn = (s.msn + 1) & 0xffffff;
    add(key, [r.packet]);
    add(responseKey(wireKey(s.peer.name, s.qp.qpn)), readResponsePackets(len, mtu, s.psn, s.qp.qpn, s.msn));
    s.psn = r.next;
    if (fence) { s.readsSinceFence = 0; s.remote = []; s.local = []; }
    s.readsSinceFence++; s.remote.push([remoteOff, remoteOff + len]); s.local.push([lo, hi]);
  } else {
    // A fifth of the WRITEs send what earlier READs of this QP fetched into `land`.
    const fromLand = rng.bool(0.2) && len <= SLICE;
    const sges = fromLand ? scatter(rng, mine.land, slice, SLICE, len) : scatter(rng, mine.src, 0, mine.src.len, len);
    const lo = sges[0]!.offset, hi = sges[sges.length - 1]!.offset + sges[sges.length - 1]!.len;
    fence ||= overlaps(s.remote, remoteOff, remoteOff + len) || (fromLand && overlaps(s.local, lo, hi));
    wr = { ...s.h.drv.writeRequest(wrId, sges, theirs.rw.va + BigInt(remoteOff), theirs.rw.key, signaled), ...(fence ? { fence } : {}) };
    const w = writePackets(len, mtu, s.psn, s.rqpn, wr.remoteVa, wr.rkey);
    s.msn = (s.msn + 1) & 0xffffff;
    add(key, w.packets);
    s.psn = w.next;
    if (fence) { s.readsSinceFence = 0; s.remote = []; s.local = []; }
  }
  return { s, wr, remoteOff, len };
}

/** The plan's expectation for `p` (all succeed), recorded in posting order. */
export function expectPlanned(sb: RdmaScoreboard, p: Planned, mrs: Map<string, MixedMrs>): void {
  const { s, wr } = p;
  const target = { host: s.peer.name, mr: mrs.get(s.peer.name)!.rw, offset: p.remoteOff };
  if (wr.opcode === WQE_OPCODE.RDMA_READ) sb.expectRead(s.h.name, s.qp.index, wr, CQE_STATUS.SUCCESS, target);
  else sb.expectWrite(s.h.name, s.qp.index, wr, CQE_STATUS.SUCCESS, target);
}

/** Plans `o.wqes` WQEs over `streams` (only host A's when !bothDirections); the last WQE of
 *  each stream is signaled, so every WQE is checked at some CQE. */
export function planMixed(rng: Rng, streams: readonly Stream[], mrs: Map<string, MixedMrs>, o: MixedScenarioOptions): { plan: Planned[]; wire: Map<string, ExpectedPacket[]> } {
  const wire = new Map<string, ExpectedPacket[]>();
  const plan: Planned[] = [];
  const from = (o.bothDirections ?? true) ? streams : streams.filter(s => s.h.name === 'A');
  for (let k = 0; k < o.wqes; k++) plan.push(planOne(rng, rng.pick(from), mrs, o, k, wire));
  for (const s of streams) {
    const last = plan.filter(p => p.s === s).pop();
    if (last) last.wr = { ...last.wr, signaled: true };
  }
  return { plan, wire };
}

/** Records the expectation, waits for a free slot, posts; rings the doorbell 70% of the time. */
async function postOne(env: PairEnv, tb: TestBench, p: Planned, mrs: Map<string, MixedMrs>, wait: { describe: () => Promise<string>; timeout: number; stallCycles: number; poll: { check(): void } }): Promise<void> {
  const { s, wr } = p;
  expectPlanned(env.sb, p, mrs);
  await waitForRoom(env, tb, s.h, s.qp, wait);
  s.h.drv.post(s.qp, wr);
  if (tb.rng.bool(0.7)) await s.h.drv.ring(s.qp);
}

export async function runMixedScenario(env: PairEnv, tb: TestBench, o: MixedScenarioOptions): Promise<MixedScenarioResult> {
  const rng = tb.rng;
  const setup = await setupHosts(env, tb, o.qps, o.retry);
  const mrs = await registerMixedMrs([env.a, env.b], rng, new Map([env.a, env.b].map(h => [h.name, setup.get(h)!.src])));
  env.sb.start();
  for (const h of [env.a, env.b]) for (const qp of setup.get(h)!.qps) env.sb.allow(h.name, qp.ringRanges);
  o.onStart?.({ mrs });
  const streams = [env.a, env.b].flatMap(h => setup.get(h)!.qps.map((qp, i): Stream => {
    const peer = env.peer(h);
    return { h, peer, qp, rqpn: setup.get(peer)!.qps[i]!.qpn, psn: setup.get(h)!.psn[i]!, msn: 0, readsSinceFence: 0, remote: [], local: [] };
  }));
  const { plan, wire } = planMixed(rng, streams, mrs, o);
  if (process.env['NICGEN_VERBOSE']) for (const p of plan) console.log(describePlanned(p));

  const describe = (): Promise<string> => describeQps(env, setup);
  const timeout = o.timeout ?? 4_000_000;
  const t0 = tb.cycle;
  const poll = startPoller(env, setup, tb);
  const stallCycles = o.stallCycles ?? 400_000;
  for (const p of plan) await postOne(env, tb, p, mrs, { describe, timeout, stallCycles, poll });
  for (const s of streams) await s.h.drv.ring(s.qp);
  // Fail early when nothing completes for a while (a lost response hangs a READ for good).
  await waitForCompletions(env, tb, { timeout, stallCycles, poll, describe });
  poll.stop();
  const cycles = tb.cycle - t0;
  env.sb.finish();
  await env.coverRecovery();
  await expectCleanEnd(env, streams, o.lossy ?? false);
  const reads = plan.filter(p => p.wr.opcode === WQE_OPCODE.RDMA_READ).length;
  return { reads, writes: plan.length - reads, fences: plan.filter(p => p.wr.fence).length, bytes: plan.reduce((a, p) => a + p.len, 0), cycles, wire };
}

/** Every QP still RTS; on a clean link no frame dropped and no retry of any kind. */
async function expectCleanEnd(env: PairEnv, streams: readonly Stream[], lossy: boolean): Promise<void> {
  for (const h of lossy ? [] : [env.a, env.b]) {
    for (const n of ['RX_DROP_ICRC', 'RX_DROP_OTHER', 'RETX_PKTS', 'ACK_TIMEOUTS', 'SEQ_NAK_TX', 'SEQ_NAK_RX', 'DUP_REQ_RX', 'RETRY_EXC'] as const) {
      const v = await h.drv.counter(n);
      if (v !== 0) throw new Error(`${h.name}: ${n} = ${v} in a run without link errors`);
    }
  }
  for (const s of streams) {
    const st = await s.h.drv.qpState(s.qp);
    if (st !== QP_STATE.RTS) throw new Error(`${s.h.name} QP ${s.qp.index} in state ${st} after an error-free mixed run`);
  }
}

function describePlanned(p: Planned): string {
  const op = p.wr.opcode === WQE_OPCODE.RDMA_READ ? 'READ ' : 'WRITE';
  return `${p.s.h.name} qp${p.s.qp.index} mtu=${1 << p.s.qp.opts.pmtuLog2} ${op} wr=0x${p.wr.wrId.toString(16)} len=${p.len} `
    + `sges=[${p.wr.sges.map(x => `${x.offset}+${x.len}`).join(',')}] remote=+${p.remoteOff} sig=${p.wr.signaled} fence=${p.wr.fence ?? false}`;
}
