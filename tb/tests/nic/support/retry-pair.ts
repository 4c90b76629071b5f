// Two NICs (nic_pair) for the directed retransmission tests: QP pairs with chosen path MTU,
// PSNs and RETRY register, memory regions for WRITE targets and READ sources (`rw`) and READ
// destinations (`land`), the link's frames recorded as sent (SentLog) and faults applied on
// the way (FaultPlan). Every work request gets its own bytes (no overlap, so no fence is
// needed unless a test asks for one), 1-3 SGEs cut at random offsets (so a resume has to find
// its SGE), and its expectation in the scoreboard before it is posted: bytes exact, CQEs in
// posting order with the expected status, nothing else changed on either host.

import { ACCESS, CQE_STATUS, WQE_OPCODE } from '../../../../gen/nic/regmap.ts';
import type { TestBench } from '../../../core/index.ts';
import { type CounterName, type QueuePair, type SgeRef, type WorkRequest } from '../../../model/driver.ts';
import type { MemoryRegion } from '../../../model/mr.ts';
import { PairEnv, type Host, type PairDut, type PairEnvOptions } from '../../../nic/env.ts';
import { FaultPlan, SentLog, type FaultRule } from './frame-faults.ts';

export type HostName = 'A' | 'B';

export interface PairOp {
  readonly kind: 'write' | 'read';
  readonly from: HostName;
  /** QP pair index. */
  readonly qp: number;
  readonly len: number;
  readonly fence?: boolean;
  /** Default true. */
  readonly signaled?: boolean;
  /** Expected CQE status (default SUCCESS). RETRY_EXCEEDED lets the target (WRITE) or the
   *  destination (READ) change, as IB allows for a failed work request. */
  readonly status?: number;
  /** Use the remote bytes of this earlier op (its index in `posted`) instead of fresh ones:
   *  a WRITE over what an earlier READ reads needs that READ done first (a fence). */
  readonly sameRemoteAs?: number;
}

export interface RetryPairOptions {
  /** QP pairs (1..4). */
  readonly qps: number;
  /** log2 path MTU of every QP, or one per QP (default 10). */
  readonly pmtuLog2?: number | readonly number[];
  /** First PSN of each QP's requester (default random just below 2^24). */
  readonly sqPsn?: (host: HostName, qp: number) => number;
  /** RETRY register of every QP (regmap.ts retryReg). */
  readonly retry: number;
  readonly faults?: readonly FaultRule[];
  readonly env?: Omit<PairEnvOptions, 'link'> & { readonly link?: Omit<NonNullable<PairEnvOptions['link']>, 'observe' | 'filter'> };
}

const COUNTERS: readonly CounterName[] = ['TX_FRAMES', 'RX_FRAMES', 'RX_DROP_ICRC', 'RX_DROP_OTHER', 'RETX_PKTS', 'ACK_TIMEOUTS', 'SEQ_NAK_TX', 'SEQ_NAK_RX', 'DUP_REQ_RX', 'RETRY_EXC'];
const PD = { A: 0x11, B: 0x22 } as const;
const SRC_BYTES = 512 * 1024, RW_BYTES = 2040 * 1024, LAND_BYTES = 2040 * 1024;

interface Side { readonly host: Host; readonly src: MemoryRegion; readonly rw: MemoryRegion; readonly land: MemoryRegion; readonly qps: QueuePair[]; rwNext: number; landNext: number }

export interface Posted { readonly op: PairOp; readonly wr: WorkRequest; readonly psn: number; readonly remoteOff: number }

export class RetryPair {
  readonly env: PairEnv;
  readonly tb: TestBench;
  readonly plan: FaultPlan;
  readonly log: SentLog;
  readonly #sides: Record<HostName, Side>;
  /** Next PSN each requester will use, per host and QP (what the model expects). */
  readonly nextPsn: Record<HostName, number[]>;
  readonly posted: Posted[] = [];
  #k = 0;

  private constructor(env: PairEnv, tb: TestBench, plan: FaultPlan, log: SentLog, sides: Record<HostName, Side>, nextPsn: Record<HostName, number[]>) {
    this.env = env; this.tb = tb; this.plan = plan; this.log = log; this.#sides = sides; this.nextPsn = nextPsn;
  }

  static async create(dut: PairDut, tb: TestBench, o: RetryPairOptions): Promise<RetryPair> {
    const plan = new FaultPlan(o.faults ?? []);
    const log = new SentLog();
    const env = await PairEnv.create(dut, tb, { ...o.env, link: { ...o.env?.link, observe: log.observe, filter: plan.filter } });
    const rng = tb.rng;
    const mk = async (h: Host): Promise<Side> => {
      const src = await h.drv.registerMr({ len: SRC_BYTES, access: 0, pd: PD[h.name] });
      const rw = await h.drv.registerMr({ len: RW_BYTES, access: ACCESS.REMOTE_READ | ACCESS.REMOTE_WRITE | ACCESS.LOCAL_WRITE, pd: PD[h.name] });
      const land = await h.drv.registerMr({ len: LAND_BYTES, access: ACCESS.LOCAL_WRITE, pd: PD[h.name] });
      for (const mr of [src, rw, land]) mr.write(0, rng.bytes(mr.len));
      return { host: h, src, rw, land, qps: [], rwNext: 0, landNext: 0 };
    };
    const sides = { A: await mk(env.a), B: await mk(env.b) };
    const nextPsn: Record<HostName, number[]> = { A: [], B: [] };
    for (let i = 0; i < o.qps; i++) {
      const pmtuLog2 = typeof o.pmtuLog2 === 'number' ? o.pmtuLog2 : o.pmtuLog2?.[i] ?? 10;
      for (const n of ['A', 'B'] as const) {
        const sqPsn = o.sqPsn?.(n, i) ?? (0xffffff - rng.int(0, 40));
        const qp = await sides[n].host.drv.createQp(i, { pd: PD[n], pmtuLog2, sqPsn, retry: o.retry, sqSizeLog2: 4, cqSizeLog2: 5 });
        sides[n].qps.push(qp);
        nextPsn[n].push(sqPsn);
      }
      await env.a.drv.connectQp(sides.A.qps[i]!, env.b.drv.address(sides.B.qps[i]!));
      await env.b.drv.connectQp(sides.B.qps[i]!, env.a.drv.address(sides.A.qps[i]!));
    }
    env.sb.start();
    for (const n of ['A', 'B'] as const) for (const qp of sides[n].qps) env.sb.allow(n, qp.ringRanges);
    return new RetryPair(env, tb, plan, log, sides, nextPsn);
  }

  host(n: HostName): Host { return this.#sides[n].host; }
  qp(n: HostName, i: number): QueuePair { return this.#sides[n].qps[i]!; }
  /** QPN of `n`'s QP i (the destination QPN of the peer's packets to it). */
  qpn(n: HostName, i: number): number { return this.qp(n, i).qpn; }
  mtu(i: number): number { return 1 << this.qp('A', i).opts.pmtuLog2; }

  /** 1-3 SGEs of `mr` for `len` bytes in [off, off + room), cut at random points. */
  #sges(mr: MemoryRegion, off: number, len: number): SgeRef[] {
    const rng = this.tb.rng;
    const n = len < 3 ? 1 : rng.int(1, 3);
    const cuts = [0, ...Array.from({ length: n - 1 }, () => rng.int(1, len - 1)).sort((x, y) => x - y), len];
    return Array.from({ length: n }, (_, i) => ({ mr, offset: off + cuts[i]!, len: cuts[i + 1]! - cuts[i]! }));
  }

  /** Records the expectation and posts the WQE (doorbell rung). Returns its first PSN. */
  async post(op: PairOp): Promise<Posted> {
    const rng = this.tb.rng;
    const me = this.#sides[op.from], peer = this.#sides[op.from === 'A' ? 'B' : 'A'];
    const qp = me.qps[op.qp]!;
    const mtu = 1 << qp.opts.pmtuLog2;
    const wrId = BigInt(++this.#k) | (BigInt(op.qp) << 56n);
    const signaled = op.signaled ?? true;
    const status = op.status ?? CQE_STATUS.SUCCESS;
    const again = op.sameRemoteAs !== undefined ? this.posted[op.sameRemoteAs] : undefined;
    const remoteOff = again ? again.remoteOff : peer.rwNext + rng.int(0, 63);
    if (!again) peer.rwNext = remoteOff + op.len + 64;
    if (peer.rwNext > peer.rw.len) throw new Error('retry-pair: the rw region is used up');
    const target = { host: peer.host.name, mr: peer.rw, offset: remoteOff };
    let wr: WorkRequest;
    if (op.kind === 'write') {
      if (op.len > SRC_BYTES - 128) throw new Error(`retry-pair: a WRITE of ${op.len} bytes is larger than the source region`);
      const sges = this.#sges(me.src, rng.int(0, 64), op.len);
      wr = { ...me.host.drv.writeRequest(wrId, sges, peer.rw.va + BigInt(remoteOff), peer.rw.key, signaled), ...(op.fence ? { fence: true } : {}) };
      if (status === CQE_STATUS.SUCCESS) this.env.sb.expectWrite(me.host.name, op.qp, wr, status, target);
      else {
        this.env.sb.expectStatus(me.host.name, op.qp, wr, status);
        if (status === CQE_STATUS.RETRY_EXCEEDED) this.env.sb.allow(peer.host.name, peer.rw.ranges(remoteOff, op.len));
      }
    } else {
      const landOff = me.landNext + rng.int(0, 63);
      me.landNext = landOff + op.len + 64;
      if (me.landNext > me.land.len) throw new Error('retry-pair: the land region is used up');
      const sges = this.#sges(me.land, landOff, op.len);
      wr = me.host.drv.readRequest(wrId, sges, peer.rw.va + BigInt(remoteOff), peer.rw.key, signaled, op.fence ?? false);
      this.env.sb.expectRead(me.host.name, op.qp, wr, status, target);
      if (status === CQE_STATUS.RETRY_EXCEEDED) this.env.sb.allow(me.host.name, sges.flatMap(s => s.mr.ranges(s.offset, s.len)));
    }
    const psn = this.nextPsn[op.from][op.qp]!;
    this.nextPsn[op.from][op.qp] = (psn + Math.max(1, Math.ceil(op.len / mtu))) & 0xffffff;
    const p: Posted = { op, wr, psn, remoteOff };
    this.posted.push(p);
    await me.host.drv.postSend(qp, wr);
    return p;
  }

  /** Reaps CQEs into the scoreboard until none is owed; fails after `timeout` cycles. */
  async drain(timeout: number, what = 'all completions'): Promise<number> {
    const t0 = this.tb.cycle;
    while (this.env.sb.totalOwed > 0) {
      if (this.tb.cycle - t0 > timeout) throw new Error(`${what}: ${this.env.sb.totalOwed} CQE(s) still owed after ${timeout} cycles (seed ${this.tb.seed})\n${await this.describe()}`);
      await this.poll();
      await this.tb.clockCycles(32);
    }
    return this.tb.cycle - t0;
  }

  /** One pass over every CQ of both hosts. */
  async poll(): Promise<void> {
    for (const n of ['A', 'B'] as const) {
      for (const qp of this.#sides[n].qps) {
        for (const c of await this.#sides[n].host.drv.pollCq(qp)) {
          this.env.sb.onCqe(n, qp.index, c);
          this.cqeCycles.push({ host: n, qp: qp.index, status: c.status, cycle: this.tb.cycle });
        }
      }
    }
  }

  /** When each CQE was reaped (within the 32-cycle polling period). */
  readonly cqeCycles: { host: HostName; qp: number; status: number; cycle: number }[] = [];

  /** RESET, INIT, RTR, RTS again on both ends of QP pair i with new PSNs (new rings too): a
   *  reconnect after an error. The scoreboard must owe this pair nothing. */
  async reconnect(i: number, sqPsn: Record<HostName, number>): Promise<void> {
    for (const n of ['A', 'B'] as const) {
      if (this.env.sb.owed(n, i) > 0) throw new Error(`reconnect: ${n} QP ${i} still owes ${this.env.sb.owed(n, i)} CQE(s)`);
      const old = this.#sides[n].qps[i]!;
      const qp = await this.host(n).drv.createQp(i, { ...old.opts, sqPsn: sqPsn[n] });
      this.#sides[n].qps[i] = qp;
      this.nextPsn[n][i] = sqPsn[n];
      this.env.sb.allow(n, qp.ringRanges);
    }
    await this.env.a.drv.connectQp(this.qp('A', i), this.env.b.drv.address(this.qp('B', i)));
    await this.env.b.drv.connectQp(this.qp('B', i), this.env.a.drv.address(this.qp('A', i)));
  }

  async counters(n: HostName): Promise<Record<CounterName, number>> {
    const out = {} as Record<CounterName, number>;
    for (const c of COUNTERS) out[c] = await this.host(n).drv.counter(c);
    return out;
  }

  async state(n: HostName, i: number): Promise<number> { return this.host(n).drv.qpState(this.qp(n, i)); }

  /** Scoreboard end check (every byte, nothing else changed) and the retransmission check. */
  finish(): { retransmissions: number } {
    this.env.sb.finish();
    return { retransmissions: this.log.checkRetransmissions() };
  }

  async describe(): Promise<string> {
    const lines: string[] = [];
    for (const n of ['A', 'B'] as const) {
      for (const qp of this.#sides[n].qps) {
        const regs: string[] = [];
        for (const r of ['STATE', 'SQ_PI', 'SQ_CI', 'CQ_PI', 'SQ_PSN', 'EXP_PSN', 'MSN'] as const) regs.push(`${r}=0x${(await this.host(n).drv.qpReg(qp, r)).toString(16)}`);
        lines.push(`  ${n} QP ${qp.index}: ${regs.join(' ')} owed=${this.env.sb.owed(n, qp.index)}`);
      }
      lines.push(`  ${n}: ${Object.entries(await this.counters(n)).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    }
    lines.push(`  faults acted: ${JSON.stringify(this.plan.acted)}; link ${JSON.stringify(this.env.link.stats)}`);
    return lines.join('\n');
  }
}

export const isRead = (p: Posted): boolean => p.wr.opcode === WQE_OPCODE.RDMA_READ;
