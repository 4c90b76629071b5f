// Counts the NIC's functional coverage (nic-bins.ts) from what the testbench verified: the
// scoreboard's checked completions and passed finish(), and the frames on the link (the bytes
// the wire checks decode). Attached by PairEnv when the run collects coverage
// (TestBench.coverage); a run without it never builds one.

import { CQE_STATUS, WQE_OPCODE } from '../../gen/nic/regmap.ts';
import type { CoverGroup, FunctionalCoverage } from '../../coverage/functional.ts';
import type { CqeFields } from '../model/completion.ts';
import type { FaultStats } from '../nic/link-faults.ts';
import type { ExpectedCompletion, ScoreboardObserver } from '../model/scoreboard.ts';
import { RC_OP } from '../model/wire-expect.ts';
import { NIC_GROUPS, sizeClass, STATUSES, VIOLATIONS, WIRE_OPCODES } from './nic-bins.ts';

/** Path MTU (log2) of a host's QP, from its driver. */
export type PmtuOf = (host: string, qp: number) => number | undefined;

/** Bytes of the 64-bit datapath: an address is aligned when it is a multiple. */
const ALIGN = 8n;

const statusName = (v: number): string => STATUSES.find(s => CQE_STATUS[s] === v) ?? `status ${v}`;
const opName = (v: number): string => (v === WQE_OPCODE.RDMA_WRITE ? 'WRITE' : v === WQE_OPCODE.RDMA_READ ? 'READ' : 'other');
const opcodeName = new Map<number, string>(WIRE_OPCODES.map(n => [RC_OP[n], n]));
const ackKind = new Map<number, string>([[0x60, 'nak-psn-seq'], [0x61, 'nak-invalid-request'], [0x62, 'nak-remote-access'], [0x63, 'nak-remote-op']]);

/** Eth (14) + IPv4 (20) + UDP (8): where the BTH starts in the frames our NICs send. */
const BTH = 42;

/** A READ REQUEST as sent: a later one for its tail is a partial re-request. */
interface ReadAsked { readonly psn: number; readonly va: bigint; readonly end: bigint; readonly rkey: number }
/** READ REQUESTs remembered per QP and direction (a re-request follows its READ closely). */
const READS_KEPT = 8;
/** a - b in 24-bit PSN space, in -2^23 .. 2^23-1. */
const psnDiff = (a: number, b: number): number => ((a - b + 0x1800000) % 0x1000000) - 0x800000;

/** Per QP and direction: the opcode last sent at each request PSN, the highest PSN, recent READs. */
interface RequestTrack { readonly opAt: Map<number, number>; high: number; readonly reads: ReadAsked[] }

type Groups = { readonly [K in keyof typeof NIC_GROUPS]: CoverGroup };

/** What a link's fault model did per direction (tb/nic/link-faults.ts FaultStats), when it has one. */
export type FaultStatsOf = (dir: 'a->b' | 'b->a') => Pick<FaultStats, 'dropped' | 'burstDropped' | 'corrupted' | 'duplicated' | 'reordered' | 'targeted'> | undefined;

export class NicCoverage implements ScoreboardObserver {
  readonly #g: Groups;
  readonly #pmtuOf: PmtuOf;
  /** Last PSN per direction, destination QP and kind, to see the 2^24 wrap. */
  readonly #lastPsn = new Map<string, number>();
  readonly #requests = new Map<string, RequestTrack>();
  #faults: FaultStatsOf | undefined;

  constructor(cov: FunctionalCoverage, pmtuOf: PmtuOf) {
    this.#g = Object.fromEntries(Object.entries(NIC_GROUPS).map(([k, spec]) => [k, cov.group(spec)])) as unknown as Groups;
    this.#pmtuOf = pmtuOf;
  }

  completed(host: string, qp: number, e: ExpectedCompletion, cqe: CqeFields | undefined): void {
    const op = opName(e.wr.opcode);
    const status = statusName(e.status);
    this.#g.status.hit({ status, op });
    if (e.cause !== undefined && op !== 'other' && (VIOLATIONS as readonly string[]).includes(e.cause)) this.#g.violation.hit({ op, cause: e.cause });
    if (op === 'other' || e.status !== CQE_STATUS.SUCCESS) return;
    const pmtuLog2 = this.#pmtuOf(host, qp);
    if (pmtuLog2 === undefined) throw new Error(`coverage: no path MTU for ${host} QP ${qp}`);
    const pmtu = 1 << pmtuLog2;
    const size = sizeClass(e.length, pmtu);
    this.#g.opSize.hit({ op, size });
    this.#g.opPmtu.hit({ op, pmtu });
    this.#g.sizePmtu.hit({ size, pmtu });
    this.#g.opSges.hit({ op, sges: e.wr.sges.length });
    const aligned = (a: bigint): string => (a % ALIGN === 0n ? 'aligned' : 'unaligned');
    const first = e.wr.sges[0];
    if (first) this.#g.opAlign.hit({ op, remote: aligned(e.wr.remoteVa), local: aligned(first.mr.va + BigInt(first.offset)) });
    this.#g.opFlags.hit({ op, signaled: cqe ? 'yes' : 'no', fence: e.wr.fence ? 'yes' : 'no' });
  }

  finished(qps: ReadonlyMap<string, number>): void {
    const busiest = Math.max(0, ...qps.values());
    if (busiest > 0) this.#g.qps.hit({ qps: Math.min(busiest, 4) });
    for (const dir of ['a->b', 'b->a'] as const) {
      const s = this.#faults?.(dir);
      if (!s) continue;
      const did: [string, number][] = [['drop', s.dropped - s.burstDropped], ['burst-drop', s.burstDropped], ['corrupt', s.corrupted],
        ['dup', s.duplicated], ['reorder', s.reordered], ['targeted', s.targeted.reduce((a, x) => a + x, 0)]];
      for (const [fault, n] of did) if (n > 0) this.#g.linkFault.hit({ fault, dir });
    }
  }

  /** The link whose faults finished() bins. */
  watchFaults(f: FaultStatsOf): void { this.#faults = f; }

  /** A NIC's recovery counters after its last CQE (PairEnv.coverRecovery reads them). */
  recovery(host: 'A' | 'B', counters: Readonly<Record<string, number>>): void {
    for (const [counter, n] of Object.entries(counters)) if (n > 0) this.#g.recovery.hit({ counter, host });
  }

  /** A frame as it left a NIC (dir names the sender). Frames that are not RoCEv2 to our
   *  layout are ignored here (the wire checks judge them). */
  frame(dir: string, data: Uint8Array): void {
    if (data.length < BTH + 12) return;
    const name = opcodeName.get(data[BTH]!);
    if (!name) return;
    this.#g.wireOpcode.hit({ opcode: name });
    const op = data[BTH]!;
    const ends = op === RC_OP.WRITE_LAST || op === RC_OP.WRITE_ONLY || op === RC_OP.READ_RESPONSE_LAST || op === RC_OP.READ_RESPONSE_ONLY;
    if (ends) this.#g.wirePad.hit({ kind: op <= RC_OP.WRITE_ONLY ? 'write' : 'read-response', pad: (data[BTH + 1]! >> 4) & 3 });
    if (op === RC_OP.ACK && data.length >= BTH + 13) {
      const syn = data[BTH + 12]!;
      const kind = syn >> 5 === 0 ? 'ack' : ackKind.get(syn);
      if (kind) this.#g.ackKind.hit({ kind });
    }
    if (op === RC_OP.ACK) return;
    const kind = op >= RC_OP.READ_RESPONSE_FIRST ? 'read-response' : 'request';
    const destQp = (data[BTH + 5]! << 16) | (data[BTH + 6]! << 8) | data[BTH + 7]!;
    const psn = (data[BTH + 9]! << 16) | (data[BTH + 10]! << 8) | data[BTH + 11]!;
    const key = `${dir}/${destQp}/${kind}`;
    if (psn === 0 && this.#lastPsn.get(key) === 0xffffff) this.#g.psnWrap.hit({ kind });
    this.#lastPsn.set(key, psn);
    if (kind === 'request') this.#request(`${dir}/${destQp}`, op, psn, data);
  }

  /** A request packet: bins it if it was sent before (same PSN and opcode, not beyond the
   *  highest PSN) or asks for the tail of a recent READ. */
  #request(key: string, op: number, psn: number, data: Uint8Array): void {
    let t = this.#requests.get(key);
    if (!t) this.#requests.set(key, t = { opAt: new Map(), high: psn, reads: [] });
    let again = t.opAt.get(psn) === op && psnDiff(psn, t.high) <= 0;
    if (op === RC_OP.READ_REQUEST && data.length >= BTH + 28) {
      const r = new DataView(data.buffer, data.byteOffset + BTH + 12, 16);
      const va = r.getBigUint64(0), rkey = r.getUint32(8), len = r.getUint32(12);
      const asked: ReadAsked = { psn, va, end: va + BigInt(len), rkey };
      const tail = !again && t.reads.some(p => p.rkey === rkey && p.end === asked.end && va > p.va && psnDiff(psn, p.psn) > 0);
      if (tail) this.#g.retransmission.hit({ kind: 'read-partial' });
      if (again) this.#g.retransmission.hit({ kind: 'read-request' });
      again = false;
      t.reads.push(asked);
      if (t.reads.length > READS_KEPT) t.reads.shift();
    }
    if (again) this.#g.retransmission.hit({ kind: 'write' });
    t.opAt.set(psn, op);
    if (psnDiff(psn, t.high) > 0) t.high = psn;
  }
}
