// The NIC collector's mapping, on frames made by the packet model (tb/model/segment.ts) and on
// completions as the scoreboard hands them over: wire opcodes, pad counts, NAK kinds, the PSN
// wrap, retransmissions (resent WRITE packets and READ REQUESTs, partial READ re-requests), and size class / MTU / SGEs / alignment / flags / status of checked completions.

import { describe, expect, it } from 'vitest';
import { CQE_STATUS, WQE_OPCODE } from '../../../gen/nic/regmap.ts';
import { FunctionalCoverage, type FunctionalData } from '../../../coverage/functional.ts';
import { NicCoverage } from '../../coverage/nic-collector.ts';
import type { SgeRef, WorkRequest } from '../../model/driver.ts';
import type { MemoryRegion } from '../../model/mr.ts';
import { encodeRoce } from '../../model/packet.ts';
import { ackPacket, readRequest, segmentReadResponse, segmentWrite, type RocePath } from '../../model/segment.ts';
import type { ExpectedCompletion } from '../../model/scoreboard.ts';

const path: RocePath = {
  eth: { src: 0x02_00_00_00_00_0a, dst: 0x02_00_00_00_00_0b }, udp: { srcPort: 0xc001 }, destQp: 0x101,
  ip: { dscp: 26, ecn: 0, id: 0, df: true, ttl: 64, src: 0x0a000001, dst: 0x0a000002 },
};

/** Non-zero bins of group `name` as id → count. */
function hits(d: FunctionalData, name: string): Record<string, number> {
  const g = d.groups.find(x => x.name === name);
  if (!g) throw new Error(`no group ${name}`);
  return Object.fromEntries(g.bins.filter(b => b.count > 0).map(b => [b.id, b.count]));
}

const mr = (va: bigint): MemoryRegion => ({ va } as unknown as MemoryRegion);
function completion(opcode: number, length: number, sges: SgeRef[], remoteVa: bigint, o: Partial<ExpectedCompletion> = {}, fence = false): ExpectedCompletion {
  const wr: WorkRequest = { opcode, wrId: 1n, signaled: true, sges, remoteVa, rkey: 1, ...(fence ? { fence } : {}) };
  return { wr, status: CQE_STATUS.SUCCESS, length, seq: 1, checks: [], ...o };
}

describe('NIC functional coverage collector', () => {
  it('counts each frame by RC opcode, pad of message ends, ACK/NAK kind and the PSN wrap', () => {
    const cov = new FunctionalCoverage();
    const c = new NicCoverage(cov, () => 8);
    // 3 packets at MTU 256 starting at PSN 0xfffffe: FIRST, MIDDLE (PSN 0xffffff), LAST (PSN 0, pad 3).
    for (const p of segmentWrite({ path, payload: new Uint8Array(2 * 256 + 1), mtu: 256, startPsn: 0xfffffe, va: 0x1000n, rkey: 5 })) c.frame('a->b', encodeRoce(p));
    c.frame('a->b', encodeRoce(readRequest({ path, psn: 1, va: 0x2000n, rkey: 5, dmaLen: 10 })));
    for (const p of segmentReadResponse({ path, payload: new Uint8Array(10), mtu: 256, requestPsn: 1, msn: 1 })) c.frame('b->a', encodeRoce(p));
    c.frame('b->a', encodeRoce(ackPacket({ path, psn: 0, msn: 1 })));
    c.frame('b->a', encodeRoce(ackPacket({ path, psn: 0, msn: 1, syndrome: 0x62 })));
    c.frame('a->b', new Uint8Array(60));   // not RoCE: the wire checks judge it, not coverage
    const d = cov.data();
    expect(hits(d, 'wire opcode')).toEqual({ 'opcode=WRITE_FIRST': 1, 'opcode=WRITE_MIDDLE': 1, 'opcode=WRITE_LAST': 1, 'opcode=READ_REQUEST': 1, 'opcode=READ_RESPONSE_ONLY': 1, 'opcode=ACK': 2 });
    expect(hits(d, 'wire pad')).toEqual({ 'kind=write,pad=3': 1, 'kind=read-response,pad=2': 1 });
    expect(hits(d, 'ACK/NAK kind')).toEqual({ 'kind=ack': 1, 'kind=nak-remote-access': 1 });
    expect(hits(d, 'PSN wrap')).toEqual({ 'kind=request': 1 });
  });

  it('bins retransmissions: a WRITE resent from a MIDDLE, a READ REQUEST sent again, a partial re-request; NAK 0x60; RETRY_EXCEEDED', () => {
    const cov = new FunctionalCoverage();
    const c = new NicCoverage(cov, () => 8);
    const write = segmentWrite({ path, payload: new Uint8Array(2 * 256 + 1), mtu: 256, startPsn: 10, va: 0x1000n, rkey: 5 });
    for (const p of write) c.frame('a->b', encodeRoce(p));
    for (const p of write.slice(1)) c.frame('a->b', encodeRoce(p));        // go-back-N from PSN 11
    const read = readRequest({ path, psn: 13, va: 0x2000n, rkey: 5, dmaLen: 1000 });
    c.frame('a->b', encodeRoce(read));
    c.frame('a->b', encodeRoce(readRequest({ path, psn: 15, va: 0x2200n, rkey: 5, dmaLen: 488 })));   // its tail from PSN 15
    c.frame('a->b', encodeRoce(read));                                      // the whole READ again
    c.frame('a->b', encodeRoce(readRequest({ path, psn: 17, va: 0x3000n, rkey: 5, dmaLen: 8 })));     // a new READ
    c.frame('b->a', encodeRoce(readRequest({ path, psn: 11, va: 0x1000n, rkey: 5, dmaLen: 8 })));     // other direction: new
    c.frame('b->a', encodeRoce(ackPacket({ path, psn: 11, msn: 0, syndrome: 0x60 })));
    c.completed('A', 0, completion(WQE_OPCODE.RDMA_WRITE, 600, [], 0x1000n, { status: CQE_STATUS.RETRY_EXCEEDED }), { wrId: 1n } as never);
    const d = cov.data();
    expect(hits(d, 'retransmission')).toEqual({ 'kind=write': 2, 'kind=read-request': 1, 'kind=read-partial': 1 });
    expect(hits(d, 'ACK/NAK kind')).toEqual({ 'kind=nak-psn-seq': 1 });
    expect(hits(d, 'status x op')).toEqual({ 'status=RETRY_EXCEEDED,op=WRITE': 1 });
  });

  it('bins a checked completion by size class at its QP\'s MTU, SGEs, alignment, flags and status', () => {
    const cov = new FunctionalCoverage();
    const pmtu = new Map([['A/0', 12], ['A/1', 8]]);
    const c = new NicCoverage(cov, (h, qp) => pmtu.get(`${h}/${qp}`));
    const sges = (...at: number[]): SgeRef[] => at.map(a => ({ mr: mr(0x1000n), offset: a, len: 1 }));
    c.completed('A', 0, completion(WQE_OPCODE.RDMA_WRITE, 4097, sges(0, 3), 0x8000n), { wrId: 1n } as never);
    c.completed('A', 1, completion(WQE_OPCODE.RDMA_READ, 300, sges(5), 0x8003n, {}, true), undefined);
    c.completed('A', 1, completion(WQE_OPCODE.RDMA_READ, 0, [], 0x8000n), { wrId: 1n } as never);
    c.completed('A', 0, completion(7, 16, sges(0), 0n, { status: CQE_STATUS.BAD_OPCODE }), { wrId: 1n } as never);
    c.completed('A', 0, completion(WQE_OPCODE.RDMA_WRITE, 8, sges(0), 0n, { status: CQE_STATUS.REMOTE_ACCESS_ERROR, cause: 'bad-pd' }), { wrId: 1n } as never);
    c.finished(new Map([['A', 2], ['B', 1]]));
    const d = cov.data();
    expect(hits(d, 'op x size')).toEqual({ 'op=WRITE,size=multi-page': 1, 'op=READ,size=>mtu': 1, 'op=READ,size=0': 1 });
    expect(hits(d, 'op x path MTU')).toEqual({ 'op=WRITE,pmtu=4096': 1, 'op=READ,pmtu=256': 2 });
    expect(hits(d, 'op x SGEs')).toEqual({ 'op=WRITE,sges=2': 1, 'op=READ,sges=1': 1, 'op=READ,sges=0': 1 });
    expect(hits(d, 'op x alignment')).toEqual({ 'op=WRITE,remote=aligned,local=aligned': 1, 'op=READ,remote=unaligned,local=unaligned': 1 });
    expect(hits(d, 'op x flags')).toEqual({ 'op=WRITE,signaled=yes,fence=no': 1, 'op=READ,signaled=no,fence=yes': 1, 'op=READ,signaled=yes,fence=no': 1 });
    expect(hits(d, 'status x op')).toEqual({ 'status=SUCCESS,op=WRITE': 1, 'status=SUCCESS,op=READ': 2, 'status=BAD_OPCODE,op=other': 1, 'status=REMOTE_ACCESS_ERROR,op=WRITE': 1 });
    expect(hits(d, 'remote access violation')).toEqual({ 'op=WRITE,cause=bad-pd': 1 });
    expect(hits(d, 'QPs')).toEqual({ 'qps=2': 1 });
    expect(() => c.completed('B', 3, completion(WQE_OPCODE.RDMA_WRITE, 1, sges(0), 0n), undefined)).toThrow('coverage: no path MTU for B QP 3');
  });

  it('bins what the link\'s faults did per direction at finish, and the NICs\' recovery counters above 0', () => {
    const cov = new FunctionalCoverage();
    const c = new NicCoverage(cov, () => 8);
    const none = { dropped: 0, burstDropped: 0, corrupted: 0, duplicated: 0, reordered: 0, targeted: [] as number[] };
    c.watchFaults(d => (d === 'a->b' ? { ...none, dropped: 3, burstDropped: 3, corrupted: 1, targeted: [0, 2] } : { ...none, dropped: 2, burstDropped: 1, duplicated: 4, reordered: 1 }));
    c.finished(new Map([['A/0', 1]]));
    c.recovery('A', { RETX_PKTS: 5, ACK_TIMEOUTS: 0, SEQ_NAK_TX: 0, SEQ_NAK_RX: 2, DUP_REQ_RX: 0, RETRY_EXC: 0 });
    c.recovery('B', { RETX_PKTS: 0, ACK_TIMEOUTS: 1, SEQ_NAK_TX: 2, SEQ_NAK_RX: 0, DUP_REQ_RX: 3, RETRY_EXC: 0 });
    const d = cov.data();
    expect(hits(d, 'link fault')).toEqual({
      'fault=burst-drop,dir=a->b': 1, 'fault=corrupt,dir=a->b': 1, 'fault=targeted,dir=a->b': 1,
      'fault=drop,dir=b->a': 1, 'fault=burst-drop,dir=b->a': 1, 'fault=dup,dir=b->a': 1, 'fault=reorder,dir=b->a': 1,
    });
    expect(hits(d, 'NIC recovery')).toEqual({
      'counter=RETX_PKTS,host=A': 1, 'counter=SEQ_NAK_RX,host=A': 1, 'counter=ACK_TIMEOUTS,host=B': 1, 'counter=SEQ_NAK_TX,host=B': 1, 'counter=DUP_REQ_RX,host=B': 1,
    });
  });
});
