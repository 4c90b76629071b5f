// WRITE and READ goodput with many QPs active at once (issue 15: "goodput at MTU 4096 at least
// 0.95 of the bus with 1 and with 256 active QPs"). nic_pair is built with `qps` QPs; every QP
// gets one message of LEN bytes (two packets at path MTU 4096), all posted first and then rung
// one doorbell after another, so the scheduler has up to `qps` QPs with work at once and serves
// them round robin. Host memory answers at once (latency 0, no back-pressure), the link takes
// every beat.
//  - WRITE: A -> B, payload bytes per cycle on A's TX;
//  - READ: A reads from B, READ RESPONSE payload per cycle on B's TX (B's responder serves
//    every QP's READ from its shared pool of READ contexts).
// Steady state: the payload of every frame after the first, over the cycles from the first
// frame's last beat to the last frame's last beat, as a fraction of DATA_WIDTH/8 (so the time
// the doorbells take to reach the first packet is not counted; every gap after it is). Beside
// it, the framing limit of one message (bench/nic-limit.ts, bench/nic-read.ts) and how many QPs
// the frames came from. Both directions are checked by the scoreboard (READ data byte-exact).

import { MAX_QP } from '../gen/nic/nic-top-build.ts';
import { ACCESS, CQE_STATUS } from '../gen/nic/regmap.ts';
import type { TestBench } from '../tb/core/index.ts';
import { decodeRoce } from '../tb/model/packet.ts';
import { qpReg } from '../tb/model/nic-regs.ts';
import type { MemoryRegion } from '../tb/model/mr.ts';
import { PairEnv } from '../tb/nic/env.ts';
import type { LinkFrame } from '../tb/nic/link.ts';
import { describeQps, setupHosts, startPoller } from '../tb/nic/write-scenario.ts';
import { writeGoodputLimit } from './nic-limit.ts';
import { benchSeed, onPair } from './nic-pair.ts';
import { readGoodputLimit } from './nic-read.ts';

/** Bytes per message: two full packets at path MTU 4096. */
const LEN = 8192;
const PMTU_LOG2 = 12;
/** Bytes per buffer MR: 1 MiB (half the most one page of page table maps). */
const MR_BYTES = 1 << 20;
/** The QP counts of `make bench` (the one-QP goodput is the 64 KiB rows of bench/nic.ts; `--qps 1`
 *  here runs this structure on one QP, for comparison). */
export const MANY_QPS = [256];
/** Messages when only one QP runs: enough for a steady state of several messages. */
const ONE_QP_MESSAGES = 16;
export const MANY_QP_GOAL = 0.95;

export type ManyQpOp = 'write' | 'read';

export interface ManyQpResult {
  readonly op: ManyQpOp;
  readonly dataWidth: number;
  /** nic_pair's numQp (each QP pair carries messages). */
  readonly qps: number;
  readonly messages: number;
  /** Payload per cycle / (DATA_WIDTH/8) on the data direction, steady state (see the header). */
  readonly bus: number;
  readonly limit: number;
  readonly frames: number;
  /** Distinct destination QPs among the data frames: how many QPs were really active. */
  readonly activeQps: number;
  /** Simulated cycles from the first doorbell to the last CQE, and the wall seconds of the run. */
  readonly cycles: number;
  readonly seconds: number;
}

const pd = { A: 0x11, B: 0x22 } as const;

/** Payload and destination QP of a data frame (WRITE request or READ RESPONSE). */
function decodeData(f: LinkFrame): { len: number; qp: number } {
  const d = decodeRoce(f.data);
  if (!d.ok) throw new Error(`${f.dir} frame at cycle ${f.cycle} does not decode: ${d.reason} (${d.detail})`);
  return { len: d.pkt.payload.length, qp: d.pkt.bth.destQp };
}

function steady(frames: readonly LinkFrame[], beatBytes: number): { bus: number; activeQps: number } {
  if (frames.length < 2) throw new Error(`goodput needs at least 2 data frames, saw ${frames.length}`);
  const d = frames.map(decodeData);
  const payload = d.slice(1).reduce((s, x) => s + x.len, 0);
  return { bus: payload / (frames[frames.length - 1]!.cycle - frames[0]!.cycle) / beatBytes, activeQps: new Set(d.map(x => x.qp)).size };
}

/** Waits for every CQE, failing on a receive drop (nothing is lost on this link: a drop means a
 *  receive path slower than the wire) or after `timeout` cycles. */
async function untilDone(env: PairEnv, tb: TestBench, poll: { check(): void }, timeout: number, what: string, setup: Awaited<ReturnType<typeof setupHosts>>): Promise<void> {
  const deadline = tb.cycle + timeout;
  const dropped = async (): Promise<number> => {
    let n = 0;
    for (const h of [env.a, env.b]) n += await h.drv.counter('RX_DROP_ICRC') + await h.drv.counter('RX_DROP_OTHER');
    return n;
  };
  for (let k = 1; env.sb.totalOwed > 0; k++) {
    poll.check();
    const lost = k % 64 === 0 ? await dropped() : 0;
    if (lost > 0 || tb.cycle > deadline) {
      const why = lost > 0 ? `${lost} received frame(s) dropped by cycle ${tb.cycle}` : `not done after ${timeout} cycles`;
      throw new Error(`${what}: ${why}\n${await describeQps(env, setup)}`);
    }
    await tb.clockCycles(16);
  }
}

async function body(env: PairEnv, tb: TestBench, op: ManyQpOp, qps: number, messages: number, beatBytes: number): Promise<{ cycles: number; data: LinkFrame[] }> {
  const setup = await setupHosts(env, tb, qps);
  for (let q = 0; q < qps; q++) for (const h of [env.a, env.b]) await h.drv.regs.write(qpReg(q, 'PMTU'), PMTU_LOG2);
  // Own buffers of the whole run's size, so no two messages share bytes (READ data is compared):
  // MR_BYTES each (an MR's page table is one page: at most 2 MiB of 4 KiB pages), as many as needed.
  const perMr = MR_BYTES / LEN;
  const bufs: { src: MemoryRegion; dst: MemoryRegion }[] = [];
  for (let i = 0; i * perMr < messages; i++) {
    const src = await (op === 'write' ? env.a : env.b).drv.registerMr({ len: MR_BYTES, access: op === 'read' ? ACCESS.REMOTE_READ : 0, pd: op === 'write' ? pd.A : pd.B });
    const dst = await (op === 'write' ? env.b : env.a).drv.registerMr({ len: MR_BYTES, access: op === 'write' ? ACCESS.REMOTE_WRITE | ACCESS.LOCAL_WRITE : ACCESS.LOCAL_WRITE, pd: op === 'write' ? pd.B : pd.A });
    src.write(0, tb.rng.bytes(MR_BYTES));
    dst.write(0, tb.rng.bytes(MR_BYTES));
    bufs.push({ src, dst });
  }
  env.sb.start();
  for (const h of [env.a, env.b]) for (const q of setup.get(h)!.qps) env.sb.allow(h.name, q.ringRanges);
  if (op === 'write') for (const b of bufs) env.sb.allow('B', b.dst.ranges(0, MR_BYTES));
  const poll = startPoller(env, setup, tb);
  env.link.frames.length = 0;
  const qpsA = setup.get(env.a)!.qps;
  const posted = new Set<number>();
  for (let k = 0; k < messages; k++) {
    const q = k % qps, qp = qpsA[q]!, { src, dst } = bufs[Math.floor(k / perMr)]!, off = (k % perMr) * LEN;
    const wr = op === 'write'
      ? env.a.drv.writeRequest(BigInt(k), [{ mr: src, offset: off, len: LEN }], dst.va + BigInt(off), dst.key, true)
      : env.a.drv.readRequest(BigInt(k), [{ mr: dst, offset: off, len: LEN }], src.va + BigInt(off), src.key, true, false);
    if (op === 'write') env.sb.expectWrite('A', q, wr, CQE_STATUS.SUCCESS);
    else env.sb.expectRead('A', q, wr, CQE_STATUS.SUCCESS, { host: 'B', mr: src, offset: off });
    while (await env.a.drv.sqFree(qp) === 0) await tb.clockCycles(16);
    env.a.drv.post(qp, wr);
    posted.add(q);
  }
  const t0 = tb.cycle;
  for (const q of posted) await env.a.drv.ring(qpsA[q]!);
  await untilDone(env, tb, poll, 40 * messages * LEN / beatBytes + 200_000, `${messages} ${op.toUpperCase()}s of ${LEN} bytes on ${qps} QP(s)`, setup);
  poll.stop();
  const cycles = tb.cycle - t0;
  env.sb.finish();
  return { cycles, data: env.link.frames.filter(f => f.dir === (op === 'write' ? 'a->b' : 'b->a')) };
}

/** One run: `qps` QPs with work at once, one LEN-byte message each (16 on one QP when qps = 1). */
export async function measureManyQp(op: ManyQpOp, dataWidth: number, qps: number): Promise<ManyQpResult> {
  const messages = qps === 1 ? ONE_QP_MESSAGES : qps;
  const beatBytes = dataWidth / 8;
  const t0 = performance.now();
  const out = await onPair(dataWidth, 40 * messages * LEN / beatBytes + 2_000_000, async (dut, tb) => {
    const env = await PairEnv.create(dut, tb, { ramLatency: 0, backpressure: 0, stall: 0 });
    return body(env, tb, op, qps, messages, beatBytes);
  }, {}, { numQp: qps, numMr: 16 });
  const s = steady(out.data, beatBytes);
  const limit = op === 'write' ? writeGoodputLimit(LEN, 1 << PMTU_LOG2, dataWidth) : readGoodputLimit(LEN, 1 << PMTU_LOG2, dataWidth);
  return { op, dataWidth, qps, messages, bus: s.bus, limit, frames: out.data.length, activeQps: s.activeQps, cycles: out.cycles, seconds: (performance.now() - t0) / 1000 };
}

export function manyQpTable(rs: readonly ManyQpResult[]): string {
  const rows = rs.map(r => `  ${r.op.padEnd(5)}  ${String(r.dataWidth).padStart(4)}b  ${String(r.qps).padStart(4)}  ${String(r.activeQps).padStart(6)}  ${String(r.messages).padStart(8)}   ${r.bus.toFixed(4)}   ${r.limit.toFixed(4)}   ${(r.bus / r.limit).toFixed(4)}   ${String(r.frames).padStart(6)}  ${String(r.cycles).padStart(8)}  ${r.seconds.toFixed(0).padStart(6)} s`);
  return ['  op     width   QPs  active  messages   bus      limit    bus/limit  frames    cycles    wall (model build included)', ...rows].join('\n');
}

// Run alone: node --import tsx bench/nic-many-qp.ts [--op write|read] [--width 64|512] [--qps N]
if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string): string | undefined => { const i = process.argv.indexOf(name); return i < 0 ? undefined : process.argv[i + 1]; };
  const ops = (arg('--op') ? [arg('--op')] : ['write', 'read']) as ManyQpOp[];
  const widths = arg('--width') ? [Number(arg('--width'))] : [64, 512];
  const qpsList = arg('--qps') ? [Number(arg('--qps'))] : MANY_QPS;
  const bad = ops.some(o => o !== 'write' && o !== 'read') ? `--op ${arg('--op')}: write or read`
    : widths.some(w => w !== 64 && w !== 512) ? `--width ${arg('--width')}: 64 or 512`
    : qpsList.some(q => !Number.isInteger(q) || q < 1 || q > MAX_QP) ? `--qps ${arg('--qps')}: an integer from 1 to ${MAX_QP}` : undefined;
  if (bad) {
    console.error(`nic-many-qp: ${bad}`);
    process.exit(2);
  }
  console.log(`seed ${benchSeed()}`);
  const rs: ManyQpResult[] = [];
  for (const op of ops) for (const w of widths) for (const q of qpsList) {
    console.log(`  ${op} ${w}b ${q} QP(s) ...`);
    rs.push(await measureManyQp(op, w, q));
    console.log(manyQpTable(rs.slice(-1)));
  }
  console.log(manyQpTable(rs));
}
