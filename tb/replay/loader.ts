// Puts one nic_top into the state a scenario describes, the way a host driver would: host
// memory behind an AXI RAM model, the NIC programmed over AXI4-Lite by the driver model
// (global registers, QPs with their rings), and each MR written at the scenario's VA, on the
// scenario's physical pages, with its page table and initial contents.
//
// MRs are programmed here rather than with NicDriver.registerMr because a replay must match
// the capture: the VA and key come from the frames' RETHs, and the physical pages may be
// given; the driver picks its own VA, tag and pages.

import type { IOOf } from '../../gen/hdl/index.ts';
import type { nicTop } from '../../gen/nic/nic-top.ts';
import { AxiLiteMaster, AxiRam } from '../bfm/index.ts';
import type { DutOf, TestBench } from '../core/index.ts';
import { Rng } from '../core/rng.ts';
import { NicDriver, type QueuePair } from '../model/driver.ts';
import { HostMemory } from '../model/host-memory.ts';
import { MemoryRegion } from '../model/mr.ts';
import { PageAllocator } from '../model/page-allocator.ts';
import { pageCount } from '../model/tlb.ts';
import { materialize } from './contents.ts';
import type { MrConfig, QpConfig, Scenario } from './scenario.ts';

export type TopDut = DutOf<NonNullable<IOOf<typeof nicTop>>>;

export interface LoadedNic {
  readonly mem: HostMemory;
  readonly ram: AxiRam;
  readonly axil: AxiLiteMaster;
  readonly drv: NicDriver;
  readonly qps: ReadonlyMap<number, QueuePair>;
  /** By MR slot. */
  readonly mrs: ReadonlyMap<number, MemoryRegion>;
}

async function loadQp(drv: NicDriver, q: QpConfig): Promise<QueuePair> {
  const qp = await drv.createQp(q.index, {
    pd: q.pd, pmtuLog2: q.pmtuLog2, sqPsn: q.sqPsn, sqSizeLog2: q.sqSizeLog2, cqSizeLog2: q.cqSizeLog2, udpSport: q.udpSport, retry: q.retry,
  });
  if (q.state !== 'INIT') await drv.connectQp(qp, { qpn: q.destQpn, mac: q.destMac, ip: q.destIp, psn: q.expPsn }, q.state);
  return qp;
}

/** Page table and pages in host memory, then the MR registers (valid last). */
async function loadMr(drv: NicDriver, mem: HostMemory, alloc: PageAllocator, m: MrConfig): Promise<MemoryRegion> {
  const entries = pageCount({ va: m.va, len: BigInt(m.length) });
  const pages = m.pages === 'auto' ? alloc.allocMany(entries) : [...m.pages];
  const ptBase = m.pageTable === 'auto' ? alloc.alloc() : m.pageTable;
  pages.forEach((pa, k) => mem.writeU64(ptBase + 8n * BigInt(k), pa));
  const mr = new MemoryRegion(mem, { index: m.index, tag: m.tag, pd: m.pd, access: m.access, va: m.va, len: m.length, ptBase, pages });
  mr.write(0, materialize(m.init, m.length));
  await drv.programMr(mr);
  return mr;
}

/** Builds the host around the DUT, resets it and programs the scenario. */
export async function loadNic(dut: TopDut, tb: TestBench, s: Scenario): Promise<LoadedNic> {
  const mem = new HostMemory();
  const ram = new AxiRam(tb, dut.m_axi, {
    name: 'm_axi', memory: mem, readLatency: s.memory.readLatency, writeLatency: s.memory.writeLatency, reorder: false,
  });
  const axil = new AxiLiteMaster(tb, dut.s_axil, { name: 's_axil' });
  // The loader's choices come from the scenario's seed, not the run's: same scenario, same run.
  const rng = new Rng(s.memory.seed);
  const alloc = new PageAllocator({ base: s.memory.poolBase, pages: s.memory.poolPages, rng: rng.fork() });
  const drv = new NicDriver({ name: 'nic', regs: axil, mem, alloc, rng: rng.fork(), numQp: s.nic.numQp, numMr: s.nic.numMr, mac: s.nic.mac, ip: s.nic.ip });
  await tb.reset(4);
  await drv.init({ ttl: s.nic.ttl, dscp: s.nic.dscp });
  const qps = new Map<number, QueuePair>();
  for (const q of s.qps) qps.set(q.index, await loadQp(drv, q));
  const mrs = new Map<number, MemoryRegion>();
  for (const m of s.mrs) mrs.set(m.index, await loadMr(drv, mem, alloc, m));
  return { mem, ram, axil, drv, qps, mrs };
}
