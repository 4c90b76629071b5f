import { describe, expect, it } from 'vitest';
import { Opcode, Syndrome } from '../../model/opcodes.ts';
import { decodeRoce, encodeRoce, type RocePacket } from '../../model/packet.ts';
import { isPsn, psnAdd, psnCompare, psnDiff, psnRange } from '../../model/psn.ts';
import { ackPacket, readRequest, readRequestPsns, segmentReadResponse, segmentWrite, PATH_MTUS } from '../../model/segment.ts';
import { randomPath, testRng } from './helpers.ts';

const path = {
  eth: { dst: 0x020000000002, src: 0x020000000001 },
  ip: { dscp: 0, ecn: 2, id: 0x1234, df: true, ttl: 64, src: 0x0a000001, dst: 0x0a000002 },
  udp: { srcPort: 0xc123 },
  destQp: 0x11,
};

const ops = (pkts: readonly RocePacket[]): number[] => pkts.map(p => p.bth.opcode);
const concat = (pkts: readonly RocePacket[]): Uint8Array => Uint8Array.from(pkts.flatMap(p => [...p.payload]));

/** Every packet encodes and decodes back to itself. */
function roundTrip(pkts: readonly RocePacket[]): void {
  for (const p of pkts) {
    const r = decodeRoce(encodeRoce(p));
    if (!r.ok) throw new Error(`${r.reason}: ${r.detail}`);
    expect(r.pkt).toStrictEqual(p);
  }
}

/** Longest run of packets without AckReq. */
function longestGap(pkts: readonly RocePacket[]): number {
  let run = 0, worst = 0;
  for (const p of pkts) { run = p.bth.ackReq ? 0 : run + 1; worst = Math.max(worst, run); }
  return worst;
}

describe('PSN arithmetic', () => {
  it('adds modulo 2^24 in both directions', () => {
    expect(psnAdd(0xffffff, 1)).toBe(0);
    expect(psnAdd(0, -1)).toBe(0xffffff);
    expect(psnAdd(5, 0x1000000)).toBe(5);
    expect(psnRange(0xfffffe, 4)).toEqual([0xfffffe, 0xffffff, 0, 1]);
    expect(() => psnAdd(1 << 24, 0)).toThrow(RangeError);
    expect(isPsn(0xffffff) && !isPsn(-1) && !isPsn(0.5)).toBe(true);
  });

  it('compares by the sign of ((a - b) << 8) as int32', () => {
    expect(psnCompare(0, 0xffffff)).toBe(1);
    expect(psnCompare(0xffffff, 0)).toBe(-1);
    expect(psnCompare(7, 7)).toBe(0);
    expect(psnDiff(0x7fffff, 0)).toBe(0x7fffff);
    expect(psnDiff(0x800000, 0)).toBe(-0x800000); // the window edge: 2^23 ahead reads as behind
    const rng = testRng('psn compare');
    for (let i = 0; i < 2000; i++) {
      const b = rng.int(0, 0xffffff);
      const d = rng.int(-0x7fffff, 0x7fffff);
      const a = psnAdd(b, d);
      expect(psnDiff(a, b)).toBe(d);
      expect(psnCompare(a, b)).toBe(Math.sign(d) as -1 | 0 | 1);
      expect(psnCompare(b, a)).toBe(-Math.sign(d) as -1 | 0 | 1);
    }
  });
});

describe('segmentation', () => {
  const mtu = 1024;
  const write = (len: number, startPsn = 100, ackReqEvery?: number): RocePacket[] =>
    segmentWrite({ path, payload: Uint8Array.from({ length: len }, (_, i) => i * 7), mtu, startPsn, va: 0x1000n, rkey: 0xabcd, ...(ackReqEvery ? { ackReqEvery } : {}) });

  it('sends a zero-length WRITE as one ONLY packet with no payload', () => {
    const p = write(0);
    expect(ops(p)).toEqual([Opcode.RDMA_WRITE_ONLY]);
    expect(p[0]!.payload.length).toBe(0);
    expect(p[0]!.reth).toEqual({ va: 0x1000n, rkey: 0xabcd, dmaLen: 0 });
    expect(p[0]!.bth).toMatchObject({ ackReq: true, padCnt: 0, psn: 100 });
    expect(encodeRoce(p[0]!).length).toBe(14 + 20 + 8 + 12 + 16 + 4);
    roundTrip(p);
  });

  it('cuts 1, MTU-1, MTU and MTU+1 bytes at the right places', () => {
    const one = write(1);
    expect(ops(one)).toEqual([Opcode.RDMA_WRITE_ONLY]);
    expect(one[0]!.bth.padCnt).toBe(3);
    expect(ops(write(mtu - 1))).toEqual([Opcode.RDMA_WRITE_ONLY]);
    expect(write(mtu - 1)[0]!.bth.padCnt).toBe(1);
    expect(ops(write(mtu))).toEqual([Opcode.RDMA_WRITE_ONLY]);
    const over = write(mtu + 1);
    expect(ops(over)).toEqual([Opcode.RDMA_WRITE_FIRST, Opcode.RDMA_WRITE_LAST]);
    expect(over.map(p => p.payload.length)).toEqual([mtu, 1]);
    expect(over.map(p => p.bth.psn)).toEqual([100, 101]);
    expect(over.map(p => p.bth.ackReq)).toEqual([false, true]);
    expect(over[0]!.reth?.dmaLen).toBe(mtu + 1);
    expect(over[1]!.reth).toBeUndefined();
    for (const len of [1, mtu - 1, mtu, mtu + 1]) { roundTrip(write(len)); expect(concat(write(len))).toEqual(Uint8Array.from({ length: len }, (_, i) => i * 7)); }
  });

  it('sends 64 KiB as FIRST, MIDDLEs, LAST with AckReq at least every 64 packets', () => {
    const small = segmentWrite({ path, payload: new Uint8Array(65536).fill(1), mtu: 256, startPsn: 0, va: 0n, rkey: 1 });
    expect(small.length).toBe(256);
    expect(small[0]!.bth.opcode).toBe(Opcode.RDMA_WRITE_FIRST);
    expect(small.slice(1, -1).every(p => p.bth.opcode === Opcode.RDMA_WRITE_MIDDLE && !p.reth)).toBe(true);
    expect(small[255]!.bth.opcode).toBe(Opcode.RDMA_WRITE_LAST);
    expect(small.flatMap((p, i) => (p.bth.ackReq ? [i] : []))).toEqual([63, 127, 191, 255]);
    expect(longestGap(small)).toBe(63);
    const big = write(65536);
    expect(big.length).toBe(64);
    expect(concat(big)).toEqual(Uint8Array.from({ length: 65536 }, (_, i) => i * 7));
    roundTrip(big);
  });

  it('keeps the AckReq rule for any length and interval', () => {
    const rng = testRng('ackreq rule');
    for (let i = 0; i < 50; i++) {
      const every = rng.int(1, 64);
      const p = segmentWrite({ path, payload: new Uint8Array(rng.int(0, 200 * 256)), mtu: 256, startPsn: rng.int(0, 0xffffff), va: 0n, rkey: 0, ackReqEvery: every });
      expect(longestGap(p)).toBeLessThan(every);
      expect(p[p.length - 1]!.bth.ackReq).toBe(true);
    }
    expect(() => write(10, 0, 65)).toThrow(/ackReqEvery/);
  });

  it('wraps PSNs at 2^24 in the middle of a message', () => {
    const p = write(4 * mtu, 0xfffffe);
    expect(p.map(x => x.bth.psn)).toEqual([0xfffffe, 0xffffff, 0, 1]);
    roundTrip(p);
    const r = segmentReadResponse({ path, payload: new Uint8Array(3 * mtu), mtu, requestPsn: 0xffffff, msn: 5 });
    expect(r.map(x => x.bth.psn)).toEqual([0xffffff, 0, 1]);
  });

  it('puts immediate data on the last packet of a WRITE with immediate', () => {
    const p = segmentWrite({ path, payload: new Uint8Array(2 * mtu), mtu, startPsn: 0, va: 0n, rkey: 0, immDt: 0xdeadbeef });
    expect(ops(p)).toEqual([Opcode.RDMA_WRITE_FIRST, Opcode.RDMA_WRITE_LAST_IMM]);
    expect(p[1]!.immDt).toBe(0xdeadbeef);
    expect(ops(segmentWrite({ path, payload: new Uint8Array(5), mtu, startPsn: 0, va: 0n, rkey: 0, immDt: 1 }))).toEqual([Opcode.RDMA_WRITE_ONLY_IMM]);
    roundTrip(p);
  });

  it('answers READs with AETH on FIRST/LAST/ONLY only, PSNs from the request', () => {
    const zero = segmentReadResponse({ path, payload: new Uint8Array(0), mtu, requestPsn: 77, msn: 3 });
    expect(ops(zero)).toEqual([Opcode.RDMA_READ_RESPONSE_ONLY]);
    expect(zero[0]!.aeth).toEqual({ syndrome: Syndrome.ACK, msn: 3 });
    expect(zero[0]!.payload.length).toBe(0);
    const three = segmentReadResponse({ path, payload: new Uint8Array(2 * mtu + 1), mtu, requestPsn: 77, msn: 3 });
    expect(ops(three)).toEqual([Opcode.RDMA_READ_RESPONSE_FIRST, Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.RDMA_READ_RESPONSE_LAST]);
    expect(three.map(p => p.aeth !== undefined)).toEqual([true, false, true]);
    expect(three.map(p => p.bth.psn)).toEqual([77, 78, 79]);
    expect(three.every(p => !p.bth.ackReq && !p.reth)).toBe(true);
    roundTrip([...zero, ...three]);
    for (const len of [0, 1, mtu - 1, mtu, mtu + 1, 65536]) {
      expect(segmentReadResponse({ path, payload: new Uint8Array(len), mtu, requestPsn: 0, msn: 0 }).length, `len ${len}`).toBe(readRequestPsns(len, mtu));
    }
  });

  it('counts READ PSNs as max(1, ceil(len / MTU))', () => {
    expect([0, 1, 1023, 1024, 1025, 65536].map(l => readRequestPsns(l, 1024))).toEqual([1, 1, 1, 1, 2, 64]);
    expect(readRequestPsns(0xffffffff, 4096)).toBe(0x100000);
    expect(() => readRequestPsns(10, 1000)).toThrow(/MTU/);
    expect(() => segmentWrite({ path, payload: new Uint8Array(1), mtu: 1500, startPsn: 0, va: 0n, rkey: 0 })).toThrow(/MTU/);
    expect([...PATH_MTUS]).toEqual([256, 512, 1024, 2048, 4096]);
  });

  it('builds READ requests and ACKs', () => {
    const rng = testRng('read request and ack');
    const p = randomPath(rng);
    const rr = readRequest({ path: p, psn: 9, va: 0xffff_ffff_ffff_f000n, rkey: 0x12345678, dmaLen: 3000 });
    expect(rr.bth).toMatchObject({ opcode: Opcode.RDMA_READ_REQUEST, ackReq: true, psn: 9, destQp: p.destQp, pkey: p.pkey });
    const nak = ackPacket({ path: p, psn: 0xffffff, msn: 4, syndrome: Syndrome.NAK_PSN_SEQUENCE });
    expect(nak.aeth).toEqual({ syndrome: 0x60, msn: 4 });
    roundTrip([rr, nak, ackPacket({ path: p, psn: 1, msn: 1 })]);
  });
});
