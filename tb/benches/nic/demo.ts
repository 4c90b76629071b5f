// `nicgen sim nic_pair --test demo` (what `make demo` runs): random RDMA WRITEs from NIC A to
// NIC B over several QPs, checked by the scoreboard, then a summary table: messages, bytes,
// cycles, throughput, doorbell-to-CQE latency, CQE status counts and the verdict.
// NICGEN_PCAP=<file> (or `nicgen sim --pcap FILE`) writes the link's capture. While it runs,
// `nicgen sim` shows a bar of the messages completed (tb/benches/progress.ts).
//
// The link runs at line rate (one bus beat per cycle, no pacing) and host memory answers
// without back-pressure, so the goodput in the table is what the datapath achieves.

import { CQE_STATUS } from '../../../gen/nic/regmap.ts';
import type { TestBench } from '../../core/index.ts';
import type { NicDriver, QueuePair } from '../../model/driver.ts';
import { PcapWriter } from '../../model/pcap.ts';
import { PairEnv, type PairDut } from '../../nic/env.ts';
import { runWriteScenario } from '../../nic/write-scenario.ts';
import { defineBench } from '../bench.ts';
import { reportProgress } from '../progress.ts';
import { pairDesign } from './write.ts';

/** nic_pair's datapath: 64-bit AXI and AXI-Stream buses (nic_pair's default dataWidth). */
const DATAPATH_BYTES = 8;
const WRITES = 96;
const QPS = 4;
const MAX_LEN = 32 * 1024;
/** Host memory with its default random latency but no back-pressure; the link unpaced. */
const DEMO_ENV = { backpressure: 0, stall: 0 } as const;

interface WqeTiming { wrId: bigint; index: number; signaled: boolean; doorbell?: number; cqe?: number }

/** Watches a driver: when each WQE's doorbell was rung and when its CQE was reaped. */
class LatencyProbe {
  readonly #pending = new Map<QueuePair, WqeTiming[]>();
  readonly latencies: number[] = [];
  readonly status = new Map<number, number>();
  unmatched = 0;
  /** WQEs known complete: a CQE completes its WQE and the unsignaled ones before it. */
  completed = 0;

  constructor(drv: NicDriver, tb: TestBench) {
    drv.observer = {
      posted: (qp, wr, index) => {
        let q = this.#pending.get(qp);
        if (!q) this.#pending.set(qp, q = []);
        q.push({ wrId: wr.wrId, index, signaled: wr.signaled });
      },
      rung: (qp, pi) => {
        // Every WQE before pi (16-bit free-running indices) is announced by this doorbell.
        for (const w of this.#pending.get(qp) ?? []) {
          const d = (pi - w.index) & 0xffff;
          if (w.doorbell === undefined && d >= 1 && d <= 0x8000) w.doorbell = tb.cycle;
        }
      },
      reaped: (qp, c) => {
        this.status.set(c.status, (this.status.get(c.status) ?? 0) + 1);
        const q = this.#pending.get(qp) ?? [];
        const k = q.findIndex(w => w.wrId === c.wrId);
        const w = q[k];
        if (!w || w.doorbell === undefined) { this.unmatched++; return; }
        this.latencies.push(tb.cycle - w.doorbell);
        q.splice(0, k + 1); // completions are in order: the unsignaled ones before it are done too
        this.completed += k + 1;
      },
    };
  }
}

const statusName = (s: number): string =>
  Object.entries(CQE_STATUS).find(([, v]) => v === s)?.[0] ?? `status ${s}`;

function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : Math.round((s[m - 1]! + s[m]!) / 2);
}

const n = (x: number): string => x.toLocaleString('en-US');

/** A two-column box table, for a terminal. */
function table(title: string, rows: readonly (readonly [string, string] | null)[]): string {
  const body = rows.filter((r): r is readonly [string, string] => r !== null);
  const kw = Math.max(...body.map(r => r[0].length));
  const vw = Math.max(title.length - kw - 3, ...body.map(r => r[1].length));
  const line = (l: string, m: string, r: string): string => `${l}${'─'.repeat(kw + 2)}${m}${'─'.repeat(vw + 2)}${r}`;
  const out = [line('┌', '─', '┐'), `│ ${title.padEnd(kw + vw + 3)} │`, line('├', '┬', '┤')];
  rows.forEach(r => out.push(r === null ? line('├', '┼', '┤') : `│ ${r[0].padEnd(kw)} │ ${r[1].padStart(vw)} │`));
  out.push(line('└', '┴', '┘'));
  return out.join('\n');
}

export const demoBench = defineBench({
  about: `the demo: ${WRITES} random RDMA WRITEs A->B over ${QPS} QPs (0..${MAX_LEN / 1024} KiB, 1-4 SGEs), summary table (NICGEN_PCAP / --pcap: capture)`,
  design: pairDesign,
  maxCycles: 20_000_000,
  test: async (dut: PairDut, tb) => {
    const pcapPath = process.env['NICGEN_PCAP'];
    const pcap = pcapPath ? PcapWriter.open(pcapPath) : undefined;
    try {
      const env = await PairEnv.create(dut, tb, { ...DEMO_ENV, ...(pcap ? { pcap } : {}) });
      const probe = new LatencyProbe(env.a.drv, tb);
      reportProgress(tb, () => ({ done: probe.completed, total: WRITES, unit: 'messages' }));
      const r = await runWriteScenario(env, tb, { writes: WRITES, qps: QPS, maxLen: MAX_LEN, bothDirections: false });
      if (probe.unmatched) throw new Error(`${probe.unmatched} CQE(s) matched no rung WQE`);
      const perCycle = r.bytes / Math.max(1, r.cycles);
      const lat = probe.latencies;
      const statuses = [...probe.status].sort(([a], [b]) => a - b).map(([s, c]) => [`  ${statusName(s)}`, n(c)] as const);
      const txA = await env.a.drv.counter('TX_FRAMES'), rxB = await env.b.drv.counter('RX_FRAMES');
      if (process.stderr.isTTY) process.stderr.write('\r\x1b[K'); // off the progress line
      console.log(table(`nic_pair demo: RDMA WRITE A -> B, seed ${tb.seed}`, [
        ['messages (WRITEs)', `${n(r.writes)} on ${QPS} QPs`],
        ['payload bytes', n(r.bytes)],
        ['frames on the link, both ways', `${n(env.link.frames.length)} (A TX ${n(txA)}, B RX ${n(rxB)})`],
        ['cycles (first post to last CQE)', n(r.cycles)],
        null,
        ['payload bytes / cycle', perCycle.toFixed(2)],
        [`of the ${DATAPATH_BYTES}-byte datapath`, `${(100 * perCycle / DATAPATH_BYTES).toFixed(1)} %`],
        ['link', `line rate, ${DATAPATH_BYTES} B/cycle, not paced`],
        null,
        [`doorbell -> CQE, ${lat.length} signaled WQEs`, 'cycles'],
        ['  (queueing behind earlier WQEs included)', ''],
        ['  min', lat.length ? n(Math.min(...lat)) : '-'],
        ['  median', lat.length ? n(median(lat)) : '-'],
        ['  max', lat.length ? n(Math.max(...lat)) : '-'],
        null,
        ['CQE status', 'count'],
        ...statuses,
        null,
        ['scoreboard', `PASS: ${n(env.sb.completions)} CQEs, ${n(env.sb.bytesChecked)} bytes compared`],
        ['', 'no stray host-memory writes, no RX drops'],
        ...(pcapPath ? [['capture', pcapPath] as const] : []),
      ]));
    } finally {
      pcap?.close();
    }
  },
});
