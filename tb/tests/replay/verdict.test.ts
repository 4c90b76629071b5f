// The verdict rules on their own, with made-up NIC observations: the cases the nic_top
// replay test cannot produce today (READ REQUEST answered with READ RESPONSEs, remote access
// NAKs, a QP in ERROR, frames the RX parser drops) and the notes printed when the TS model
// and the NIC disagree about a frame.

import { describe, expect, it } from 'vitest';
import { QP_STATE } from '../../../gen/nic/regmap.ts';
import { Syndrome } from '../../model/opcodes.ts';
import { encodeRoce, type RocePacket } from '../../model/packet.ts';
import { psnAdd } from '../../model/psn.ts';
import { ackPacket, readRequest, segmentReadResponse, segmentWrite, type RocePath } from '../../model/segment.ts';
import type { Counters, FeedResult } from '../../replay/feeder.ts';
import { describeReply } from '../../replay/report.ts';
import { judge, type QpView } from '../../replay/verdict.ts';
import { testRng } from '../seed.ts';

const PATH: RocePath = {
  eth: { dst: 0x02000000000b, src: 0x02000000000a },
  ip: { dscp: 0, ecn: 0, id: 0, df: true, ttl: 64, src: 0x0a000001, dst: 0x0a000002 },
  udp: { srcPort: 0xc011 },
  destQp: 0x100,
};
const BACK: RocePath = { ...PATH, eth: { dst: PATH.eth.src, src: PATH.eth.dst }, ip: { ...PATH.ip, src: PATH.ip.dst, dst: PATH.ip.src }, destQp: 0x11 };

function observed(delta: Partial<Counters>, replies: readonly RocePacket[] = [], accounted = true): { r: FeedResult; replies: readonly RocePacket[] } {
  const r: FeedResult = {
    delta: { dropIcrc: 0, dropOther: 0, rxFrames: 1, txFrames: replies.length, ...delta },
    replies: replies.map(p => ({ data: encodeRoce(p), cycle: 0 })), start: 0, end: 100, accounted,
  };
  return { r, replies };
}

/** Random expected PSN and frame builders for one test (call inside it: the seed is printed on failure). */
function setup(label: string) {
  const rng = testRng(`replay verdicts: ${label}`);
  const exp = rng.int(0, 0xffffff);
  const qp = (state: number = QP_STATE.RTS): QpView => ({ index: 0, before: { state, expPsn: exp } });
  const write = (psn: number): Uint8Array => encodeRoce(segmentWrite({ path: PATH, payload: rng.bytes(rng.int(1, 256)), mtu: 256, startPsn: psn, va: 0x1000n, rkey: 0x105 })[0]!);
  const read = (len: number): RocePacket => readRequest({ path: PATH, psn: exp, va: 0x1000n, rkey: 0x105, dmaLen: len });
  return { rng, exp, qp, write, read };
}

describe('replay verdicts', () => {

  it('a READ REQUEST answered with READ RESPONSEs is accepted, and the replies are listed', () => {
    const { rng, exp, qp, read } = setup('READ answered');
    const len = rng.int(257, 1024);
    const resp = segmentReadResponse({ path: BACK, payload: rng.bytes(len), mtu: 256, requestPsn: exp, msn: 1 });
    const o = observed({}, resp);
    const v = judge(encodeRoce(read(len)), o.r, o.replies, qp());
    expect(v).toEqual({ accepted: true, detail: 'executed' });
    const names = o.r.replies.map((f, i) => describeReply({ ...f, pkt: resp[i]! }));
    expect(names[0]).toBe(`RDMA_READ_RESPONSE_FIRST psn 0x${exp.toString(16).padStart(6, '0')} 256 B`);
    expect(names.at(-1)).toMatch(/^RDMA_READ_RESPONSE_LAST psn 0x[0-9a-f]{6} \d+ B$/);
  });

  it('a READ REQUEST answered with NAK 0x61 (no READ support) is an invalid request', () => {
    const { exp, qp, read } = setup('READ NAK 0x61');
    const o = observed({}, [ackPacket({ path: BACK, psn: exp, msn: 0, syndrome: Syndrome.NAK_INVALID_REQUEST })]);
    const v = judge(encodeRoce(read(64)), o.r, o.replies, qp());
    expect(v.reason).toBe('invalid-request');
    expect(v.detail).toBe(`NAK 0x61 for PSN 0x${exp.toString(16).padStart(6, '0')}`);
  });

  it('a NAK 0x62 is a remote access error, an RNR NAK is RNR', () => {
    const { exp, qp, write } = setup('NAKs');
    for (const [syndrome, reason] of [[Syndrome.NAK_REMOTE_ACCESS, 'remote-access'], [Syndrome.RNR_NAK | 5, 'rnr'], [Syndrome.NAK_REMOTE_OPERATIONAL, 'remote-operational']] as const) {
      const o = observed({}, [ackPacket({ path: BACK, psn: exp, msn: 0, syndrome })]);
      expect(judge(write(exp), o.r, o.replies, qp()).reason).toBe(reason);
    }
  });

  it('a frame for a QP in ERROR or INIT is "QP not ready", whatever its PSN', () => {
    const { rng, exp, qp, write } = setup('QP not ready');
    for (const [state, name] of [[QP_STATE.ERROR, 'ERROR'], [QP_STATE.INIT, 'INIT']] as const) {
      const o = observed({ dropOther: 1 });
      const v = judge(write(psnAdd(exp, rng.int(-5, 5))), o.r, o.replies, qp(state));
      expect(v).toEqual({ accepted: false, reason: 'qp-not-ready', detail: `QP 0 is in ${name}, not RTR/RTS` });
    }
  });

  it('a frame the RX parser drops is malformed, with the model\'s reason', () => {
    const { exp, qp, write } = setup('parser drop');
    const f = write(exp);
    f[14 + 10]! ^= 0x01; // IPv4 header checksum
    const o = observed({ dropOther: 1, rxFrames: 0 });
    const v = judge(f, o.r, o.replies, qp());
    expect(v.reason).toBe('malformed');
    expect(v.detail).toMatch(/^bad-ip-checksum: IPv4 checksum 0x[0-9a-f]+, expected 0x[0-9a-f]+$/);
    expect(v.note).toBeUndefined();
  });

  it('notes every disagreement between the NIC and the model', () => {
    const { exp, qp, write } = setup('disagreements');
    const good = write(exp);
    const icrc = observed({ dropIcrc: 1, rxFrames: 0 });
    expect(judge(good, icrc.r, icrc.replies, qp())).toEqual({ accepted: false, reason: 'bad-icrc', detail: 'RX_DROP_ICRC counted', note: 'TS model: ICRC is good' });
    const parser = observed({ dropOther: 1, rxFrames: 0 });
    expect(judge(good, parser.r, parser.replies, qp()).note).toBe('TS model: the frame decodes as valid RoCEv2');
    const bad = write(exp);
    bad[bad.length - 1]! ^= 0x80;
    const took = observed({});
    const v = judge(bad, took.r, took.replies, qp());
    expect(v.accepted).toBe(true);
    expect(v.note).toMatch(/^TS model rejects it: bad-icrc \(ICRC 0x[0-9a-f]{8} carried, 0x[0-9a-f]{8} computed\), the NIC took it$/);
  });

  it('an ACK for the requester is accepted; a frame that moved no counter had no effect', () => {
    const { exp, qp, write } = setup('ACK and no effect');
    const ack = observed({});
    expect(judge(encodeRoce(ackPacket({ path: PATH, psn: exp, msn: 3 })), ack.r, ack.replies, qp()))
      .toEqual({ accepted: true, detail: 'ACK/NAK handed to the requester' });
    const lost = observed({ rxFrames: 0 }, [], false);
    expect(judge(write(exp), lost.r, lost.replies, qp()).reason).toBe('no-effect');
  });
});
