// The DMA engines' neighbours for their stage benches, on tb/bfm: the TLB port (answers in
// order after a random latency, from a TS translation model) and host memory (tb/bfm's
// AxiRam with its AXI4 checker), with every AR/AW burst and W beat recorded so a test can
// check exactly what the engine asked for. Cycles are sample-phase cycles (clock-phases.ts).

import { AxiRam, watchChannel, type AxiMasterPorts } from '../../bfm/index.ts';
import type { TestBench } from '../../core/index.ts';
import type { ByteMemory } from '../../bfm/index.ts';
import { StructSink, StructSource, type StructInPorts, type StructOutPorts } from './stage-streams.ts';

export interface XlateTiming {
  minLatency: number; maxLatency: number; readyP: number; validP: number;
  /** Answers on the way back at most (request ready is low while this many wait); no limit when omitted. */
  maxPending?: number;
}

/** Answers translation requests in order, each minLatency..maxLatency cycles after the
 *  cycle after its request (never before the previous answer). */
export class XlateStandIn<Q, A> {
  readonly requests: { value: Q; cycle: number }[] = [];
  constructor(tb: TestBench, req: StructOutPorts<Q>, resp: StructInPorts<A>, answer: (q: Q) => A, o: XlateTiming) {
    const rng = tb.rng.fork();
    const answers = new StructSource<A>(tb, resp, 'xlate response', { pause: 1 - o.validP });
    let lastDue = 0;
    const maxPending = o.maxPending;
    new StructSink<Q>(tb, req, 'xlate request', {
      pause: 1 - o.readyP,
      ...(maxPending === undefined ? {} : { room: () => answers.pending < maxPending }),
      onItem: (q, cycle) => {
        this.requests.push({ value: q, cycle });
        lastDue = Math.max(lastDue, cycle + 1 + rng.int(o.minLatency, o.maxLatency));
        answers.push(answer(q), lastDue);
      },
    });
  }
}

export interface MemTiming {
  /** Cycles from a read address to its first beat, and from a write's last W beat to B. */
  latency: number;
  /** Chance per cycle of AxREADY/WREADY high, and of offering an R beat or a B. */
  readyP: number;
  validP: number;
}

export interface Burst { addr: bigint; len: number; cycle: number }

/** What the engine asked host memory for. */
export interface MemRecord { readonly ar: Burst[]; readonly aw: Burst[]; readonly wBeatCycles: number[] }

/** Host memory on `ports` (AxiRam, responses in request order) over `memory`. */
export function dmaMemory(tb: TestBench, ports: AxiMasterPorts, memory: ByteMemory, o: MemTiming, name: string): MemRecord {
  new AxiRam(tb, ports, {
    name, memory, reorder: false, readLatency: o.latency, writeLatency: o.latency,
    backpressure: 1 - o.readyP, stall: 1 - o.validP,
  });
  const rec: MemRecord = { ar: [], aw: [], wBeatCycles: [] };
  const p = ports;
  // Second watchers on AR/AW/W (the AxiRam has its checker): they only record handshakes.
  watchChannel(tb, { valid: p.arvalid, ready: p.arready, payload: [p.araddr, p.arlen] }, `${name} AR`, {
    onHandshake: cycle => { rec.ar.push({ addr: BigInt(p.araddr.value), len: Number(p.arlen.value), cycle }); },
  });
  watchChannel(tb, { valid: p.awvalid, ready: p.awready, payload: [p.awaddr, p.awlen] }, `${name} AW`, {
    onHandshake: cycle => { rec.aw.push({ addr: BigInt(p.awaddr.value), len: Number(p.awlen.value), cycle }); },
  });
  watchChannel(tb, { valid: p.wvalid, ready: p.wready, payload: [p.wdata] }, `${name} W`, {
    onHandshake: cycle => { rec.wBeatCycles.push(cycle); },
  });
  return rec;
}
