// The replay scenario reader: the example parses to the values it states, initial contents
// materialize as documented, and every kind of mistake is refused with the JSON path of the
// field at fault (mutations of the example, one per case).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { materialize } from '../../replay/contents.ts';
import { checkScenario, loadScenario, ScenarioError } from '../../replay/scenario.ts';
import { testRng } from '../seed.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../replay/examples/write-two-qps.json');
const example = (): Record<string, any> => JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function refused(mutate: (j: Record<string, any>) => void, dir = os.tmpdir()): ScenarioError { // eslint-disable-line @typescript-eslint/no-explicit-any
  const j = example();
  mutate(j);
  try {
    checkScenario(j, 'x.json', dir);
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error(`accepted a scenario that should be refused: ${JSON.stringify(j)}`);
}

describe('replay scenario', () => {
  it('reads the example: addresses, PSNs, keys, pages and defaults', () => {
    const s = loadScenario(EXAMPLE);
    expect(s.nic).toEqual({ mac: 0x02000000000bn, ip: 0x0a000002, ttl: 64, dscp: 26, numQp: 4, numMr: 16 });
    expect(s.memory).toEqual({ readLatency: 4, writeLatency: 4, poolBase: 0x1_0000_0000n, poolPages: 4096, seed: 1 });
    expect(s.qps.map(q => [q.index, q.qpn, q.state, q.pmtuLog2, q.expPsn, q.sqPsn, q.destQpn, q.udpSport])).toEqual([
      [0, 0x100, 'RTS', 8, 0x100, 0x200, 0x11, 0xc100],
      [1, 0x101, 'RTS', 9, 0xfffffe, 0, 0x12, 49999],
    ]);
    expect(s.qps[0]!.destMac).toBe(0x02000000000an);
    expect([s.qps[0]!.captureQpn, s.qps[1]!.captureQpn]).toEqual([undefined, 0xd2]);
    expect(s.mrs.map(m => [m.index, m.tag, m.key, m.pd, m.access, m.va, m.length])).toEqual([
      [1, 5, 0x105, 1, 4, 0x7f0000001100n, 6000],
      [2, 0x33, 0x233, 2, 6, 0x7f0000100000n, 4096],
    ]);
    expect(s.mrs[0]!.pages).toBe('auto');
    expect(s.mrs[1]!.pages).toEqual([0x2_0000_0000n]);
    expect(s.mrs[1]!.pageTable).toBe(0x2_0001_0000n);
  });

  it('materializes contents: fill, hex then fill, file, counter, seeded random', () => {
    const rng = testRng('replay contents');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-replay-'));
    const data = rng.bytes(rng.int(1, 64));
    fs.writeFileSync(path.join(dir, 'init.bin'), data);
    const len = 100;
    const mrWith = (init: unknown) => {
      const j = example();
      j['mrs'][1].init = init;
      return materialize(checkScenario(j, 'x.json', dir).mrs[1]!.init, len);
    };
    expect([...mrWith({ fill: 0xa5 })]).toEqual(Array(len).fill(0xa5));
    expect([...mrWith({ hex: 'de ad be ef', fill: 7 })]).toEqual([0xde, 0xad, 0xbe, 0xef, ...Array(len - 4).fill(7)]);
    expect([...mrWith({ file: 'init.bin' })]).toEqual([...data, ...Array(len - data.length).fill(0)]);
    expect([...mrWith({ pattern: 'counter' })]).toEqual(Array.from({ length: len }, (_, i) => i & 0xff));
    const r1 = mrWith({ pattern: 'random', seed: 9 }), r2 = mrWith({ pattern: 'random', seed: 9 }), r3 = mrWith({ pattern: 'random', seed: 10 });
    expect(r1).toEqual(r2);
    expect(r1).not.toEqual(r3);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const cases: [string, (j: Record<string, any>) => void, string, RegExp][] = [ // eslint-disable-line @typescript-eslint/no-explicit-any
    ['a bad MAC', j => { j['nic'].mac = '02:00:00:00:0b'; }, 'nic.mac', /not a MAC address/],
    ['a bad IPv4 address', j => { j['qps'][1].destIp = '10.0.0.256'; }, 'qps[1].destIp', /not an IPv4 address/],
    ['a misspelt field', j => { j['qps'][0].expPSN = 5; }, 'qps[0].expPSN', /unknown field \(known: index, qpn, captureQpn, state/],
    ['a missing field', j => { delete j['qps'][0].expPsn; }, 'qps[0].expPsn', /missing/],
    ['a PMTU that is not a power of two', j => { j['qps'][1].pmtu = 300; }, 'qps[1].pmtu', /not a power of two/],
    ['a QP index beyond numQp', j => { j['qps'][1].index = 4; }, 'qps[1].index', /outside 0\.\.3/],
    ['more QPs than nic_top has', j => { j['nic'].numQp = 257; }, 'nic.numQp', /^x\.json: nic\.numQp: 257 is outside 1\.\.256$/],
    ['no QP at all', j => { j['nic'].numQp = 0; }, 'nic.numQp', /0 is outside 1\.\.256$/],
    ['more MRs than a replay model has', j => { j['nic'].numMr = 257; }, 'nic.numMr', /^x\.json: nic\.numMr: 257 is outside 1\.\.256$/],
    ['a QPN that does not match the index', j => { j['qps'][1].qpn = '0x000105'; }, 'qps[1].qpn', /answers to QPN 0x101/],
    ['a captureQpn that is another QP\'s own QPN', j => { j['qps'][1].captureQpn = '0x100'; }, 'qps[1].captureQpn', /0x100 already leads to qps\[0\] \(its own QPN\)/],
    ['the same QP twice', j => { j['qps'][1].index = 0; }, 'qps[1].index', /already configured by qps\[0\]/],
    ['a PSN wider than 24 bits', j => { j['qps'][0].expPsn = '0x1000000'; }, 'qps[0].expPsn', /does not fit in 24 unsigned bits/],
    ['a PD wider than the PD register', j => { j['qps'][0].pd = 70000; }, 'qps[0].pd', /70000 does not fit in 16 unsigned bits/],
    ['an unknown state', j => { j['qps'][0].state = 'SQD'; }, 'qps[0].state', /not one of INIT, RTR, RTS/],
    ['a key naming a slot beyond numMr', j => { j['mrs'][0].key = '0x1105'; }, 'mrs[0].key', /slot 17 .* has 16/],
    ['key and index together', j => { j['mrs'][0].index = 1; }, 'mrs[0].key', /not both/],
    ['two MRs in one slot', j => { j['mrs'][1].key = '0x0107'; }, 'mrs[1]', /slot 1 .* already used by mrs\[0\]/],
    ['a VA beyond what a JSON number holds', j => { j['mrs'][0].va = 2 ** 60 + 1; }, 'mrs[0].va', /"0x\.\.\." string/],
    ['an unknown access right', j => { j['mrs'][0].access = ['REMOTE_WRITE', 'ATOMIC']; }, 'mrs[0].access[1]', /not one of LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE/],
    ['an unaligned page', j => { j['mrs'][1].pages = ['0x200000800']; }, 'mrs[1].pages[0]', /not 4 KiB aligned/],
    ['too few pages for the region', j => { j['mrs'][1].va = '0x7f0000100010'; }, 'mrs[1].pages', /1 pages listed, .* touches 2 pages/],
    ['a page inside the loader pool', j => { j['mrs'][1].pages = ['0x100003000']; }, 'mrs[1].pages[0]', /lies in the loader's page pool/],
    ['a page table on an MR page', j => { j['mrs'][1].pageTable = '0x200000ff8'; }, 'mrs[1].pageTable', /shares page 0x200000000 with mrs\[1\]\.pages\[0\]/],
    ['a page table on a page another MR lists later', j => { j['mrs'][0].pageTable = '0x200000008'; }, 'mrs[0].pageTable', /shares page 0x200000000 with mrs\[1\]\.pages\[0\]/],
    ['two page tables overlapping', j => { j['mrs'][0].pageTable = '0x200010000'; }, 'mrs[1].pageTable', /overlaps the one of mrs\[0\]\.pageTable/],
    ['a pool too small for the auto pages and rings', j => { j['memory'].poolPages = 16; j['mrs'][0].length = 14 * 4096; }, 'memory.poolPages', /16 pages, but the 'auto' pages, page tables and QP rings need 20/],
    ['contents longer than the region', j => { j['mrs'][1].init = { hex: '00'.repeat(4097) }; }, 'mrs[1].init.hex', /4097 bytes, but the region is 4096 bytes long/],
    ['odd hex digits', j => { j['mrs'][1].init = { hex: 'abc' }; }, 'mrs[1].init.hex', /two per byte/],
    ['a contents file that does not exist', j => { j['mrs'][1].init = { file: 'nope.bin' }; }, 'mrs[1].init.file', /cannot read .*nope\.bin/],
    ['two kinds of contents', j => { j['mrs'][1].init = { hex: '00', pattern: 'counter' }; }, 'mrs[1].init.pattern', /give one of hex, file, pattern/],
    ['an auto page table too big for a page', j => { j['mrs'][0].length = 513 * 4096; }, 'mrs[0].length', /needs 514 page-table entries/],
  ];
  for (const [what, mutate, at, message] of cases) {
    it(`refuses ${what}, naming ${at}`, () => {
      const e = refused(mutate);
      expect(e.path, e.message).toBe(at);
      expect(e.message).toMatch(message);
      expect(e.message.startsWith(`x.json: ${at}: `), e.message).toBe(true);
    });
  }

  it('docs/replay.md shows the example file as it is', () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/replay.md'), 'utf8');
    const block = /### Example \(`tb\/replay\/examples\/write-two-qps\.json`\)[\s\S]*?```json\n([\s\S]*?)```/.exec(doc);
    expect(block, 'the example section of docs/replay.md').not.toBeNull();
    expect(JSON.parse(block![1]!)).toEqual(example());
  });

  it('names the file and the JSON error for a file that is not JSON', () => {
    const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-replay-')), 'bad.json');
    fs.writeFileSync(f, '{ "nic": ');
    expect(() => loadScenario(f)).toThrow(new RegExp(`^${f.replace(/[.]/g, '\\.')} is not valid JSON`));
  });
});
