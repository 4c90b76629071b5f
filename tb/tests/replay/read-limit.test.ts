// The responder's READ limit end to end through `nicgen replay`'s machinery (runReplay on
// nic_top, scenario tb/replay/examples/read-limit.json): READ_LIMIT_PER_QP + 1 READ REQUESTs
// for one QP (READS), made by the TS packet model, in sequence (the expected PSN starts just
// below the 2^24 wrap).
//  - fed as a burst (back to back, before any response can drain): nic_read_responder lets a QP
//    hold READ_LIMIT_PER_QP READs (docs/nic-read.md), so those are answered in full, the last
//    gets NAK 0x61 (invalid request) with its own PSN and the QP goes to ERROR (one more frame,
//    fed after the burst, finds it not ready). tx.pcap is decoded with the TS model: each response
//    packet's opcode, PSN, AETH and payload (the MR's bytes).
//  - fed one at a time: each READ has drained before the next arrives, so all are
//    answered: the burst is what makes the limit visible.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { Opcode, Syndrome } from '../../model/opcodes.ts';
import { decodeRoce, type RocePacket } from '../../model/packet.ts';
import { readPcap } from '../../model/pcap.ts';
import { runReplay, type ReplayResult } from '../../replay/run.ts';
import { loadScenario } from '../../replay/scenario.ts';
import { seededRandom } from '../seed.ts';
import { READS, readFrames } from './read-frames.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../replay/examples/read-limit.json');
const BUILD_TIMEOUT = 900_000;
const hex6 = (n: number): string => `0x${n.toString(16).padStart(6, '0')}`;

describe('replay: the responder answers a READ over its per-QP limit with NAK 0x61', () => {
  const scenario = loadScenario(EXAMPLE);
  const { rng, seed } = seededRandom();
  const hint = `replay with NICGEN_SEED=${seed}`;
  const q = scenario.qps[0]!;
  const { reads, frames, next: after, responses } = readFrames(scenario, rng);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-replay-read-'));
  const txPcap = path.join(dir, 'tx.pcap');
  let burst: ReplayResult, single: ReplayResult;
  const over = READS - 1; // the READ over the limit: the burst answers those before it
  const answered = Array.from({ length: over }, (_, i) => i);

  const key = (p: RocePacket): string => JSON.stringify({ op: p.bth.opcode, psn: hex6(p.bth.psn), aeth: p.aeth, dest: p.bth.destQp, len: p.payload.length, payloadCrc: zlib.crc32(p.payload) });

  beforeAll(async () => {
    burst = await runReplay({ scenario, frames: [...frames, after], bursts: [{ first: 1, last: READS }], txPcap });
    single = await runReplay({ scenario, frames });
  }, BUILD_TIMEOUT);

  it('burst: the READs within the limit accepted, the one over it rejected with NAK 0x61, then the QP is not ready; no disagreement noted', () => {
    const got = burst.rows.map(r => (r.verdict.accepted ? 'accepted' : r.verdict.reason));
    expect(got, `verdicts; ${hint}\n${burst.rows.map(r => `${r.frame}: ${r.verdict.detail} ${r.verdict.note ?? ''}`).join('\n')}`).toEqual([...answered.map(() => 'accepted'), 'invalid-request', 'qp-not-ready']);
    for (const r of burst.rows) expect(r.verdict.note, `frame ${r.frame}: ${hint}`).toBeUndefined();
    expect(burst.rows[over]!.verdict.detail).toBe(`NAK 0x61 for PSN ${hex6(reads[over]!.psn)}`);
    expect(burst.rows.slice(0, READS).map(r => r.input)).toEqual(reads.map(() => [`fed back to back with frames 1-${READS} (burst)`]));
  });

  it('burst: tx.pcap holds the full responses to the READs within the limit and one NAK 0x61 with the last READ\'s PSN', () => {
    const file = readPcap(txPcap);
    const pkts = file.records.map((x, i) => {
      const d = decodeRoce(x.data);
      if (!d.ok) throw new Error(`tx frame ${i + 1} does not decode: ${d.reason} (${d.detail}); ${hint}`);
      return d.pkt;
    });
    const naks = pkts.filter(p => p.bth.opcode === Opcode.ACKNOWLEDGE);
    expect(naks.map(p => ({ syndrome: p.aeth!.syndrome, psn: hex6(p.bth.psn), dest: p.bth.destQp })), hint)
      .toEqual([{ syndrome: Syndrome.NAK_INVALID_REQUEST, psn: hex6(reads[over]!.psn), dest: q.destQpn }]);
    const data = pkts.filter(p => p.bth.opcode !== Opcode.ACKNOWLEDGE);
    const want = answered.flatMap(i => responses(i));
    expect(data.length, `response packets (READ lengths ${reads.map(r => r.len).join(', ')}); ${hint}`).toBe(want.length);
    data.forEach((p, i) => expect(key(p), `response packet ${i + 1}; ${hint}`).toBe(key(want[i]!)));
    // The rows carry the same packets, attributed to the READ that drew them.
    expect(burst.rows.slice(0, READS).map(r => r.replies.length)).toEqual([...answered.map(i => responses(i).length), 1]);
  });

  it('one frame at a time: every READ drains before the next arrives, so all are answered', () => {
    expect(single.rows.map(r => (r.verdict.accepted ? 'accepted' : r.verdict.reason)), hint).toEqual(reads.map(() => 'accepted'));
    single.rows.forEach((r, i) => {
      const got = r.replies.map(x => (x.pkt ? key(x.pkt) : 'undecodable'));
      expect(got, `READ ${i + 1} responses; ${hint}`).toEqual(responses(i).map(key));
    });
  });
});
