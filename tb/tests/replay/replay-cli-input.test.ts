// `nicgen replay`'s new input options through the real command: a pcapng of READS READ
// REQUESTs (one over the responder's per-QP limit; TS packet model, read-frames.ts) with 802.1Q
// tags and an FCS the capture does not declare, replayed with --fcs and --burst 1-READS on tb/replay/examples/read-limit.json: the table
// shows the clean-up of each frame, the NAK 0x61 row and the input summary, and tshark reads
// tx.pcap. Then the one-line refusals (exit 1) of an unsupported link type and a bad --burst.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../replay/scenario.ts';
import { seededRandom } from '../seed.ts';
import { withFcs, withVlanTag, writePcapng } from './capture-writers.ts';
import { READS, readFrames, type ReadFrames } from './read-frames.ts';
import { runNicgen, type NicgenRun } from '../cli/run-nicgen.ts';

const SCENARIO = 'tb/replay/examples/read-limit.json';
const BUILD_TIMEOUT = 900_000;
const hex6 = (n: number): string => `0x${n.toString(16).padStart(6, '0')}`;

const nicgen = (...args: string[]): Promise<NicgenRun> => runNicgen(['replay', ...args]);

describe('nicgen replay: pcapng input, --fcs, --burst', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-replay-cli-input-'));
  const input = path.join(dir, 'reads.pcapng');
  const { rng, seed } = seededRandom();
  const hint = `NICGEN_SEED=${seed}`;
  const vids = Array.from({ length: READS }, () => rng.int(1, 4094));
  const over = READS - 1; // the READ over the responder's per-QP limit
  let reads: ReadFrames;

  beforeAll(() => {
    reads = readFrames(loadScenario(SCENARIO), rng);
    // No if_fcslen: the capture does not say the FCS is there, --fcs does.
    writePcapng(input, [{ interfaces: [{ linktype: 1 }], packets: reads.frames.map((f, i) => ({ iface: 0, data: withFcs(withVlanTag(f, vids[i]!)) })) }]);
  });

  it('strips tags and FCS, feeds the READs back to back, and lists the NAK 0x61 for the one over the limit', async () => {
    const out = path.join(dir, 'tx.pcap');
    const r = await nicgen('--scenario', SCENARIO, '--in', input, '--out', out, '--fcs', '--burst', `1-${READS}`, '--progress', '0');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const row = (n: number): string => lines.find(l => new RegExp(`^ *${n}  RDMA_READ_REQUEST `).test(l)) ?? `(no row ${n})\n${r.stdout}`;
    reads.reads.slice(0, over).forEach((_, i) => {
      const first = reads.responses(i)[0]!.bth.psn, last = reads.responses(i).at(-1)!.bth.psn;
      expect(row(i + 1), hint).toMatch(new RegExp(` accepted +READ RESPONSE psn ${hex6(first)}\\.\\.${hex6(last)} \\(${reads.responses(i).length} packets, ${reads.reads[i]!.len} B\\)$`));
    });
    expect(row(READS), `${hint}\n${r.stdout}`).toMatch(new RegExp(`${hex6(reads.reads[over]!.psn)}  rejected: invalid request \\(NAK 0x61\\) +NAK 0x61 psn ${hex6(reads.reads[over]!.psn)} msn \\d+$`));
    const inputs = lines.filter(l => /^ +input: /.test(l));
    expect(inputs.length, r.stdout).toBe(READS);
    inputs.forEach((l, i) => expect(l.trim()).toMatch(new RegExp(`^input: FCS 0x[0-9a-f]{8} stripped \\(good\\); 802\\.1Q tag stripped \\(VID ${vids[i]}\\); fed back to back with frames 1-${READS} \\(burst\\)$`)));
    expect(r.stdout).toContain(`${READS} frames replayed: ${over} accepted, 1 rejected (invalid request (NAK 0x61) 1)`);
    expect(r.stdout).toContain(`input: ${input} (pcapng, Ethernet): ${READS} frames; VLAN tags stripped ${READS}, FCS stripped ${READS}\n`);
    const want = reads.reads.slice(0, over).reduce((n, _, i) => n + reads.responses(i).length, 0) + 1;
    expect(r.stdout).toContain(`the NIC sent ${want} frames -> ${out}`);
    const opcodes = execFileSync('tshark', ['-r', out, '-T', 'fields', '-e', 'infiniband.bth.opcode'], { encoding: 'utf8' }).trim().split('\n');
    expect(opcodes.length).toBe(want);
    expect(opcodes.filter(o => o === '17').length, 'tshark: one ACKNOWLEDGE (the NAK)').toBe(1);
  }, BUILD_TIMEOUT);

  it('refuses a capture with a link type it cannot replay, naming the file and the packet, exit 1', async () => {
    const bad = path.join(dir, 'rawip.pcapng');
    writePcapng(bad, [{ interfaces: [{ linktype: 1 }, { linktype: 101 }], packets: [{ iface: 0, data: reads.frames[0]! }, { iface: 1, data: reads.frames[1]!.subarray(14) }] }]);
    const r = await nicgen('--scenario', SCENARIO, '--in', bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`nicgen replay: --in ${bad}: packet 2: link type 101 (raw IP) cannot be replayed; supported: Ethernet (1), Linux cooked SLL (113), Linux cooked SLL2 (276)\n`);
    expect(r.stdout).toBe('');
  });

  it('refuses a --burst that is not a range of the capture\'s frames, exit 1', async () => {
    const r = await nicgen('--scenario', SCENARIO, '--in', input, '--burst', `2-${READS + 2}`);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`nicgen replay: --burst 2-${READS + 2}: 2-${READS + 2} must name at least two frames within 1-${READS}\n`);
  });
});
