// Field-by-field comparison of two decoded RoCE packets, for checks that must say which field
// differs ("RETH dmaLen 4000, first transmission 4096") rather than "the bytes differ". The
// fields come in wire order; payload bytes are compared last, the first difference named by
// its offset.

import type { RocePacket } from './packet.ts';

export interface FieldDiff {
  /** e.g. 'BTH psn', 'RETH va', 'payload byte 17', 'payload length'. */
  readonly field: string;
  readonly a: string;
  readonly b: string;
}

const hex = (v: number | bigint): string => `0x${v.toString(16)}`;

/** The header fields of `p` as [name, printed value], in wire order; absent headers are 'none'. */
export function packetFields(p: RocePacket): [string, string][] {
  const b = p.bth;
  return [
    ['Ethernet dst', hex(p.eth.dst)], ['Ethernet src', hex(p.eth.src)],
    ['IPv4 dscp', String(p.ip.dscp)], ['IPv4 ecn', String(p.ip.ecn)], ['IPv4 id', String(p.ip.id)], ['IPv4 df', String(p.ip.df)],
    ['IPv4 ttl', String(p.ip.ttl)], ['IPv4 src', hex(p.ip.src)], ['IPv4 dst', hex(p.ip.dst)],
    ['UDP src port', String(p.udp.srcPort)],
    ['BTH opcode', hex(b.opcode)], ['BTH se', String(b.se)], ['BTH migReq', String(b.migReq)], ['BTH padCnt', String(b.padCnt)],
    ['BTH tver', String(b.tver)], ['BTH pkey', hex(b.pkey)], ['BTH fecn', String(b.fecn)], ['BTH becn', String(b.becn)],
    ['BTH destQp', hex(b.destQp)], ['BTH ackReq', String(b.ackReq)], ['BTH psn', hex(b.psn)],
    ['RETH', p.reth ? 'present' : 'none'],
    ...(p.reth ? [['RETH va', hex(p.reth.va)], ['RETH rkey', hex(p.reth.rkey)], ['RETH dmaLen', String(p.reth.dmaLen)]] as [string, string][] : []),
    ['AETH', p.aeth ? 'present' : 'none'],
    ...(p.aeth ? [['AETH syndrome', hex(p.aeth.syndrome)], ['AETH msn', String(p.aeth.msn)]] as [string, string][] : []),
    ['ImmDt', p.immDt === undefined ? 'none' : hex(p.immDt)],
    ['payload length', String(p.payload.length)],
  ];
}

/** The first field (in wire order, then payload bytes) in which `a` and `b` differ, skipping
 *  the fields named in `ignore`; null when they agree. */
export function diffPackets(a: RocePacket, b: RocePacket, ignore: ReadonlySet<string> = new Set()): FieldDiff | null {
  const fa = packetFields(a), fb = new Map(packetFields(b));
  for (const [field, va] of fa) {
    if (ignore.has(field)) continue;
    const vb = fb.get(field) ?? 'none';
    if (va !== vb) return { field, a: va, b: vb };
  }
  for (const [field, vb] of fb) if (!ignore.has(field) && !fa.some(([f]) => f === field)) return { field, a: 'none', b: vb };
  if (ignore.has('payload')) return null;
  const n = Math.min(a.payload.length, b.payload.length);
  for (let i = 0; i < n; i++) {
    if (a.payload[i] !== b.payload[i]) return { field: `payload byte ${i}`, a: hex(a.payload[i]!), b: hex(b.payload[i]!) };
  }
  return null;
}
