// The model's frames judged by implementations that are not ours: Wireshark (tshark) must decode
// each as RoCE with the fields we encoded, and scapy must agree with every ICRC. If either tool
// is missing these tests fail and say how to install it; they never skip.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Rng } from '../../core/rng.ts';
import { EXPERT_SEVERITY, ExternalToolMissingError, scapyCheckIcrc, tsharkDecode } from '../../model/external-check.ts';
import { formatIpv4, formatMac } from '../../model/headers.ts';
import { carriedIcrc } from '../../model/icrc.ts';
import { OPCODES, opcodeLabel } from '../../model/opcodes.ts';
import { describeRoce, encodeRoce, type RocePacket } from '../../model/packet.ts';
import { cycleToNs, readPcap, writePcap } from '../../model/pcap.ts';
import { psnAdd } from '../../model/psn.ts';
import { ackPacket, readRequest, readRequestPsns, segmentReadResponse, segmentWrite, PATH_MTUS } from '../../model/segment.ts';
import { randomPacket, randomPath, readVectors, testRng } from './helpers.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-ext-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A conversation's worth of valid frames: segmented WRITEs and READ responses (FIRST/MIDDLE/
 *  LAST/ONLY), READ requests, ACKs and NAKs, and random packets of every RC opcode. */
function randomTraffic(rng: Rng): RocePacket[] {
  const out: RocePacket[] = [];
  for (let m = 0; m < 12; m++) {
    const p = randomPath(rng);
    const mtu = rng.pick(PATH_MTUS.filter(x => x <= 1024));
    const len = rng.pick([0, 1, mtu - 1, mtu, mtu + 1, rng.int(2, 4 * mtu)]);
    const psn = rng.int(0, 0xffffff);
    const payload = rng.bytes(len);
    out.push(...segmentWrite({ path: p, payload, mtu, startPsn: psn, va: rng.bigint(64), rkey: rng.u32() }));
    const rpsn = psnAdd(psn, 100);
    out.push(readRequest({ path: p, psn: rpsn, va: rng.bigint(64), rkey: rng.u32(), dmaLen: len }));
    const resp = segmentReadResponse({ path: p, payload, mtu, requestPsn: rpsn, msn: rng.int(0, 0xffffff) });
    expect(resp.length).toBe(readRequestPsns(len, mtu));
    out.push(...resp);
    out.push(ackPacket({ path: p, psn: rpsn, msn: rng.int(0, 0xffffff), syndrome: rng.pick([0x1f, 0x20 | rng.int(0, 31), 0x60, 0x61, 0x62, 0x63]) }));
  }
  for (const op of OPCODES) for (let i = 0; i < 4; i++) out.push(randomPacket(rng, op.code, 2048));
  return out;
}

function writeFrames(file: string, frames: readonly Uint8Array[]): void {
  writePcap(file, frames.map((data, i) => ({ data, timeNs: cycleToNs(i * 97, 250_000_000) })));
}

describe('external decoders agree with the model', () => {
  it('tshark and scapy are installed (the checks below need them)', () => {
    // Fails, with the install command, rather than letting the checks below skip.
    const probe = path.join(dir, 'probe.pcap');
    writeFrames(probe, [readVectors()[0]!.frame]);
    expect(tsharkDecode(probe).length).toBe(1);
    expect(scapyCheckIcrc(probe).length).toBe(1);
  });

  it('says how to install a missing tool', () => {
    const probe = path.join(dir, 'probe2.pcap');
    writeFrames(probe, [readVectors()[0]!.frame]);
    expect(() => tsharkDecode(probe, { tshark: '/nonexistent/tshark' })).toThrow(ExternalToolMissingError);
    expect(() => tsharkDecode(probe, { tshark: '/nonexistent/tshark' })).toThrow(/apt-get install -y tshark/);
    expect(() => scapyCheckIcrc(probe, { python: '/nonexistent/python3' })).toThrow(/apt-get install -y python3-scapy/);
  });

  it('scapy and tshark accept the shared vectors (the file scapy verified them with)', () => {
    const file = path.join(dir, 'vectors.pcap');
    const vectors = readVectors();
    writeFrames(file, vectors.map(v => v.frame));
    const verdicts = scapyCheckIcrc(file);
    expect(verdicts.map(v => v.status)).toEqual(vectors.map(v => (v.good ? 'ok' : 'bad')));
    const rows = tsharkDecode(file);
    expect(rows.map(r => [r.protocols[4], r.ipChecksumStatus, r.malformed])).toEqual(vectors.map(() => ['infiniband', 'good', false]));
  });

  it('random valid frames: tshark decodes every field as encoded, scapy accepts every ICRC', () => {
    const rng = testRng('external check');
    const pkts = randomTraffic(rng);
    const frames = pkts.map(encodeRoce);
    const file = path.join(dir, 'traffic.pcap');
    writeFrames(file, frames);
    expect(readPcap(file).records.length).toBe(frames.length);

    const rows = tsharkDecode(file);
    expect(rows.length).toBe(frames.length);
    rows.forEach((row, i) => {
      const p = pkts[i]!;
      const what = `frame ${i + 1}: ${describeRoce(p)}`;
      expect(row.frame).toBe(i + 1);
      expect(row.protocols.slice(0, 5), what).toEqual(['eth', 'ethertype', 'ip', 'udp', 'infiniband']);
      expect(row.malformed, what).toBe(false);
      const serious = row.expert.filter(e => e.severity >= EXPERT_SEVERITY.warn);
      expect(serious, `${what}: expert info`).toEqual([]);
      expect(row.ipChecksumStatus, what).toBe('good');
      expect({
        ethDst: row.ethDst, ethSrc: row.ethSrc, ipSrc: row.ipSrc, ipDst: row.ipDst, ttl: row.ipTtl, dscp: row.ipDscp, ecn: row.ipEcn,
        id: row.ipId, df: row.ipDf, ipLength: row.ipLength, udpSrc: row.udpSrcPort, udpDst: row.udpDstPort, udpLength: row.udpLength,
      }, what).toEqual({
        ethDst: formatMac(p.eth.dst), ethSrc: formatMac(p.eth.src), ipSrc: formatIpv4(p.ip.src), ipDst: formatIpv4(p.ip.dst),
        ttl: p.ip.ttl, dscp: p.ip.dscp, ecn: p.ip.ecn, id: p.ip.id, df: p.ip.df, ipLength: frames[i]!.length - 14,
        udpSrc: p.udp.srcPort, udpDst: 4791, udpLength: frames[i]!.length - 34,
      });
      expect({
        opcode: row.opcode, se: row.se, migReq: row.migReq, padCnt: row.padCnt, tver: row.tver, pkey: row.pkey,
        destQp: row.destQp, ackReq: row.ackReq, psn: row.psn, reth: row.reth, aeth: row.aeth,
      }, `${what} (tshark opcode ${opcodeLabel(row.opcode ?? -1)})`).toEqual({
        opcode: p.bth.opcode, se: p.bth.se, migReq: p.bth.migReq, padCnt: (4 - (p.payload.length & 3)) & 3, tver: 0, pkey: p.bth.pkey,
        destQp: p.bth.destQp, ackReq: p.bth.ackReq, psn: p.bth.psn, reth: p.reth ?? null, aeth: p.aeth ?? null,
      });
      expect(row.icrc, what).toBe(carriedIcrc(frames[i]!));
      // Wireshark shows immediate data as a header, the rest (payload and pad) as data.
      expect(row.dataLength, what).toBe(p.payload.length === 0 ? 0 : p.payload.length + ((4 - (p.payload.length & 3)) & 3));
    });

    const verdicts = scapyCheckIcrc(file);
    expect(verdicts.length).toBe(frames.length);
    verdicts.forEach((v, i) => {
      const p = pkts[i]!;
      expect(v, `frame ${i + 1}: ${describeRoce(p)}`).toMatchObject({ frame: i + 1, status: 'ok', opcode: p.bth.opcode, destQp: p.bth.destQp, psn: p.bth.psn });
    });
  });

  it('the checks bite: a corrupted byte fails scapy, a bad IP checksum fails tshark', () => {
    const rng = testRng('external negative');
    const pkts = randomTraffic(rng).slice(0, 20);
    const frames = pkts.map(f => Uint8Array.from(encodeRoce(f)));
    const icrcVictim = rng.int(0, frames.length - 1);
    const f = frames[icrcVictim]!;
    const at = rng.int(14 + 28 + 5, f.length - 5); // DestQP onwards: covered by the ICRC, not masked
    f[at] = f[at]! ^ (1 << rng.int(0, 7));
    const ipVictim = (icrcVictim + 1 + rng.int(0, frames.length - 2)) % frames.length;
    frames[ipVictim]![14 + 8] = frames[ipVictim]![14 + 8]! ^ 0x01; // TTL: masked in the ICRC, covered by the IP checksum
    const file = path.join(dir, 'corrupt.pcap');
    writeFrames(file, frames);

    const verdicts = scapyCheckIcrc(file);
    expect(verdicts.map(v => v.status), `byte ${at} of frame ${icrcVictim + 1} flipped`).toEqual(frames.map((_, i) => (i === icrcVictim ? 'bad' : 'ok')));
    const rows = tsharkDecode(file);
    expect(rows.map(r => r.ipChecksumStatus)).toEqual(frames.map((_, i) => (i === ipVictim ? 'bad' : 'good')));
  });
});
