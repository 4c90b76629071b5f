// RDMA READ benches on nic_pair: A reads from B, B's memory answering READ data.
//  - goodput: `count` READs of 64 KiB at path MTU 4096 over 1..4 QPs, memory latency 0, no
//    back-pressure, the link taking every beat; response payload bytes per cycle on B's
//    m_axis_tx (the responder's TX) in steady state, as a fraction of DATA_WIDTH/8, beside the
//    framing limit. No fences: the responder serves 2 READs per QP, and the requester never
//    sends a third while two are outstanding, because nic_req_tx waits for room in
//    nic_read_resp_rx's per-QP contexts (nic_top's readsPerQp, default 2) before it sends a READ.
//  - latency: one 64-byte READ at a time on an idle pair, memory latency L, link latency
//    LINK_LATENCY each way; cycles from the doorbell to A's CQE (bench/nic-latency.ts' Probe).

import { CQE_STATUS } from '../gen/nic/regmap.ts';
import { AETH_BYTES, BTH_BYTES, ETH_HEADER_BYTES, ICRC_BYTES, IPV4_HEADER_BYTES, UDP_HEADER_BYTES } from '../tb/model/headers.ts';
import { qpReg } from '../tb/model/nic-regs.ts';
import { decodeRoce, padFor } from '../tb/model/packet.ts';
import { RC_OP, readResponsePackets } from '../tb/model/wire-expect.ts';
import type { TestBench } from '../tb/core/index.ts';
import { PairEnv, type PairDut } from '../tb/nic/env.ts';
import type { LinkFrame } from '../tb/nic/link.ts';
import { registerMixedMrs, type MixedMrs } from '../tb/nic/mixed-scenario.ts';
import { describeQps, setupHosts, startPoller } from '../tb/nic/write-scenario.ts';
import { LINK_LATENCY, Probe, type Sample } from './nic-latency.ts';
import { median, onPair } from './nic-pair.ts';

export const READ_GOODPUT_GOAL = 0.95;
/** READs per goodput run: 8 x 64 KiB fill the 512 KiB MRs of registerMixedMrs. */
export const READ_COUNT = 8;
const LEN = 65536;
const PMTU_LOG2 = 12;
const LATENCY_LEN = 64;

export const READ_LIMIT_FORMULA = 'payload / sum(ceil((14+20+8+12+[4 AETH on FIRST/LAST/ONLY]+payload+pad+4) / B) * B), B = DATA_WIDTH/8';

/** Bytes of the READ RESPONSE frame carrying `payloadLen` bytes, with or without an AETH. */
export function readResponseFrameBytes(payloadLen: number, aeth: boolean): number {
  return ETH_HEADER_BYTES + IPV4_HEADER_BYTES + UDP_HEADER_BYTES + BTH_BYTES + (aeth ? AETH_BYTES : 0) + payloadLen + padFor(payloadLen) + ICRC_BYTES;
}

/** Payload per bus byte of the responses to one READ of `len` bytes at path MTU `mtu`. */
export function readGoodputLimit(len: number, mtu: number, dataWidth: number): number {
  const beatBytes = dataWidth / 8;
  const busBytes = readResponsePackets(len, mtu, 0, 0, 0)
    .reduce((s, p) => s + Math.ceil(readResponseFrameBytes(p.payloadLen, p.aeth !== undefined) / beatBytes) * beatBytes, 0);
  return len / busBytes;
}

export interface ReadGoodputResult {
  readonly dataWidth: number;
  readonly qps: number;
  /** Response payload per cycle / (DATA_WIDTH/8) on B's TX, READs 2..count. */
  readonly bus: number;
  readonly limit: number;
  /** READ bytes per cycle / (DATA_WIDTH/8), first doorbell to last CQE. */
  readonly endToEnd: number;
  readonly frames: number;
}

/** The response's payload length; its size must be what the limit assumes. */
function responsePayload(f: LinkFrame): { len: number; opcode: number } {
  const d = decodeRoce(f.data);
  if (!d.ok) throw new Error(`B->A frame at cycle ${f.cycle} does not decode: ${d.reason} (${d.detail})`);
  const opcode = d.pkt.bth.opcode, len = d.pkt.payload.length;
  if (opcode < RC_OP.READ_RESPONSE_FIRST || opcode > RC_OP.READ_RESPONSE_ONLY) throw new Error(`B->A frame at cycle ${f.cycle}: opcode 0x${opcode.toString(16)}, not a READ RESPONSE`);
  const want = readResponseFrameBytes(len, d.pkt.aeth !== undefined);
  if (f.data.length !== want) throw new Error(`B->A frame at cycle ${f.cycle}: ${f.data.length} bytes, the limit formula assumes ${want} for ${len} bytes of payload`);
  return { len, opcode };
}

/** Payload per cycle over whole READs after the first: from the first READ's last response
 *  beat to the last response's last beat, as a fraction of the bus. */
function steadyGoodput(frames: readonly LinkFrame[], beatBytes: number): number {
  const d = frames.map(responsePayload);
  const end = d.findIndex(x => x.opcode === RC_OP.READ_RESPONSE_LAST || x.opcode === RC_OP.READ_RESPONSE_ONLY);
  if (end < 0 || end === d.length - 1) throw new Error(`READ goodput needs at least 2 READs, saw ${frames.length} response frames`);
  const payload = d.slice(end + 1).reduce((s, x) => s + x.len, 0);
  return payload / (frames[frames.length - 1]!.cycle - frames[end]!.cycle) / beatBytes;
}

type HostSetups = Awaited<ReturnType<typeof setupHosts>>;
interface ReadSetup { readonly setup: HostSetups; readonly mrs: Map<string, MixedMrs> }

/** `qps` QP pairs, `rw`/`land` MRs on both hosts (B's `rw` readable remotely), scoreboard started. */
async function readSetup(env: PairEnv, tb: TestBench, qps: number, pmtuLog2?: number): Promise<ReadSetup> {
  const setup = await setupHosts(env, tb, qps);
  for (let q = 0; q < qps && pmtuLog2 !== undefined; q++) for (const h of [env.a, env.b]) await h.drv.regs.write(qpReg(q, 'PMTU'), pmtuLog2);
  const mrs = await registerMixedMrs([env.a, env.b], tb.rng, new Map([env.a, env.b].map(h => [h.name, setup.get(h)!.src])));
  env.sb.start();
  for (const h of [env.a, env.b]) for (const q of setup.get(h)!.qps) env.sb.allow(h.name, q.ringRanges);
  return { setup, mrs };
}

/** A's READ `k` of `len` bytes: from B's `rw` at k*len into A's `land` at k*len (no overlaps). */
function readWr(env: PairEnv, s: ReadSetup, qp: number, k: number, len: number, fence: boolean) {
  const a = s.mrs.get('A')!, b = s.mrs.get('B')!;
  const wr = env.a.drv.readRequest(BigInt(k), [{ mr: a.land, offset: k * len, len }], b.rw.va + BigInt(k * len), b.rw.key, true, fence);
  env.sb.expectRead('A', qp, wr, CQE_STATUS.SUCCESS, { host: 'B', mr: b.rw, offset: k * len });
  return wr;
}

/** Waits for every CQE. A dropped frame is never retransmitted (a READ whose response is lost
 *  hangs), so A's drop counters are checked as it goes and reported at once. */
async function untilDone(env: PairEnv, tb: TestBench, s: ReadSetup, poll: { check(): void }, timeout: number, what: string): Promise<void> {
  const deadline = tb.cycle + timeout;
  const dropped = async (): Promise<number> => await env.a.drv.counter('RX_DROP_ICRC') + await env.a.drv.counter('RX_DROP_OTHER');
  for (let k = 1; env.sb.totalOwed > 0; k++) {
    poll.check();
    const lost = k % 64 === 0 ? await dropped() : 0;
    if (lost > 0 || tb.cycle > deadline) {
      const why = lost > 0 ? `A dropped ${lost} received frame(s) by cycle ${tb.cycle}: its receive path is slower than the responses on the wire` : `not done after ${timeout} cycles`;
      throw new Error(`${what}: ${why}\n${await describeQps(env, s.setup)}`);
    }
    await tb.clockCycles(16);
  }
}

/** Looks into a goodput run (a probe on the pair's ports, when finding where cycles go);
 *  called once the READs' setup is done, its result when they are. */
export type Watch = (dut: PairDut, tb: TestBench) => () => void;

/** `count` READs of 64 KiB, round robin over `qps` QPs, no fences. */
export async function measureReadGoodput(dataWidth: number, count: number, qps: number, watch?: Watch): Promise<ReadGoodputResult> {
  const beatBytes = dataWidth / 8;
  if (count * LEN > 4 * 128 * 1024) throw new Error(`${count} READs of ${LEN} bytes do not fit the 512 KiB MRs`);
  const r = await onPair(dataWidth, 50 * count * LEN / beatBytes + 200_000, async (dut, tb) => {
    const env = await PairEnv.create(dut, tb, { ramLatency: 0, backpressure: 0, stall: 0 });
    const s = await readSetup(env, tb, qps, PMTU_LOG2);
    const poll = startPoller(env, s.setup, tb);
    env.link.frames.length = 0;
    const unwatch = watch?.(dut, tb);
    const t0 = tb.cycle;
    for (let k = 0; k < count; k++) {
      const q = k % qps, qp = s.setup.get(env.a)!.qps[q]!;
      const wr = readWr(env, s, q, k, LEN, false);
      while (await env.a.drv.sqFree(qp) === 0) await tb.clockCycles(16);
      env.a.drv.post(qp, wr);
      await env.a.drv.ring(qp);
    }
    await untilDone(env, tb, s, poll, 50 * count * LEN / beatBytes, `${count} READs of ${LEN} bytes on ${qps} QP(s), ${dataWidth} bits`);
    poll.stop();
    unwatch?.();
    const cycles = tb.cycle - t0;
    env.sb.finish();
    const rx = env.link.frames.filter(f => f.dir === 'b->a');
    if (process.env['NICGEN_VERBOSE'] === '2') { // the frames' last-beat cycles: where the gaps are
      const show = (f: LinkFrame, i: number, all: readonly LinkFrame[]): string => `${f.dir} ${f.data.length}B @${f.cycle} (+${i ? f.cycle - all[i - 1]!.cycle : 0})`;
      console.log(env.link.frames.map(show).join('\n'));
    }
    return { cycles, frames: rx.length, bus: steadyGoodput(rx, beatBytes) };
  });
  return { dataWidth, qps, bus: r.bus, limit: readGoodputLimit(LEN, 1 << PMTU_LOG2, dataWidth), endToEnd: count * LEN / r.cycles / beatBytes, frames: r.frames };
}

export interface ReadLatencyResult {
  readonly dataWidth: number;
  readonly memLatency: number;
  /** Doorbell to CQE, the first READ (cold TLB and ring) and the median of the others. */
  readonly cold: number;
  readonly warm: number;
  /** The request frame's first beat on A's TX, warm median. */
  readonly requestBeat: number;
}

export async function measureReadLatency(dataWidth: number, memLatency: number, reads: number): Promise<ReadLatencyResult> {
  const samples = await onPair(dataWidth, 2_000_000, async (dut, tb) => {
    const env = await PairEnv.create(dut, tb, { ramLatency: memLatency, backpressure: 0, stall: 0, latency: LINK_LATENCY });
    const s = await readSetup(env, tb, 1);
    const qp = s.setup.get(env.a)!.qps[0]!;
    const probe = new Probe(tb, dut, env.a);
    const out: Sample[] = [];
    for (let k = 0; k < reads; k++) {
      env.a.drv.post(qp, readWr(env, s, 0, k, LATENCY_LEN, false));
      probe.arm(qp);
      await env.a.drv.ring(qp);
      await tb.until(() => probe.done, { timeout: 100_000, what: `64-byte READ ${k}: request frame and CQE (L=${memLatency})` });
      out.push(probe.take());
      for (const c of await env.a.drv.pollCq(qp)) env.sb.onCqe('A', 0, c);
    }
    probe.stop();
    env.sb.finish();
    return out;
  });
  const warm = samples.slice(1);
  return { dataWidth, memLatency, cold: samples[0]!.cqe, warm: median(warm.map(x => x.cqe)), requestBeat: median(warm.map(x => x.firstBeat)) };
}
