// The replay's input side without a simulation: pcap and pcapng reading (byte orders, several
// interfaces and sections, if_fcslen, SPB), the link type refusal, and the frame clean-up
// (VLAN tags, FCS, SLL/SLL2, truncation) on frames made by the TS packet model; tshark and
// editcap cross-check the pcapng the tests write.

import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMac } from '../../model/headers.ts';
import { writePcap } from '../../model/pcap.ts';
import { parseBursts } from '../../replay/burst.ts';
import { CaptureError, readCapture } from '../../replay/capture-file.ts';
import { cleanCapture, cleanFrame } from '../../replay/frame-cleanup.ts';
import { loadScenario } from '../../replay/scenario.ts';
import { testRng } from '../seed.ts';
import { buildCapture } from './capture.ts';
import { asCooked, withFcs, withVlanTag, writePcapBigEndianNs, writePcapng } from './capture-writers.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../replay/examples/write-two-qps.json');
const scenario = loadScenario(EXAMPLE);
const nicMac = Number(scenario.nic.mac);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-replay-input-'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const hasTool = (t: string): boolean => spawnSync(t, ['-v'], { stdio: 'ignore' }).status === 0;

/** The model's frames for the example scenario (WRITEs, bad ICRC, unknown QPs, PSN errors). */
function modelFrames(seed: number): Uint8Array[] {
  return buildCapture(scenario, seed).frames.map(f => f.data);
}

describe('capture files', () => {
  it('reads pcapng in both byte orders: two sections, several interfaces, if_fcslen, EPB and SPB', () => {
    const rng = testRng('pcapng read');
    const frames = modelFrames(rng.int(1, 2 ** 30));
    for (const bigEndian of [false, true]) {
      const file = path.join(dir, `two-sections-${bigEndian ? 'be' : 'le'}.pcapng`);
      const half = Math.floor(frames.length / 2);
      writePcapng(file, [
        { interfaces: [{ linktype: 1, name: 'eth0' }, { linktype: 1, fcsLen: 4 }], packets: frames.slice(0, half).map((data, i) => ({ iface: i % 2, data, simple: i === 0 })) },
        { interfaces: [{ linktype: 113 }], packets: frames.slice(half).map(data => ({ iface: 0, data, originalLength: data.length + 7 })) },
      ], { bigEndian });
      const cap = readCapture(file);
      expect(cap.format).toBe('pcapng');
      expect(cap.interfaces).toEqual([{ linktype: 1, name: 'eth0' }, { linktype: 1, fcsLen: 4 }, { linktype: 113 }]);
      expect(cap.packets.map(p => hex(p.data)), `${file}: packet bytes`).toEqual(frames.map(hex));
      expect(cap.packets.map(p => p.iface)).toEqual(frames.map((_, i) => (i < half ? i % 2 : 2)));
      expect(cap.packets.map(p => p.originalLength)).toEqual(frames.map((f, i) => f.length + (i < half ? 0 : 7)));
      expect(cap.trailingBytes).toBe(0);
    }
  });

  it('reads classic pcap little-endian (µs) and big-endian (ns), with the FCS bits of the link type field', () => {
    const frames = modelFrames(testRng('pcap read').int(1, 2 ** 30));
    const le = path.join(dir, 'le.pcap'), be = path.join(dir, 'be.pcap');
    writePcap(le, frames.map((data, i) => ({ data, timeNs: BigInt(i) * 1000n })));
    writePcapBigEndianNs(be, (1 << 28) | (2 << 29) | 1, frames); // F bit, 2 x 16-bit words of FCS, Ethernet
    for (const [file, iface] of [[le, { linktype: 1 }], [be, { linktype: 1, fcsLen: 4 }]] as const) {
      const cap = readCapture(file);
      expect(cap.format).toBe('pcap');
      expect(cap.interfaces, file).toEqual([iface]);
      expect(cap.packets.map(p => hex(p.data)), file).toEqual(frames.map(hex));
    }
  });

  it('refuses a link type it cannot turn into Ethernet, naming the file and the packet', () => {
    const frames = modelFrames(7);
    const ng = path.join(dir, 'rawip.pcapng');
    writePcapng(ng, [{ interfaces: [{ linktype: 1 }, { linktype: 101 }], packets: [{ iface: 0, data: frames[0]! }, { iface: 0, data: frames[1]! }, { iface: 1, data: frames[2]!.subarray(14) }] }]);
    expect(() => readCapture(ng)).toThrow(CaptureError);
    expect(() => readCapture(ng)).toThrow(`${ng}: packet 3: link type 101 (raw IP) cannot be replayed; supported: Ethernet (1), Linux cooked SLL (113), Linux cooked SLL2 (276)`);
    const classic = path.join(dir, 'wifi.pcap');
    writePcapBigEndianNs(classic, 105, [frames[0]!]);
    expect(() => readCapture(classic)).toThrow(`${classic}: packet 1: link type 105 (802.11) cannot be replayed`);
  });

  it('tshark reads the pcapng these tests write (interfaces, VLAN IDs, FCS status) and editcap converts it back to the same frames', () => {
    if (!hasTool('tshark') || !hasTool('editcap')) throw new Error('tshark and editcap are needed (Debian: apt-get install tshark)');
    const frames = modelFrames(testRng('tshark pcapng').int(1, 2 ** 30)).slice(0, 4);
    const file = path.join(dir, 'for-tshark.pcapng');
    writePcapng(file, [{ interfaces: [{ linktype: 1 }, { linktype: 1, fcsLen: 4 }], packets: frames.map((f, i) => ({ iface: i % 2, data: i % 2 ? withFcs(withVlanTag(f, 100 + i)) : f })) }]);
    const rows = execFileSync('tshark', ['-o', 'eth.check_fcs:TRUE', '-r', file, '-T', 'fields', '-E', 'separator=,', '-e', 'frame.interface_id', '-e', 'vlan.id', '-e', 'eth.fcs.status', '-e', 'infiniband.bth.opcode'], { encoding: 'utf8' })
      .trim().split('\n');
    expect(rows).toEqual(frames.map((f, i) => `${i % 2},${i % 2 ? 100 + i : ''},${i % 2 ? '1' : ''},${f[14 + 20 + 8]}`));
    const back = path.join(dir, 'back.pcapng');
    execFileSync('editcap', ['-F', 'pcapng', file, back]);
    const cap = readCapture(back);
    expect(cleanCapture(cap, { nicMac }).map(f => hex(f.data))).toEqual(frames.map(hex));
  });
});

describe('frame clean-up', () => {
  const frame = modelFrames(11)[0]!;
  const eth = { linktype: 1 };
  const packet = (data: Uint8Array, originalLength = data.length): { data: Uint8Array; originalLength: number; iface: number } => ({ data, originalLength, iface: 0 });

  it('strips an 802.1Q tag and a QinQ pair, naming each VID', () => {
    const rng = testRng('vlan strip');
    const vid = rng.int(1, 4094), outer = rng.int(1, 4094);
    const one = cleanFrame(packet(withVlanTag(frame, vid, 5)), eth, { nicMac });
    expect(hex(one.data)).toBe(hex(frame));
    expect(one.notes).toEqual([`802.1Q tag stripped (VID ${vid}, PCP 5)`]);
    const two = cleanFrame(packet(withVlanTag(withVlanTag(frame, vid), outer, 0, 0x88a8)), eth, { nicMac });
    expect(hex(two.data)).toBe(hex(frame));
    expect(two.notes).toEqual([`802.1ad tag stripped (VID ${outer})`, `802.1Q tag stripped (VID ${vid})`]);
  });

  it('strips the FCS when the interface declares it or --fcs says so, checks it, and keeps it otherwise', () => {
    const tagged = withVlanTag(frame, 42);
    const withIt = withFcs(tagged);
    const fcs = Buffer.from(withIt.subarray(-4)).readUInt32LE(0).toString(16).padStart(8, '0');
    const declared = cleanFrame(packet(withIt), { linktype: 1, fcsLen: 4 }, { nicMac });
    expect(hex(declared.data)).toBe(hex(frame));
    expect(declared.notes).toEqual([`FCS 0x${fcs} stripped (good)`, '802.1Q tag stripped (VID 42)']);
    expect(hex(cleanFrame(packet(withIt), eth, { nicMac, fcs: true }).data)).toBe(hex(frame));
    expect(hex(cleanFrame(packet(withIt), eth, { nicMac }).data), 'no FCS declared: fed as captured').toBe(hex(withIt.subarray(0, 12)) + hex(withIt.subarray(16)));
    const bad = Uint8Array.from(withIt);
    bad[20]! ^= 1;
    expect(cleanFrame(packet(bad), eth, { nicMac, fcs: true }).notes[0]).toMatch(/^FCS 0x[0-9a-f]{8} stripped \(bad: computed 0x[0-9a-f]{8}, a MAC would have dropped this frame\)$/);
  });

  it('says when a frame is truncated and leaves its (cut off) FCS alone', () => {
    const cut = withFcs(frame).subarray(0, 60);
    const f = cleanFrame(packet(cut, frame.length + 4), { linktype: 1, fcsLen: 4 }, { nicMac });
    expect(f.truncated).toBe(true);
    expect(hex(f.data)).toBe(hex(cut));
    expect(f.notes).toEqual([`truncated: 60 of ${frame.length + 4} bytes captured, fed as captured`, 'FCS not stripped: the snaplen cut it off']);
  });

  it('rebuilds the Ethernet header of Linux cooked captures (SLL, SLL2) with the NIC as destination', () => {
    for (const lt of [113, 276] as const) {
      const f = cleanFrame(packet(asCooked(frame, lt)), { linktype: lt }, { nicMac });
      expect(hex(f.data), `link type ${lt}`).toBe(hex(frame)); // the model's frames are sent to the NIC's MAC
      expect(f.notes).toEqual([`${lt === 113 ? 'SLL' : 'SLL2'} (Linux cooked, IPv4): Ethernet header rebuilt, dst 02:00:00:00:00:0b src 02:00:00:00:00:0a`]);
      expect(nicMac).toBe(parseMac('02:00:00:00:00:0b'));
    }
  });

  it('--burst ranges: in order, at least two frames each, inside the capture', () => {
    expect(parseBursts('1-3,5-6', 6)).toEqual([{ first: 1, last: 3 }, { first: 5, last: 6 }]);
    expect(parseBursts('all', 4)).toEqual([{ first: 1, last: 4 }]);
    expect(() => parseBursts('2-2', 6)).toThrow('--burst 2-2: 2-2 must name at least two frames within 1-6');
    expect(() => parseBursts('1-7', 6)).toThrow('within 1-6');
    expect(() => parseBursts('1-3,3-4', 6)).toThrow('must be in order and must not overlap');
    expect(() => parseBursts('x', 6)).toThrow('"x" is not a range FIRST-LAST');
  });
});
