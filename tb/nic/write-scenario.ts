// Random RDMA WRITEs between two NICs, checked by the scoreboard (bytes, untouched memory,
// CQE order/status/length) and recorded as the wire packets the requester must send.

import { ACCESS, CQE_STATUS, QP_STATE } from '../../gen/nic/regmap.ts';
import type { Rng, TestBench } from '../core/index.ts';
import type { QueuePair, SgeRef, WorkRequest } from '../model/driver.ts';
import type { MemoryRegion } from '../model/mr.ts';
import { writePackets, type ExpectedPacket } from '../model/wire-expect.ts';
import type { Host, PairEnv } from './env.ts';
import { LINK_DIRS } from './link-faults.ts';

export interface WriteScenarioOptions {
  readonly writes: number;
  /** QP pairs used (1..4). */
  readonly qps: number;
  /** Largest message (default 64 KiB). */
  readonly maxLen?: number;
  /** WRITEs in both directions (default true). */
  readonly bothDirections?: boolean;
  /** Cycles to wait for the last completion (default 2M). */
  readonly timeout?: number;
  /** Fail when no completion arrives for this many cycles (default 400k). */
  readonly stallCycles?: number;
  /** The link has faults (tb/nic/link-faults.ts): RX drops are expected, not a failure. */
  readonly lossy?: boolean;
}

export interface WriteScenarioResult {
  readonly writes: number;
  readonly bytes: number;
  readonly cycles: number;
  /** Expected request packets per direction and destination QPN, in order. */
  readonly wire: Map<string, ExpectedPacket[]>;
}

export interface HostSetup { src: MemoryRegion; dst: MemoryRegion; dstNext: number; qps: QueuePair[]; psn: number[] }

const SRC_BYTES = 128 * 1024;
const DST_BYTES = 512 * 1024;

export function wireKey(from: 'A' | 'B', destQp: number): string { return `${from}->qpn${destQp.toString(16)}`; }

function pickLen(rng: Rng, mtu: number, maxLen: number): number {
  const l = rng.pick([0, 1, mtu - 1, mtu, mtu + 1, 2 * mtu + 3, rng.int(1, 4 * mtu), rng.int(1, maxLen), rng.int(1, 64)]);
  return Math.min(l, maxLen);
}

/** 1..4 SGEs (some may be empty) over the source MR whose lengths add up to `len`. */
function pickSges(rng: Rng, src: MemoryRegion, len: number): SgeRef[] {
  const n = rng.int(1, 4);
  const cuts = [0, ...Array.from({ length: n - 1 }, () => rng.int(0, len)).sort((x, y) => x - y), len];
  return Array.from({ length: n }, (_, i) => {
    const l = cuts[i + 1]! - cuts[i]!;
    return { mr: src, offset: rng.int(0, src.len - l), len: l };
  });
}

/** `retry`: every QP's RETRY register (retryReg; default the register's reset value). */
export async function setupHosts(env: PairEnv, tb: TestBench, qps: number, retry?: number): Promise<Map<Host, HostSetup>> {
  const rng = tb.rng;
  const pd = { A: 0x11, B: 0x22 };
  const setup = new Map<Host, HostSetup>();
  for (const h of [env.a, env.b]) {
    const src = await h.drv.registerMr({ len: SRC_BYTES, access: 0, pd: pd[h.name] });
    const dst = await h.drv.registerMr({ len: DST_BYTES, access: ACCESS.REMOTE_WRITE | ACCESS.LOCAL_WRITE, pd: pd[h.name] });
    src.write(0, rng.bytes(src.len));
    dst.write(0, rng.bytes(dst.len));
    setup.set(h, { src, dst, dstNext: 0, qps: [], psn: [] });
  }
  for (let i = 0; i < qps; i++) {
    const pmtuLog2 = rng.int(8, 12);
    for (const h of [env.a, env.b]) {
      // PSNs start just below 2^24, so every run crosses the wrap.
      const sqPsn = 0xffffff - rng.int(0, 40);
      const qp = await h.drv.createQp(i, { pd: pd[h.name], pmtuLog2, sqPsn, sqSizeLog2: rng.int(2, 5), cqSizeLog2: rng.int(2, 6), ...(retry === undefined ? {} : { retry }) });
      setup.get(h)!.qps.push(qp);
      setup.get(h)!.psn.push(sqPsn);
    }
    const qa = setup.get(env.a)!.qps[i]!, qb = setup.get(env.b)!.qps[i]!;
    await env.a.drv.connectQp(qa, env.b.drv.address(qb));
    await env.b.drv.connectQp(qb, env.a.drv.address(qa));
  }
  return setup;
}

/** Every QP's indices and PSNs on both hosts, and the link's counts: what a hang looks like. */
export async function describeQps(env: PairEnv, setup: Map<Host, HostSetup>): Promise<string> {
  const lines: string[] = [];
  for (const h of [env.a, env.b]) {
    for (const qp of setup.get(h)!.qps) {
      const r = async (n: Parameters<typeof h.drv.qpReg>[1]): Promise<string> => `${n}=0x${(await h.drv.qpReg(qp, n)).toString(16)}`;
      const regs: string[] = [];
      for (const n of ['STATE', 'SQ_PI', 'SQ_CI', 'CQ_PI', 'CQ_CI', 'SQ_PSN', 'EXP_PSN', 'MSN', 'PMTU'] as const) regs.push(await r(n)); // one AXI-Lite access at a time
      lines.push(`  ${h.name} QP ${qp.index}: ${regs.join(' ')} owed=${env.sb.owed(h.name, qp.index)}`);
    }
    const c: string[] = [];
    for (const n of ['TX_FRAMES', 'RX_FRAMES', 'RX_DROP_ICRC', 'RX_DROP_OTHER', 'TLB_HITS', 'TLB_MISSES'] as const) c.push(`${n}=${await h.drv.counter(n)}`);
    lines.push(`  ${h.name}: ${c.join(' ')}`);
  }
  lines.push(`  link: ${JSON.stringify(env.link.stats)}`);
  for (const f of env.link.describeFaults()) lines.push(`  link faults ${f}`);
  return lines.join('\n');
}

/** A coroutine that reaps CQEs of every QP every 16 cycles until stopped. A CQE the
 *  scoreboard refuses ends it; `check()` and `stop()` throw that refusal. `stop()` must: the
 *  scoreboard takes a CQE's entry off its queue before it judges it, so a refused last CQE
 *  leaves nothing owed and a wait for "nothing owed" ends as if all was well. */
export function startPoller(env: PairEnv, setup: Map<Host, HostSetup>, tb: TestBench): { stop(): void; check(): void } {
  let running = true;
  let failure: unknown = undefined;
  tb.fork(async () => {
    while (running) {
      // Most rounds find nothing: then pollAll (reads, register writes, scoreboard) would do
      // nothing either, and its promises are skipped.
      if (anyCqe(env, setup)) {
        try { await pollAll(env, setup); } catch (e) { failure = e; return; }
      }
      await env.clock.cycles(16);
    }
  }, 'cq poller');
  return {
    stop: () => { running = false; if (failure !== undefined) throw failure; },
    check: () => { if (failure !== undefined) throw failure; },
  };
}

/** True when some QP of either host has a new CQE (what pollAll would reap). */
function anyCqe(env: PairEnv, setup: Map<Host, HostSetup>): boolean {
  for (const h of [env.a, env.b]) for (const qp of setup.get(h)!.qps) if (h.drv.hasCqe(qp)) return true;
  return false;
}

/** Reaps every QP's CQEs on both hosts into the scoreboard. */
export async function pollAll(env: PairEnv, setup: Map<Host, HostSetup>): Promise<number> {
  let n = 0;
  for (const h of [env.a, env.b]) {
    for (const qp of setup.get(h)!.qps) {
      for (const c of await h.drv.pollCq(qp)) { env.sb.onCqe(h.name, qp.index, c); n++; }
    }
  }
  return n;
}

export interface CompletionWait {
  /** Cycles from now to the last completion at most. */
  readonly timeout: number;
  /** Fail when no completion arrives for this many cycles. */
  readonly stallCycles: number;
  readonly poll: { check(): void };
  /** What the failure message shows of the NICs (describeQps). */
  readonly describe: () => Promise<string>;
  /** Called every 64 polls (e.g. a drop check). */
  readonly every64?: () => Promise<void>;
}

/** ` (the link's faults lost 8 frames and corrupted 2 ...)` for a stall message, or ''. */
function faultHint(env: PairEnv): string {
  const f = env.link.faults;
  if (!f) return '';
  const s = LINK_DIRS.map(d => f.stats(d));
  const lost = s.reduce((a, x) => a + x.dropped, 0), bad = s.reduce((a, x) => a + x.corrupted, 0);
  const moved = s.reduce((a, x) => a + x.duplicated + x.reordered, 0);
  return ` (the link's faults dropped ${lost}, corrupted ${bad}, duplicated or reordered ${moved} frames; see 'link faults' below)`;
}

/** Cycles since the scoreboard last took a CQE (or since this watch started). */
function progressWatch(env: PairEnv, tb: TestBench): () => number {
  let seen = env.sb.completions, at = tb.cycle;
  return () => {
    if (env.sb.completions !== seen) { seen = env.sb.completions; at = tb.cycle; }
    return tb.cycle - at;
  };
}

/** Waits until the scoreboard owes nothing; a run that stops making progress fails with the
 *  owed count, how long nothing moved, and the state of both NICs (the link's faults too). */
export async function waitForCompletions(env: PairEnv, tb: TestBench, w: CompletionWait): Promise<void> {
  const deadline = tb.cycle + w.timeout;
  const idle = progressWatch(env, tb);
  for (let k = 1; env.sb.totalOwed > 0; k++) {
    const stalled = idle() > w.stallCycles;
    if (tb.cycle > deadline || stalled) {
      throw new Error(`${env.sb.totalOwed} completion(s) still owed ${stalled ? `with no completion for ${idle()} cycles` : `after ${w.timeout} cycles`}${faultHint(env)}\n${await w.describe()}`);
    }
    w.poll.check();
    if (k % 64 === 0) await w.every64?.();
    await env.clock.cycles(32);
  }
  // The last CQE may have been refused: its entry is gone, so nothing is owed (startPoller).
  w.poll.check();
}

/** Waits for a free slot in `qp`'s send ring; fails like waitForCompletions when no CQE comes
 *  for `w.stallCycles` (a full ring drains only as completions come). */
export async function waitForRoom(env: PairEnv, tb: TestBench, h: Pick<Host, 'name' | 'drv'>, qp: QueuePair, w: Omit<CompletionWait, 'poll' | 'every64'> & { readonly poll?: CompletionWait['poll'] }): Promise<void> {
  const deadline = tb.cycle + w.timeout;
  const idle = progressWatch(env, tb);
  while (await h.drv.sqFree(qp) === 0) {
    // A wrong CQE the poller met (an error status, a mismatch) is the cause of a full ring:
    // report it, not the stall it leads to.
    w.poll?.check();
    const stalled = idle() > w.stallCycles;
    if (tb.cycle > deadline || stalled) {
      throw new Error(`${h.name} QP ${qp.index}: send ring still full ${stalled ? `with no completion for ${idle()} cycles` : `after ${w.timeout} cycles`}${faultHint(env)}\n${await w.describe()}`);
    }
    await env.clock.cycles(16);
  }
}

/** Throws when either NIC dropped a received frame (the link carries no errors here). */
async function failOnRxDrops(env: PairEnv, tb: TestBench, describe: () => Promise<string>): Promise<void> {
  for (const h of [env.a, env.b]) {
    for (const n of ['RX_DROP_ICRC', 'RX_DROP_OTHER'] as const) {
      const v = await h.drv.counter(n);
      if (v !== 0) throw new Error(`${h.name}: ${n} = ${v} by cycle ${tb.cycle} in a run without link errors (the receiver could not keep up)\n${await describe()}`);
    }
  }
}

export async function runWriteScenario(env: PairEnv, tb: TestBench, o: WriteScenarioOptions): Promise<WriteScenarioResult> {
  const rng = tb.rng;
  const setup = await setupHosts(env, tb, o.qps);
  env.sb.start();
  for (const h of [env.a, env.b]) for (const qp of setup.get(h)!.qps) env.sb.allow(h.name, qp.ringRanges);

  // Plan: every WRITE with its source, its non-overlapping remote target, its wire packets.
  const maxLen = o.maxLen ?? 65536;
  const wire = new Map<string, ExpectedPacket[]>();
  const plan: { h: Host; qp: QueuePair; wr: WorkRequest }[] = [];
  let bytes = 0;
  const lastOf = new Map<QueuePair, WorkRequest>();
  for (let k = 0; k < o.writes; k++) {
    const h = (o.bothDirections ?? true) && rng.bool() ? env.b : env.a;
    const peer = env.peer(h);
    const hs = setup.get(h)!, ps = setup.get(peer)!;
    const i = rng.int(0, o.qps - 1);
    const qp = hs.qps[i]!, rqp = ps.qps[i]!;
    const mtu = 1 << qp.opts.pmtuLog2;
    let len = pickLen(rng, mtu, maxLen);
    const gap = rng.int(0, 64);
    if (ps.dstNext + gap + len > ps.dst.len) len = Math.max(0, ps.dst.len - ps.dstNext - gap);
    const dstOff = Math.min(ps.dstNext + gap, ps.dst.len);
    ps.dstNext = dstOff + len;
    const wr = h.drv.writeRequest(BigInt(k) | (BigInt(rng.u32()) << 32n), pickSges(rng, hs.src, len), ps.dst.va + BigInt(dstOff), ps.dst.key, rng.bool(0.8));
    const w = writePackets(len, mtu, hs.psn[i]!, rqp.qpn, wr.remoteVa, wr.rkey);
    hs.psn[i] = w.next;
    const key = wireKey(h.name, rqp.qpn);
    wire.set(key, [...(wire.get(key) ?? []), ...w.packets]);
    plan.push({ h, qp, wr: { ...wr, ...{ dstOff } } as WorkRequest });
    lastOf.set(qp, wr);
    bytes += len;
  }
  // The last WRITE of each QP is signaled, so every WRITE's data is checked at some CQE.
  const final = plan.map(p => (lastOf.get(p.qp) === p.wr || p.wr === lastOf.get(p.qp) ? p : p));
  for (const p of final) if (lastOf.get(p.qp)?.wrId === p.wr.wrId) (p.wr as { signaled: boolean }).signaled = true;

  if (process.env['NICGEN_VERBOSE']) {
    for (const p of final) console.log(`${p.h.name} qp${p.qp.index} mtu=${1 << p.qp.opts.pmtuLog2} wr=0x${p.wr.wrId.toString(16)} len=${p.wr.sges.reduce((a, x) => a + x.len, 0)} sges=[${p.wr.sges.map(x => `${x.offset}+${x.len}`).join(',')}] va=0x${p.wr.remoteVa.toString(16)} sig=${p.wr.signaled}`);
  }
  const t0 = tb.cycle;
  // Software reaps completions all the time, as a driver's interrupt handler would: a CQ left
  // full stalls the NIC's completion path (see the report on CQ back-pressure).
  const poll = startPoller(env, setup, tb);
  for (const p of final) {
    const peer = env.peer(p.h);
    const dstOff = (p.wr as WorkRequest & { dstOff: number }).dstOff;
    env.sb.expectWrite(p.h.name, p.qp.index, p.wr, CQE_STATUS.SUCCESS, { host: peer.name, mr: setup.get(peer)!.dst, offset: dstOff });
    await waitForRoom(env, tb, p.h, p.qp, { timeout: o.timeout ?? 2_000_000, stallCycles: o.stallCycles ?? 400_000, poll, describe: () => describeQps(env, setup) });
    p.h.drv.post(p.qp, p.wr);
    // Doorbells are sometimes batched: several WQEs behind one SQ_PI write.
    if (rng.bool(0.7)) await p.h.drv.ring(p.qp);
  }
  for (const h of [env.a, env.b]) for (const qp of setup.get(h)!.qps) await h.drv.ring(qp);
  await waitForCompletions(env, tb, {
    timeout: o.timeout ?? 2_000_000, stallCycles: o.stallCycles ?? 400_000, poll, describe: () => describeQps(env, setup),
    // Without link faults a dropped frame means the receiver could not keep up: say so as
    // soon as it happens rather than wait for the retransmission.
    ...(o.lossy ? {} : { every64: () => failOnRxDrops(env, tb, () => describeQps(env, setup)) }),
  });
  poll.stop();
  const cycles = tb.cycle - t0;
  env.sb.finish();
  if (!o.lossy) await failOnRxDrops(env, tb, () => describeQps(env, setup));
  for (const h of [env.a, env.b]) {
    for (const qp of setup.get(h)!.qps) {
      const st = await h.drv.qpState(qp);
      if (st !== QP_STATE.RTS) throw new Error(`${h.name} QP ${qp.index} in state ${st} after error-free WRITEs`);
    }
  }
  return { writes: o.writes, bytes, cycles, wire };
}
