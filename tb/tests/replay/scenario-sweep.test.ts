// Every scenario field of docs/replay.md at the ends of its documented range and just outside:
// the values inside are read as given, those outside are refused with the documented one-line
// message (`S.json: <JSON path>: <what>`), never a stack trace or a second line. Then real
// replays with every field at one end of its range at once: a large NIC (numQp 8 of the 256
// nic_top takes — a 64-QP model would take many minutes to build — and numMr 256, the most:
// its own model), and the smallest values on the default NIC; each frame
// judged, answered and written as the TS model says (the capture of replay.test.ts).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runReplay, type ReplayResult } from '../../replay/run.ts';
import { checkScenario, ScenarioError, type Scenario } from '../../replay/scenario.ts';
import { seededRandom } from '../seed.ts';
import { buildCapture } from './capture.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../replay/examples/write-two-qps.json');
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const example = (): Json => JSON.parse(fs.readFileSync(EXAMPLE, 'utf8')) as Json;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-replay-sweep-'));
fs.writeFileSync(path.join(dir, 'init.bin'), new Uint8Array(100).fill(7));

/** A field of the example, by JSON path (`qps[1].pmtu`), to set or delete. */
function setField(j: Json, at: string, value: unknown): void {
  const keys = at.replace(/\[(\d+)\]/g, '.$1').split('.');
  let o = j;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Json;
  const last = keys.at(-1)!;
  if (value !== undefined) o[last] = value;
  else if (Array.isArray(o)) o.splice(Number(last), 1);
  else delete o[last];
}

/** The example with some fields set (undefined deletes one), read; or the refusal's message. */
function read(fields: Readonly<Record<string, unknown>>): Scenario | string {
  const j = example();
  for (const [k, v] of Object.entries(fields)) setField(j, k, v);
  try {
    return checkScenario(j, 'S.json', dir);
  } catch (e) {
    if (e instanceof ScenarioError) return e.message;
    throw e;
  }
}

interface Bound {
  /** JSON path of the field (in the example scenario). */
  readonly field: string;
  /** Values the docs allow, each with what the reader must make of it (a function of the scenario). */
  readonly ok: readonly (readonly [unknown, (s: Scenario) => unknown, unknown])[];
  /** Values just outside, each with the whole message. */
  readonly bad: readonly (readonly [unknown, string])[];
  /** Other fields set with it (a bound that needs a partner). */
  readonly with?: Readonly<Record<string, unknown>>;
}

const M = 'mrs[1]';
const nic = (s: Scenario) => s.nic;
const mem = (s: Scenario) => s.memory;
const qp1 = (s: Scenario) => s.qps[1]!;
const mr1 = (s: Scenario) => s.mrs[1]!;
/** A single-page MR 1 at a free VA (pages/pageTable explicit as in the example). */
const bounds: readonly Bound[] = [
  { field: 'nic.mac', ok: [['00:00:00:00:00:00', s => nic(s).mac, 0n], ['ff:ff:ff:ff:ff:ff', s => nic(s).mac, 0xffffffffffffn]], bad: [['02:00:00:00:00', `S.json: nic.mac: '02:00:00:00:00' is not a MAC address`]] },
  { field: 'nic.ip', ok: [['0.0.0.0', s => nic(s).ip, 0], ['255.255.255.255', s => nic(s).ip, 0xffffffff]], bad: [['256.0.0.1', `S.json: nic.ip: '256.0.0.1' is not an IPv4 address`]] },
  { field: 'nic.ttl', ok: [[0, s => nic(s).ttl, 0], [255, s => nic(s).ttl, 255]], bad: [[256, 'S.json: nic.ttl: 256 does not fit in 8 unsigned bits'], [-1, 'S.json: nic.ttl: -1 does not fit in 8 unsigned bits']] },
  { field: 'nic.dscp', ok: [[0, s => nic(s).dscp, 0], [63, s => nic(s).dscp, 63]], bad: [[64, 'S.json: nic.dscp: 64 does not fit in 6 unsigned bits']] },
  { field: 'nic.numQp', ok: [[2, s => nic(s).numQp, 2], [256, s => nic(s).numQp, 256]], bad: [[257, 'S.json: nic.numQp: 257 is outside 1..256'], [0, 'S.json: nic.numQp: 0 is outside 1..256']] },
  // One QP (qps[1] removed below) for numQp 1.
  { field: 'nic.numMr', ok: [[3, s => nic(s).numMr, 3], [256, s => nic(s).numMr, 256]], bad: [[257, 'S.json: nic.numMr: 257 is outside 1..256'], [0, 'S.json: nic.numMr: 0 is outside 1..256']] },
  { field: 'memory.readLatency', ok: [[0, s => mem(s).readLatency, 0], [1000, s => mem(s).readLatency, 1000]], bad: [[1001, 'S.json: memory.readLatency: 1001 is outside 0..1000']] },
  { field: 'memory.writeLatency', ok: [[0, s => mem(s).writeLatency, 0], [1000, s => mem(s).writeLatency, 1000]], bad: [[1001, 'S.json: memory.writeLatency: 1001 is outside 0..1000']] },
  { field: 'memory.poolPages', ok: [[16, s => mem(s).poolPages, 16], [2 ** 20, s => mem(s).poolPages, 2 ** 20]], bad: [[15, 'S.json: memory.poolPages: 15 is outside 16..1048576'], [2 ** 20 + 1, 'S.json: memory.poolPages: 1048577 is outside 16..1048576']] },
  { field: 'memory.poolBase', ok: [['0x0', s => mem(s).poolBase, 0n], ['0xfffffffffff00000', s => mem(s).poolBase, 0xfffffffffff00000n]], bad: [['0x100000800', 'S.json: memory.poolBase: 0x100000800 is not 4 KiB aligned'], ['0xfffffffffff01000', 'S.json: memory.poolPages: the pool runs past 2^64']], with: { 'memory.poolPages': 256 } },
  { field: 'memory.seed', ok: [[0, s => mem(s).seed, 0], ['0xffffffff', s => mem(s).seed, 0xffffffff]], bad: [['0x100000000', 'S.json: memory.seed: 0x100000000 does not fit in 32 unsigned bits']] },
  { field: 'qps[1].index', ok: [[3, s => qp1(s).index, 3]], bad: [[4, 'S.json: qps[1].index: 4 is outside 0..3'], [0, 'S.json: qps[1].index: QP 0 is already configured by qps[0]']] },
  { field: 'qps[1].qpn', ok: [['0x101', s => qp1(s).qpn, 0x101]], bad: [['0x102', "S.json: qps[1].qpn: QP index 1 answers to QPN 0x101 (0x100 + index); the NIC's QPNs are fixed"]] },
  { field: 'qps[1].captureQpn', ok: [[0, s => qp1(s).captureQpn, 0], ['0xffffff', s => qp1(s).captureQpn, 0xffffff]], bad: [['0x1000000', 'S.json: qps[1].captureQpn: 0x1000000 does not fit in 24 unsigned bits'], ['0x100', "S.json: qps[1].captureQpn: 0x100 already leads to qps[0] (its own QPN)"]] },
  { field: 'qps[1].state', ok: [['INIT', s => qp1(s).state, 'INIT'], ['RTR', s => qp1(s).state, 'RTR'], ['RTS', s => qp1(s).state, 'RTS']], bad: [['ERROR', "S.json: qps[1].state: 'ERROR' is not one of INIT, RTR, RTS"]] },
  { field: 'qps[1].pd', ok: [[0, s => qp1(s).pd, 0], ['0xffff', s => qp1(s).pd, 0xffff]], bad: [['0x10000', 'S.json: qps[1].pd: 0x10000 does not fit in 16 unsigned bits']] },
  { field: 'qps[1].pmtu', ok: [[256, s => qp1(s).pmtuLog2, 8], [4096, s => qp1(s).pmtuLog2, 12]], bad: [[128, 'S.json: qps[1].pmtu: 128 is outside 256..4096'], [8192, 'S.json: qps[1].pmtu: 8192 is outside 256..4096'], [1000, 'S.json: qps[1].pmtu: 1000 is not a power of two (256, 512, 1024, 2048 or 4096)']] },
  { field: 'qps[1].pmtuLog2', with: { 'qps[1].pmtu': undefined }, ok: [[8, s => qp1(s).pmtuLog2, 8], [12, s => qp1(s).pmtuLog2, 12]], bad: [[7, 'S.json: qps[1].pmtuLog2: 7 is outside 8..12'], [13, 'S.json: qps[1].pmtuLog2: 13 is outside 8..12']] },
  { field: 'qps[1].sqPsn', ok: [[0, s => qp1(s).sqPsn, 0], ['0xffffff', s => qp1(s).sqPsn, 0xffffff]], bad: [['0x1000000', 'S.json: qps[1].sqPsn: 0x1000000 does not fit in 24 unsigned bits']] },
  { field: 'qps[1].expPsn', ok: [[0, s => qp1(s).expPsn, 0], ['0xffffff', s => qp1(s).expPsn, 0xffffff]], bad: [['0x1000000', 'S.json: qps[1].expPsn: 0x1000000 does not fit in 24 unsigned bits']] },
  { field: 'qps[1].destQpn', ok: [[0, s => qp1(s).destQpn, 0], ['0xffffff', s => qp1(s).destQpn, 0xffffff]], bad: [['0x1000000', 'S.json: qps[1].destQpn: 0x1000000 does not fit in 24 unsigned bits']] },
  { field: 'qps[1].udpSport', ok: [['0xc000', s => qp1(s).udpSport, 0xc000], ['0xffff', s => qp1(s).udpSport, 0xffff]], bad: [['0xbfff', 'S.json: qps[1].udpSport: 49151 is outside 49152..65535']] },
  { field: 'qps[1].retry', ok: [[0, s => qp1(s).retry, 0], ['0xffff', s => qp1(s).retry, 0xffff]], bad: [['0x10000', 'S.json: qps[1].retry: 0x10000 does not fit in 16 unsigned bits']] },
  { field: 'qps[1].sqSizeLog2', ok: [[1, s => qp1(s).sqSizeLog2, 1], [5, s => qp1(s).sqSizeLog2, 5]], bad: [[0, 'S.json: qps[1].sqSizeLog2: 0 is outside 1..5'], [6, 'S.json: qps[1].sqSizeLog2: 6 is outside 1..5']] },
  { field: 'qps[1].cqSizeLog2', ok: [[1, s => qp1(s).cqSizeLog2, 1], [7, s => qp1(s).cqSizeLog2, 7]], bad: [[0, 'S.json: qps[1].cqSizeLog2: 0 is outside 1..7'], [8, 'S.json: qps[1].cqSizeLog2: 8 is outside 1..7']] },
  { field: `${M}.key`, ok: [['0x0000', s => mr1(s).key, 0], ['0x0fff', s => mr1(s).key, 0xfff]], bad: [['0x1000', 'S.json: mrs[1].key: key 0x1000 names MR slot 16 (key >> 8), but the NIC has 16 (nic.numMr)']] },
  { field: `${M}.index`, with: { [`${M}.key`]: undefined, [`${M}.tag`]: '0xff' }, ok: [[0, s => mr1(s).key, 0xff], [15, s => mr1(s).key, 0xfff]], bad: [[16, 'S.json: mrs[1].index: 16 is outside 0..15'], [1, 'S.json: mrs[1]: MR slot 1 (key 0x1ff) is already used by mrs[0]']] },
  { field: `${M}.tag`, with: { [`${M}.key`]: undefined, [`${M}.index`]: 2 }, ok: [[0, s => mr1(s).tag, 0], ['0xff', s => mr1(s).tag, 0xff]], bad: [['0x100', 'S.json: mrs[1].tag: 0x100 does not fit in 8 unsigned bits']] },
  { field: `${M}.pd`, ok: [[0, s => mr1(s).pd, 0], ['0xffff', s => mr1(s).pd, 0xffff]], bad: [['0x10000', 'S.json: mrs[1].pd: 0x10000 does not fit in 16 unsigned bits']] },
  { field: `${M}.access`, ok: [[0, s => mr1(s).access, 0], [7, s => mr1(s).access, 7], [[], s => mr1(s).access, 0], [['LOCAL_WRITE', 'REMOTE_READ', 'REMOTE_WRITE'], s => mr1(s).access, 7]], bad: [[8, 'S.json: mrs[1].access: 8 does not fit in 3 unsigned bits'], [['ATOMIC'], "S.json: mrs[1].access[0]: 'ATOMIC' is not one of LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE"]] },
  // va at both ends of the 64-bit space (one page, as the example's explicit page list says).
  { field: `${M}.va`, ok: [['0x0', s => mr1(s).va, 0n], ['0xfffffffffffff000', s => mr1(s).va, 0xfffffffffffff000n]], bad: [['0xfffffffffffff001', 'S.json: mrs[1].length: the region runs past 2^64'], ['0x10000000000000000', 'S.json: mrs[1].va: 0x10000000000000000 does not fit in 64 unsigned bits']] },
  { field: `${M}.length`, with: { [`${M}.pages`]: 'auto', [`${M}.pageTable`]: undefined, [`${M}.init`]: undefined }, ok: [[0, s => mr1(s).length, 0], [2 ** 21, s => mr1(s).length, 2 ** 21]], bad: [[2 ** 21 + 1, "S.json: mrs[1].length: needs 513 page-table entries; an 'auto' page table holds 512 (give pageTable explicitly for more)"]] },
  { field: `${M}.length`, with: { [`${M}.pages`]: 'auto', [`${M}.init`]: undefined, 'memory.poolPages': 2 ** 20 }, ok: [[2 ** 26, s => mr1(s).length, 2 ** 26]], bad: [[2 ** 26 + 1, 'S.json: mrs[1].length: 67108865 is outside 0..67108864']] },
  { field: `${M}.pages`, ok: [['auto', s => mr1(s).pages, 'auto'], [['0x200000000'], s => mr1(s).pages, [0x200000000n]]], bad: [[['0x200000800'], 'S.json: mrs[1].pages[0]: 0x200000800 is not 4 KiB aligned'], [['0x100000000'], "S.json: mrs[1].pages[0]: 0x100000000 lies in the loader's page pool (memory.poolBase 0x100000000, 4096 pages); move the pool or the page"], [[], 'S.json: mrs[1].pages: 0 pages listed, but [va, va + length) touches 1 pages of 4 KiB']] },
  { field: `${M}.pageTable`, ok: [['auto', s => mr1(s).pageTable, 'auto'], ['0xfffffffffffffff8', s => mr1(s).pageTable, 0xfffffffffffffff8n]], bad: [['0x200010004', 'S.json: mrs[1].pageTable: 0x200010004 is not 8-byte aligned'], ['0x200000000', 'S.json: mrs[1].pageTable: the page table at 0x200000000 shares page 0x200000000 with mrs[1].pages[0]']] },
  { field: `${M}.init`, ok: [[{ fill: 255 }, s => mr1(s).init.kind, 'bytes'], [{ hex: 'ff'.repeat(4096) }, s => mr1(s).init.kind, 'bytes'], [{ file: 'init.bin', fill: 0 }, s => mr1(s).init.kind, 'bytes'], [{ pattern: 'random', seed: '0xffffffff' }, s => mr1(s).init.kind, 'pattern']], bad: [[{ fill: 256 }, 'S.json: mrs[1].init.fill: 256 does not fit in 8 unsigned bits'], [{ hex: 'ff'.repeat(4097) }, 'S.json: mrs[1].init.hex: 4097 bytes, but the region is 4096 bytes long'], [{ pattern: 'random', seed: '0x100000000' }, 'S.json: mrs[1].init.seed: 0x100000000 does not fit in 32 unsigned bits'], [{ pattern: 'zeros' }, "S.json: mrs[1].init.pattern: 'zeros' is not one of counter, random"]] },
];

describe('replay scenario fields at their documented bounds', () => {
  for (const b of bounds) {
    for (const [value, get, want] of b.ok) {
      it(`${b.field} = ${JSON.stringify(value).slice(0, 40)} is read as given`, () => {
        const s = read({ ...b.with, [b.field]: value });
        expect(typeof s === 'string' ? s : get(s), `${b.field} = ${JSON.stringify(value).slice(0, 60)}`).toEqual(want);
      });
    }
    for (const [value, message] of b.bad) {
      it(`${b.field} = ${JSON.stringify(value).slice(0, 40)} is refused on one line`, () => {
        expect(read({ ...b.with, [b.field]: value })).toBe(message);
      });
    }
  }

  it('numQp 1 with one QP, numMr 1 with one MR', () => {
    const s = read({ 'nic.numQp': 1, 'nic.numMr': 1, 'qps[1]': undefined, 'mrs[1]': undefined, 'mrs[0].key': '0x00ff' });
    expect(typeof s === 'string' ? s : [s.nic.numQp, s.nic.numMr, s.qps.length, s.mrs[0]!.key]).toEqual([1, 1, 1, 0xff]);
  });
});

/** Replays the capture of replay.test.ts (buildCapture) on `s`: every verdict, reply and MR as the model says. */
async function replayMatchesModel(s: Scenario): Promise<ReplayResult> {
  const { seed } = seededRandom();
  const cap = buildCapture(s, seed);
  const out = fs.mkdtempSync(path.join(dir, 'run-'));
  const r = await runReplay({ scenario: s, frames: cap.frames.map(f => f.data), dumpDir: out });
  const hint = `NICGEN_SEED=${seed}`;
  expect(r.rows.map(row => (row.verdict.accepted ? 'accepted' : row.verdict.reason)), hint).toEqual(cap.frames.map(f => f.verdict));
  r.rows.forEach((row, i) => {
    const e = cap.frames[i]!;
    const got = row.replies.map(x => ({ syndrome: x.pkt?.aeth?.syndrome, psn: x.pkt?.bth.psn, msn: x.pkt?.aeth?.msn, destQp: x.pkt?.bth.destQp, sport: x.pkt?.udp.srcPort, ttl: x.pkt?.ip.ttl, dscp: x.pkt?.ip.dscp }));
    const qp = s.qps.find(q => q.index === e.qp);
    const want = e.reply ? [{ ...e.reply, destQp: qp!.destQpn, sport: qp!.udpSport, ttl: s.nic.ttl, dscp: s.nic.dscp }] : [];
    expect(got, `frame ${row.frame} (${e.what}): reply; ${hint}`).toEqual(want);
  });
  for (const d of r.dumps) {
    const got = fs.readFileSync(d.file), wantBytes = cap.mrs.get(d.index)!;
    const at = got.findIndex((x, k) => x !== wantBytes[k]);
    expect([got.length, at], `MR ${d.index}: length, first differing offset; ${hint}`).toEqual([wantBytes.length, -1]);
  }
  return r;
}

function scenario(fields: Readonly<Record<string, unknown>>): Scenario {
  const s = read(fields);
  if (typeof s === 'string') throw new Error(s);
  return s;
}

describe('replays with every field at an end of its range', () => {
  it('the largest: numQp 8, numMr 256, QP 7 and MR slot 255, 64-bit addresses at the top, latencies 1000', async () => {
    const s = scenario({
      'nic.numQp': 8, 'nic.numMr': 256, 'nic.ttl': 255, 'nic.dscp': 63,
      memory: { readLatency: 1000, writeLatency: 1000, poolBase: '0xffffffff00000000', poolPages: 2 ** 20, seed: '0xffffffff' },
      'qps[0].index': 7, 'qps[0].pmtu': 4096, 'qps[0].sqPsn': '0xffffff', 'qps[0].expPsn': '0xffffff', 'qps[0].destQpn': '0xffffff',
      'qps[0].udpSport': '0xffff', 'qps[0].retry': '0xffff', 'qps[0].sqSizeLog2': 5, 'qps[0].cqSizeLog2': 7, 'qps[0].pd': '0xffff',
      'qps[1].captureQpn': '0xffffff', 'qps[1].pmtu': 4096,
      'mrs[0].key': '0xffff', 'mrs[0].pd': '0xffff', 'mrs[0].access': 7, 'mrs[0].va': '0xffffffffffffe000', 'mrs[0].length': 8192, 'mrs[0].init': { pattern: 'random', seed: '0xffffffff' },
      'mrs[1].key': '0xfe00', 'mrs[1].va': '0xfffffffffff00000', 'mrs[1].pages': ['0xfffffffe00000000'], 'mrs[1].pageTable': '0xfffffffe00010ff8', 'mrs[1].access': 7,
    });
    expect([s.nic.numQp, s.nic.numMr, s.qps[0]!.qpn, s.mrs[0]!.index, s.mrs[1]!.index]).toEqual([8, 256, 0x107, 255, 254]);
    await replayMatchesModel(s);
  }, 1_800_000);

  it('the smallest on the default NIC: latencies 0, a 16-page pool at 0, PSNs and QPNs 0, rings of 2, an empty MR', async () => {
    const s = scenario({
      'nic.ttl': 0, 'nic.dscp': 0,
      memory: { readLatency: 0, writeLatency: 0, poolBase: 0, poolPages: 16, seed: 0 },
      'qps[0].pmtuLog2': 8, 'qps[0].pmtu': undefined, 'qps[0].sqPsn': 0, 'qps[0].expPsn': 0, 'qps[0].destQpn': 0, 'qps[0].udpSport': '0xc000',
      'qps[0].retry': 0, 'qps[0].sqSizeLog2': 1, 'qps[0].cqSizeLog2': 1, 'qps[0].pd': 0, 'mrs[0].pd': 0, 'mrs[0].key': '0x0000', 'mrs[0].va': 0,
      'qps[1].expPsn': 0, 'qps[1].captureQpn': 0,
      'mrs[2]': { index: 15, tag: 0, pd: 0, va: 0, length: 0, access: 0 },
    });
    expect([s.memory.poolPages, s.mrs[2]!.length, s.qps[0]!.expPsn]).toEqual([16, 0, 0]);
    await replayMatchesModel(s);
  }, 900_000);
});
