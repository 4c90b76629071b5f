// The replay scenario (docs/replay.md): one NIC, its QPs, its MRs with page tables and initial
// contents, and the host-memory timing. parseScenario checks every field and cross-field rule
// and throws a ScenarioError naming the JSON path of the first bad field; what it returns can
// be loaded without further checks.
//
// Names follow the driver model (tb/model/driver.ts: sqPsn, pd, udpSport, retry, sqSizeLog2 ...)
// so a scenario reads like the calls a test makes.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { LOCAL_QPN_BASE } from '../../gen/nic/flow-types.ts';
import { nicTopParamSpec } from '../../gen/nic/nic-top-build.ts';
import { ACCESS, MR_REGS, QP_REGS, type RegField } from '../../gen/nic/regmap.ts';
import { parseIpv4, parseMac } from '../model/headers.ts';
import { PAGE_BYTES } from '../model/host-memory.ts';
import { keyOf, pageCount } from '../model/tlb.ts';
import { RETRY_RESET } from '../model/driver.ts';
import { parseContents, type Contents } from './contents.ts';
import { checkPhysicalLayout, checkPoolSize } from './layout.ts';
import { JsonAt, ScenarioError } from './json-reader.ts';

export { ScenarioError } from './json-reader.ts';

export interface NicConfig {
  readonly mac: bigint;
  readonly ip: number;
  readonly ttl: number;
  readonly dscp: number;
  readonly numQp: number;
  readonly numMr: number;
}

export interface MemoryConfig {
  /** Cycles from an AXI request to its first response (fixed). */
  readonly readLatency: number;
  readonly writeLatency: number;
  /** Pool the loader takes pages from ('auto' pages, page tables, SQ/CQ rings). */
  readonly poolBase: bigint;
  readonly poolPages: number;
  /** Seeds the loader's choices (pool pages, send-ring junk): same seed, same run. */
  readonly seed: number;
}

export type QpStateName = 'INIT' | 'RTR' | 'RTS';

export interface QpConfig {
  readonly index: number;
  /** LOCAL_QPN_BASE + index: the QPN frames must carry to reach this QP. */
  readonly qpn: number;
  /** The dest QPN the capture's frames carry for this QP, when it is not `qpn` (the QPN of
   *  the implementation the capture was taken from): such frames are rewritten to `qpn`. */
  readonly captureQpn?: number;
  readonly state: QpStateName;
  readonly pd: number;
  readonly pmtuLog2: number;
  readonly sqPsn: number;
  readonly expPsn: number;
  readonly destQpn: number;
  readonly destMac: bigint;
  readonly destIp: number;
  readonly udpSport: number;
  readonly retry: number;
  readonly sqSizeLog2: number;
  readonly cqSizeLog2: number;
}

export interface MrConfig {
  readonly index: number;
  readonly tag: number;
  readonly key: number;
  readonly pd: number;
  /** ACCESS bits 2:0. */
  readonly access: number;
  readonly va: bigint;
  readonly length: number;
  /** Physical page of buffer page k, or 'auto' (taken from the pool). */
  readonly pages: 'auto' | readonly bigint[];
  /** Where the page table goes (8-byte aligned), or 'auto' (a pool page). */
  readonly pageTable: 'auto' | bigint;
  readonly init: Contents;
}

export interface Scenario {
  readonly file: string;
  readonly nic: NicConfig;
  readonly memory: MemoryConfig;
  readonly qps: readonly QpConfig[];
  readonly mrs: readonly MrConfig[];
}

/** One page-table page holds 512 entries; an 'auto' page table lives in one pool page. */
const MAX_AUTO_PT_ENTRIES = PAGE_BYTES / 8;

/** Register widths from the map, so a value the register cannot hold is refused, not cut. */
const widthOf = (regs: readonly RegField[], name: string): number => regs.find(r => r.name === name)!.width;
const QP_PD_BITS = widthOf(QP_REGS, 'PD');
const MR_PD_BITS = widthOf(MR_REGS, 'PD');
const RETRY_BITS = widthOf(QP_REGS, 'RETRY');

const ACCESS_NAMES = { LOCAL_WRITE: ACCESS.LOCAL_WRITE, REMOTE_READ: ACCESS.REMOTE_READ, REMOTE_WRITE: ACCESS.REMOTE_WRITE } as const;

function mac(j: JsonAt): bigint {
  try { return BigInt(parseMac(j.string())); } catch (e) { return j.fail(e instanceof SyntaxError ? e.message : String(e)); }
}

function ipv4(j: JsonAt): number {
  try { return parseIpv4(j.string()); } catch (e) { return j.fail(e instanceof SyntaxError ? e.message : String(e)); }
}

function opt<T>(j: JsonAt, read: (j: JsonAt) => T, dflt: T): T {
  return j.isMissing ? dflt : read(j);
}

function parseNic(j: JsonAt): NicConfig {
  const f = j.required().object(['mac', 'ip', 'ttl', 'dscp', 'numQp', 'numMr']);
  return {
    mac: mac(f['mac']!.required()),
    ip: ipv4(f['ip']!.required()),
    ttl: opt(f['ttl']!, x => x.uint(8), 64),
    dscp: opt(f['dscp']!, x => x.uint(6), 0),
    numQp: opt(f['numQp']!, x => x.uint(16, ...nicTopRange('numQp')), 4),
    // nic_top takes more MRs, but a replay model with hundreds of register-file MRs takes
    // minutes to build; 256 covers any capture's keys (docs/replay.md).
    numMr: opt(f['numMr']!, x => x.uint(16, 1, Math.min(REPLAY_MAX_MR, nicTopRange('numMr')[1])), 16),
  };
}

const REPLAY_MAX_MR = 256;
/** The replay holds each MR's bytes in memory (initial contents, host memory, the dump):
 *  64 MiB each keeps a scenario with many MRs within a Node heap. */
const REPLAY_MAX_MR_BYTES = 2 ** 26;

/** The range nic_top itself accepts (gen/nic/nic-top-build.ts), so a scenario asks for no
 *  model that cannot be generated. */
function nicTopRange(name: 'numQp' | 'numMr'): [number, number] {
  const r = nicTopParamSpec.rules?.[name];
  if (r?.kind !== 'int') throw new Error(`nic_top declares no whole-number range for ${name}`);
  return [r.min, r.max];
}

function parseMemory(j: JsonAt): MemoryConfig {
  const f = (j.isMissing ? new JsonAt({}, j.path) : j).object(['readLatency', 'writeLatency', 'poolBase', 'poolPages', 'seed']);
  const poolBase = opt(f['poolBase']!, x => x.uintBig(64), 0x1_0000_0000n);
  if (poolBase % BigInt(PAGE_BYTES) !== 0n) f['poolBase']!.fail(`0x${poolBase.toString(16)} is not 4 KiB aligned`);
  const poolPages = opt(f['poolPages']!, x => x.uint(32, 16, 1 << 20), 4096);
  if (poolBase + BigInt(poolPages * PAGE_BYTES) > 1n << 64n) f['poolPages']!.fail('the pool runs past 2^64');
  return {
    readLatency: opt(f['readLatency']!, x => x.uint(16, 0, 1000), 4),
    writeLatency: opt(f['writeLatency']!, x => x.uint(16, 0, 1000), 4),
    poolBase, poolPages,
    seed: opt(f['seed']!, x => x.uint(32), 1),
  };
}

function parsePmtu(bytes: JsonAt, log2: JsonAt): number {
  if (!bytes.isMissing && !log2.isMissing) log2.fail('give pmtu (bytes) or pmtuLog2, not both');
  if (!log2.isMissing) return log2.uint(8, 8, 12);
  const b = bytes.required().uint(16, 256, 4096);
  const l = Math.log2(b);
  if (!Number.isInteger(l)) bytes.fail(`${b} is not a power of two (256, 512, 1024, 2048 or 4096)`);
  return l;
}

function parseQp(j: JsonAt, nic: NicConfig): QpConfig {
  const f = j.object(['index', 'qpn', 'captureQpn', 'state', 'pd', 'pmtu', 'pmtuLog2', 'sqPsn', 'expPsn', 'destQpn', 'destMac', 'destIp', 'udpSport', 'retry', 'sqSizeLog2', 'cqSizeLog2']);
  const index = f['index']!.required().uint(8, 0, nic.numQp - 1);
  const qpn = LOCAL_QPN_BASE + index;
  if (!f['qpn']!.isMissing && f['qpn']!.uint(24) !== qpn) {
    f['qpn']!.fail(`QP index ${index} answers to QPN 0x${qpn.toString(16)} (0x${LOCAL_QPN_BASE.toString(16)} + index); the NIC's QPNs are fixed`);
  }
  return {
    index, qpn,
    ...(f['captureQpn']!.isMissing ? {} : { captureQpn: f['captureQpn']!.uint(24) }),
    state: opt(f['state']!, x => x.oneOf(['INIT', 'RTR', 'RTS'] as const), 'RTS'),
    pd: f['pd']!.required().uint(QP_PD_BITS),
    pmtuLog2: parsePmtu(f['pmtu']!, f['pmtuLog2']!),
    sqPsn: opt(f['sqPsn']!, x => x.uint(24), 0),
    expPsn: f['expPsn']!.required().uint(24),
    destQpn: f['destQpn']!.required().uint(24),
    destMac: mac(f['destMac']!.required()),
    destIp: ipv4(f['destIp']!.required()),
    udpSport: opt(f['udpSport']!, x => x.uint(16, 0xc000, 0xffff), 0xc000 | (qpn & 0x3fff)),
    retry: opt(f['retry']!, x => x.uint(RETRY_BITS), RETRY_RESET),
    sqSizeLog2: opt(f['sqSizeLog2']!, x => x.uint(4, 1, 5), 4),
    cqSizeLog2: opt(f['cqSizeLog2']!, x => x.uint(4, 1, 7), 5),
  };
}

function parseAccess(j: JsonAt): number {
  if (typeof j.value === 'number' || typeof j.value === 'string' && /^(0x)?[0-9]/.test(j.value)) return j.uint(3);
  return j.array().reduce((bits, x) => bits | ACCESS_NAMES[x.oneOf(Object.keys(ACCESS_NAMES) as (keyof typeof ACCESS_NAMES)[])], 0);
}

function parseKey(f: Record<string, JsonAt>, nic: NicConfig): { index: number; tag: number } {
  const key = f['key']!, index = f['index']!, tag = f['tag']!;
  if (!key.isMissing) {
    if (!index.isMissing || !tag.isMissing) key.fail('give key, or index and tag, not both');
    const k = key.uint(32);
    const i = k >>> 8;
    if (i >= nic.numMr) key.fail(`key 0x${k.toString(16)} names MR slot ${i} (key >> 8), but the NIC has ${nic.numMr} (nic.numMr)`);
    return { index: i, tag: k & 0xff };
  }
  if (index.isMissing) key.fail('missing: give the MR key (rkey, "0x0105" = slot 1, tag 5), or index and tag');
  return { index: index.uint(8, 0, nic.numMr - 1), tag: opt(tag, x => x.uint(8), 0) };
}

function parsePages(j: JsonAt, va: bigint, length: number): 'auto' | bigint[] {
  if (j.isMissing || j.value === 'auto') return 'auto';
  const items = j.array();
  const want = pageCount({ va, len: BigInt(length) });
  if (items.length !== want) j.fail(`${items.length} pages listed, but [va, va + length) touches ${want} pages of 4 KiB`);
  return items.map(x => {
    const pa = x.uintBig(64);
    if (pa % BigInt(PAGE_BYTES) !== 0n) x.fail(`0x${pa.toString(16)} is not 4 KiB aligned`);
    return pa;
  });
}

function parseMr(j: JsonAt, nic: NicConfig, baseDir: string): MrConfig {
  const f = j.object(['key', 'index', 'tag', 'pd', 'va', 'length', 'access', 'pages', 'pageTable', 'init']);
  const { index, tag } = parseKey(f, nic);
  const va = f['va']!.required().uintBig(64);
  const length = f['length']!.required().uint(32, 0, REPLAY_MAX_MR_BYTES);
  if (va + BigInt(length) > 1n << 64n) f['length']!.fail('the region runs past 2^64');
  const pages = parsePages(f['pages']!, va, length);
  const pageTable = opt<'auto' | bigint>(f['pageTable']!, x => (x.value === 'auto' ? 'auto' : x.uintBig(64)), 'auto');
  if (pageTable !== 'auto' && pageTable % 8n !== 0n) f['pageTable']!.fail(`0x${pageTable.toString(16)} is not 8-byte aligned`);
  if (pageTable === 'auto' && pageCount({ va, len: BigInt(length) }) > MAX_AUTO_PT_ENTRIES) {
    f['length']!.fail(`needs ${pageCount({ va, len: BigInt(length) })} page-table entries; an 'auto' page table holds ${MAX_AUTO_PT_ENTRIES} (give pageTable explicitly for more)`);
  }
  return {
    index, tag, key: keyOf(index, tag),
    pd: f['pd']!.required().uint(MR_PD_BITS),
    access: parseAccess(f['access']!.required()),
    va, length, pages, pageTable,
    init: parseContents(f['init']!, length, baseDir),
  };
}

/** Checks a parsed JSON value. `file` names the scenario in messages; file paths inside it
 *  (MR contents) are relative to `baseDir`. */
export function checkScenario(json: unknown, file: string, baseDir: string): Scenario {
  try {
    return checkFields(json, file, baseDir);
  } catch (e) {
    if (e instanceof ScenarioError) throw e.inFile(file);
    throw e;
  }
}

/** A captured QPN must name one QP: not two, and not another QP's own QPN. */
function checkCaptureQpns(qps: readonly QpConfig[]): void {
  const target = new Map<number, number>();
  qps.forEach((q, i) => target.set(q.qpn, i));
  qps.forEach((q, i) => {
    if (q.captureQpn === undefined) return;
    const prev = target.get(q.captureQpn);
    if (prev !== undefined && prev !== i) {
      throw new ScenarioError(`qps[${i}].captureQpn`, `0x${q.captureQpn.toString(16)} already leads to qps[${prev}] (its ${qps[prev]!.qpn === q.captureQpn ? 'own QPN' : 'captureQpn'})`);
    }
    target.set(q.captureQpn, i);
  });
}

function checkFields(json: unknown, file: string, baseDir: string): Scenario {
  const root = new JsonAt(json).object(['$comment', 'nic', 'memory', 'qps', 'mrs']);
  const nic = parseNic(root['nic']!);
  const memory = parseMemory(root['memory']!);
  const qps = root['qps']!.required().array().map(q => parseQp(q, nic));
  const qpIdx = new Map<number, number>();
  qps.forEach((q, i) => {
    const prev = qpIdx.get(q.index);
    if (prev !== undefined) throw new ScenarioError(`qps[${i}].index`, `QP ${q.index} is already configured by qps[${prev}]`);
    qpIdx.set(q.index, i);
  });
  checkCaptureQpns(qps);
  const mrs = (root['mrs']!.isMissing ? [] : root['mrs']!.array()).map(m => parseMr(m, nic, baseDir));
  const mrIdx = new Map<number, number>();
  mrs.forEach((m, i) => {
    const prev = mrIdx.get(m.index);
    if (prev !== undefined) throw new ScenarioError(`mrs[${i}]`, `MR slot ${m.index} (key 0x${m.key.toString(16)}) is already used by mrs[${prev}]`);
    mrIdx.set(m.index, i);
  });
  checkPhysicalLayout(mrs, memory, (i, field) => `mrs[${i}].${field}`);
  checkPoolSize(mrs, qps.length, memory);
  return { file, nic, memory, qps, mrs };
}

/** Reads and checks a scenario file. */
export function loadScenario(file: string): Scenario {
  let text: string;
  try { text = fs.readFileSync(file, 'utf8'); } catch (e) { throw new ScenarioError('', `cannot read ${file}: ${(e as Error).message}`); }
  let json: unknown;
  try { json = JSON.parse(text); } catch (e) { throw new ScenarioError('', `${file} is not valid JSON: ${(e as Error).message}`); }
  return checkScenario(json, file, path.dirname(path.resolve(file)));
}
