// Test bench pieces for nic_tlb: MR tables with scattered pages and page tables at odd
// (8-byte aligned) addresses, per-client request drivers and response checkers against the
// reference model (tb/model/tlb.ts), the page-table memory behind a tb/bfm AxiRam, and the
// MR table's read port (nic_regs' block RAM: the entry one clock after mr_rd_en).

import { ChannelDriver, ChannelReceiver, AxiRam, ClockPhases, watchChannel, type Pause } from '../../bfm/index.ts';
import type { Rng, TestBench } from '../../core/index.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { PageAllocator } from '../../model/page-allocator.ts';
import {
  describeRequest, translate, writePageTable, XLATE, XLATE_NAMES, type MrDesc, type XlateRequest, type XlateResult,
} from '../../model/tlb.ts';
import { readMasterPorts } from './axi-halves.ts';
import { hex } from './support/hex.ts';

export const PT_REGION = 0x0000_0040_0000_0000n;
/** Page-table reads touching this range answer SLVERR. */
export const PT_ERR_LO = PT_REGION + 0x7_0000n, PT_ERR_HI = PT_REGION + 0x7_0400n;
export const ptError = (pte: bigint): boolean => { const line = pte & ~63n; return line < PT_ERR_HI && line + 64n > PT_ERR_LO; };

type Bits = number | bigint;
interface In<T> { value: T; readonly name: string }
interface Out<T> { readonly value: T; readonly name: string }
export interface TlbPorts {
  req: Record<string, { data: In<{ key: Bits; va: Bits; len: Bits; pd: Bits; access: Bits }>; valid: In<number>; ready: Out<number> }>;
  resp: Record<string, { data: Out<{ status: Bits; pa: Bits }>; valid: Out<number>; ready: In<number> }>;
  mr_rd_en: Out<number>;
  mr_rd_addr: Out<number>;
  mr_rd_data: In<unknown>;
  mr_changed: In<{ valid: number; mr: number }>;
  m_axi: object;
  hits: Out<number>;
  misses: Out<number>;
}

export function mrPortValue(mr: MrDesc): Record<string, Bits> {
  return { tag: mr.tag, pd: mr.pd, access: ((mr.valid ? 0x8000_0000 : 0) | mr.access) >>> 0, va: mr.va, len: mr.len, ptBase: mr.ptBase };
}

interface Pending { req: XlateRequest; want: XlateResult; index: number }

const NO_CHANGE = { valid: 0, mr: 0 };

/** Everything around one nic_tlb instance. */
export class TlbBench {
  readonly mem = new HostMemory();
  readonly alloc: PageAllocator;
  readonly ram: AxiRam;
  mrs: MrDesc[] = [];
  readonly drivers: ChannelDriver<XlateRequest>[] = [];
  readonly expected: Pending[][] = [];
  readonly answered: { client: number; req: XlateRequest; got: XlateResult; cycle: number }[] = [];
  /** Requests answered that read (or would read) a PTE: OK with len > 0, or PT_ERROR. */
  translations = 0;
  #ptNext = 0;
  #issued = 0;

  constructor(readonly tb: TestBench, readonly dut: TlbPorts, readonly numMr: number, opts: { reqPause?: Pause; respPause?: Pause; ramLatency?: number; ramFixedLatency?: number; ramBackpressure?: Pause; ramInterleave?: boolean } = {}) {
    this.alloc = new PageAllocator({ base: 0x0000_1234_0000_0000n, pages: 1 << 14, rng: tb.rng.fork() });
    this.ram = new AxiRam(tb, readMasterPorts(dut.m_axi), {
      memory: this.mem, readLatency: { fixed: opts.ramFixedLatency ?? 2, random: opts.ramLatency ?? 30 }, backpressure: opts.ramBackpressure ?? 0.2, stall: 0.1, interleave: opts.ramInterleave ?? false,
      respond: (b, kind) => (kind === 'read' && b.addr < PT_ERR_HI && b.addr + 64n > PT_ERR_LO ? 2 : 0),
    });
    const phases = ClockPhases.of(tb);
    const clients = Object.values(dut.req);
    const outs = Object.values(dut.resp);
    clients.forEach(c => {
      this.drivers.push(new ChannelDriver<XlateRequest>({ valid: c.valid, ready: c.ready }, r => { c.data.value = { ...r }; }, tbPause(tb, opts.reqPause)));
      this.expected.push([]);
    });
    const receivers = outs.map((o, i) => {
      watchChannel(tb, { valid: o.valid, ready: o.ready, payload: { data: o.data } }, `m${i}_xlate_resp`);
      return new ChannelReceiver({ valid: o.valid, ready: o.ready }, () => o.data.value, tbPause(tb, opts.respPause));
    });
    phases.onSample(() => {
      for (const d of this.drivers) d.sample(tb.cycle);
      receivers.forEach((r, i) => {
        const got = r.sample();
        if (got) this.#check(i, { status: Number(got.status), pa: BigInt(got.pa) });
      });
    });
    phases.onDrive(() => { for (const d of this.drivers) d.drive(); for (const r of receivers) r.drive(); });
    this.#mrTablePort(phases);
    dut.mr_changed.value = NO_CHANGE;
  }

  /** A fresh page table address: 8-byte aligned, any offset inside a 64-byte line. */
  ptBaseFor(pages: number): bigint {
    const base = PT_REGION + BigInt(this.#ptNext) + 8n * BigInt(this.tb.rng.int(0, 7));
    this.#ptNext += Math.ceil((pages * 8 + 64) / 4096) * 4096;
    if (PT_REGION + BigInt(this.#ptNext) > PT_ERR_LO) throw new Error('page-table region full');
    return base;
  }

  /** A random MR (valid unless `valid` says otherwise) with its page table written. */
  randomMr(rng: Rng, opts: { valid?: boolean; maxPages?: number } = {}): MrDesc {
    const pages = rng.int(1, opts.maxPages ?? 40);
    const va = (BigInt(rng.int(1, 0x7fff_ffff)) << 12n) + BigInt(rng.int(0, 4095)) + (rng.bool(0.3) ? 0x7000_0000_0000_0000n : 0n);
    const len = BigInt(rng.int(1, pages * 4096));
    const mr: MrDesc = { valid: opts.valid ?? true, tag: rng.int(0, 255), pd: rng.int(0, 3), access: rng.int(0, 7), va, len, ptBase: 0n };
    mr.ptBase = this.ptBaseFor(Number((va + len - 1n) / 4096n - va / 4096n + 1n));
    writePageTable(this.mem, this.alloc, mr, rng);
    return mr;
  }

  /** Put `mrs` in the MR table (reads from the next edge on see it); with `changed`, show
   *  mr_changed for that MR (nic_regs signals one MR per cycle). */
  setTable(mrs: MrDesc[], changed?: number): void {
    this.mrs = mrs;
    this.dut.mr_changed.value = changed === undefined ? NO_CHANGE : { valid: 1, mr: changed };
  }

  /** nic_regs' MR table read port: the entry at mr_rd_addr, registered at the edge where
   *  mr_rd_en is high, then held; an index past the table reads zeros (an invalid MR). */
  #mrTablePort(phases: ClockPhases): void {
    let next: Record<string, Bits> | null = null;
    phases.onSample(() => {
      if (this.dut.mr_rd_en.value !== 1) return;
      const mr = this.mrs[this.dut.mr_rd_addr.value];
      next = mr ? mrPortValue(mr) : { tag: 0, pd: 0, access: 0, va: 0n, len: 0n, ptBase: 0n };
    });
    phases.onDrive(() => {
      if (next) this.dut.mr_rd_data.value = next;
      next = null;
    });
  }

  /** Queue a request on `client`, with the model's answer for the current table. */
  request(client: number, req: XlateRequest): void {
    const want = translate(this.mrs, this.mem, req, ptError);
    this.expected[client]!.push({ req, want, index: this.#issued++ });
    this.drivers[client]!.push(req);
  }

  get outstanding(): number { return this.expected.reduce((a, q) => a + q.length, 0); }

  async drain(what: string, timeout = 50_000): Promise<void> {
    await this.tb.until(() => this.outstanding === 0, { timeout, what });
  }

  #check(client: number, got: XlateResult): void {
    const exp = this.expected[client]!.shift();
    const cycle = this.tb.cycle;
    if (!exp) throw new Error(`client ${client}: response ${show(got)} at cycle ${cycle} with no request outstanding`);
    this.answered.push({ client, req: exp.req, got, cycle });
    if (got.status !== exp.want.status || got.pa !== exp.want.pa) {
      throw new Error(`client ${client}, request #${exp.index} (${describeRequest(exp.req)}) at cycle ${cycle}: got ${show(got)}, want ${show(exp.want)}`);
    }
    if ((got.status === XLATE.OK && exp.req.len > 0) || got.status === XLATE.PT_ERROR) this.translations++;
  }
}

function tbPause(tb: TestBench, p: Pause | undefined): () => boolean {
  const rng = tb.rng.fork();
  if (p === undefined || p === 0) return () => false;
  return typeof p === 'function' ? () => p(rng) : () => rng.bool(p);
}

function show(r: XlateResult): string { return `${XLATE_NAMES[r.status] ?? r.status} pa=${hex(r.pa)}`; }

/** Kinds of random requests, one per check the TLB makes (and the edge cases around it). */
export const REQ_KINDS = ['ok', 'ok', 'ok', 'exact_end', 'zero_len', 'oob_high', 'oob_low', 'bad_tag', 'bad_pd', 'no_access', 'bad_index', 'invalid_mr'] as const;
export type ReqKind = typeof REQ_KINDS[number];

/** A request of `kind` against the table (falls back to 'ok' when the kind is impossible there). */
export function makeRequest(rng: Rng, mrs: readonly MrDesc[], kind: ReqKind, numMr: number): XlateRequest {
  const valid = mrs.map((m, i) => ({ m, i })).filter(x => x.m.valid);
  const { m, i } = rng.pick(valid);
  const key = (i << 8) | m.tag;
  const end = m.va + m.len;
  const need = m.access & rng.int(0, 7);
  const inside = (): { va: bigint; len: number } => {
    const va = m.va + BigInt(Math.floor(rng.float() * Number(m.len)));
    const room = Number(end - va);
    return { va, len: rng.int(1, Math.min(room, rng.bool(0.7) ? 4096 - Number(va % 4096n) : room)) };
  };
  const base = { key, pd: m.pd, access: need, ...inside() };
  switch (kind) {
    case 'ok': return base;
    case 'exact_end': { const len = rng.int(1, Math.min(Number(m.len), 5000)); return { ...base, va: end - BigInt(len), len }; }
    case 'zero_len': return { ...base, len: 0 };
    case 'oob_high': { const len = rng.int(1, Math.min(Number(m.len), 5000)); return { ...base, va: end - BigInt(len) + 1n, len }; }
    case 'oob_low': return m.va > 0n ? { ...base, va: m.va - BigInt(rng.int(1, 64)), len: rng.int(1, 64) } : base;
    // A single flipped bit half the time: every tag bit must be compared.
    case 'bad_tag': return { ...base, key: (i << 8) | (rng.bool() ? m.tag ^ (1 << rng.int(0, 7)) : (m.tag + rng.int(1, 255)) & 0xff) };
    case 'bad_pd': return { ...base, pd: rng.bool() ? m.pd ^ (1 << rng.int(0, 15)) : (m.pd + rng.int(1, 0xfffe)) & 0xffff };
    case 'no_access': { const missing = ~m.access & 7; if (!missing) return base; let a = 0; while (!(a & missing)) a = rng.int(1, 7); return { ...base, access: a }; }
    case 'bad_index': return { ...base, key: rng.bool() ? ((rng.int(numMr, 0xffff) << 8) | m.tag) >>> 0 : (((rng.int(1, 255) << 24) | (i << 8) | m.tag) >>> 0) };
    case 'invalid_mr': { const inv = mrs.findIndex(x => !x.valid); return inv < 0 ? base : { ...base, key: (inv << 8) | mrs[inv]!.tag }; }
  }
}
