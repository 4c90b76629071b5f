// Stimulus for the nic_responder tests: per-QP WRITE traffic cut by tb/model/segment.ts, with
// duplicates, losses (go-back-N resends), one optional fatal error per QP, and stray packets
// (unknown QPs, QPs not ready, ACKs for the tracker, READ responses for the requester),
// interleaved across QPs; READ REQUESTs mixed in (pRead), with their own fatal cases.

import { LOCAL_QPN_BASE } from '../../../gen/nic/flow-types.ts';
import { QP_STATE } from '../../../gen/nic/regmap.ts';
import { XLATE_ACCESS } from '../../../gen/nic/types.ts';
import type { Rng } from '../../core/index.ts';
import { Opcode } from '../../model/opcodes.ts';
import type { RocePacket } from '../../model/packet.ts';
import { psnAdd } from '../../model/psn.ts';
import { segmentWrite, type RocePath } from '../../model/segment.ts';
import { readPackets, type Mr, type QpState, type RxHdr, type RxPkt } from './responder-model.ts';

export interface QpSetup extends QpState {
  destQpn: number; destMac: bigint; destIp: number; udpSport: number;
  /** MRs this QP's peer may write (REMOTE_WRITE, this PD). */
  good: Mr[];
}
export interface World { qps: QpSetup[]; mrs: Mr[] }

export type Fatal = 'rkey' | 'pd' | 'access' | 'bounds' | 'seq' | 'len' | 'opcode' | 'rdpay' | 'rdnoreth' | 'rdseq';
export const FATALS: readonly Fatal[] = ['rkey', 'pd', 'access', 'bounds', 'seq', 'len', 'opcode', 'rdpay', 'rdnoreth', 'rdseq'];

const MR_BYTES = 0x2_0000n;

/** QPs 0..active-1 receive; the rest sit in RESET or INIT. MRs: two good ones per QP, one in
 *  another PD and one without remote write (for the error cases). */
export function makeWorld(rng: Rng, numQp: number, active: number): World {
  const mrs: Mr[] = [];
  let mrIdx = 1;
  const mr = (pd: number, access: number): Mr => {
    const m: Mr = { key: ((mrIdx++ << 8) | rng.int(0, 255)) >>> 0, pd, va: BigInt(rng.int(1, 0xffff)) << 20n, len: MR_BYTES, access };
    mrs.push(m);
    return m;
  };
  const qps: QpSetup[] = [];
  for (let q = 0; q < numQp; q++) {
    const pd = rng.int(1, 0xfffe);
    const good = [mr(pd, XLATE_ACCESS.REMOTE_WRITE | XLATE_ACCESS.LOCAL_WRITE), mr(pd, XLATE_ACCESS.REMOTE_WRITE)];
    mr(pd + 1, XLATE_ACCESS.REMOTE_WRITE);
    mr(pd, XLATE_ACCESS.REMOTE_READ | XLATE_ACCESS.LOCAL_WRITE);
    qps.push({
      state: q < active ? rng.pick([QP_STATE.RTR, QP_STATE.RTS]) : rng.pick([QP_STATE.RESET, QP_STATE.INIT, QP_STATE.ERROR]),
      // PSNs and MSNs start near the 2^24 wrap so both wrap during the test.
      expPsn: rng.bool(0.7) ? 0xff_ffff - rng.int(0, 40) : rng.int(0, 0xff_ffff),
      msn: rng.bool(0.5) ? 0xff_ffff - rng.int(0, 3) : rng.int(0, 0xff_ffff),
      pmtu: rng.int(8, 12), pd, rdRoom: true,
      destQpn: rng.int(0, 0xff_ffff), destMac: rng.bigint(48), destIp: rng.u32(), udpSport: rng.int(0xc000, 0xffff),
      good,
    });
  }
  return { qps, mrs };
}

const path = (q: number): RocePath => ({
  eth: { dst: 0, src: 0 }, ip: { dscp: 0, ecn: 0, id: 0, df: true, ttl: 64, src: 0, dst: 0 }, udp: { srcPort: 0xc000 }, destQp: LOCAL_QPN_BASE + q,
});

export function toRx(p: RocePacket, what: string): RxPkt {
  return {
    what,
    payload: p.payload,
    hdr: {
      opcode: p.bth.opcode, destQpn: p.bth.destQp, psn: p.bth.psn, ackReq: p.bth.ackReq ? 1 : 0, payloadLen: p.payload.length,
      hasReth: p.reth ? 1 : 0, rethVa: p.reth?.va ?? 0n, rethRkey: p.reth?.rkey ?? 0, rethLen: p.reth?.dmaLen ?? 0,
      hasAeth: p.aeth ? 1 : 0, aethSyndrome: p.aeth?.syndrome ?? 0, aethMsn: p.aeth?.msn ?? 0,
      srcMac: 0x02_0000_0000_99n, srcIp: 0x0a00_0002, srcPort: 0xc123,
    },
  };
}

export interface TrafficOpts { messages: number; maxLen: number; pDup: number; pLoss: number; fatal?: Fatal; pRead?: number }

/** A READ REQUEST for `len` bytes at `psn` on QP q (the responder does not check the rkey). */
export function readRequest(rng: Rng, q: number, psn: number, len: number, what: string): RxPkt {
  return {
    what, payload: new Uint8Array(0),
    hdr: {
      opcode: Opcode.RDMA_READ_REQUEST, destQpn: LOCAL_QPN_BASE + q, psn, ackReq: rng.int(0, 1), payloadLen: 0,
      hasReth: 1, rethVa: rng.bigint(64), rethRkey: rng.u32(), rethLen: len,
      hasAeth: 0, aethSyndrome: 0, aethMsn: 0, srcMac: 0x02_0000_0000_99n, srcIp: 0x0a00_0002, srcPort: 0xc123,
    },
  };
}

/** Message lengths 0..maxLen: mostly around the MTU (edges included), sometimes long. */
function msgLen(rng: Rng, mtu: number, maxLen: number): number {
  const r = rng.float();
  if (r < 0.15) return rng.pick([0, 1, mtu - 1, mtu, mtu + 1, 2 * mtu].filter(x => x <= maxLen));
  if (r < 0.75) return rng.int(0, Math.min(maxLen, 3 * mtu));
  return rng.int(0, maxLen);
}

/** One QP's packets in send order (with duplicates and go-back-N resends). */
export function qpTraffic(rng: Rng, q: number, s: QpSetup, world: World, o: TrafficOpts): RxPkt[] {
  const mtu = 1 << s.pmtu;
  const clean: RxPkt[] = [];
  let psn = s.expPsn;
  const fatalAt = o.fatal ? rng.int(0, o.messages - 1) : -1;
  for (let i = 0; i < o.messages; i++) {
    const f = i === fatalAt ? o.fatal : undefined;
    let len = msgLen(rng, mtu, o.maxLen);
    if (f === 'rdpay' || f === 'rdnoreth' || (!f && rng.bool(o.pRead ?? 0))) {
      const rd = readRequest(rng, q, psn, len, `qp${q} msg${i}${f ? `(${f})` : ''} READ len ${len} psn 0x${psn.toString(16)}`);
      if (f === 'rdpay') { rd.payload = rng.bytes(rng.int(1, 16)); rd.hdr.payloadLen = rd.payload.length; }
      if (f === 'rdnoreth') rd.hdr.hasReth = 0;
      clean.push(rd);
      psn = psnAdd(psn, readPackets(len, s.pmtu));
      continue;
    }
    if (f === 'rdseq') len = Math.max(len, 2 * mtu + 1);
    if (f === 'seq' || f === 'len') len = Math.max(len, 2 * mtu + 1);
    let mr = rng.pick(s.good);
    if (f === 'pd') mr = world.mrs.find(m => m.pd === s.pd + 1)!;
    if (f === 'access') mr = world.mrs.find(m => m.pd === s.pd && (m.access & XLATE_ACCESS.REMOTE_WRITE) === 0)!;
    if (f === 'access' || f === 'pd' || f === 'rkey') len = Math.max(len, 1);
    let va = mr.va + BigInt(rng.int(0, Number(mr.len) - len));
    if (f === 'bounds') { len = Math.max(len, 2); va = mr.va + mr.len - BigInt(len) + BigInt(rng.int(1, len - 1)); }
    const rkey = f === 'rkey' ? (mr.key ^ (1 << rng.int(0, 7))) >>> 0 : mr.key;
    const pkts = segmentWrite({ path: path(q), payload: rng.bytes(len), mtu, startPsn: psn, va, rkey, ackReqEvery: rng.int(1, 64) });
    const what = (k: number) => `qp${q} msg${i}${f ? `(${f})` : ''} pkt ${k + 1}/${pkts.length} psn 0x${pkts[k]!.bth.psn.toString(16)}`;
    const rx = pkts.map((p, k) => toRx(p, what(k)));
    if (f === 'seq') rx[0]!.hdr.opcode = Opcode.RDMA_WRITE_MIDDLE;
    if (f === 'len') {
      const k = rng.int(0, rx.length - 1);
      const h = rx[k]!.hdr;
      if (k === rx.length - 1) rx[0]!.hdr.rethLen += rng.pick([-1, 1]);
      else { h.payloadLen -= 1; rx[k]!.payload = rx[k]!.payload.subarray(0, h.payloadLen); }
    }
    if (f === 'rdseq') {
      // A READ at the expected PSN inside this WRITE message: NAK 0x61.
      rx.splice(1, 0, readRequest(rng, q, rx[1]!.hdr.psn, rng.int(0, 4096), `qp${q} msg${i}(rdseq) READ inside a WRITE`));
    }
    if (f === 'opcode') {
      const send = toRx(segmentWrite({ path: path(q), payload: rng.bytes(rng.int(0, 8)), mtu, startPsn: psn, va: 0n, rkey: 0 })[0]!, `qp${q} msg${i}(opcode) SEND`);
      send.hdr.opcode = rng.pick([Opcode.SEND_ONLY, Opcode.RDMA_READ_REQUEST, Opcode.RDMA_WRITE_ONLY_IMM]);
      send.hdr.hasReth = 0;
      clean.push(send);
      psn = psnAdd(psn, 1);
      continue;
    }
    clean.push(...rx);
    psn = psnAdd(psn, pkts.length);
  }
  // Faults of the network: a duplicate of a recent packet, or a loss followed by go-back-N.
  const out: RxPkt[] = [];
  for (let i = 0; i < clean.length; i++) {
    if (rng.bool(o.pLoss) && i + 1 < clean.length) {
      const k = rng.int(1, Math.min(3, clean.length - 1 - i));
      out.push(...clean.slice(i + 1, i + 1 + k));
    }
    out.push(clean[i]!);
    if (rng.bool(o.pDup)) out.push(clean[rng.int(Math.max(0, i - 4), i)]!);
  }
  return out;
}

/** Stray packets: unknown QPNs, QPs not ready, ACKs for the tracker, READ responses. */
export function strayPacket(rng: Rng, numQp: number, active: number): RxPkt {
  const r = rng.float();
  const hdr: RxHdr = {
    opcode: Opcode.RDMA_WRITE_ONLY, destQpn: 0, psn: rng.int(0, 0xff_ffff), ackReq: 1, payloadLen: 0,
    hasReth: 1, rethVa: 0n, rethRkey: 0, rethLen: 0, hasAeth: 0, aethSyndrome: 0, aethMsn: 0, srcMac: 1n, srcIp: 1, srcPort: 0xc000,
  };
  let payload: Uint8Array = new Uint8Array(0);
  let what: string;
  if (r < 0.35 && active > 0) {
    hdr.opcode = Opcode.ACKNOWLEDGE; hdr.hasReth = 0; hdr.hasAeth = 1;
    hdr.destQpn = LOCAL_QPN_BASE + rng.int(0, numQp - 1);
    hdr.aethSyndrome = rng.pick([0x1f, 0x60, 0x61, 0x62, 0x20 | rng.int(0, 31)]);
    hdr.aethMsn = rng.int(0, 0xff_ffff);
    what = `ACK to qpn 0x${hdr.destQpn.toString(16)}`;
  } else {
    payload = rng.bytes(rng.int(0, 300));
    hdr.payloadLen = payload.length;
    hdr.rethLen = payload.length;
    const idle = active < numQp ? [LOCAL_QPN_BASE + rng.int(active, numQp - 1)] : [];
    hdr.destQpn = rng.pick([rng.int(0, LOCAL_QPN_BASE - 1), LOCAL_QPN_BASE + numQp + rng.int(0, 50), rng.int(0, 0xff_ffff), ...idle]);
    if (rng.bool(0.4)) {
      // A READ response for the requester side (forwarded when the QP is in RTS).
      hdr.opcode = rng.int(Opcode.RDMA_READ_RESPONSE_FIRST, Opcode.RDMA_READ_RESPONSE_ONLY);
      hdr.hasReth = 0; hdr.rethLen = 0; hdr.ackReq = 0;
      hdr.hasAeth = hdr.opcode === Opcode.RDMA_READ_RESPONSE_MIDDLE ? 0 : 1;
      hdr.aethSyndrome = hdr.hasAeth ? 0x1f : 0; hdr.aethMsn = hdr.hasAeth ? rng.int(0, 0xff_ffff) : 0;
      hdr.destQpn = LOCAL_QPN_BASE + rng.int(0, numQp - 1);
    }
    what = `stray opcode 0x${hdr.opcode.toString(16)} to qpn 0x${hdr.destQpn.toString(16)}`;
  }
  return { hdr, payload, what };
}

/** Merge per-QP streams in random order (each stream's order kept), strays sprinkled in. */
export function interleave(rng: Rng, streams: RxPkt[][], strays: () => RxPkt, pStray: number): RxPkt[] {
  const idx = streams.map(() => 0);
  const out: RxPkt[] = [];
  for (;;) {
    const live = streams.map((_s, i) => i).filter(i => idx[i]! < streams[i]!.length);
    if (live.length === 0) return out;
    if (rng.bool(pStray)) out.push(strays());
    const i = rng.pick(live);
    // Runs of a few packets per QP, like bursts on a real link.
    const run = rng.int(1, 6);
    for (let k = 0; k < run && idx[i]! < streams[i]!.length; k++) out.push(streams[i]![idx[i]!++]!);
  }
}
