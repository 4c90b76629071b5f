// The host driver model: what a kernel driver for the NIC does, written against an injected
// register interface (`RegAccess`), so the same code runs over the testbench's AXI4-Lite
// master, over a register model, or over anything else that can read and write 32-bit words.
//
// It owns a HostMemory and a PageAllocator: memory regions get physically scattered pages and
// a page table (tb/model/tlb.ts layout), send rings and completion rings get a page each.
// QPs go RESET -> INIT -> RTR -> RTS as verbs do; WQEs are encoded into the send ring and the
// doorbell (SQ_PI) rung; CQEs are reaped by their phase bit and CQ_CI written back.

import { ACCESS, CQE_BYTES, CQE_FIELDS, MAX_SGE, QP_REGS, QP_STATE, WQE_BYTES, WQE_OPCODE, WQE_FLAG, type LayoutField } from '../../gen/nic/regmap.ts';
import { LOCAL_QPN_BASE } from '../../gen/nic/flow-types.ts';
import type { Rng } from '../core/rng.ts';
import { cqePhase, type CqeFields } from './completion.ts';
import type { ByteRange, HostMemory } from './host-memory.ts';
import { MemoryRegion, type MrInfo } from './mr.ts';
import { globalReg, mrReg, qpReg, type MrRegName, type QpRegName } from './nic-regs.ts';
import type { PageAllocator } from './page-allocator.ts';
import { pageCount, writePageTable } from './tlb.ts';
import { encodeWqe, type SgeFields } from './wqe-fetch.ts';

/** 32-bit register access, e.g. an AxiLiteMaster (`read(addr)`, `write(addr, v)`). */
export interface RegAccess {
  read(addr: number): Promise<number>;
  write(addr: number, value: number): Promise<void>;
}

/** The global counters (ro registers of regmap.ts GLOBAL_REGS but ID). */
export type CounterName = 'TLB_HITS' | 'TLB_MISSES' | 'RX_DROP_ICRC' | 'RX_DROP_OTHER' | 'TX_FRAMES' | 'RX_FRAMES'
  | 'RETX_PKTS' | 'ACK_TIMEOUTS' | 'SEQ_NAK_TX' | 'SEQ_NAK_RX' | 'DUP_REQ_RX' | 'RETRY_EXC';
/** The RETRY register's reset value (retry count 3, RNR retry infinite, ACK timeout 2^20 cycles). */
export const RETRY_RESET = QP_REGS.find(r => r.name === 'RETRY')!.reset;

export interface NicDriverOptions {
  readonly name: string;
  readonly regs: RegAccess;
  readonly mem: HostMemory;
  readonly alloc: PageAllocator;
  readonly rng: Rng;
  readonly numQp: number;
  readonly numMr: number;
  readonly mac: bigint;
  readonly ip: number;
  /** Virtual addresses of MR i start at vaBase + i * 2^32 (plus a page offset). */
  readonly vaBase?: bigint;
  /** RETRY register of a QP whose QpOptions give none (default the register's reset value). */
  readonly qpRetry?: number;
  /** MR slot of a registration that names none: the lowest free one (default), or a random
   *  free one (so a large MR table is used across its whole index range). */
  readonly mrSlots?: 'lowest' | 'random';
}

export interface MrOptions {
  readonly len: number;
  /** ACCESS bits 2:0 (ACCESS.LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE). */
  readonly access: number;
  readonly pd: number;
  /** MR slot; default a free one chosen by NicDriverOptions.mrSlots. */
  readonly index?: number;
  /** Offset of the first byte in its page (default random). */
  readonly pageOffset?: number;
}

export interface QpOptions {
  readonly pd: number;
  /** log2 of the path MTU, 8..12. */
  readonly pmtuLog2: number;
  /** First PSN this QP sends. */
  readonly sqPsn: number;
  /** 1..5: the ring stays inside one 4 KiB page. */
  readonly sqSizeLog2?: number;
  /** 1..7: the ring stays inside one 4 KiB page. */
  readonly cqSizeLog2?: number;
  readonly udpSport?: number;
  /** RETRY register (regmap.ts retryReg): bits 2:0 retry count, 6:4 RNR retry count,
   *  12:8 ACK timeout log2 cycles (0 = none). Default: the register's reset value. */
  readonly retry?: number;
}

/** What the peer needs to know to connect to a QP (exchanged out of band in real life). */
export interface QpAddress {
  readonly qpn: number;
  readonly mac: bigint;
  readonly ip: number;
  /** The PSN its requester starts at (the peer's expected PSN). */
  readonly psn: number;
}

export interface SgeRef { readonly mr: MemoryRegion; readonly offset: number; readonly len: number }

export interface WorkRequest {
  readonly opcode: number;
  readonly wrId: bigint;
  readonly signaled: boolean;
  readonly sges: readonly SgeRef[];
  readonly remoteVa: bigint;
  readonly rkey: number;
  /** Default: the sum of the SGE lengths. */
  readonly length?: number;
  /** WQE_FLAG.FENCE: the NIC starts this WQE only after every earlier READ of its QP completed. */
  readonly fence?: boolean;
}

export class QueuePair {
  readonly index: number;
  readonly qpn: number;
  readonly opts: Required<QpOptions>;
  readonly sqBase: bigint;
  readonly cqBase: bigint;
  /** Free-running producer index (16 bits), software's copy of SQ_PI. */
  pi = 0;
  /** The last SQ_PI written to the NIC (WQEs after it are in the ring but not announced). */
  rungPi = 0;
  /** Last SQ_CI read from the NIC. */
  ciSeen = 0;
  /** CQEs consumed (free-running), software's copy of CQ_CI. */
  cqCi = 0;

  constructor(index: number, opts: Required<QpOptions>, sqBase: bigint, cqBase: bigint) {
    this.index = index;
    this.qpn = LOCAL_QPN_BASE + index;
    this.opts = opts;
    this.sqBase = sqBase;
    this.cqBase = cqBase;
  }

  get sqSize(): number { return 1 << this.opts.sqSizeLog2; }
  get cqSize(): number { return 1 << this.opts.cqSizeLog2; }
  /** Ring memory (send ring and completion ring): the bytes the NIC and driver may change. */
  get ringRanges(): ByteRange[] {
    return [{ addr: this.sqBase, len: WQE_BYTES * this.sqSize }, { addr: this.cqBase, len: CQE_BYTES * this.cqSize }];
  }
}

const lo32 = (v: bigint): number => Number(v & 0xffff_ffffn);
const hi32 = (v: bigint): number => Number((v >> 32n) & 0xffff_ffffn);

export function decodeCqe(b: Uint8Array): CqeFields & { phase: number } {
  return {
    wrId: cqeField(b, CQE_AT.wr_id), byteLen: Number(cqeField(b, CQE_AT.byte_len)), qp: Number(cqeField(b, CQE_AT.qp)),
    opcode: Number(cqeField(b, CQE_AT.opcode)), status: Number(cqeField(b, CQE_AT.status)), syndrome: Number(cqeField(b, CQE_AT.syndrome)),
    phase: cqePhaseByte(b),
  };
}

/** A little-endian field of a CQE. */
function cqeField(b: Uint8Array, f: LayoutField): bigint {
  let v = 0n;
  for (let k = f.size - 1; k >= 0; k--) v = (v << 8n) | BigInt(b[f.offset + k]!);
  return v;
}

/** CQE fields by name, looked up once (the poller decodes CQEs every 16 cycles). */
const CQE_AT = Object.fromEntries(CQE_FIELDS.map(f => [f.name, f])) as Record<typeof CQE_FIELDS[number]['name'], LayoutField>;
const CQE_PHASE_AT = CQE_AT.phase.offset;

/** The phase bit of the CQE in `b` (what decodeCqe gives as `phase`), without decoding the rest. */
function cqePhaseByte(b: Uint8Array): number {
  return b[CQE_PHASE_AT]! & 1;
}

/** Optional observers (statistics such as doorbell-to-CQE latency): they only watch. */
export interface DriverObserver {
  /** A WQE was written at free-running send-ring index `index` (before the doorbell). */
  posted?(qp: QueuePair, wr: WorkRequest, index: number): void;
  /** The SQ_PI write announcing every WQE before `pi` has completed. */
  rung?(qp: QueuePair, pi: number): void;
  /** A CQE was taken from the completion ring. */
  reaped?(qp: QueuePair, cqe: CqeFields): void;
}

export class NicDriver {
  readonly name: string;
  observer: DriverObserver = {};
  readonly regs: RegAccess;
  readonly mem: HostMemory;
  readonly mac: bigint;
  readonly ip: number;
  readonly qps: (QueuePair | undefined)[];
  readonly mrs: (MemoryRegion | undefined)[];
  readonly #alloc: PageAllocator;
  readonly #rng: Rng;
  readonly #vaBase: bigint;
  readonly #qpRetry: number;
  readonly #mrSlots: 'lowest' | 'random';
  /** Last tag used per MR slot: re-registration bumps it, so stale keys fail. */
  readonly #tags: number[];

  constructor(o: NicDriverOptions) {
    this.name = o.name; this.regs = o.regs; this.mem = o.mem; this.mac = o.mac; this.ip = o.ip;
    this.#alloc = o.alloc; this.#rng = o.rng; this.#vaBase = o.vaBase ?? 0x7f00_0000_0000n;
    this.#qpRetry = o.qpRetry ?? RETRY_RESET;
    this.#mrSlots = o.mrSlots ?? 'lowest';
    this.qps = Array.from({ length: o.numQp }, () => undefined);
    this.mrs = Array.from({ length: o.numMr }, () => undefined);
    this.#tags = Array.from({ length: o.numMr }, () => this.#rng.int(0, 255));
  }

  // ---- global ------------------------------------------------------------------------------
  async init(o: { ttl?: number; dscp?: number; irqMod?: number } = {}): Promise<void> {
    const id = await this.regs.read(globalReg('ID'));
    if (id !== 0x4e494331) throw new Error(`${this.name}: ID register reads 0x${id.toString(16)}, not 'NIC1'`);
    await this.regs.write(globalReg('MAC_LO'), lo32(this.mac));
    await this.regs.write(globalReg('MAC_HI'), hi32(this.mac) & 0xffff);
    await this.regs.write(globalReg('IP_ADDR'), this.ip >>> 0);
    await this.regs.write(globalReg('IP_CFG'), ((o.dscp ?? 0) << 8) | (o.ttl ?? 64));
    if (o.irqMod !== undefined) await this.regs.write(globalReg('IRQ_MOD'), o.irqMod >>> 0);
    await this.regs.write(globalReg('CONFIG'), 1);
  }

  async counter(name: CounterName): Promise<number> {
    return this.regs.read(globalReg(name));
  }

  // ---- memory regions ------------------------------------------------------------------------
  async registerMr(o: MrOptions): Promise<MemoryRegion> {
    const index = o.index ?? this.#freeMrSlot();
    if (index < 0 || index >= this.mrs.length) throw new Error(`${this.name}: no free MR slot`);
    const pageOffset = o.pageOffset ?? this.#rng.int(0, 4095);
    const va = this.#vaBase + (BigInt(index) << 32n) + BigInt(pageOffset);
    const entries = Math.max(1, pageCount({ va, len: BigInt(o.len) }));
    if (entries > 512) throw new Error(`${this.name}: MR of ${o.len} bytes needs a page table larger than one page`);
    // The page table lives anywhere 8-byte aligned inside one page of its own.
    const ptBase = this.#alloc.alloc() + BigInt(8 * this.#rng.int(0, 512 - entries));
    const tag = this.#tags[index] = (this.#tags[index]! + 1) & 0xff;
    const desc = { valid: true, tag, pd: o.pd, access: o.access & 7, va, len: BigInt(o.len), ptBase };
    const pages = o.len === 0 ? [] : writePageTable(this.mem, this.#alloc, desc, this.#rng);
    const mr = new MemoryRegion(this.mem, { index, tag, pd: o.pd, access: o.access & 7, va, len: o.len, ptBase, pages });
    await this.programMr(mr);
    this.mrs[index] = mr;
    return mr;
  }

  /** Writes MR slot `mr.index` from its description (page table already in host memory).
   *  Invalid while its fields change, valid last: the NIC never sees a half-written MR. */
  async programMr(mr: MrInfo): Promise<void> {
    const w = (r: MrRegName, v: number): Promise<void> => this.regs.write(mrReg(mr.index, r), v >>> 0);
    await w('ACCESS', 0);
    await w('TAG', mr.tag); await w('PD', mr.pd);
    await w('VA_LO', lo32(mr.va)); await w('VA_HI', hi32(mr.va));
    await w('LEN_LO', mr.len >>> 0); await w('LEN_HI', Math.floor(mr.len / 2 ** 32));
    await w('PT_BASE_LO', lo32(mr.ptBase)); await w('PT_BASE_HI', hi32(mr.ptBase));
    await w('ACCESS', (ACCESS.VALID | mr.access) >>> 0);
  }

  #freeMrSlot(): number {
    if (this.#mrSlots === 'lowest') return this.mrs.findIndex(m => m === undefined);
    const free = this.mrs.flatMap((m, i) => (m === undefined ? [i] : []));
    return free.length ? this.#rng.pick(free) : -1;
  }

  async deregisterMr(mr: MemoryRegion): Promise<void> {
    await this.regs.write(mrReg(mr.index, 'ACCESS'), 0);
    if (this.mrs[mr.index] === mr) this.mrs[mr.index] = undefined;
  }

  // ---- queue pairs ---------------------------------------------------------------------------
  /** RESET (clears the indices), program the context, then INIT. */
  async createQp(index: number, o: QpOptions): Promise<QueuePair> {
    const opts: Required<QpOptions> = {
      sqSizeLog2: 4, cqSizeLog2: 5, udpSport: 0xc000 | this.#rng.int(0, 0x3fff), retry: this.#qpRetry, ...o,
    };
    if (opts.sqSizeLog2 < 1 || opts.sqSizeLog2 > 5) throw new RangeError(`${this.name}: sqSizeLog2 ${opts.sqSizeLog2} outside 1..5`);
    if (opts.cqSizeLog2 < 1 || opts.cqSizeLog2 > 7) throw new RangeError(`${this.name}: cqSizeLog2 ${opts.cqSizeLog2} outside 1..7`);
    const sqBytes = WQE_BYTES << opts.sqSizeLog2, cqBytes = CQE_BYTES << opts.cqSizeLog2;
    const sqBase = this.#alloc.alloc() + BigInt(WQE_BYTES * this.#rng.int(0, (4096 - sqBytes) / WQE_BYTES));
    const cqBase = this.#alloc.alloc() + BigInt(CQE_BYTES * this.#rng.int(0, (4096 - cqBytes) / CQE_BYTES));
    // Garbage in the send ring (the NIC reads only posted slots); a zeroed completion ring,
    // so no stale phase bit looks like a new CQE.
    this.mem.fillRandom(sqBase, sqBytes, this.#rng);
    this.mem.fill(cqBase, cqBytes, 0);
    const qp = new QueuePair(index, opts, sqBase, cqBase);
    const w = (r: QpRegName, v: number): Promise<void> => this.regs.write(qpReg(index, r), v >>> 0);
    await w('STATE', QP_STATE.RESET);
    await w('PMTU', opts.pmtuLog2); await w('PD', opts.pd); await w('SQ_PSN', opts.sqPsn & 0xffffff);
    await w('RETRY', opts.retry); await w('UDP_SPORT', opts.udpSport);
    await w('SQ_BASE_LO', lo32(sqBase)); await w('SQ_BASE_HI', hi32(sqBase)); await w('SQ_SIZE_LOG2', opts.sqSizeLog2);
    await w('CQ_BASE_LO', lo32(cqBase)); await w('CQ_BASE_HI', hi32(cqBase)); await w('CQ_SIZE_LOG2', opts.cqSizeLog2);
    await w('STATE', QP_STATE.INIT);
    this.qps[index] = qp;
    return qp;
  }

  address(qp: QueuePair): QpAddress {
    return { qpn: qp.qpn, mac: this.mac, ip: this.ip, psn: qp.opts.sqPsn & 0xffffff };
  }

  /** INIT -> RTR (peer address, expected PSN) -> RTS, or only to RTR. */
  async connectQp(qp: QueuePair, peer: QpAddress, until: 'RTR' | 'RTS' = 'RTS'): Promise<void> {
    const w = (r: QpRegName, v: number): Promise<void> => this.regs.write(qpReg(qp.index, r), v >>> 0);
    await w('DEST_QPN', peer.qpn); await w('DEST_MAC_LO', lo32(peer.mac)); await w('DEST_MAC_HI', hi32(peer.mac) & 0xffff);
    await w('DEST_IP', peer.ip); await w('EXP_PSN', peer.psn & 0xffffff);
    await w('STATE', QP_STATE.RTR);
    if (until === 'RTS') await w('STATE', QP_STATE.RTS);
  }

  async qpState(qp: QueuePair): Promise<number> { return this.regs.read(qpReg(qp.index, 'STATE')); }
  async qpReg(qp: QueuePair, r: QpRegName): Promise<number> { return this.regs.read(qpReg(qp.index, r)); }

  // ---- send queue ----------------------------------------------------------------------------
  /** Free slots, refreshing SQ_CI from the NIC when the ring looks full (and ringing the
   *  doorbell first if posted WQEs were not announced yet: else the ring never drains). */
  async sqFree(qp: QueuePair): Promise<number> {
    let free = qp.sqSize - ((qp.pi - qp.ciSeen) & 0xffff);
    if (free === 0) {
      if (qp.rungPi !== qp.pi) await this.ring(qp);
      qp.ciSeen = await this.regs.read(qpReg(qp.index, 'SQ_CI'));
      free = qp.sqSize - ((qp.pi - qp.ciSeen) & 0xffff);
    }
    return free;
  }

  /** Writes the WQE into the next slot (no doorbell). The caller checked sqFree(). */
  post(qp: QueuePair, wr: WorkRequest): void {
    if (wr.sges.length > MAX_SGE) throw new RangeError(`${this.name}: ${wr.sges.length} SGEs, at most ${MAX_SGE}`);
    if (((qp.pi - qp.ciSeen) & 0xffff) >= qp.sqSize) throw new Error(`${this.name}: QP ${qp.index} send ring full`);
    const sge: SgeFields[] = Array.from({ length: MAX_SGE }, (_, i) => {
      const s = wr.sges[i];
      return s ? { addr: s.mr.va + BigInt(s.offset), len: s.len, lkey: s.mr.key } : { addr: 0n, len: 0, lkey: 0 };
    });
    const bytes = encodeWqe({
      opcode: wr.opcode, flags: (wr.signaled ? WQE_FLAG.SIGNALED : 0) | (wr.fence ? WQE_FLAG.FENCE : 0), numSge: wr.sges.length,
      length: wr.length ?? wr.sges.reduce((s, x) => s + x.len, 0), wrId: wr.wrId, remoteVa: wr.remoteVa, rkey: wr.rkey, sge,
    });
    const slot = qp.pi & (qp.sqSize - 1);
    this.mem.write(qp.sqBase + BigInt(slot * WQE_BYTES), bytes);
    this.observer.posted?.(qp, wr, qp.pi);
    qp.pi = (qp.pi + 1) & 0xffff;
  }

  /** Doorbell: publish every WQE posted so far. */
  async ring(qp: QueuePair): Promise<void> {
    const pi = qp.pi;
    await this.regs.write(qpReg(qp.index, 'SQ_PI'), pi);
    qp.rungPi = qp.pi;
    this.observer.rung?.(qp, pi);
  }

  async postSend(qp: QueuePair, wr: WorkRequest): Promise<void> {
    while (await this.sqFree(qp) === 0) await this.regs.read(globalReg('ID')); // spin: the NIC fetches
    this.post(qp, wr);
    await this.ring(qp);
  }

  /** An RDMA WRITE of local SGEs to [remoteVa, +length) under rkey. */
  writeRequest(wrId: bigint, sges: readonly SgeRef[], remoteVa: bigint, rkey: number, signaled = true): WorkRequest {
    return { opcode: WQE_OPCODE.RDMA_WRITE, wrId, signaled, sges, remoteVa, rkey };
  }

  /** An RDMA READ of [remoteVa, +length) under rkey into the local SGEs. */
  readRequest(wrId: bigint, sges: readonly SgeRef[], remoteVa: bigint, rkey: number, signaled = true, fence = false): WorkRequest {
    return { opcode: WQE_OPCODE.RDMA_READ, wrId, signaled, sges, remoteVa, rkey, ...(fence ? { fence } : {}) };
  }

  // ---- completion queue ----------------------------------------------------------------------
  /** True when the ring has a new CQE (by its phase bit): what reap(qp, 1) would take, read
   *  without taking it, allocating or decoding. */
  hasCqe(qp: QueuePair): boolean {
    const slot = qp.cqCi & (qp.cqSize - 1);
    this.mem.readInto(qp.cqBase + BigInt(slot * CQE_BYTES + CQE_PHASE_AT), this.#phaseByte);
    return (this.#phaseByte[0]! & 1) === cqePhase(qp.cqCi, qp.opts.cqSizeLog2);
  }

  readonly #phaseByte = new Uint8Array(1);

  /** New CQEs in the ring (by phase bit), without telling the NIC. */
  reap(qp: QueuePair, max = Infinity): (CqeFields & { phase: number })[] {
    const out: (CqeFields & { phase: number })[] = [];
    while (out.length < max) {
      const slot = qp.cqCi & (qp.cqSize - 1);
      const bytes = this.mem.read(qp.cqBase + BigInt(slot * CQE_BYTES), CQE_BYTES);
      // The phase bit first: a poll finds no new CQE in most rounds (no bigints then).
      if (cqePhaseByte(bytes) !== cqePhase(qp.cqCi, qp.opts.cqSizeLog2)) break;
      const c = decodeCqe(bytes);
      out.push(c);
      qp.cqCi = (qp.cqCi + 1) & 0xffff;
      this.observer.reaped?.(qp, c);
    }
    return out;
  }

  /** Reap and hand the slots back (CQ_CI) when any were taken. */
  async pollCq(qp: QueuePair, max = Infinity): Promise<(CqeFields & { phase: number })[]> {
    const got = this.reap(qp, max);
    if (got.length) await this.regs.write(qpReg(qp.index, 'CQ_CI'), qp.cqCi);
    return got;
  }
}
