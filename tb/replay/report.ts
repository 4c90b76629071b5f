// The replay's table (one row per captured frame: what it was, the verdict, what the NIC sent
// back) and its one-paragraph summary, as plain text for a terminal or a CI log.

import { Opcode, OPCODES } from '../model/opcodes.ts';
import type { RocePacket } from '../model/packet.ts';
import type { ReplayReply, ReplayResult, ReplayRow } from './run.ts';
import { REASON_TEXT, type RejectReason } from './verdict.ts';
import { linkTypeName, type CaptureFile, type CaptureInterface } from './capture-file.ts';
import type { InputFrame } from './frame-cleanup.ts';

const hex6 = (n: number): string => `0x${n.toString(16).padStart(6, '0')}`;
const opName = (code: number): string => OPCODES.find(o => o.code === code)?.name ?? `opcode 0x${code.toString(16).padStart(2, '0')}`;

/** `ACK psn 0x000102 msn 1`, `NAK 0x60 psn 0x000103`, `RDMA_READ_RESPONSE_ONLY psn ...`. */
export function describeReply(r: ReplayReply): string {
  const p = r.pkt;
  if (!p) return `undecodable frame (${r.data.length} bytes)`;
  if (p.bth.opcode === Opcode.ACKNOWLEDGE && p.aeth) {
    const s = p.aeth.syndrome;
    return `${s === 0x1f ? 'ACK' : `NAK 0x${s.toString(16)}`} psn ${hex6(p.bth.psn)} msn ${p.aeth.msn}`;
  }
  return `${opName(p.bth.opcode)} psn ${hex6(p.bth.psn)}${p.payload.length ? ` ${p.payload.length} B` : ''}`;
}

export function verdictText(row: ReplayRow): string {
  return row.verdict.accepted ? 'accepted' : `rejected: ${REASON_TEXT[row.verdict.reason!]}`;
}

const isReadResponse = (r: ReplayReply): boolean => r.pkt !== undefined && r.pkt.bth.opcode >= Opcode.RDMA_READ_RESPONSE_FIRST && r.pkt.bth.opcode <= Opcode.RDMA_READ_RESPONSE_LAST;

/** The replies, a multi-packet READ response (FIRST, MIDDLE..., LAST) in one phrase:
 *  `READ RESPONSE psn 0xfffff8..0x000000 (9 packets, 2185 B)`. */
export function describeReplies(replies: readonly ReplayReply[]): string {
  const out: string[] = [];
  for (let i = 0; i < replies.length;) {
    let j = i;
    if (replies[i]!.pkt?.bth.opcode === Opcode.RDMA_READ_RESPONSE_FIRST) {
      while (j + 1 < replies.length && isReadResponse(replies[j + 1]!) && replies[j]!.pkt!.bth.opcode !== Opcode.RDMA_READ_RESPONSE_LAST) j++;
    }
    const run = replies.slice(i, j + 1);
    const bytes = run.reduce((a, r) => a + r.pkt!.payload.length, 0);
    out.push(run.length === 1 ? describeReply(run[0]!) : `READ RESPONSE psn ${hex6(run[0]!.pkt!.bth.psn)}..${hex6(run.at(-1)!.pkt!.bth.psn)} (${run.length} packets, ${bytes} B)`);
    i = j + 1;
  }
  return out.join(', ');
}

function cells(row: ReplayRow): string[] {
  const p: RocePacket | undefined = row.pkt;
  const sent = row.replies.length ? describeReplies(row.replies) : '-';
  const qp = p ? `${hex6(p.bth.destQp)}${row.fedQpn !== undefined ? `>${hex6(row.fedQpn)}` : ''}` : '?';
  return [String(row.frame), p ? opName(p.bth.opcode) : '?', qp, p ? hex6(p.bth.psn) : '?', verdictText(row), sent];
}

/** The table; rejected rows get an indented line with the detail, rows the input clean-up
 *  changed an `input:` line, rows where the TS model disagrees a `note:` line. */
export function formatTable(rows: readonly ReplayRow[], o: { rejectedOnly?: boolean } = {}): string[] {
  const shown = o.rejectedOnly ? rows.filter(r => !r.verdict.accepted) : rows;
  const head = ['#', 'opcode', 'dest QP', 'PSN', 'verdict', 'NIC sent'];
  const body = shown.map(cells);
  const w = head.map((h, i) => Math.max(h.length, ...body.map(c => c[i]!.length)));
  const line = (c: readonly string[]): string => c.map((x, i) => (i === 0 ? x.padStart(w[0]!) : i === c.length - 1 ? x : x.padEnd(w[i]!))).join('  ');
  const out = [line(head)];
  shown.forEach((row, k) => {
    out.push(line(body[k]!));
    const v = row.verdict;
    const indent = ' '.repeat(w[0]! + 4);
    if (row.input.length) out.push(`${indent}input: ${row.input.join('; ')}`);
    if (!v.accepted) out.push(`${indent}${v.detail}`);
    if (v.note) out.push(`${indent}note: ${v.note}`);
  });
  return out;
}

/** Counts per reason, most frequent first: `bad ICRC 1, unknown QP 2`. */
function reasonCounts(rows: readonly ReplayRow[]): string {
  const n = new Map<RejectReason, number>();
  for (const r of rows) if (r.verdict.reason) n.set(r.verdict.reason, (n.get(r.verdict.reason) ?? 0) + 1);
  return [...n].sort((a, b) => b[1] - a[1]).map(([k, c]) => `${REASON_TEXT[k]} ${c}`).join(', ');
}

export function formatSummary(r: ReplayResult, o: { txPcap?: string | undefined; seconds: number }): string[] {
  const rejected = r.rows.filter(x => !x.verdict.accepted);
  const out = [`${r.rows.length} frames replayed: ${r.rows.length - rejected.length} accepted, ${rejected.length} rejected${rejected.length ? ` (${reasonCounts(r.rows)})` : ''}`];
  out.push(`the NIC sent ${r.tx.length} frames${o.txPcap ? ` -> ${o.txPcap}` : ''}`);
  for (const d of r.dumps) out.push(`MR ${d.index} (key 0x${d.key.toString(16).padStart(4, '0')}): ${d.bytes} bytes -> ${d.file} (${d.changed} bytes changed)`);
  out.push(`${r.cycles} cycles, ${o.seconds.toFixed(2)} s${r.built ? ' (model built)' : ''}`);
  return out;
}

/** What the capture held and what the clean-up did, in one line:
 *  `input: in.pcapng (pcapng, 2 interfaces: Ethernet, Ethernet FCS 4 bytes): 15 frames; ...`. */
export function formatInputSummary(file: string, cap: CaptureFile, frames: readonly InputFrame[]): string {
  const iface = (i: CaptureInterface): string => `${linkTypeName(i.linktype)}${i.fcsLen ? ` FCS ${i.fcsLen} bytes` : ''}`;
  const ifaces = cap.interfaces.length === 1 ? iface(cap.interfaces[0]!) : `${cap.interfaces.length} interfaces: ${cap.interfaces.map(iface).join(', ')}`;
  const count = (re: RegExp): number => frames.filter(f => f.notes.some(n => re.test(n))).length;
  const parts = [
    [count(/^SLL2? /), 'Ethernet header rebuilt'], [count(/tag stripped/), 'VLAN tags stripped'],
    [count(/FCS .*stripped/), 'FCS stripped'], [count(/stripped \(bad/), 'bad FCS'], [count(/^truncated/), 'truncated'],
  ].filter(([n]) => (n as number) > 0).map(([n, what]) => `${what} ${n}`);
  return `input: ${file} (${cap.format}, ${ifaces}): ${frames.length} frames${parts.length ? `; ${parts.join(', ')}` : ''}`;
}
