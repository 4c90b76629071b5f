// One more in-sequence READ REQUEST than the responder holds per QP (READ_LIMIT_PER_QP + 1) for
// QP 0 of tb/replay/examples/read-limit.json, made by the TS packet model (multi-packet: 4..16 responses at PMTU 256, so each READ holds its responder
// slot for hundreds of cycles), one more one-packet READ at the PSN after them, and what the NIC must send
// for each: its READ RESPONSE packets with the MR's bytes.

import { parseMac } from '../../model/headers.ts';
import { encodeRoce, type RocePacket } from '../../model/packet.ts';
import { psnAdd } from '../../model/psn.ts';
import { readRequest, readRequestPsns, segmentReadResponse, type RocePath } from '../../model/segment.ts';
import type { Rng } from '../../core/rng.ts';
import { READ_LIMIT_PER_QP } from '../../../gen/nic/nic-top-build.ts';
import { materialize } from '../../replay/contents.ts';
import type { Scenario } from '../../replay/scenario.ts';

/** READs in a burst: one over nic_top's READ limit per QP, so the last of them is NAKed 0x61. */
export const READS = READ_LIMIT_PER_QP + 1;

export interface ReadSpec { readonly psn: number; readonly offset: number; readonly len: number }

export interface ReadFrames {
  readonly reads: readonly ReadSpec[];
  /** The READS READ REQUEST frames. */
  readonly frames: readonly Uint8Array[];
  /** A one-packet READ at the PSN after them. */
  readonly next: Uint8Array;
  /** The responses a correct responder sends for READ i (0-based; MSN = i + 1). */
  readonly responses: (i: number) => RocePacket[];
}

export function readFrames(scenario: Scenario, rng: Rng): ReadFrames {
  const q = scenario.qps[0]!, mr = scenario.mrs[0]!;
  const mtu = 2 ** q.pmtuLog2;
  const mrBytes = materialize(mr.init, mr.length);
  const peer: RocePath = {
    eth: { dst: Number(scenario.nic.mac), src: parseMac('02:00:00:00:00:0a') },
    ip: { dscp: 26, ecn: 0, id: 0, df: true, ttl: 64, src: q.destIp, dst: scenario.nic.ip },
    udp: { srcPort: 0xc011 }, destQp: q.qpn,
  };
  const reads: ReadSpec[] = [];
  let psn = q.expPsn;
  for (let i = 0; i < READS; i++) {
    const len = rng.int(3 * mtu + 1, 16 * mtu), offset = rng.int(0, mr.length - len);
    reads.push({ psn, offset, len });
    psn = psnAdd(psn, readRequestPsns(len, mtu));
  }
  const request = (r: ReadSpec): Uint8Array => encodeRoce(readRequest({ path: peer, psn: r.psn, va: mr.va + BigInt(r.offset), rkey: mr.key, dmaLen: r.len }));
  return {
    reads,
    frames: reads.map(request),
    next: request({ psn, offset: 0, len: 8 }),
    responses: i => segmentReadResponse({
      path: { ...peer, destQp: q.destQpn }, payload: mrBytes.subarray(reads[i]!.offset, reads[i]!.offset + reads[i]!.len), mtu, requestPsn: reads[i]!.psn, msn: i + 1,
    }),
  };
}
