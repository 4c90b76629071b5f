// Streaming throughput of one QP A->B: `count` WRITEs of `len` bytes from one buffer, path MTU
// 2^pmtuLog2, host memory without back-pressure. Returns bytes per cycle end to end (first
// doorbell to last CQE) and on the wire (first to last request frame), and the frames the
// receiver dropped (RX_DROP_ICRC + RX_DROP_OTHER): with the link at line rate (one beat per
// cycle) any drop means the receive path is slower than the wire. Drops come only once the
// RX buffer is full, so the run also samples the receive backlog every 1024 cycles: frames
// A has sent minus frames B's parser has taken (RX_FRAMES). A path that keeps up holds it
// at a frame or two; one that loses a cycle per frame grows it by one every ~40 frames.

import { CQE_STATUS } from '../../gen/nic/regmap.ts';
import type { TestBench } from '../core/index.ts';
import { qpReg } from '../model/nic-regs.ts';
import type { PairEnv } from './env.ts';
import { describeQps, setupHosts, startPoller } from './write-scenario.ts';

export interface ThroughputResult {
  bytes: number; cycles: number; endToEnd: number; wire: number; frames: number; rxDrops: number;
  /** Largest receive backlog sampled, in frames (sent by A, not yet parsed by B). */
  maxRxBacklog: number;
}

export interface ThroughputOptions {
  readonly count: number;
  readonly len: number;
  readonly pmtuLog2: number;
  /** The link has faults: RX drops are expected, not a slow receive path. */
  readonly lossy?: boolean;
}

export async function runThroughput(env: PairEnv, tb: TestBench, o: ThroughputOptions): Promise<ThroughputResult> {
  const setup = await setupHosts(env, tb, 1);
  const A = env.a, B = env.b, sa = setup.get(A)!, sb = setup.get(B)!;
  const qp = sa.qps[0]!;
  for (const h of [A, B]) await h.drv.regs.write(qpReg(0, 'PMTU'), o.pmtuLog2);
  env.sb.start();
  for (const h of [A, B]) for (const q of setup.get(h)!.qps) env.sb.allow(h.name, q.ringRanges);
  env.sb.allow('B', sb.dst.ranges(0, sb.dst.len));
  const poll = startPoller(env, setup, tb);
  env.link.frames.length = 0;
  const rx0 = await B.drv.counter('RX_FRAMES');
  const t0 = tb.cycle;
  for (let k = 0; k < o.count; k++) {
    const off = (k * o.len) % (sb.dst.len - o.len);
    const wr = A.drv.writeRequest(BigInt(k), [{ mr: sa.src, offset: 0, len: o.len }], sb.dst.va + BigInt(off), sb.dst.key, true);
    // Targets wrap around the MR and may overlap, so bytes are not compared here (the random
    // benches do that); the target MR is allowed to change, nothing else is.
    env.sb.expectWrite('A', 0, wr, CQE_STATUS.SUCCESS);
    while (await A.drv.sqFree(qp) === 0) await tb.clockCycles(16);
    A.drv.post(qp, wr);
    await A.drv.ring(qp);
  }
  // A drop here is a receiver that cannot keep up at line rate (the run measures exactly
  // that), even though go-back-N would recover it: report it when it happens.
  const dropped = async (): Promise<number> => await B.drv.counter('RX_DROP_ICRC') + await B.drv.counter('RX_DROP_OTHER');
  let maxRxBacklog = 0;
  for (let k = 1; env.sb.totalOwed > 0; k++) {
    poll.check();
    if (k % 64 === 32) {
      // Sent count first: a frame sent after it cannot make the backlog look larger.
      const sent = env.link.frames.filter(f => f.dir === 'a->b').length;
      maxRxBacklog = Math.max(maxRxBacklog, sent - (await B.drv.counter('RX_FRAMES') - rx0));
    }
    if (!o.lossy && k % 64 === 0 && await dropped() > 0) {
      throw new Error(`B dropped ${await dropped()} received frame(s) by cycle ${tb.cycle} (path MTU ${1 << o.pmtuLog2}, link at line rate): its receive path is slower than the wire\n${await describeQps(env, setup)}`);
    }
    if (tb.cycle - t0 > 4 * o.count * o.len) throw new Error(`throughput run stuck\n${await describeQps(env, setup)}`);
    await tb.clockCycles(16);
  }
  poll.stop();
  const cycles = tb.cycle - t0;
  env.sb.finish();
  const rxDrops = await dropped();
  const tx = env.link.frames.filter(f => f.dir === 'a->b');
  const span = Math.max(1, tx[tx.length - 1]!.cycle - tx[0]!.cycle);
  const bytes = o.count * o.len;
  return { bytes, cycles, endToEnd: bytes / cycles, wire: bytes / span, frames: tx.length, rxDrops, maxRxBacklog };
}
