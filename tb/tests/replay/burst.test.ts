// Burst judging on its own (tb/replay/burst.ts), with frames and replies made by the TS packet
// model and made-up NIC observations: which frame each transmitted frame is matched to (READ
// responses by PSN range, ACKs by PSN, a NAK 0x60 by the expected PSN it carries), the verdicts
// as earlier frames of the burst leave the QP, and the notes when the NIC's counters or QP
// registers after the burst disagree with those verdicts.

import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { QP_STATE } from '../../../gen/nic/regmap.ts';
import { Syndrome } from '../../model/opcodes.ts';
import { encodeRoce, type RocePacket } from '../../model/packet.ts';
import { psnAdd } from '../../model/psn.ts';
import { ackPacket, readRequest, readRequestPsns, segmentReadResponse, segmentWrite, type RocePath } from '../../model/segment.ts';
import { attributeReplies, burstDisagreements, judgeBurst, type BurstFrame } from '../../replay/burst.ts';
import type { FeedResult, QpSnapshot } from '../../replay/feeder.ts';
import { loadScenario } from '../../replay/scenario.ts';
import { qpIndexOf, type QpView } from '../../replay/verdict.ts';
import { testRng } from '../seed.ts';

const scenario = loadScenario(path.resolve(import.meta.dirname, '../../replay/examples/write-two-qps.json'));
const [Q0, Q1] = [scenario.qps[0]!, scenario.qps[1]!];

const toNic = (qpn: number): RocePath => ({
  eth: { dst: 0x02000000000b, src: 0x02000000000a }, ip: { dscp: 0, ecn: 0, id: 0, df: true, ttl: 64, src: 0x0a000001, dst: 0x0a000002 },
  udp: { srcPort: 0xc011 }, destQp: qpn,
});
const toPeer = (destQpn: number): RocePath => ({
  eth: { dst: 0x02000000000a, src: 0x02000000000b }, ip: { dscp: 0, ecn: 0, id: 0, df: true, ttl: 64, src: 0x0a000002, dst: 0x0a000001 },
  udp: { srcPort: 0xc100 }, destQp: destQpn,
});

const frame = (p: RocePacket): BurstFrame => { const data = encodeRoce(p); return { data, pkt: p }; };
const reply = (p: RocePacket): { pkt: RocePacket } => ({ pkt: p });
const feed = (rxFrames: number, accounted = true): FeedResult => ({ delta: { dropIcrc: 0, dropOther: 0, rxFrames, txFrames: 0 }, replies: [], start: 0, end: 1, accounted });

/** A burst on two QPs: QP 0 a WRITE in sequence, one 2 ahead (NAK 0x60), one 3 ahead (gap),
 *  a duplicate; QP 1 a READ. Replies in an interleaved transmit order. */
function mixedBurst(label: string) {
  const rng = testRng(`burst: ${label}`);
  const e0 = rng.int(0, 0xffffff), e1 = rng.int(0, 0xffffff);
  const write = (psn: number): RocePacket => segmentWrite({ path: toNic(Q0.qpn), payload: rng.bytes(rng.int(1, 200)), mtu: 256, startPsn: psn, va: 0x7f0000001100n, rkey: 0x105 })[0]!;
  const len = rng.int(513, 2048);
  const read = readRequest({ path: toNic(Q1.qpn), psn: e1, va: 0x7f0000100000n, rkey: 0x233, dmaLen: len });
  const frames = [frame(write(e0)), frame(read), frame(write(psnAdd(e0, 3))), frame(write(psnAdd(e0, 4))), frame(write(e0))];
  const ack = ackPacket({ path: toPeer(Q0.destQpn), psn: e0, msn: 1 });
  const nak = ackPacket({ path: toPeer(Q0.destQpn), psn: psnAdd(e0, 1), msn: 1, syndrome: Syndrome.NAK_PSN_SEQUENCE });
  const resp = segmentReadResponse({ path: toPeer(Q1.destQpn), payload: rng.bytes(len), mtu: 512, requestPsn: e1, msn: 1 });
  const reAck = ackPacket({ path: toPeer(Q0.destQpn), psn: e0, msn: 1 });
  const replies = [ack, resp[0]!, nak, ...resp.slice(1), reAck].map(reply);
  const views = new Map<number, QpSnapshot>([[0, { state: QP_STATE.RTS, expPsn: e0 }], [1, { state: QP_STATE.RTS, expPsn: e1 }]]);
  const viewOf = (p: RocePacket | undefined): QpView | undefined => {
    const i = p ? qpIndexOf(p.bth.destQp, scenario.nic.numQp) : undefined;
    return i !== undefined && views.has(i) ? { index: i, before: views.get(i)! } : undefined;
  };
  return { e0, e1, len, frames, replies, resp, viewOf };
}

describe('replay bursts', () => {
  it('matches each transmitted frame to the frame that drew it', () => {
    const b = mixedBurst('attribution');
    const { perFrame, unmatched } = attributeReplies(b.frames, b.replies, scenario.qps, scenario.nic.numQp);
    const shape = perFrame.map(list => list.map(r => `${r.pkt.bth.opcode}/${r.pkt.aeth?.syndrome ?? '-'}/${r.pkt.bth.psn}`));
    expect(shape).toEqual([
      [`17/31/${b.e0}`],
      b.resp.map(p => `${p.bth.opcode}/${p.aeth?.syndrome ?? '-'}/${p.bth.psn}`),
      [`17/96/${psnAdd(b.e0, 1)}`],
      [],
      [`17/31/${b.e0}`],
    ]);
    expect(unmatched).toEqual([]);
  });

  it('judges each frame as the earlier frames of the burst left its QP', () => {
    const b = mixedBurst('verdicts');
    const { perFrame } = attributeReplies(b.frames, b.replies, scenario.qps, scenario.nic.numQp);
    const j = judgeBurst(b.frames, perFrame, feed(5), b.viewOf, scenario.qps);
    expect(j.verdicts.map(v => (v.accepted ? 'accepted' : v.reason))).toEqual(['accepted', 'accepted', 'psn-sequence', 'psn-gap', 'duplicate']);
    expect(j.qps.get(0)).toEqual({ state: QP_STATE.RTS, expPsn: psnAdd(b.e0, 1) });
    expect(j.qps.get(1)).toEqual({ state: QP_STATE.RTS, expPsn: psnAdd(b.e1, readRequestPsns(b.len, 2 ** Q1.pmtuLog2)) });
    expect(burstDisagreements(b.frames, feed(5), j, j.qps, 0)).toEqual([]);
  });

  it('a NAK 0x61 moves the QP to ERROR for the rest of the burst', () => {
    const rng = testRng('burst: fatal NAK');
    const e = rng.int(0, 0xffffff);
    const reads = [0, 1, 2].map(k => readRequest({ path: toNic(Q0.qpn), psn: psnAdd(e, k), va: 0x7f0000001100n, rkey: 0x105, dmaLen: 8 }));
    const frames = reads.map(frame);
    const replies = [
      ...segmentReadResponse({ path: toPeer(Q0.destQpn), payload: rng.bytes(8), mtu: 256, requestPsn: e, msn: 1 }),
      ackPacket({ path: toPeer(Q0.destQpn), psn: psnAdd(e, 1), msn: 1, syndrome: Syndrome.NAK_INVALID_REQUEST }),
    ].map(reply);
    const viewOf = (p: RocePacket | undefined): QpView | undefined => (p ? { index: 0, before: { state: QP_STATE.RTS, expPsn: e } } : undefined);
    const { perFrame } = attributeReplies(frames, replies, scenario.qps, scenario.nic.numQp);
    const j = judgeBurst(frames, perFrame, feed(3), viewOf, scenario.qps);
    expect(j.verdicts.map(v => (v.accepted ? 'accepted' : v.reason))).toEqual(['accepted', 'invalid-request', 'qp-not-ready']);
    expect(j.qps.get(0)!.state).toBe(QP_STATE.ERROR);
  });

  it('notes where the NIC\'s counters, QP registers or transmitted frames disagree with the verdicts', () => {
    const b = mixedBurst('disagreement');
    const stray = reply(ackPacket({ path: toPeer(Q0.destQpn), psn: psnAdd(b.e0, 100), msn: 9 }));
    const { perFrame, unmatched } = attributeReplies(b.frames, [...b.replies, stray], scenario.qps, scenario.nic.numQp);
    expect(unmatched).toEqual([stray]);
    const j = judgeBurst(b.frames, perFrame, feed(4, false), b.viewOf, scenario.qps);
    const after = new Map(j.qps);
    after.set(0, { state: QP_STATE.ERROR, expPsn: j.qps.get(0)!.expPsn });
    expect(burstDisagreements(b.frames, feed(4, false), j, after, unmatched.length)).toEqual([
      'the counters did not count every frame of the burst before the time budget ran out',
      'RX_FRAMES moved 4 for the burst, the TS model expects 5',
      `QP 0 after the burst: STATE 4 EXP_PSN 0x${psnAdd(b.e0, 1).toString(16)}, the verdicts imply STATE 3 EXP_PSN 0x${psnAdd(b.e0, 1).toString(16)}`,
      '1 transmitted frames match no frame of the burst (listed on its last row)',
    ]);
  });
});
