// WRITE goodput under random loss on the data direction (A -> B), beside the go-back-N bound
// (bench/gbn-bound.ts), and recovery times (cycles from a dropped packet to its
// retransmission, NAK path and ACK-timeout path). `count` WRITEs of 64 KiB at path MTU 4096,
// round robin over `qps` QP pairs, memory latency 0, no back-pressure, the link taking every
// beat; the link's fault model drops data frames with probability `loss` (link-faults.ts).
//
// Goodput: message bytes over the cycles from the first beat of A's first request frame to the
// last beat of its last one (resent frames are on the bus but are not goodput), per
// DATA_WIDTH/8. The bound's round trip R is measured in the same run: the median, over A's
// AckReq packets, of cycles from their last beat at A to the delivery of B's ACK for them at A,
// plus one packet time (a loss is noticed when the next packet reaches B). The window W is
// the ACK tracker's 16 messages of 16 packets per QP.
//
// Every QP runs with retry count 7 and an ACK timeout of 2^16 cycles (a lost packet with
// nothing behind it on its QP is found by the timeout; the register's reset value, 2^20, would
// turn each such tail loss into a million idle cycles). A lossy point sends enough messages
// for about 8 expected drops, at most GBN_MAX_MESSAGES (0.01 % then expects fewer than one:
// the frames column shows the drops that happened).
//
// Recovery time: one targeted drop, measured from the dropped frame's last beat at A to the
// first beat of its retransmission at A (`cycles`) and to its last beat (`lastBeat`, which adds
// the frame's own transfer time: 4096 bytes are 512 beats at 64 bits).

import { CQE_STATUS, retryReg } from '../gen/nic/regmap.ts';
import type { TestBench } from '../tb/core/index.ts';
import { frames as match } from '../tb/model/frame-match.ts';
import { qpReg } from '../tb/model/nic-regs.ts';
import { decodeRoce } from '../tb/model/packet.ts';
import { Opcode } from '../tb/model/opcodes.ts';
import { PairEnv, type PairDut } from '../tb/nic/env.ts';
import type { LinkFrame } from '../tb/nic/link.ts';
import type { LinkFaultSpec } from '../tb/nic/link-faults.ts';
import { describeQps, setupHosts, startPoller, waitForCompletions } from '../tb/nic/write-scenario.ts';
import { goBackNBound, type GoBackNBound } from './gbn-bound.ts';
import { writeFrameBytes, writeGoodputLimit } from './nic-limit.ts';
import { median, onPair } from './nic-pair.ts';

export const GBN_GOAL = 0.9;
/** Loss probabilities of the bench (issue 11): 0, 0.01 %, 0.1 %, 1 %. */
export const GBN_LOSSES = [0, 0.0001, 0.001, 0.01] as const;
/** The points that run (all, since go-back-N retransmission exists). */
export const GBN_LOSSES_ENABLED: readonly number[] = GBN_LOSSES;
/** Recovery-time runs (they drop a packet on purpose). */
export const RECOVERY_ENABLED = true;
/** Most messages a lossy point sends. */
export const GBN_MAX_MESSAGES = 160;
/** Retry count 7, ACK timeout 2^16 cycles, on every QP of the goodput runs: above the time 4
 *  QPs' 64 KiB messages share the link at 64 bits (4 x 8192 cycles), so no timeout is spurious. */
const GBN_RETRY = retryReg({ retryCnt: 7, timeoutLog2: 16 });

/** Messages of a point: `base` lossless, else enough for ~8 expected drops (capped). */
export function gbnMessages(loss: number, base: number): number {
  if (loss === 0) return base;
  const packets = LEN >> PMTU_LOG2;
  return Math.max(base, Math.min(GBN_MAX_MESSAGES, Math.ceil(8 / (loss * packets))));
}
export const GBN_QPS = [1, 4] as const;
const LEN = 65536;
const PMTU_LOG2 = 12;
const WINDOW_MESSAGES = 16;

export interface GbnResult {
  readonly dataWidth: number;
  readonly qps: number;
  readonly loss: number;
  /** Message bytes per cycle / (DATA_WIDTH/8), first to last request beat on A's TX. */
  readonly goodput: number;
  readonly limit: number;
  readonly bound: GoBackNBound;
  /** Measured loss-detection round trip (cycles) and packet time used for the bound. */
  readonly roundTrip: number;
  readonly packetCycles: number;
  readonly framesSent: number;
  readonly framesDropped: number;
}

/** Request frames A sent and the ACKs A received, with cycles. */
class Watch {
  readonly requests: LinkFrame[] = [];
  /** AckReq packets: PSN -> cycle of their last beat at A. */
  readonly askedAt = new Map<string, number>();
  readonly rtts: number[] = [];

  hooks() {
    return {
      observe: (f: LinkFrame): void => {
        if (f.dir !== 'a->b') return;
        this.requests.push(f);
        const d = decodeRoce(f.data);
        if (d.ok && d.pkt.bth.ackReq && !this.askedAt.has(`${d.pkt.bth.destQp}:${d.pkt.bth.psn}`)) this.askedAt.set(`${d.pkt.bth.destQp}:${d.pkt.bth.psn}`, f.cycle);
      },
      deliver: (f: LinkFrame): void => {
        if (f.dir !== 'b->a') return;
        const d = decodeRoce(f.data);
        if (!d.ok || d.pkt.bth.opcode !== Opcode.ACKNOWLEDGE) return;
        // B's ACK names A's QP, the request named B's; pair i is QPN 0x100 + i on both hosts.
        const k = `${d.pkt.bth.destQp}:${d.pkt.bth.psn}`, at = this.askedAt.get(k);
        if (at !== undefined) { this.rtts.push(f.cycle - at); this.askedAt.delete(k); }
      },
    };
  }
}

/** `count` 64 KiB WRITEs round robin over `qps` QPs; goodput beside the go-back-N bound. */
export async function measureGbnGoodput(dataWidth: number, qps: number, loss: number, count: number): Promise<GbnResult> {
  const beatBytes = dataWidth / 8;
  return onPair(dataWidth, 400 * count * LEN / beatBytes + 2_000_000, async (dut, tb) => {
    const watch = new Watch();
    const faults: LinkFaultSpec | undefined = loss > 0 ? { 'a->b': { drop: loss } } : undefined;
    const env = await PairEnv.create(dut, tb, { ramLatency: 0, backpressure: 0, stall: 0, link: { ...watch.hooks(), ...(faults ? { faults } : {}) } });
    await writeRounds(env, tb, qps, count, undefined, GBN_RETRY);
    const req = watch.requests;
    const first = req[0]!, last = req[req.length - 1]!;
    const firstBeats = Math.ceil(first.data.length / beatBytes);
    const goodput = (count * LEN) / (last.cycle - first.cycle + firstBeats) / beatBytes;
    const packetCycles = Math.ceil(writeFrameBytes(1 << PMTU_LOG2, false) / beatBytes);
    if (watch.rtts.length === 0) throw new Error('no ACK round trip measured');
    const roundTrip = median(watch.rtts) + packetCycles;
    const limit = writeGoodputLimit(LEN, 1 << PMTU_LOG2, dataWidth);
    const windowPackets = WINDOW_MESSAGES * Math.ceil(LEN / (1 << PMTU_LOG2));
    const bound = goBackNBound({ loss, windowPackets, roundTripCycles: roundTrip, packetCycles, limit });
    return { dataWidth, qps, loss, goodput, limit, bound, roundTrip, packetCycles, framesSent: req.length, framesDropped: env.link.faults?.stats('a->b').dropped ?? 0 };
  });
}

/** Sets up `qps` QP pairs at path MTU 4096 (then `configure`) and runs `count` WRITEs A -> B
 *  round robin. */
async function writeRounds(env: PairEnv, tb: TestBench, qps: number, count: number, configure?: () => Promise<void>, retry?: number, len = LEN): Promise<void> {
  const setup = await setupHosts(env, tb, qps, retry);
  for (const h of [env.a, env.b]) for (let i = 0; i < qps; i++) await h.drv.regs.write(qpReg(i, 'PMTU'), PMTU_LOG2);
  await configure?.();
  const sa = setup.get(env.a)!, sb = setup.get(env.b)!;
  env.sb.start();
  for (const h of [env.a, env.b]) for (const q of setup.get(h)!.qps) env.sb.allow(h.name, q.ringRanges);
  env.sb.allow('B', sb.dst.ranges(0, sb.dst.len));
  const poll = startPoller(env, setup, tb);
  for (let k = 0; k < count; k++) {
    const qp = sa.qps[k % qps]!;
    const wr = env.a.drv.writeRequest(BigInt(k), [{ mr: sa.src, offset: 0, len }], sb.dst.va + BigInt((k * LEN) % (sb.dst.len - LEN)), sb.dst.key, true);
    env.sb.expectWrite('A', qp.index, wr, CQE_STATUS.SUCCESS);
    await env.a.drv.postSend(qp, wr);
  }
  await waitForCompletions(env, tb, { timeout: 50 * count * LEN, stallCycles: 400_000, poll, describe: () => describeQps(env, setup) });
  poll.stop();
  env.sb.finish();
}

export interface RecoveryResult {
  readonly dataWidth: number;
  readonly path: 'nak' | 'timeout';
  /** Cycles from the dropped frame's last beat at A to its retransmission's first beat. */
  readonly cycles: number;
  /** ... and to the retransmission's last beat. */
  readonly lastBeat: number;
  /** The goal: one round trip + 64 (NAK), the configured timeout + 64 (timeout). */
  readonly goal: number;
  /** Every frame on the link from the drop to the retransmission's last beat, both ways: where
   *  the cycles went (bench/nic-nak-point.ts --timeline). */
  readonly timeline: readonly string[];
}

/** One dropped packet and its retransmission. NAK path: the 5th MIDDLE of the first of two
 *  64 KiB WRITEs on one QP (the next packet makes B send NAK 0x60; ACK timeout 2^14, longer than
 *  the message's own transfer at 64 bits, so no timeout interferes). Timeout path: a WRITE of one
 *  4096-byte packet (ONLY), dropped: nothing follows, only A's ACK timeout, 2^12 cycles, armed
 *  when that packet was sent, recovers it. (With a 64 KiB message and a timeout shorter than its
 *  transfer, 8192 cycles at 64 bits, the timer expires while the message is still being sent,
 *  with no ACK yet: go-back-N from its first packet every time, RETRY_EXCEEDED; measured.) */
export async function measureRecovery(dataWidth: number, path: 'nak' | 'timeout', roundTrip: number): Promise<RecoveryResult> {
  const timeoutLog2 = path === 'nak' ? 14 : 12;
  return onPair(dataWidth, 2_000_000, async (dut: PairDut, tb) => {
    const dropped = path === 'nak' ? match.write('middle') : match.write('only');
    const beatBytes = dataWidth / 8;
    /** Per PSN: [first beat, last beat] of each transmission at A. */
    const seen = new Map<number, [number, number][]>();
    /** [cycle, line]: frames as sent (first and last beat at the sender) and as delivered. */
    const log: [number, string][] = [];
    const describe = (f: LinkFrame, d: ReturnType<typeof decodeRoce>): string =>
      (d.ok ? `${f.dir} psn ${d.pkt.bth.psn} opcode 0x${d.pkt.bth.opcode.toString(16)}${d.pkt.aeth ? ` syndrome 0x${d.pkt.aeth.syndrome.toString(16)}` : ''}` : `${f.dir} (not RoCE)`);
    const observe = (f: LinkFrame): void => {
      const d = decodeRoce(f.data);
      const first = f.cycle - Math.ceil(f.data.length / beatBytes) + 1;
      log.push([first, `sent ${describe(f, d)}: beats ${first}..${f.cycle}`]);
      if (f.dir === 'a->b' && d.ok) seen.set(d.pkt.bth.psn, [...(seen.get(d.pkt.bth.psn) ?? []), [first, f.cycle]]);
    };
    const deliver = (f: LinkFrame): void => { log.push([f.cycle, `delivered ${describe(f, decodeRoce(f.data))}: first beat ${f.cycle}`]); };
    const env = await PairEnv.create(dut, tb, { ramLatency: 0, backpressure: 0, stall: 0, link: { observe, deliver, faults: { 'a->b': { targeted: [{ action: 'drop', match: dropped, nth: path === 'nak' ? 5 : 1 }] } } } });
    await writeRounds(env, tb, 1, path === 'nak' ? 2 : 1, undefined, retryReg({ retryCnt: 3, timeoutLog2 }), path === 'nak' ? LEN : 1 << PMTU_LOG2).catch((e: unknown) => { throw new Error(`${path} recovery: ${(e as Error).message}`); });
    const twice = [...seen.values()].find(c => c.length > 1);
    if (!twice) throw new Error(`${path} recovery: no packet was sent twice`);
    const [from, to] = [twice[0]![0], twice[1]![1]];
    const timeline = log.filter(([c]) => c >= from && c <= to).sort((x, y) => x[0] - y[0]).map(([, l]) => l);
    return { dataWidth, path, cycles: twice[1]![0] - twice[0]![1], lastBeat: twice[1]![1] - twice[0]![1], goal: path === 'nak' ? roundTrip + 64 : (1 << timeoutLog2) + 64, timeline };
  });
}
