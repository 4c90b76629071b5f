// `nicgen sim nic_pair --test demo` (what `make demo` runs): random RDMA WRITEs and READs in
// both directions (A -> B and B -> A) over several QPs (tb/nic/mixed-scenario.ts), checked by
// the scoreboard, then three summary tables: per requester and opcode (messages, bytes,
// doorbell-to-CQE latency, CQE statuses), per link direction (frames sent, what the link's
// faults did to them, what the receiver counted), and overall (cycles, payload per cycle on
// each link direction, the verdict). `nicgen sim --pcap FILE` (or NICGEN_PCAP=<file>) writes
// the capture as sent, `--pcap-rx FILE` as received; --drop/--corrupt/--dup/--reorder/
// --burst-loss put faults on the link (docs/nic-top.md "Link faults"). While it runs,
// `nicgen sim` shows a bar of the messages completed.
//
// Host memory answers without back-pressure; the link carries 8 bytes per cycle each way plus
// 24 per frame (see LINK_RATE): the line rate of the NICs' 8-byte buses behind a MAC. A READ's payload crosses the link in its responses, from the
// responder to the requester, and counts as payload on the wire. Fences (tb/nic/mixed-scenario.ts)
// hold WQEs until earlier READs complete, so the datapath is far from full.

import { CQE_STATUS } from '../../../gen/nic/regmap.ts';
import { PairEnv, type Host, type PairDut } from '../../nic/env.ts';
import { LINK_DIRS, type LinkDir } from '../../nic/link-faults.ts';
import { runMixedScenario } from '../../nic/mixed-scenario.ts';
import { defineBench } from '../bench.ts';
import { reportProgress } from '../progress.ts';
import { DemoProbe, type Op, type OpStats } from './demo-probe.ts';
import { withPairLink } from './pair-link.ts';
import { pairDesign } from './write.ts';

/** nic_pair's datapath: 64-bit AXI and AXI-Stream buses (nic_pair's default dataWidth). */
const DATAPATH_BYTES = 8;
const WQES = 160;
const QPS = 4;
const MAX_LEN = 32 * 1024;
/** Wire rate in bytes per cycle (+24 per frame: FCS, preamble, gap); NICGEN_LINK_RATE=0: the
 *  bus rate, frames back to back with no MAC overhead (tb/tests/nic/e2e-bus-rate.test.ts; seeds
 *  1..100 pass since nic_tlb serves hits under a miss, docs/nic-top.md). The default was 6
 *  while bus-rate traffic both ways still dropped frames in rare seeds. */
const LINK_RATE = Number(process.env['NICGEN_LINK_RATE'] ?? DATAPATH_BYTES);
/** Host memory with its default random latency but no back-pressure. */
const DEMO_ENV = { backpressure: 0, stall: 0, link: LINK_RATE > 0 ? { bytesPerCycle: LINK_RATE } : {} } as const;
const HOSTS = ['A', 'B'] as const;
const OPS: readonly Op[] = ['WRITE', 'READ'];

const statusName = (s: number): string =>
  Object.entries(CQE_STATUS).find(([, v]) => v === s)?.[0] ?? `status ${s}`;

function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : Math.round((s[m - 1]! + s[m]!) / 2);
}

const n = (x: number): string => x.toLocaleString('en-US');
const peerOf = (h: string): string => (h === 'A' ? 'B' : 'A');

/** A box table for a terminal: first column left-aligned, the others right-aligned; a null row
 *  is a rule. */
function grid(title: string, rows: readonly (readonly string[] | null)[]): string {
  const body = rows.filter((r): r is readonly string[] => r !== null);
  const cols = Math.max(...body.map(r => r.length));
  const w = Array.from({ length: cols }, (_, c) => Math.max(...body.map(r => (r[c] ?? '').length)));
  const inner = w.reduce((a, x) => a + x + 3, -1);
  if (title.length > inner - 2) w[0]! += title.length - inner + 2;
  const line = (l: string, m: string, r: string): string => `${l}${w.map(x => '─'.repeat(x + 2)).join(m)}${r}`;
  const out = [line('┌', '─', '┐'), `│ ${title.padEnd(w.reduce((a, x) => a + x + 3, -3))} │`, line('├', '┬', '┤')];
  for (const r of rows) {
    out.push(r === null ? line('├', '┼', '┤') : `│ ${w.map((x, c) => (c === 0 ? (r[c] ?? '').padEnd(x) : (r[c] ?? '').padStart(x))).join(' │ ')} │`);
  }
  out.push(line('└', '┴', '┘'));
  return out.join('\n');
}

/** Per requester and opcode: one column each. */
function perStreamTable(probe: DemoProbe, seed: number): string {
  const streams = HOSTS.flatMap(h => OPS.map(op => ({ h, op, s: probe.of(h, op) })));
  const col = (f: (s: OpStats) => string): string[] => streams.map(x => f(x.s));
  const lat = (f: (xs: number[]) => number) => col(s => (s.latencies.length ? n(f(s.latencies)) : '-'));
  const statuses = [...new Set(streams.flatMap(x => [...x.s.status.keys()]))].sort((a, b) => a - b);
  return grid(`nic_pair demo: RDMA WRITE and READ both ways, seed ${seed}`, [
    ['', ...streams.map(x => `${x.h} ${x.op} ${x.op === 'WRITE' ? 'to' : 'from'} ${peerOf(x.h)}`)],
    null,
    ['messages', ...col(s => n(s.messages))],
    ['payload bytes', ...col(s => n(s.bytes))],
    null,
    ['doorbell -> CQE (cycles), signaled WQEs', ...col(s => n(s.latencies.length))],
    ['  (queueing behind earlier WQEs included)'],
    ['  min', ...lat(xs => Math.min(...xs))],
    ['  median', ...lat(median)],
    ['  max', ...lat(xs => Math.max(...xs))],
    null,
    ['CQE status'],
    ...statuses.map(st => [`  ${statusName(st)}`, ...col(s => n(s.status.get(st) ?? 0))]),
  ]);
}

/** The NICs' own loss-recovery counters (per NIC registers, docs/nic-reliability.md), one row
 *  each, read for a link direction from its sending NIC (what it put on this direction) or
 *  its receiving one (what it took off it). Both NICs are requesters and responders in the
 *  demo, so a direction carries requests, ACK/NAKs and READ responses at once. */
export const RECOVERY_COUNTERS: readonly { readonly label: string; readonly read: (sender: Host, receiver: Host) => Promise<number> }[] = [
  { label: 'requests retransmitted by the sender (RETX_PKTS)', read: s => s.drv.counter('RETX_PKTS') },
  { label: 'ACK timeouts at the sender (ACK_TIMEOUTS)', read: s => s.drv.counter('ACK_TIMEOUTS') },
  { label: 'seq NAKs sent by the sender (SEQ_NAK_TX)', read: s => s.drv.counter('SEQ_NAK_TX') },
  { label: 'seq NAKs taken by the receiver (SEQ_NAK_RX)', read: (_s, r) => r.drv.counter('SEQ_NAK_RX') },
  { label: 'duplicate requests at the receiver (DUP_REQ_RX)', read: (_s, r) => r.drv.counter('DUP_REQ_RX') },
  { label: 'retries exhausted at the sender (RETRY_EXC)', read: s => s.drv.counter('RETRY_EXC') },
];

/** Per link direction: frames sent, what the link's faults did, what the receiver counted. */
export async function linkTable(env: PairEnv): Promise<string> {
  const ends = (d: LinkDir): [Host, Host] => (d === 'a->b' ? [env.a, env.b] : [env.b, env.a]);
  const col = async (f: (d: LinkDir, sender: Host, receiver: Host) => Promise<string> | string): Promise<string[]> => {
    const out: string[] = [];
    for (const d of LINK_DIRS) out.push(await f(d, ...ends(d)));
    return out;
  };
  const faults = (d: LinkDir) => env.link.faults?.stats(d);
  const rows: (string[] | null)[] = [
    ['', 'A -> B', 'B -> A'],
    null,
    ['frames sent by the NIC', ...await col(d => n(env.link.stats[d].frames))],
    ['  dropped by the link (of them in bursts)', ...await col(d => `${n(faults(d)?.dropped ?? 0)} (${n(faults(d)?.burstDropped ?? 0)})`)],
    ['  corrupted by the link (one bit flipped)', ...await col(d => n(faults(d)?.corrupted ?? 0))],
    ['  duplicated by the link', ...await col(d => n(faults(d)?.duplicated ?? 0))],
    ['  reordered by the link', ...await col(d => n(faults(d)?.reordered ?? 0))],
    ['frames handed to the receiver', ...await col(d => n(env.link.stats[d].delivered))],
    ['  accepted by it (RX_FRAMES)', ...await col(async (_d, _s, r) => n(await r.drv.counter('RX_FRAMES')))],
    ['  dropped, bad ICRC (RX_DROP_ICRC)', ...await col(async (_d, _s, r) => n(await r.drv.counter('RX_DROP_ICRC')))],
    ['  dropped, other (RX_DROP_OTHER)', ...await col(async (_d, _s, r) => n(await r.drv.counter('RX_DROP_OTHER')))],
    null,
  ];
  rows.push(['NIC recovery counters']);
  for (const c of RECOVERY_COUNTERS) rows.push([c.label, ...await col(async (_d, sender, receiver) => n(await c.read(sender, receiver)))]);
  return grid('link, per direction', rows);
}

export const demoBench = defineBench({
  about: `the demo: ${WQES} random RDMA WRITEs and READs both ways over ${QPS} QPs (0..${MAX_LEN / 1024} KiB, 1-4 SGEs), summary tables (--pcap/--pcap-rx captures, --drop/--corrupt/--dup/--reorder/--burst-loss link faults)`,
  design: pairDesign,
  maxCycles: 20_000_000,
  link: true,
  test: async (dut: PairDut, tb, { link }) => withPairLink(link, DEMO_ENV, async l => {
    const env = await PairEnv.create(dut, tb, l.env);
    const probe = new DemoProbe(tb);
    probe.watch('A', env.a.drv);
    probe.watch('B', env.b.drv);
    reportProgress(tb, () => ({ done: probe.completed, total: WQES, unit: 'messages' }));
    const r = await runMixedScenario(env, tb, { wqes: WQES, qps: QPS, maxLen: MAX_LEN, bothDirections: true, lossy: l.lossy });
    if (probe.unmatched) throw new Error(`${probe.unmatched} CQE(s) matched no rung WQE`);
    // Payload on each link direction: the sender's WRITEs and the READs the receiver asked for.
    const wire = (from: string): number => probe.of(from, 'WRITE').bytes + probe.of(peerOf(from), 'READ').bytes;
    const perCycle = (bytes: number, lanes: number): string => {
      const x = bytes / Math.max(1, r.cycles);
      return `${x.toFixed(2)} B/cycle = ${(100 * x / (lanes * DATAPATH_BYTES)).toFixed(1)} %`;
    };
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K'); // off the progress line
    console.log(perStreamTable(probe, tb.seed));
    console.log(await linkTable(env));
    console.log(grid('overall', [
      ['messages', `${n(r.writes)} WRITEs + ${n(r.reads)} READs (${n(r.fences)} fenced) on ${QPS} QP pairs`],
      ['payload bytes', n(r.bytes)],
      ['cycles (first post to last CQE)', n(r.cycles)],
      null,
      [`payload on the link, of the ${DATAPATH_BYTES}-byte datapath`, '(READ responses count)'],
      ['  A -> B', perCycle(wire('A'), 1)],
      ['  B -> A', perCycle(wire('B'), 1)],
      ['  both ways', perCycle(r.bytes, 2)],
      ['link, each way', LINK_RATE > 0 ? `${LINK_RATE} B/cycle + 24 B per frame (NICGEN_LINK_RATE)` : `bus rate, ${DATAPATH_BYTES} B/cycle, not paced`],
      null,
      ['scoreboard', `PASS: ${n(env.sb.completions)} CQEs, ${n(env.sb.bytesChecked)} bytes compared`],
      ['', 'READs return what the QP\'s earlier WRITEs left'],
      ['', 'no stray host-memory writes'],
      ['', l.lossy ? 'every QP still RTS, every CQE SUCCESS (losses recovered by go-back-N)' : 'no RX drops, no retransmissions, every QP still RTS'],
      ...(l.lossy ? [['ACK timeout (lossy link)', '2^16 cycles, retry count 3 (LOSSY_RETRY)']] : []),
      ...(link.pcap ? [['capture as sent', link.pcap]] : []),
      ...(link.pcapRx ? [['capture as received', link.pcapRx]] : []),
    ]));
  }),
});
