// The capture checks (tb/nic/wire-check.ts: tshark + scapy + the model) on synthetic captures
// built with tb/model's encoders: a go-back-N conversation passes (a WRITE resent from its
// MIDDLE after a NAK 0x60, a READ re-requested from a lost response on, with VA, length and
// PSN advanced, and its responses resent), and each tampered form fails with a message that
// names the frame and the field. Every frame carries its sender's next IPv4 id, as the NIC
// does, so a retransmission differs from its first transmission there and must still pass.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Opcode } from '../../model/opcodes.ts';
import { encodeRoce, type RocePacket } from '../../model/packet.ts';
import { cycleToNs, writePcap } from '../../model/pcap.ts';
import { ackPacket, readRequest, segmentReadResponse, segmentWrite, type RocePath } from '../../model/segment.ts';
import { readRequestPacket, readResponsePackets, responseKey, writePackets, type ExpectedPacket } from '../../model/wire-expect.ts';
import { checkCapture } from '../../nic/wire-check.ts';
import { wireKey } from '../../nic/write-scenario.ts';
import { testRng } from '../seed.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-wire-retx-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const MAC_A = 0x02_00_00_00_00_0a, MAC_B = 0x02_00_00_00_00_0b;
const QPN_A = 0x100, QPN_B = 0x101;
const ip = (src: number, dst: number) => ({ dscp: 26, ecn: 0, id: 0, df: true, ttl: 64, src, dst });
const A_TO_B: RocePath = { eth: { dst: MAC_B, src: MAC_A }, ip: ip(0x0a000001, 0x0a000002), udp: { srcPort: 0xc123 }, destQp: QPN_B };
const B_TO_A: RocePath = { eth: { dst: MAC_A, src: MAC_B }, ip: ip(0x0a000002, 0x0a000001), udp: { srcPort: 0xc456 }, destQp: QPN_A };
const MTU = 256;
const WRITE_VA = 0x7f00_0000_1234n, READ_VA = 0xffff_ffff_ffff_fe00n; // the READ's VA wraps 2^64 when advanced

interface Conversation { frames: RocePacket[]; wire: Map<string, ExpectedPacket[]>; index: Record<string, number> }

/** A WRITE of 700 bytes (PSN 10..12) resent from PSN 11 after a NAK 0x60, then a READ of
 *  2000 bytes (PSN 13..20) whose response at PSN 16 was lost: re-requested at 16 for the last
 *  1232 bytes, answered FIRST 16 .. LAST 20. `index` names frames the tampering tests change. */
function conversation(rng: ReturnType<typeof testRng>): Conversation {
  const wdata = rng.bytes(700), rdata = rng.bytes(2000);
  const write = segmentWrite({ path: A_TO_B, payload: wdata, mtu: MTU, startPsn: 10, va: WRITE_VA, rkey: 0x234 });
  const read = readRequest({ path: A_TO_B, psn: 13, va: READ_VA, rkey: 0x345, dmaLen: 2000 });
  const resp = segmentReadResponse({ path: B_TO_A, payload: rdata, mtu: MTU, requestPsn: 13, msn: 2 });
  const reread = readRequest({ path: A_TO_B, psn: 16, va: BigInt.asUintN(64, READ_VA + 768n), rkey: 0x345, dmaLen: 2000 - 768 });
  const reresp = segmentReadResponse({ path: B_TO_A, payload: rdata.subarray(768), mtu: MTU, requestPsn: 16, msn: 3 });
  const index: Record<string, number> = {};
  const frames: RocePacket[] = [];
  const put = (name: string | null, p: RocePacket): void => { if (name) index[name] = frames.length; frames.push(p); };
  put(null, write[0]!); put('writeMiddle', write[1]!); put(null, write[2]!);
  put('nak', ackPacket({ path: B_TO_A, psn: 11, msn: 0, syndrome: 0x60 }));
  put('resentMiddle', write[1]!); put('resentLast', write[2]!);
  put(null, ackPacket({ path: B_TO_A, psn: 12, msn: 1 }));
  put(null, read);
  for (const [i, p] of resp.entries()) put(i === 3 ? 'lostResponse' : null, p);
  put('reread', reread);
  for (const [i, p] of reresp.entries()) put(i === reresp.length - 1 ? 'resentResponseLast' : null, p);
  const wire = new Map<string, ExpectedPacket[]>([
    [wireKey('A', QPN_B), [...writePackets(700, MTU, 10, QPN_B, WRITE_VA, 0x234).packets, readRequestPacket(2000, MTU, 13, QPN_B, READ_VA, 0x345).packet]],
    [responseKey(wireKey('B', QPN_A)), readResponsePackets(2000, MTU, 13, QPN_A, 2)],
  ]);
  return { frames, wire, index };
}

/** Writes the frames, each sender numbering its IPv4 ids 1, 2, ... as the NIC does. */
function capture(name: string, frames: readonly RocePacket[]): string {
  const ids = new Map<number, number>();
  const file = path.join(dir, `${name}.pcap`);
  writePcap(file, frames.map((p, i) => {
    const id = (ids.get(p.eth.src) ?? 0) + 1;
    ids.set(p.eth.src, id);
    return { data: encodeRoce({ ...p, ip: { ...p.ip, id } }), timeNs: cycleToNs(i * 50, 250_000_000) };
  }));
  return file;
}

const check = (file: string, wire: Map<string, ExpectedPacket[]>, lossy = true) => checkCapture(file, wire, '02:00:00:00:00:0a', { lossy });

describe('capture checks accept retransmissions and check them', () => {
  it('a go-back-N conversation passes: resent WRITE packets, a partial READ re-request, resent responses', () => {
    const c = conversation(testRng('wire retx good'));
    const r = check(capture('good', c.frames), c.wire);
    expect(r).toEqual({ frames: c.frames.length, requests: 4, responses: 8, acks: 2, retransmissions: 2 + 5, requestRetransmissions: 2, reRequests: 1, sequenceNaks: 1 });
  });

  it('a NAK 0x60 fails an error-free (not lossy) check', () => {
    const c = conversation(testRng('wire retx nak'));
    expect(() => check(capture('nak', c.frames), c.wire, false)).toThrow(`frame ${c.index['nak']! + 1}: ACK syndrome 0x60 in an error-free run`);
  });

  const tamper: readonly [string, (c: Conversation) => RocePacket, string, string][] = [
    ['a resent WRITE MIDDLE with one payload byte changed', c => {
      const p = c.frames[c.index['resentMiddle']!]!;
      const payload = Uint8Array.from(p.payload); payload[17]! ^= 0x40;
      return { ...p, payload };
    }, 'resentMiddle', 'retransmission of frame 2 (PSN 0x00000b) differs in payload byte 17'],
    ['a resent WRITE LAST without AckReq', c => {
      const p = c.frames[c.index['resentLast']!]!;
      return { ...p, bth: { ...p.bth, ackReq: false } };
    }, 'resentLast', 'retransmission of frame 3 (PSN 0x00000c) differs in BTH ackReq: false, first transmission true'],
    ['a resent WRITE MIDDLE with another TTL', c => {
      const p = c.frames[c.index['resentMiddle']!]!;
      return { ...p, ip: { ...p.ip, ttl: 63 } };
    }, 'resentMiddle', 'differs in IPv4 ttl: 63, first transmission 64'],
    ['a READ re-request whose VA did not advance', c => {
      const p = c.frames[c.index['reread']!]!;
      return { ...p, reth: { ...p.reth!, va: READ_VA } };
    }, 'reread', `partial re-request of the READ in frame 8 (PSN 0x00000d + 3): RETH va 0x${READ_VA.toString(16)}, expected 0x${BigInt.asUintN(64, READ_VA + 768n).toString(16)} (first VA + 3 x MTU 256)`],
    ['a READ re-request for the whole length', c => {
      const p = c.frames[c.index['reread']!]!;
      return { ...p, reth: { ...p.reth!, dmaLen: 2000 } };
    }, 'reread', 'RETH dmaLen 2000, expected 1232 (first length - 3 x MTU 256)'],
    ['a READ re-request with another rkey', c => {
      const p = c.frames[c.index['reread']!]!;
      return { ...p, reth: { ...p.reth!, rkey: 0x346 } };
    }, 'reread', 'differs in RETH rkey: 0x346, first request 0x345'],
    ['a resent READ RESPONSE LAST sent as MIDDLE', c => {
      const p = c.frames[c.index['resentResponseLast']!]!;
      const { aeth: _aeth, ...rest } = p;
      return { ...rest, bth: { ...p.bth, opcode: Opcode.RDMA_READ_RESPONSE_MIDDLE } };
    }, 'resentResponseLast', 'BTH opcode 0xe, first transmission 0xf (a resent response may only start a series here: 0xf or 0x10)'],
    ['a resent READ RESPONSE with other data', c => {
      const p = c.frames[c.index['resentResponseLast']!]!;
      const payload = Uint8Array.from(p.payload); payload[0]! ^= 1;
      return { ...p, payload };
    }, 'resentResponseLast', 'differs in payload byte 0'],
  ];
  for (const [what, change, at, message] of tamper) {
    it(`fails ${what}, naming the frame and the field`, () => {
      const c = conversation(testRng(`wire retx ${what}`));
      const frames = [...c.frames];
      frames[c.index[at]!] = change(c);
      expect(() => check(capture(at, frames), c.wire)).toThrow(new RegExp(`^frame ${c.index[at]! + 1} \\(.+\\): .*${message.replace(/[()+.[\]]/g, '\\$&')}`));
    });
  }

  it('still matches first transmissions against the model: a lost first transmission is a missing packet', () => {
    const c = conversation(testRng('wire retx missing'));
    const frames = c.frames.filter((_, i) => i !== c.index['lostResponse']);
    // The capture holds what the NICs sent, before the link: a response PSN the responder never
    // sent is a missing packet, whatever came after it.
    expect(() => check(capture('missing', frames), c.wire)).toThrow(`frame ${c.index['lostResponse']! + 1} (B->qpn100 responses #3): PSN 0x11, expected 0x10`);
  });
});
