// The demo's statistics, gathered by watching the drivers (NicDriver.observer) and nothing
// else: per requester and opcode, the WQEs posted (count, bytes), the doorbell-to-CQE latency
// of each signaled WQE and the CQE statuses. A CQE completes its WQE and the unsignaled ones
// posted before it on the same QP (completions are in order), so those count as done too.

import { WQE_OPCODE } from '../../../gen/nic/regmap.ts';
import type { TestBench } from '../../core/index.ts';
import type { NicDriver, QueuePair } from '../../model/driver.ts';

export type Op = 'WRITE' | 'READ';

/** What one requester did with one opcode. */
export interface OpStats {
  messages: number;
  bytes: number;
  readonly latencies: number[];
  readonly status: Map<number, number>;
}

interface WqeTiming { readonly wrId: bigint; readonly index: number; readonly op: Op; doorbell?: number }

const opOf = (opcode: number): Op => (opcode === WQE_OPCODE.RDMA_READ ? 'READ' : 'WRITE');

export class DemoProbe {
  readonly #pending = new Map<QueuePair, WqeTiming[]>();
  /** Key `${host} ${op}`, e.g. 'A READ'. */
  readonly stats = new Map<string, OpStats>();
  unmatched = 0;
  /** WQEs known complete, on every watched driver. */
  completed = 0;

  constructor(private readonly tb: TestBench) {}

  of(host: string, op: Op): OpStats {
    const k = `${host} ${op}`;
    let s = this.stats.get(k);
    if (!s) this.stats.set(k, s = { messages: 0, bytes: 0, latencies: [], status: new Map() });
    return s;
  }

  /** Takes over `drv`'s observer (the scenarios leave it free). */
  watch(host: string, drv: NicDriver): void {
    drv.observer = {
      posted: (qp, wr, index) => {
        const op = opOf(wr.opcode), s = this.of(host, op);
        s.messages++;
        s.bytes += wr.length ?? wr.sges.reduce((a, g) => a + g.len, 0);
        let q = this.#pending.get(qp);
        if (!q) this.#pending.set(qp, q = []);
        q.push({ wrId: wr.wrId, index, op });
      },
      rung: (qp, pi) => {
        // Every WQE before pi (16-bit free-running indices) is announced by this doorbell.
        for (const w of this.#pending.get(qp) ?? []) {
          const d = (pi - w.index) & 0xffff;
          if (w.doorbell === undefined && d >= 1 && d <= 0x8000) w.doorbell = this.tb.cycle;
        }
      },
      reaped: (qp, c) => {
        const q = this.#pending.get(qp) ?? [];
        const k = q.findIndex(w => w.wrId === c.wrId);
        const w = q[k];
        if (!w || w.doorbell === undefined) { this.unmatched++; return; }
        const s = this.of(host, w.op);
        s.status.set(c.status, (s.status.get(c.status) ?? 0) + 1);
        s.latencies.push(this.tb.cycle - w.doorbell);
        q.splice(0, k + 1);
        this.completed += k + 1;
      },
    };
  }
}
