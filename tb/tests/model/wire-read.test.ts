// The READ wire expectations (tb/model/wire-expect.ts) and the capture check (tb/nic/wire-check.ts)
// against frames built independently by the packet model (tb/model/segment.ts), written to a
// pcap and decoded by tshark and scapy: a bidirectional conversation of WRITEs, READ requests,
// READ responses (ONLY incl. zero length, FIRST/MIDDLE/LAST) and ACKs passes; a wrong PSN, MSN,
// RETH, a missing response or a corrupted ICRC is reported with the frame number.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Rng } from '../../core/rng.ts';
import { encodeRoce, type RocePacket } from '../../model/packet.ts';
import { cycleToNs, writePcap } from '../../model/pcap.ts';
import { psnAdd } from '../../model/psn.ts';
import { ackPacket, readRequest, segmentReadResponse, segmentWrite, type RocePath } from '../../model/segment.ts';
import { readRequestPacket, readResponsePackets, responseKey, writePackets, type ExpectedPacket } from '../../model/wire-expect.ts';
import { checkCapture } from '../../nic/wire-check.ts';
import { wireKey } from '../../nic/write-scenario.ts';
import { testRng } from './helpers.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-wire-read-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const MAC_A = 0x02_00_00_00_00_0a, MAC_B = 0x02_00_00_00_00_0b;
const QPN_A = 0x11, QPN_B = 0x12;

function pathTo(from: 'A' | 'B', rng: Rng): RocePath {
  const [src, dst] = from === 'A' ? [MAC_A, MAC_B] : [MAC_B, MAC_A];
  return {
    eth: { src, dst }, udp: { srcPort: 0xc000 | rng.int(0, 0x3fff) }, destQp: from === 'A' ? QPN_B : QPN_A,
    ip: { dscp: 26, ecn: 0, id: 0, df: true, ttl: 64, src: from === 'A' ? 0x0a000001 : 0x0a000002, dst: from === 'A' ? 0x0a000002 : 0x0a000001 },
  };
}

interface Conversation { frames: RocePacket[]; wire: Map<string, ExpectedPacket[]> }

/** Each side WRITEs then READs (lengths 0, 1, MTU-1, MTU, MTU+1, several MTU) from PSNs near
 *  2^24; the responder's READ responses are interleaved with its own requests on the wire. */
function conversation(rng: Rng): Conversation {
  const mtu = rng.pick([256, 512, 1024]);
  const frames: RocePacket[] = [];
  const wire = new Map<string, ExpectedPacket[]>();
  const add = (key: string, p: readonly ExpectedPacket[]): void => { wire.set(key, [...(wire.get(key) ?? []), ...p]); };
  const psn = { A: 0xffffff - rng.int(0, 3), B: 0xfffffe };
  const msn = { A: 0, B: 0 }; // the responder's message count of the other side's stream
  const pending: { to: 'A' | 'B'; pkts: RocePacket[] }[] = [];
  for (const len of [0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + rng.int(1, mtu - 1)]) {
    for (const from of ['A', 'B'] as const) {
      const to = from === 'A' ? 'B' : 'A';
      const p = pathTo(from, rng), back = pathTo(to, rng);
      const key = wireKey(from, p.destQp);
      const wlen = rng.int(0, 2 * mtu), va = rng.bigint(64), rkey = rng.u32();
      frames.push(...segmentWrite({ path: p, payload: rng.bytes(wlen), mtu, startPsn: psn[from], va, rkey }));
      const w = writePackets(wlen, mtu, psn[from], p.destQp, va, rkey);
      add(key, w.packets);
      msn[to]++;
      pending.push({ to, pkts: [ackPacket({ path: back, psn: psnAdd(w.next, -1), msn: msn[to] })] });
      psn[from] = w.next;
      const rva = rng.bigint(64), rrkey = rng.u32();
      frames.push(readRequest({ path: p, psn: psn[from], va: rva, rkey: rrkey, dmaLen: len }));
      const r = readRequestPacket(len, mtu, psn[from], p.destQp, rva, rrkey);
      add(key, [r.packet]);
      msn[to]++;
      pending.push({ to, pkts: segmentReadResponse({ path: back, payload: rng.bytes(len), mtu, requestPsn: psn[from], msn: msn[to] }) });
      add(responseKey(wireKey(to, back.destQp)), readResponsePackets(len, mtu, psn[from], back.destQp, msn[to]));
      psn[from] = r.next;
    }
    // The answers go out after the next requests: responses and requests interleave per direction.
    while (pending.length > 2) frames.push(...pending.shift()!.pkts);
  }
  for (const x of pending) frames.push(...x.pkts);
  return { frames, wire };
}

function capture(name: string, frames: readonly Uint8Array[]): string {
  const file = path.join(dir, name);
  writePcap(file, frames.map((data, i) => ({ data, timeNs: cycleToNs(i * 50, 250_000_000) })));
  return file;
}

/** A copy of the expectations with packet `i` of list `key` changed by `f`. */
function edit(wire: Map<string, ExpectedPacket[]>, key: string, i: number, f: (e: ExpectedPacket) => ExpectedPacket): Map<string, ExpectedPacket[]> {
  const out = new Map<string, ExpectedPacket[]>([...wire].map(([k, v]) => [k, [...v]]));
  out.get(key)![i] = f(out.get(key)![i]!);
  return out;
}

describe('READ wire expectations checked by tshark and scapy', () => {
  it('accepts a correct bidirectional WRITE/READ conversation', () => {
    const { frames, wire } = conversation(testRng('wire read ok'));
    const r = checkCapture(capture('ok.pcap', frames.map(encodeRoce)), wire, '02:00:00:00:00:0a');
    expect(r.frames).toBe(frames.length);
    expect(r.responses).toBe([...wire].filter(([k]) => k.endsWith('responses')).reduce((s, [, v]) => s + v.length, 0));
    expect(r.requests + r.responses + r.acks).toBe(frames.length);
  });

  it('names the frame when PSN, AETH MSN, RETH or a response count differ, or an ICRC is bad', () => {
    const { frames, wire } = conversation(testRng('wire read wrong'));
    const file = capture('base.pcap', frames.map(encodeRoce));
    const respA = responseKey(wireKey('B', QPN_A));
    const reqA = wireKey('A', QPN_B);
    const lastResp = wire.get(respA)!.length - 1;
    const firstRead = wire.get(reqA)!.findIndex(e => e.opcode === 0x0c);
    const cases: [Map<string, ExpectedPacket[]>, RegExp][] = [
      [edit(wire, respA, lastResp, e => ({ ...e, psn: psnAdd(e.psn, 1) })), /responses #\d+\): PSN/],
      [edit(wire, respA, lastResp, e => ({ ...e, aeth: { syndrome: 0x1f, msn: (e.aeth!.msn + 1) & 0xffffff } })), /AETH .*expected syndrome 0x1f msn/],
      [edit(wire, respA, lastResp, e => { const { aeth: _drop, ...rest } = e; return rest; }), /unexpected AETH/],
      [edit(wire, reqA, firstRead, e => ({ ...e, reth: { ...e.reth!, dmaLen: e.reth!.dmaLen + 1 } })), /RETH .*expected va/],
      [new Map([...wire, [respA, [...wire.get(respA)!, wire.get(respA)![lastResp]!]]]), /of \d+ expected packets on the wire/],
    ];
    for (const [w, re] of cases) expect(() => checkCapture(file, w, '02:00:00:00:00:0a')).toThrow(re);
    // One payload byte of a READ response changed after its ICRC was computed: only scapy sees it.
    const bytes = frames.map(encodeRoce);
    const k = frames.findIndex(f => f.bth.opcode === 0x0e);
    bytes[k]![bytes[k]!.length - 8]! ^= 0x40;
    expect(() => checkCapture(capture('bad-icrc.pcap', bytes), wire, '02:00:00:00:00:0a')).toThrow(new RegExp(`frame ${k + 1}: ICRC`));
  });
});
