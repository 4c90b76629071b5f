import { describe, expect, it } from 'vitest';
import { icrcBytes, icrcOfIp } from '../../model/icrc.ts';
import { ipv4Checksum, ipv4ChecksumOk, parseIpv4, parseMac, formatIpv4, formatMac } from '../../model/headers.ts';
import { OPCODES, Opcode, opcodeInfo } from '../../model/opcodes.ts';
import { decodeRoce, describeRoce, encodeRoce, padFor, roceFrameLength, roceSrcPort, type DecodeReason, type RocePacket } from '../../model/packet.ts';
import { hex, randomPacket, readVectors, testRng } from './helpers.ts';

const hexBytes = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));

/** The frame with its IPv4 header checksum recomputed. */
function fixIpChecksum(frame: Uint8Array): Uint8Array {
  const f = Uint8Array.from(frame);
  const ip = f.subarray(14, 34);
  const sum = ipv4Checksum(ip);
  ip[10] = sum >> 8; ip[11] = sum & 0xff;
  return f;
}

/** The frame with its IPv4 checksum and ICRC recomputed, so one deliberate change is the only fault. */
function refix(frame: Uint8Array): Uint8Array {
  const f = fixIpChecksum(frame);
  const total = (f[16]! << 8) | f[17]!;
  const ipPkt = f.subarray(14, 14 + total);
  ipPkt.set(icrcBytes(icrcOfIp(ipPkt.subarray(0, total - 4))), total - 4);
  return f;
}

function expectReject(frame: Uint8Array, reason: DecodeReason, what: string): void {
  const r = decodeRoce(frame);
  expect(r.ok, `${what}: decoded although it should fail with ${reason}`).toBe(false);
  if (!r.ok) expect(r.reason, `${what}: ${r.detail}`).toBe(reason);
}

describe('RoCEv2 packet codec', () => {
  it('knows every RC opcode of NIC.md and what each carries', () => {
    expect(OPCODES.map(o => o.code)).toEqual(Array.from({ length: 0x12 }, (_, i) => i));
    expect(OPCODES.filter(o => o.reth).map(o => o.name)).toEqual(['RDMA_WRITE_FIRST', 'RDMA_WRITE_ONLY', 'RDMA_WRITE_ONLY_IMM', 'RDMA_READ_REQUEST']);
    expect(OPCODES.filter(o => o.aeth).map(o => o.name)).toEqual(['RDMA_READ_RESPONSE_FIRST', 'RDMA_READ_RESPONSE_LAST', 'RDMA_READ_RESPONSE_ONLY', 'ACKNOWLEDGE']);
    expect(OPCODES.filter(o => !o.payload).map(o => o.name)).toEqual(['RDMA_READ_REQUEST', 'ACKNOWLEDGE']);
    expect(opcodeInfo(0x12)).toBeUndefined();
  });

  it('round-trips random packets of every opcode', () => {
    const rng = testRng('packet round trip');
    for (const op of OPCODES) {
      for (let n = 0; n < 40; n++) {
        const pkt = randomPacket(rng, op.code);
        const frame = encodeRoce(pkt);
        expect(frame.length).toBe(roceFrameLength(pkt));
        expect((frame.length - 14) % 4, 'IPv4 packet is whole 32-bit words').toBe(0);
        const r = decodeRoce(frame);
        if (!r.ok) throw new Error(`${describeRoce(pkt)}: ${r.reason} ${r.detail}`);
        const expected: RocePacket = { ...pkt, bth: { ...pkt.bth, padCnt: padFor(pkt.payload.length) } };
        expect(r.pkt, describeRoce(pkt)).toStrictEqual(expected);
        expect(hex(encodeRoce(r.pkt))).toBe(hex(frame));
      }
    }
  });

  it('refuses to encode packets whose headers do not match the opcode or whose fields overflow', () => {
    const rng = testRng('encode errors');
    const write = randomPacket(rng, Opcode.RDMA_WRITE_FIRST);
    const { reth: _r, ...noReth } = write;
    expect(() => encodeRoce(noReth)).toThrow(/needs a RETH/);
    const ack = randomPacket(rng, Opcode.ACKNOWLEDGE);
    expect(() => encodeRoce({ ...ack, payload: new Uint8Array(4) })).toThrow(/carries no payload/);
    expect(() => encodeRoce({ ...ack, bth: { ...ack.bth, psn: 1 << 24 } })).toThrow(/PSN/);
    expect(() => encodeRoce({ ...ack, bth: { ...ack.bth, opcode: 0x64 } })).toThrow(/not an RC opcode/);
    expect(() => encodeRoce({ ...write, payload: new Uint8Array(65536) })).toThrow(/exceeds 65535/);
  });

  it('computes the IPv4 header checksum of known headers', () => {
    // The textbook example (RFC 1071 style, Wikipedia "IPv4 header checksum"): 0xB861.
    const textbook = hexBytes('4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7');
    expect(ipv4Checksum(textbook)).toBe(0xb861);
    expect(ipv4ChecksumOk(textbook)).toBe(true);
    // The IPv4 header of vector good#1 (checked by scapy): 0x1439.
    const v1 = readVectors()[0]!.frame.subarray(14, 34);
    expect(ipv4Checksum(v1)).toBe(0x1439);
    expect(ipv4ChecksumOk(v1)).toBe(true);
  });

  it('decodes every vector of the shared file; good ones with the expected fields', () => {
    const vectors = readVectors();
    for (const v of vectors) {
      const r = decodeRoce(v.frame);
      if (v.good) {
        if (!r.ok) throw new Error(`${v.label}: ${r.reason} ${r.detail}`);
        expect(hex(encodeRoce(r.pkt)), `${v.label} re-encodes to the same bytes`).toBe(hex(v.frame));
      } else {
        expect(r.ok, v.label).toBe(false);
        if (!r.ok) expect(r.reason, `${v.label}: ${r.detail}`).toBe('bad-icrc');
      }
    }
    const good = (label: string): RocePacket => {
      const r = decodeRoce(vectors.find(v => v.label === label)!.frame);
      if (!r.ok) throw new Error(label);
      return r.pkt;
    };
    const w = good('good#1');
    expect(w.bth).toMatchObject({ opcode: Opcode.RDMA_WRITE_ONLY, destQp: 0x11, psn: 256, ackReq: true, pkey: 0xffff, padCnt: 0 });
    expect(w.reth).toEqual({ va: 0x7f0000001000n, rkey: 0x1234, dmaLen: 64 });
    expect(w.payload).toEqual(Uint8Array.from({ length: 64 }, (_, i) => i));
    expect(formatMac(w.eth.dst)).toBe('02:00:00:00:00:02');
    expect(formatIpv4(w.ip.src)).toBe('10.0.0.1');
    expect(w.ip).toMatchObject({ dscp: 0, ecn: 2, ttl: 64, df: true, id: 0x1234 });
    expect(w.udp.srcPort).toBe(0xc123);
    expect(good('good#2').aeth).toEqual({ syndrome: 0x1f, msn: 1 });
    expect(good('good#8').aeth).toEqual({ syndrome: 0x62, msn: 2 });
    const rr = good('good#3');
    expect(rr.bth.opcode).toBe(Opcode.RDMA_READ_REQUEST);
    expect(rr.reth).toEqual({ va: 0x7f0000002000n, rkey: 0x5678, dmaLen: 3000 });
    // good#9: SEND ONLY "hello", 3 pad bytes, FECN+BECN, TTL 1, PSN 0xFFFFFF.
    const s = good('good#9');
    expect(s.bth).toMatchObject({ opcode: Opcode.SEND_ONLY, padCnt: 3, fecn: true, becn: true, psn: 0xffffff, ackReq: true });
    expect(Buffer.from(s.payload).toString()).toBe('hello');
    expect(s.ip.ttl).toBe(1);
  });

  it('flags each kind of bad frame with its reason', () => {
    const vectors = readVectors().filter(v => v.good);
    const write = vectors[0]!.frame; // RDMA WRITE ONLY, 64 bytes payload
    const ack = vectors[1]!.frame;
    const mut = (f: Uint8Array, at: number, value: number): Uint8Array => { const c = Uint8Array.from(f); c[at] = value; return c; };
    for (const v of vectors) {
      const f = v.frame;
      expect(decodeRoce(f).ok, v.label).toBe(true);
      expectReject(mut(f, f.length - 5, f[f.length - 5]! ^ 0x01), 'bad-icrc', `${v.label} last pad/payload byte`);
      expectReject(mut(f, 14 + 28, f[42]! ^ 0x80), 'bad-icrc', `${v.label} BTH opcode bit`);
      expectReject(mut(f, f.length - 1, f[f.length - 1]! ^ 0x10), 'bad-icrc', `${v.label} ICRC itself`);
      expectReject(f.subarray(0, f.length - 1), 'truncated', `${v.label} one byte short`);
    }
    expectReject(new Uint8Array(10), 'truncated', 'runt');
    expectReject(write.subarray(0, 30), 'truncated', 'ends in IPv4 header');
    expectReject(mut(write, 12, 0x86), 'bad-ethertype', 'IPv6 ethertype');
    expectReject(refix(mut(write, 14, 0x65)), 'bad-ip-version', 'version 6');
    expectReject(refix(mut(write, 14, 0x46)), 'bad-ihl', 'IHL 6');
    expectReject(mut(write, 24, write[24]! ^ 1), 'bad-ip-checksum', 'checksum byte');
    expectReject(mut(write, 22, 63), 'bad-ip-checksum', 'TTL changed without checksum update');
    expectReject(refix(mut(write, 20, 0x20)), 'ip-fragment', 'MF set');
    expectReject(refix(mut(write, 23, 6)), 'not-udp', 'TCP');
    expectReject(refix(mut(write, 37, 0xb8)), 'wrong-port', 'port 4792');
    expectReject(refix(mut(write, 39, write[39]! - 4)), 'bad-length', 'UDP length 4 short');
    expectReject(refix(mut(write, 43, 0x01)), 'bad-tver', 'TVer 1');
    expectReject(refix(mut(write, 42, 0x64)), 'unknown-opcode', 'opcode 0x64');
    // An ACK whose frame is 4 bytes longer than an ACK can be: lengths and ICRC consistent.
    const longAck = new Uint8Array(ack.length + 4);
    longAck.set(ack);
    longAck[17] = longAck[17]! + 4; longAck[39] = longAck[39]! + 4;
    expectReject(refix(longAck), 'bad-length', 'ACK with payload');
    // PadCnt 3 on an empty payload: 3 pad bytes, so payload + pad is not whole words.
    const w0 = decodeRoce(write);
    if (!w0.ok) throw new Error('vector');
    expectReject(encodeRoce({ ...w0.pkt, payload: new Uint8Array(0), bth: { ...w0.pkt.bth, padCnt: 3 } }), 'bad-length', 'PadCnt 3, no payload');
    // The ICRC masks TOS, TTL and FECN/BECN: changing them (IP checksum fixed, ICRC kept) still decodes.
    const rerouted = fixIpChecksum(mut(mut(mut(write, 15, 0xb8), 22, 7), 46, 0xc0));
    const r = decodeRoce(rerouted);
    expect(r.ok && r.pkt.ip.ttl === 7 && r.pkt.bth.fecn && r.pkt.bth.becn && r.pkt.ip.dscp === 46).toBe(true);
  });

  it('ignores Ethernet padding after the IPv4 packet', () => {
    const f = readVectors().find(v => v.good)!.frame;
    const padded = new Uint8Array(f.length + 12);
    padded.set(f);
    padded.fill(0xa5, f.length);
    const r = decodeRoce(padded);
    expect(r.ok).toBe(true);
  });

  it('decodes frames with a wrong ICRC or IP checksum when asked to (for printing)', () => {
    const f = Uint8Array.from(readVectors()[0]!.frame);
    f[f.length - 1] ^= 0xff;
    f[24] ^= 0xff;
    expect(decodeRoce(f, { checkIcrc: false, checkIpChecksum: false }).ok).toBe(true);
  });

  it('parses and prints addresses', () => {
    expect(parseMac('02:00:00:00:00:01')).toBe(0x020000000001);
    expect(formatMac(0xfedcba987654)).toBe('fe:dc:ba:98:76:54');
    expect(parseIpv4('10.0.0.255')).toBe(0x0a0000ff);
    expect(formatIpv4(0xc0a80001)).toBe('192.168.0.1');
    expect(() => parseIpv4('1.2.3.256')).toThrow();
    expect(roceSrcPort(0x11)).toBe(0xc011);
    expect(roceSrcPort(0xffffff)).toBe(0xffff);
  });
});
