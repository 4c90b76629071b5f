// Real-capture dressing through a whole replay on nic_top: the TS model's capture for the
// example scenario (capture.ts) written once as a plain pcap and once as a pcapng the way a
// switch port and Wireshark would hand it over: two interfaces (one declares a 4-byte FCS with
// if_fcslen and its frames carry it), 802.1Q and QinQ tags at random, the last frames in a
// second section captured on a Linux cooked (SLL2) interface, and one extra frame cut by the
// snaplen. Both go through the CLI's input path (readCapture + cleanCapture) into runReplay:
// the pcapng must give the same verdicts, the same transmitted frames and the same MR dumps
// as the plain pcap, each row must say what its clean-up did, and the cut frame must be
// reported truncated.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writePcap } from '../../model/pcap.ts';
import { readCapture } from '../../replay/capture-file.ts';
import { cleanCapture } from '../../replay/frame-cleanup.ts';
import { runReplay, type ReplayResult } from '../../replay/run.ts';
import { loadScenario } from '../../replay/scenario.ts';
import { seededRandom } from '../seed.ts';
import { buildCapture, type Capture } from './capture.ts';
import { asCooked, withFcs, withVlanTag, writePcapng, type NgPacket } from './capture-writers.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../replay/examples/write-two-qps.json');
const BUILD_TIMEOUT = 900_000;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const COOKED = 3;

/** How frame i was dressed, and the notes its row must carry. */
interface Dressing { readonly packet: NgPacket; readonly section: 0 | 1; readonly notes: readonly RegExp[] }

describe('nicgen replay input: pcapng, VLAN tags, FCS, SLL2 and truncation give the plain capture\'s results', () => {
  const scenario = loadScenario(EXAMPLE);
  const nicMac = Number(scenario.nic.mac);
  const { rng, seed } = seededRandom();
  const hint = `replay with NICGEN_SEED=${seed}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-replay-dressed-'));
  const plainFile = path.join(dir, 'plain.pcap'), dressedFile = path.join(dir, 'dressed.pcapng');
  let cap: Capture, dressing: Dressing[], plain: ReplayResult, dressed: ReplayResult;

  /** A random VLAN dressing and FCS for frame `data` on the Ethernet section. */
  const dress = (data: Uint8Array): Dressing => {
    const fcs = rng.bool(), tags = rng.int(0, 2), vid = rng.int(1, 4094), outer = rng.int(1, 4094);
    let f = tags === 0 ? data : withVlanTag(data, vid);
    if (tags === 2) f = withVlanTag(f, outer, 0, 0x88a8);
    const notes = [
      ...(fcs ? [/^FCS 0x[0-9a-f]{8} stripped \(good\)$/] : []),
      ...(tags === 2 ? [new RegExp(`^802\\.1ad tag stripped \\(VID ${outer}\\)$`)] : []),
      ...(tags >= 1 ? [new RegExp(`^802\\.1Q tag stripped \\(VID ${vid}\\)$`)] : []),
    ];
    return { packet: { iface: fcs ? 1 : 0, data: fcs ? withFcs(f) : f }, section: 0, notes };
  };

  beforeAll(async () => {
    cap = buildCapture(scenario, seed);
    const frames = cap.frames.map(f => f.data);
    writePcap(plainFile, frames.map((data, i) => ({ data, timeNs: BigInt(i) * 1000n })));
    dressing = frames.map((data, i) => (i < frames.length - COOKED ? dress(data) : {
      packet: { iface: 0, data: asCooked(data, 276) }, section: 1, notes: [/^SLL2 \(Linux cooked, IPv4\): Ethernet header rebuilt, dst 02:00:00:00:00:0b src 02:00:00:00:00:0a$/],
    }));
    // One more frame, cut by the snaplen: a copy of an unknown-QP frame (nothing to write either way).
    const victim = cap.frames.find(f => f.verdict === 'unknown-qp')!.data;
    const cut = { iface: 0, data: asCooked(victim, 276).subarray(0, 60), originalLength: victim.length + 6 };
    writePcapng(dressedFile, [
      { interfaces: [{ linktype: 1, name: 'eth0' }, { linktype: 1, fcsLen: 4, name: 'eth1-with-fcs' }], packets: dressing.filter(d => d.section === 0).map(d => d.packet) },
      { interfaces: [{ linktype: 276, name: 'any' }], packets: [...dressing.filter(d => d.section === 1).map(d => d.packet), cut] },
    ]);
    plain = await runReplay({ scenario, frames: cleanCapture(readCapture(plainFile), { nicMac }), dumpDir: path.join(dir, 'plain') });
    dressed = await runReplay({ scenario, frames: cleanCapture(readCapture(dressedFile), { nicMac }), dumpDir: path.join(dir, 'dressed') });
  }, BUILD_TIMEOUT);

  it('the plain capture gets the model\'s verdicts (so the comparison below means something)', () => {
    plain.rows.forEach((row, i) => {
      expect(row.verdict.accepted ? 'accepted' : row.verdict.reason, `frame ${row.frame} (${cap.frames[i]!.what}); ${hint}`).toBe(cap.frames[i]!.verdict);
      expect(row.input, `frame ${row.frame}: a plain pcap needs no clean-up`).toEqual([]);
    });
  });

  it('the pcapng gives the same verdict, detail and transmitted frames for every frame', () => {
    expect(dressed.rows.length).toBe(plain.rows.length + 1);
    plain.rows.forEach((p, i) => {
      const d = dressed.rows[i]!, at = `frame ${p.frame} (${cap.frames[i]!.what}, dressed as ${JSON.stringify(dressing[i]!.notes.map(String))}); ${hint}`;
      expect({ accepted: d.verdict.accepted, reason: d.verdict.reason, detail: d.verdict.detail, note: d.verdict.note }, at)
        .toEqual({ accepted: p.verdict.accepted, reason: p.verdict.reason, detail: p.verdict.detail, note: p.verdict.note });
      expect(d.replies.map(x => hex(x.data)), at).toEqual(p.replies.map(x => hex(x.data)));
    });
  });

  it('leaves the MRs exactly as the plain capture does', () => {
    expect(dressed.dumps.map(d => d.index)).toEqual(plain.dumps.map(d => d.index));
    dressed.dumps.forEach((d, k) => {
      const got = fs.readFileSync(d.file), want = fs.readFileSync(plain.dumps[k]!.file);
      const at = got.findIndex((b, j) => b !== want[j]);
      expect(at, `MR ${d.index}: first difference at offset ${at}; ${hint}`).toBe(-1);
      expect(got.length).toBe(want.length);
    });
  });

  it('each row says what the clean-up did (FCS, VLAN tags with their VIDs, SLL2 rebuild)', () => {
    dressing.forEach((d, i) => {
      const row = dressed.rows[i]!;
      expect(row.input.length, `frame ${row.frame} notes ${JSON.stringify(row.input)}`).toBe(d.notes.length);
      d.notes.forEach((re, k) => expect(row.input[k], `frame ${row.frame} note ${k + 1}`).toMatch(re));
    });
  });

  it('reports the frame the snaplen cut as truncated, and the NIC does not accept it', () => {
    const row = dressed.rows.at(-1)!;
    expect(row.input[0]).toMatch(/^truncated: 60 of \d+ bytes captured, fed as captured$/);
    expect(row.verdict.accepted, `${row.verdict.detail}; ${hint}`).toBe(false);
  });
});
