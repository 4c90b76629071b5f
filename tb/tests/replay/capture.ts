// A capture for the replay tests, made by the TS packet model for the example scenario
// (tb/replay/examples/write-two-qps.json), with what a correct NIC does with each frame:
// the verdict, the ACK/NAK it answers with, and the final contents of both MRs.
//
// Frames (payload lengths and offsets random per seed):
//   QP 0 (PMTU 256): WRITE FIRST/MIDDLE/LAST; QP 1 (PMTU 512, known to the capture by its
//   captureQpn): WRITE ONLY at PSN 2^24-2;
//   a QP 1 frame with a corrupted ICRC; frames for QPs the scenario does not have; on QP 0 a
//   PSN gap (NAK 0x60), the gap again (silent), a duplicate (re-ACK, memory unchanged), then
//   the missing PSN; on QP 1 the corrupted frame resent (PSN wraps to 0) and a FIRST/LAST pair.

import { Rng } from '../../core/rng.ts';
import { parseIpv4, parseMac } from '../../model/headers.ts';
import { Opcode, Syndrome } from '../../model/opcodes.ts';
import { encodeRoce, type RocePacket } from '../../model/packet.ts';
import { psnAdd } from '../../model/psn.ts';
import { segmentWrite, type RocePath } from '../../model/segment.ts';
import { materialize } from '../../replay/contents.ts';
import type { RejectReason } from '../../replay/verdict.ts';
import type { Scenario } from '../../replay/scenario.ts';

export interface ExpectedReply { readonly syndrome: number; readonly psn: number; readonly msn: number }

export interface CaptureFrame {
  readonly data: Uint8Array;
  readonly verdict: 'accepted' | RejectReason;
  /** The ACK/NAK the NIC must send for this frame, if any. */
  readonly reply?: ExpectedReply;
  /** Local QP index the reply comes from (for its addresses). */
  readonly qp?: number;
  readonly what: string;
}

export interface Capture {
  readonly frames: readonly CaptureFrame[];
  /** Expected final bytes per MR slot. */
  readonly mrs: ReadonlyMap<number, Uint8Array>;
}

/** Peer side of a scenario QP: the frames it sends to the NIC. */
function pathTo(s: Scenario, qpn: number, peerMac: string, peerIp: string): RocePath {
  return {
    eth: { dst: Number(s.nic.mac), src: parseMac(peerMac) },
    ip: { dscp: 26, ecn: 0, id: 0, df: true, ttl: 64, src: parseIpv4(peerIp), dst: s.nic.ip },
    udp: { srcPort: 0xc000 | (qpn & 0x3fff) },
    destQp: qpn,
  };
}

/** Per-QP model of the responder: expected PSN and MSN, and each MR's bytes. */
class Responder {
  readonly exp = new Map<number, number>();
  readonly msn = new Map<number, number>();
  readonly mrs = new Map<number, Uint8Array>();
  constructor(readonly s: Scenario) {
    for (const q of s.qps) { this.exp.set(q.index, q.expPsn); this.msn.set(q.index, 0); }
    for (const m of s.mrs) this.mrs.set(m.index, materialize(m.init, m.length));
  }

  /** An in-sequence packet: advance the PSN, count a message at its end, write its bytes. */
  execute(qp: number, p: RocePacket, mr: number, offset: number): ExpectedReply | undefined {
    this.exp.set(qp, psnAdd(p.bth.psn, 1));
    const ends = p.bth.opcode === Opcode.RDMA_WRITE_LAST || p.bth.opcode === Opcode.RDMA_WRITE_ONLY;
    if (ends) this.msn.set(qp, this.msn.get(qp)! + 1);
    this.mrs.get(mr)!.set(p.payload, offset);
    return p.bth.ackReq ? { syndrome: Syndrome.ACK, psn: p.bth.psn, msn: this.msn.get(qp)! } : undefined;
  }
}

/** The frames for `s`: its first two QPs (the second with a PMTU of at least 512) and MRs,
 *  like the example's. */
export function buildCapture(s: Scenario, seed: number): Capture {
  const rng = new Rng(seed);
  const model = new Responder(s);
  const [q0, q1] = [s.qps[0]!, s.qps[1]!];
  const [m0, m1] = [s.mrs[0]!, s.mrs[1]!];
  // Frames carry the QPN the capture knows the QP by (captureQpn: the replay rewrites it).
  const p0 = pathTo(s, q0.captureQpn ?? q0.qpn, '02:00:00:00:00:0a', '10.0.0.1');
  const p1 = pathTo(s, q1.captureQpn ?? q1.qpn, '02:00:00:00:00:0a', '10.0.0.1');
  // Packets are cut at each QP's path MTU (256 and 512 in the example).
  const [mtu0, mtu1] = [1 << q0.pmtuLog2, 1 << q1.pmtuLog2];
  const frames: CaptureFrame[] = [];
  const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => rng.int(0, 255));
  /** A WRITE message's packets with their MR offsets. */
  const write = (path: RocePath, mtu: number, psn: number, mr: typeof m0, offset: number, len: number): { p: RocePacket; off: number }[] => {
    const pkts = segmentWrite({ path, payload: bytes(len), mtu, startPsn: psn, va: mr.va + BigInt(offset), rkey: mr.key });
    let off = offset;
    return pkts.map(p => { const r = { p, off }; off += p.payload.length; return r; });
  };
  const accept = (qp: number, x: { p: RocePacket; off: number }, mr: number, what: string): void => {
    const reply = model.execute(qp, x.p, mr, x.off);
    frames.push({ data: encodeRoce(x.p), verdict: 'accepted', qp, what, ...(reply ? { reply } : {}) });
  };

  // QP 0: a WRITE of 513..767 bytes (three packets at PMTU 256) at a random offset.
  const len0 = rng.int(513, 767), off0 = rng.int(0, 1000);
  for (const x of write(p0, mtu0, q0.expPsn, m0, off0, len0)) accept(q0.index, x, m0.index, 'QP 0 WRITE');
  // QP 1: a WRITE ONLY at PSN 2^24-2.
  const [only1] = write(p1, mtu1, q1.expPsn, m1, rng.int(0, 2000), rng.int(1, 512));
  accept(q1.index, only1!, m1.index, 'QP 1 WRITE ONLY');
  // QP 1: its next WRITE with one payload byte flipped after the ICRC was computed.
  const resend = write(p1, mtu1, psnAdd(q1.expPsn, 1), m1, rng.int(0, 3000), rng.int(8, 512))[0]!;
  const bad = encodeRoce(resend.p);
  bad[bad.length - 10]! ^= 0x40;
  frames.push({ data: bad, verdict: 'bad-icrc', what: 'QP 1 WRITE ONLY, ICRC corrupted' });
  // QPs the scenario does not have: index 3 (RESET) and a QPN outside the NIC's range.
  for (const qpn of [0x103, 0x777]) {
    const [x] = write(pathTo(s, qpn, '02:00:00:00:00:0a', '10.0.0.1'), mtu0, 5, m0, 0, 16);
    frames.push({ data: encodeRoce(x!.p), verdict: 'unknown-qp', what: `WRITE ONLY to QPN 0x${qpn.toString(16)}` });
  }
  // QP 0: a PSN gap (NAK 0x60 with the expected PSN), the gap again (silent), a duplicate
  // of the LAST packet with other bytes (re-ACK of exp-1, memory unchanged), the missing PSN.
  const exp0 = model.exp.get(q0.index)!;
  for (const [ahead, verdict] of [[2, 'psn-sequence'], [3, 'psn-gap']] as const) {
    const [x] = write(p0, mtu0, psnAdd(exp0, ahead), m0, rng.int(0, 5000), 64);
    const reply = verdict === 'psn-sequence' ? { syndrome: Syndrome.NAK_PSN_SEQUENCE, psn: exp0, msn: model.msn.get(q0.index)! } : undefined;
    frames.push({ data: encodeRoce(x!.p), verdict, qp: q0.index, what: `QP 0 WRITE ONLY ${ahead} PSNs ahead`, ...(reply ? { reply } : {}) });
  }
  const [dup] = write(p0, mtu0, psnAdd(exp0, -1), m0, off0, 100);
  frames.push({ data: encodeRoce(dup!.p), verdict: 'duplicate', qp: q0.index, what: 'QP 0 duplicate of the last PSN', reply: { syndrome: Syndrome.ACK, psn: psnAdd(exp0, -1), msn: model.msn.get(q0.index)! } });
  accept(q0.index, write(p0, mtu0, exp0, m0, rng.int(0, 5000), rng.int(1, 256))[0]!, m0.index, 'QP 0 WRITE ONLY closing the gap');
  // QP 1: the corrupted WRITE resent intact (its PSN wraps the expected PSN to 0), then FIRST/LAST.
  accept(q1.index, resend, m1.index, 'QP 1 WRITE ONLY resent');
  for (const x of write(p1, mtu1, psnAdd(q1.expPsn, 2), m1, rng.int(0, 3000), rng.int(513, 1024))) accept(q1.index, x, m1.index, 'QP 1 WRITE FIRST/LAST');
  return { frames, mrs: model.mrs };
}
