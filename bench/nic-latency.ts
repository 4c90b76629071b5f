// Latency of one 64-byte RDMA WRITE on an idle NIC pair, host memory answering every request
// after exactly L cycles (no back-pressure), link latency LINK_LATENCY each way:
//   doorbell     the rising edge where the SQ_PI write's AW and W have both been accepted
//                (the later handshake), on A's AXI-Lite port;
//   first beat   the first edge after that with tvalid && tready on A's m_axis_tx;
//   CQE          the first edge after that where A's next CQE slot in host memory holds the
//                new phase (the whole CQE written: software could see it).
// WRITE k waits for WRITE k-1's CQE; the first one runs with a cold TLB and ring, so it is
// reported apart ("cold") from the median of the others ("warm").

import { CQE_BYTES, CQE_STATUS } from '../gen/nic/regmap.ts';
import { ClockPhases } from '../tb/bfm/clock-phases.ts';
import type { TestBench } from '../tb/core/index.ts';
import { cqePhase } from '../tb/model/completion.ts';
import { decodeCqe, type QueuePair } from '../tb/model/driver.ts';
import { PairEnv, type Host, type PairDut } from '../tb/nic/env.ts';
import { setupHosts } from '../tb/nic/write-scenario.ts';
import { median, onPair } from './nic-pair.ts';

export const LINK_LATENCY = 20;
const LEN = 64;

// Issue 15 allows the pipelining for 250 MHz at 512 bits a few cycles over the earlier 2L + 24.
export const latencyGoal = (memLatency: number): number => 2 * memLatency + 32;

export interface Sample {
  readonly firstBeat: number;
  /** The request frame's last beat (tlast): minus firstBeat, the frame's beats - 1 when it has no bubbles. */
  readonly lastBeat: number;
  readonly cqe: number;
  /** A's host-memory reads until the frame's last beat: `AR(beats)+c` and `R+c` (last beat), c from the doorbell. */
  readonly reads: string;
}

export interface LatencyResult {
  readonly dataWidth: number;
  readonly memLatency: number;
  readonly cold: Sample;
  readonly warm: Omit<Sample, 'reads'>;
  /** The reads of the last WRITE: where the cycles to the first and last beat go. */
  readonly lastReads: string;
  readonly samples: number;
  /** Every WRITE's sample, in order (the first is `cold`). */
  readonly all: readonly Sample[];
}

/** Watches A's doorbell write, TX stream and one CQE slot, every edge while armed. */
export class Probe {
  private armed = false;
  private aw = -1;
  private w = -1;
  private cqeAddr = 0n;
  private phase = 0;
  private reads: { cycle: number; what: string }[] = [];
  doorbell = -1;
  firstBeat = -1;
  lastBeat = -1;
  cqe = -1;
  readonly stop: () => void;

  /** Samples in the bus models' sample phase (falling edge), where handshakes are decided. */
  constructor(tb: TestBench, dut: PairDut, private readonly host: Host) {
    const axil = dut.a_s_axil, tx = dut.a_m_axis_tx, axi = dut.a_m_axi;
    this.stop = ClockPhases.of(tb).onSample(() => {
      if (!this.armed) return;
      if (this.aw < 0 && axil.awvalid.value && axil.awready.value) this.aw = tb.cycle;
      if (this.w < 0 && axil.wvalid.value && axil.wready.value) this.w = tb.cycle;
      if (this.doorbell < 0 && this.aw >= 0 && this.w >= 0) this.doorbell = Math.max(this.aw, this.w);
      if (this.doorbell < 0) return;
      if (this.lastBeat < 0 && axi.arvalid.value && axi.arready.value) this.reads.push({ cycle: tb.cycle, what: `AR(${Number(axi.arlen.value) + 1})` });
      if (this.lastBeat < 0 && axi.rvalid.value && axi.rready.value && axi.rlast.value) this.reads.push({ cycle: tb.cycle, what: 'R' });
      const beat = tx.tvalid.value && tx.tready.value;
      if (this.firstBeat < 0 && beat) this.firstBeat = tb.cycle;
      if (this.lastBeat < 0 && beat && tx.tlast?.value) this.lastBeat = tb.cycle;
      if (this.cqe < 0 && decodeCqe(this.host.mem.read(this.cqeAddr, CQE_BYTES)).phase === this.phase) this.cqe = tb.cycle;
    });
  }

  /** Before ringing: the CQE slot the next completion of `qp` lands in. */
  arm(qp: QueuePair): void {
    this.cqeAddr = qp.cqBase + BigInt((qp.cqCi & (qp.cqSize - 1)) * CQE_BYTES);
    this.phase = cqePhase(qp.cqCi, qp.opts.cqSizeLog2);
    this.aw = this.w = this.doorbell = this.firstBeat = this.lastBeat = this.cqe = -1;
    this.reads = [];
    this.armed = true;
  }

  get done(): boolean { return this.lastBeat >= 0 && this.cqe >= 0; }

  take(): Sample {
    this.armed = false;
    const at = (c: number): string => `+${c - this.doorbell}`;
    const reads = this.reads.filter(r => r.cycle >= this.doorbell).map(r => `${r.what}${at(r.cycle)}`).join(' ');
    return { firstBeat: this.firstBeat - this.doorbell, lastBeat: this.lastBeat - this.doorbell, cqe: this.cqe - this.doorbell, reads };
  }
}

export async function measureLatency(dataWidth: number, memLatency: number, writes: number, debug: Parameters<typeof onPair>[3] = {}): Promise<LatencyResult> {
  const samples = await onPair(dataWidth, 2_000_000, async (dut, tb) => {
    const env = await PairEnv.create(dut, tb, { ramLatency: memLatency, backpressure: 0, stall: 0, latency: LINK_LATENCY });
    const setup = await setupHosts(env, tb, 1);
    const A = env.a, sa = setup.get(A)!, sb = setup.get(env.b)!, qp = sa.qps[0]!;
    env.sb.start();
    for (const h of [A, env.b]) for (const q of setup.get(h)!.qps) env.sb.allow(h.name, q.ringRanges);
    const probe = new Probe(tb, dut, A);
    const out: Sample[] = [];
    for (let k = 0; k < writes; k++) {
      const wr = A.drv.writeRequest(BigInt(k), [{ mr: sa.src, offset: k * LEN, len: LEN }], sb.dst.va + BigInt(k * LEN), sb.dst.key, true);
      env.sb.expectWrite('A', 0, wr, CQE_STATUS.SUCCESS, { host: 'B', mr: sb.dst, offset: k * LEN });
      A.drv.post(qp, wr);
      probe.arm(qp);
      await A.drv.ring(qp);
      await tb.until(() => probe.done, { timeout: 100_000, what: `64-byte WRITE ${k}: first TX beat and CQE (L=${memLatency})` });
      out.push(probe.take());
      for (const c of await A.drv.pollCq(qp)) env.sb.onCqe('A', 0, c);
    }
    probe.stop();
    env.sb.finish();
    return out;
  }, debug);
  const warm = samples.slice(1);
  return {
    dataWidth, memLatency, cold: samples[0]!, samples: samples.length, all: samples, lastReads: samples[samples.length - 1]!.reads,
    warm: { firstBeat: median(warm.map(s => s.firstBeat)), lastBeat: median(warm.map(s => s.lastBeat)), cqe: median(warm.map(s => s.cqe)) },
  };
}
