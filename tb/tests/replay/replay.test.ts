// `runReplay` on nic_top with a capture made by the TS packet model (capture.ts): WRITE
// FIRST/MIDDLE/LAST and ONLY on two QPs, a corrupted ICRC, unknown QPs, a PSN gap, the gap
// again, a duplicate, PSN wrap. Checked against the model: each frame's verdict and reason,
// the exact ACK/NAK it drew (addresses, QPN, PSN, MSN), both MRs byte for byte, and tx.pcap
// decoded by the TS model, by tshark (every frame RoCE, nothing malformed) and by scapy (ICRC).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tsharkDecode, scapyCheckIcrc, EXPERT_SEVERITY } from '../../model/external-check.ts';
import { formatIpv4, formatMac } from '../../model/headers.ts';
import { Opcode } from '../../model/opcodes.ts';
import { decodeRoce } from '../../model/packet.ts';
import { readPcap } from '../../model/pcap.ts';
import { runReplay, type ReplayResult } from '../../replay/run.ts';
import { loadScenario } from '../../replay/scenario.ts';
import { seededRandom } from '../seed.ts';
import { buildCapture, type Capture } from './capture.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../replay/examples/write-two-qps.json');
const BUILD_TIMEOUT = 900_000;

describe('nicgen replay on nic_top', () => {
  const scenario = loadScenario(EXAMPLE);
  const { seed } = seededRandom();
  const replayHint = `replay with NICGEN_SEED=${seed}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-replay-'));
  const txPcap = path.join(dir, 'tx.pcap');
  let cap: Capture;
  let r: ReplayResult;

  beforeAll(async () => {
    cap = buildCapture(scenario, seed);
    r = await runReplay({ scenario, frames: cap.frames.map(f => f.data), txPcap, dumpDir: path.join(dir, 'dump') });
  }, BUILD_TIMEOUT);

  it('judges every frame as the model expects (accepted, bad ICRC, unknown QP, PSN errors)', () => {
    expect(r.rows.length).toBe(cap.frames.length);
    r.rows.forEach((row, i) => {
      const e = cap.frames[i]!;
      const got = row.verdict.accepted ? 'accepted' : row.verdict.reason;
      expect(got, `frame ${row.frame} (${e.what}, cycles ${row.start}..${row.end}): ${row.verdict.detail}; ${replayHint}`).toBe(e.verdict);
      expect(row.verdict.note, `frame ${row.frame}: the TS model and the NIC disagree`).toBeUndefined();
    });
  });

  it('answers each frame with exactly the ACK/NAK the model expects, addressed to the peer', () => {
    r.rows.forEach((row, i) => {
      const e = cap.frames[i]!;
      const at = `frame ${row.frame} (${e.what}); ${replayHint}`;
      expect(row.replies.length, `${at}: replies ${row.replies.length}`).toBe(e.reply ? 1 : 0);
      if (!e.reply) return;
      const p = row.replies[0]!.pkt;
      expect(p, `${at}: the reply does not decode`).toBeDefined();
      const qp = scenario.qps.find(q => q.index === e.qp)!;
      expect({ op: p!.bth.opcode, syndrome: p!.aeth?.syndrome, psn: p!.bth.psn, msn: p!.aeth?.msn }, at)
        .toEqual({ op: Opcode.ACKNOWLEDGE, syndrome: e.reply.syndrome, psn: e.reply.psn, msn: e.reply.msn });
      expect({ qp: p!.bth.destQp, mac: formatMac(p!.eth.dst), src: formatMac(p!.eth.src), ip: formatIpv4(p!.ip.dst), from: formatIpv4(p!.ip.src), sport: p!.udp.srcPort }, at).toEqual({
        qp: qp.destQpn, mac: formatMac(Number(qp.destMac)), src: formatMac(Number(scenario.nic.mac)),
        ip: formatIpv4(qp.destIp), from: formatIpv4(scenario.nic.ip), sport: qp.udpSport,
      });
    });
  });

  it('leaves each MR exactly as the model says (rejected frames wrote nothing)', () => {
    expect(r.dumps.map(d => d.index)).toEqual(scenario.mrs.map(m => m.index));
    for (const d of r.dumps) {
      const got = fs.readFileSync(d.file), want = cap.mrs.get(d.index)!;
      expect(got.length, `MR ${d.index} dump length`).toBe(want.length);
      const at = got.findIndex((b, k) => b !== want[k]);
      expect(at, `MR ${d.index}: first difference at offset ${at} (got 0x${got[at]?.toString(16)}, expected 0x${want[at]?.toString(16)}); ${replayHint}`).toBe(-1);
    }
  });

  it('writes every transmitted frame to tx.pcap: the model, tshark and scapy all decode them', () => {
    const file = readPcap(txPcap);
    expect(file.records.map(x => Buffer.from(x.data).toString('hex'))).toEqual(r.tx.map(x => Buffer.from(x.data).toString('hex')));
    expect(file.records.length).toBe(cap.frames.filter(f => f.reply).length);
    file.records.forEach((x, i) => { const d = decodeRoce(x.data); expect(d.ok, `tx frame ${i + 1}: ${d.ok ? '' : d.detail}`).toBe(true); });
    const rows = tsharkDecode(txPcap);
    expect(rows.length).toBe(file.records.length);
    for (const row of rows) {
      expect(row.protocols, `tx frame ${row.frame}`).toContain('infiniband');
      expect(row.malformed, `tx frame ${row.frame}`).toBe(false);
      expect(row.ipChecksumStatus, `tx frame ${row.frame}`).toBe('good');
      expect(row.expert.filter(x => x.severity >= EXPERT_SEVERITY.error), `tx frame ${row.frame}`).toEqual([]);
    }
    for (const v of scapyCheckIcrc(txPcap)) expect(v.status, `tx frame ${v.frame}: ICRC carried ${v.carried}, scapy ${v.computed}`).toBe('ok');
  });
});
