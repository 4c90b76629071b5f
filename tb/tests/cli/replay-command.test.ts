// `nicgen replay` end to end: spawns the real command on a capture made by the TS packet
// model for the example scenario (tb/tests/replay/capture.ts) and checks the table, the
// summary, the files it writes, the progress lines and the exit codes; then the one-line
// refusals (exit 1) of a bad scenario and of bad inputs, which need no simulation.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writePcap } from '../../model/pcap.ts';
import { loadScenario } from '../../replay/scenario.ts';
import { REASON_TEXT } from '../../replay/verdict.ts';
import { seededRandom } from '../seed.ts';
import { buildCapture, type Capture } from '../replay/capture.ts';
import { runNicgen, type NicgenRun } from './run-nicgen.ts';

const EXAMPLE = 'tb/replay/examples/write-two-qps.json';
const BUILD_TIMEOUT = 900_000;

const nicgen = (...args: string[]): Promise<NicgenRun> => runNicgen(['replay', ...args]);

describe('nicgen replay', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-replay-cli-'));
  const input = path.join(dir, 'in.pcap');
  const { seed } = seededRandom();
  let cap: Capture;

  beforeAll(() => {
    cap = buildCapture(loadScenario(EXAMPLE), seed);
    writePcap(input, cap.frames.map((f, i) => ({ data: f.data, timeNs: BigInt(i) * 1000n })));
  });

  it('prints a row per frame with its verdict and reply, a summary, writes tx.pcap and the MR dumps, exit 0', async () => {
    const out = path.join(dir, 'tx.pcap'), dump = path.join(dir, 'dump');
    const r = await nicgen('--scenario', EXAMPLE, '--in', input, '--out', out, '--dump', dump, '--progress', '0');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^ *# +opcode +dest QP +PSN +verdict +NIC sent$/);
    cap.frames.forEach((f, i) => {
      const row = lines.find(l => new RegExp(`^ *${i + 1}  `).test(l));
      const verdict = f.verdict === 'accepted' ? 'accepted' : `rejected: ${REASON_TEXT[f.verdict]}`;
      expect(row, `frame ${i + 1} (${f.what}) row; NICGEN_SEED=${seed}\n${r.stdout}`).toContain(verdict);
      const reply = f.reply ? `${f.reply.syndrome === 0x1f ? 'ACK' : `NAK 0x${f.reply.syndrome.toString(16)}`} psn 0x${f.reply.psn.toString(16).padStart(6, '0')} msn ${f.reply.msn}` : '-';
      expect(row!.endsWith(`  ${reply}`), `frame ${i + 1} reply column: ${row}`).toBe(true);
    });
    const rejected = cap.frames.filter(f => f.verdict !== 'accepted').length;
    expect(r.stdout).toContain(`${cap.frames.length} frames replayed: ${cap.frames.length - rejected} accepted, ${rejected} rejected (`);
    expect(r.stdout).toContain(`the NIC sent ${cap.frames.filter(f => f.reply).length} frames -> ${out}`);
    for (const m of [1, 2]) expect(r.stdout).toContain(`-> ${path.join(dump, `mr-${m}.bin`)}`);
    expect([...fs.readFileSync(path.join(dump, 'mr-2.bin'))]).toEqual([...cap.mrs.get(2)!]);
    expect(fs.statSync(out).size).toBeGreaterThan(24);
    const progress = r.stderr.split('\n').filter(l => l.startsWith('replay: frame '));
    expect(progress.length, r.stderr).toBe(cap.frames.length);
    expect(progress.at(-1)).toMatch(new RegExp(`^replay: frame ${cap.frames.length}/${cap.frames.length}, cycle [0-9,]+ \\([0-9.]+ (ns|µs|ms) simulated\\), [0-9.]+ s$`));
  }, BUILD_TIMEOUT);

  it('--expect-all-accepted: exit 1 naming how many frames were rejected; --rejected-only lists just those', async () => {
    const wave = path.join(dir, 'run.fst');
    const r = await nicgen('--scenario', EXAMPLE, '--in', input, '--expect-all-accepted', '--rejected-only', '--wave', wave);
    const rejected = cap.frames.filter(f => f.verdict !== 'accepted').length;
    expect(r.code, r.stderr).toBe(1);
    // --wave: the dump and its GTKWave savefile beside it.
    const savefile = path.join(dir, 'run.gtkw');
    expect(r.stdout).toContain(`waves: ${wave}, GTKWave savefile ${savefile} (nicgen wave ${wave}), clock period 4 ns`);
    expect(fs.readFileSync(savefile, 'utf8')).toContain(`[dumpfile] "${wave}"`);
    expect(r.stderr).toContain(`nicgen replay: --expect-all-accepted: ${rejected} of ${cap.frames.length} frames were rejected\n`);
    const rows = r.stdout.split('\n').filter(l => /^ *\d+  /.test(l));
    expect(rows.length).toBe(rejected);
    for (const l of rows) expect(l).toContain('rejected: ');
  }, BUILD_TIMEOUT);

  it('refuses a bad scenario with one line naming the file and the JSON path, exit 1', async () => {
    const bad = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as { qps: { pmtu?: number }[] };
    bad.qps[1]!.pmtu = 300;
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(file, JSON.stringify(bad));
    const r = await nicgen('--scenario', file, '--in', input);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`nicgen replay: ${file}: qps[1].pmtu: 300 is not a power of two (256, 512, 1024, 2048 or 4096)\n`);
    expect(r.stdout).toBe('');
  });

  it('refuses missing or unreadable inputs with one line, exit 1', async () => {
    const notPcap = path.join(dir, 'not.pcap');
    fs.writeFileSync(notPcap, 'hello, this is not a capture');
    const cases: [string[], RegExp][] = [
      [['--in', input], /^nicgen replay: name the scenario with --scenario FILE/],
      [['--scenario', EXAMPLE], /^nicgen replay: name the capture to replay with --in FILE\.pcap/],
      [['--scenario', EXAMPLE, '--in', path.join(dir, 'nope.pcap')], /^nicgen replay: --in .*nope\.pcap: no such file/],
      [['--scenario', EXAMPLE, '--in', notPcap], /^nicgen replay: --in .*not\.pcap: unknown pcap magic/],
      [['--scenario', EXAMPLE, '--in', input, '--out', path.join(dir, 'no', 'such', 'tx.pcap')], /^nicgen replay: --out .*: folder .* does not exist/],
      [['--scenario', EXAMPLE, '--in', input, '--settle', '0'], /^nicgen replay: --settle must be a whole number >= 1, got 0/],
    ];
    for (const [args, message] of cases) {
      const r = await nicgen(...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr.trimEnd().split('\n').length, r.stderr).toBe(1);
    }
  });
});
