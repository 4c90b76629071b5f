// WRITE goodput on A's TX stream: one QP A->B, `count` WRITEs of 64 KiB at path MTU 4096,
// host memory answering with no latency (or `ramLatency` cycles) and no back-pressure, the link
// taking every beat.
// Steady state: payload of every message after the first, over the cycles from the first
// message's last beat to the last message's last beat (so start-up and the doorbell-to-first-
// beat latency are not counted, the gaps between messages are), as a fraction of DATA_WIDTH/8.
// The same run gives the simulation speed of the two-NIC bench (cycles over wall and CPU time).

import { ETH_HEADER_BYTES, IPV4_HEADER_BYTES, UDP_HEADER_BYTES } from '../tb/model/headers.ts';
import { decodeRoce } from '../tb/model/packet.ts';
import { RC_OP } from '../tb/model/wire-expect.ts';
import { PairEnv } from '../tb/nic/env.ts';
import type { LinkFrame } from '../tb/nic/link.ts';
import { runThroughput } from '../tb/nic/throughput-scenario.ts';
import { writeFrameBytes, writeGoodputLimit } from './nic-limit.ts';
import { onPair } from './nic-pair.ts';
import { cpuSince } from './nic-simspeed.ts';

export const GOODPUT_GOAL = 0.95;
const LEN = 65536;
const PMTU_LOG2 = 12;

export interface GoodputResult {
  readonly dataWidth: number;
  /** Host memory read and write latency (cycles) of both NICs. */
  readonly ramLatency: number;
  /** Payload bytes per cycle / (DATA_WIDTH/8), steady state on the TX stream (messages 2..count). */
  readonly bus: number;
  /** The framing limit for the same messages (bench/nic-limit.ts). */
  readonly limit: number;
  /** Payload bytes per cycle / (DATA_WIDTH/8), first doorbell to last CQE. */
  readonly endToEnd: number;
  readonly frames: number;
  /** Simulated cycles, wall and CPU seconds of the whole run (reset, setup and traffic) ... */
  readonly whole: Span;
  /** ... and of the traffic alone: from A's first WQE posted to the last CQE. */
  readonly traffic: Span;
}

export interface Span { readonly cycles: number; readonly seconds: number; readonly cpuSeconds: number }

/** Where a span starts: cycle, wall clock, CPU usage. */
class Mark {
  readonly cycle: number;
  readonly wall = performance.now();
  readonly cpu = process.cpuUsage();
  constructor(cycle: number) { this.cycle = cycle; }
  span(cycle: number): Span { return { cycles: cycle - this.cycle, seconds: (performance.now() - this.wall) / 1000, cpuSeconds: cpuSince(this.cpu) }; }
}

/** The frame's payload length; its size must be what the limit assumes (bench/nic-limit.ts). */
function payloadOf(f: LinkFrame): number {
  const d = decodeRoce(f.data);
  if (!d.ok) throw new Error(`A->B frame at cycle ${f.cycle} does not decode: ${d.reason} (${d.detail})`);
  const len = d.pkt.payload.length, want = writeFrameBytes(len, d.pkt.reth !== undefined);
  if (f.data.length !== want) throw new Error(`A->B frame at cycle ${f.cycle}: ${f.data.length} bytes, the limit formula assumes ${want} for ${len} bytes of payload`);
  return len;
}

/** Payload per cycle over whole messages after the first: from the last beat of the first
 *  message's last frame (LAST or ONLY) to the last frame's last beat, as a fraction of the bus.
 *  Whole messages only, so the number compares with the per-message limit. */
function steadyGoodput(frames: readonly LinkFrame[], beatBytes: number): number {
  const decoded = frames.map(f => ({ f, payload: payloadOf(f), opcode: f.data[ETH_HEADER_BYTES + IPV4_HEADER_BYTES + UDP_HEADER_BYTES]! }));
  const end = decoded.findIndex(d => d.opcode === RC_OP.WRITE_LAST || d.opcode === RC_OP.WRITE_ONLY);
  if (end < 0 || end === decoded.length - 1) throw new Error(`goodput needs at least 2 messages, saw ${frames.length} request frames`);
  const payload = decoded.slice(end + 1).reduce((s, d) => s + d.payload, 0);
  return payload / (frames[frames.length - 1]!.cycle - frames[end]!.cycle) / beatBytes;
}

export async function measureGoodput(dataWidth: number, count: number, ramLatency = 0): Promise<GoodputResult> {
  const beatBytes = dataWidth / 8;
  const r = await onPair(dataWidth, 50 * count * LEN / beatBytes + 200_000, async (dut, tb) => {
    const whole = new Mark(tb.cycle); // the model is built by now: only simulation is timed
    const env = await PairEnv.create(dut, tb, { ramLatency, backpressure: 0, stall: 0 });
    let traffic: Mark | undefined;
    env.a.drv.observer = { posted: () => { traffic ??= new Mark(tb.cycle); } };
    const t = await runThroughput(env, tb, { count, len: LEN, pmtuLog2: PMTU_LOG2 });
    const spans = { whole: whole.span(tb.cycle), traffic: traffic!.span(tb.cycle) };
    const tx = env.link.frames.filter(f => f.dir === 'a->b');
    return { t, spans, bus: steadyGoodput(tx, beatBytes) };
  });
  return {
    dataWidth, ramLatency, bus: r.bus, limit: writeGoodputLimit(LEN, 1 << PMTU_LOG2, dataWidth),
    endToEnd: r.t.endToEnd / beatBytes, frames: r.t.frames, ...r.spans,
  };
}
