// End-to-end RDMA WRITE benches on nic_pair: two NICs, host memories behind AXI RAM models,
// the driver model on both, the link model between them. `nicgen sim --pcap/--pcap-rx` (or
// NICGEN_PCAP=<file>) writes captures; the fault flags (--drop, --corrupt, ...) reach the link.

import { nicPair } from '../../../gen/nic/nic-top.ts';
import { design } from '../../design.ts';
import { PairEnv, PAIR_PARAMS, type PairDut, type PairEnvOptions, type PairParams } from '../../nic/env.ts';
import { runThroughput, type ThroughputResult } from '../../nic/throughput-scenario.ts';
import { runWriteScenario, type WriteScenarioOptions, type WriteScenarioResult } from '../../nic/write-scenario.ts';
import type { TestBench } from '../../core/index.ts';
import { defineBench, type BenchGroup, type LinkArgs } from '../bench.ts';
import { withPairLink } from './pair-link.ts';

/** nic_pair as the benches run it (or at other QP / MR counts); its emission is cached on
 *  disk (tb/design-cache.ts). */
export const pairDesign = (params: PairParams = PAIR_PARAMS) => design(nicPair, params, { diskCache: true });

export interface WriteBenchOptions extends WriteScenarioOptions {
  /** Captures and faults (a pcapPath is the same as link.pcap). */
  readonly link?: LinkArgs;
  readonly pcapPath?: string;
  readonly latency?: number;
  /** Host-memory and link pacing (defaults below). */
  readonly env?: Omit<PairEnvOptions, 'pcap' | 'latency'>;
}

/** Pacing of the random runs. The receiver's frame buffer drops what its DMA writes cannot
 *  absorb (a MAC cannot be stalled); a lost frame is retransmitted (docs/nic-reliability.md),
 *  but these runs check the fault-free path: the senders are slowed (busy MAC), memory
 *  back-pressure kept moderate, and no frame may be dropped nor anything retransmitted. */
export const PACED: Omit<PairEnvOptions, 'pcap' | 'latency'> = {
  backpressure: Number(process.env['NICGEN_MEM_BP'] ?? 0.1), stall: Number(process.env['NICGEN_MEM_BP'] ?? 0.1) / 2,
  link: { bytesPerCycle: Number(process.env['NICGEN_LINK_RATE'] ?? 2) },
};

/** The large MR configuration of `make regress` (issue 15). */
export const SCALE_LARGE: PairParams = { numQp: 4, numMr: 4096 };
/** The larger QP count of `make regress` (issue 15: 64 QPs / 256 MRs, WRITEs over all QPs). */
export const SCALE_QP: PairParams = { numQp: 64, numMr: 256 };
/** nic_top's most QPs (MAX_QP): the per-QP context and records in memories make it build in minutes. */
export const SCALE_QP_MAX: PairParams = { numQp: 256, numMr: 256 };

/** Runs the scenario; returns its result and the link's frame counts. */
export async function writeBench(dut: PairDut, tb: TestBench, o: WriteBenchOptions): Promise<WriteScenarioResult & { frames: number; faults: string[] }> {
  const link: LinkArgs = { ...o.link, ...(o.pcapPath ? { pcap: o.pcapPath } : {}) };
  return withPairLink(link, { ...(o.env ?? PACED), ...(o.latency !== undefined ? { latency: o.latency } : {}) }, async l => {
    const env = await PairEnv.create(dut, tb, l.env);
    const r = await runWriteScenario(env, tb, { ...o, lossy: l.lossy });
    return { ...r, frames: env.link.frames.length, faults: env.link.describeFaults() };
  });
}

/** One streaming run at line rate (see throughput-scenario.ts); throws on RX drops unless the
 *  link has faults. */
export async function throughputBench(dut: PairDut, tb: TestBench, name: string, count: number, pmtuLog2: number, link: LinkArgs = {}): Promise<ThroughputResult> {
  return withPairLink(link, { ramLatency: 4, backpressure: 0, stall: 0 }, async l => {
    const env = await PairEnv.create(dut, tb, l.env);
    const r = await runThroughput(env, tb, { count, len: 65536, pmtuLog2, lossy: l.lossy });
    console.log(`${name}: path MTU ${1 << pmtuLog2}, ${r.bytes} bytes, ${r.frames} frames, ${r.endToEnd.toFixed(2)} B/cycle end to end, ${r.wire.toFixed(2)} B/cycle on the wire, ${r.rxDrops} RX drops, RX backlog <= ${r.maxRxBacklog} frames`);
    for (const f of env.link.describeFaults()) console.log(`${name}: link faults ${f}`);
    if (r.rxDrops !== 0 && !l.lossy) throw new Error(`${name}: the receiver dropped ${r.rxDrops} frame(s) at path MTU ${1 << pmtuLog2}`);
    return r;
  });
}

export const nicPairBenches: BenchGroup = {
  write_random: defineBench({
    about: 'random RDMA WRITEs A->B and B->A at once (NICGEN_BIDIR=0: A->B only), 1-4 QPs, 0..64 KiB, 1-4 SGEs, PSN wrap; scoreboard on both hosts',
    design: pairDesign,
    maxCycles: 20_000_000,
    link: true,
    test: async (dut, tb, { link }) => {
      // Both directions at once by default. A NIC's TLB misses then wait behind its own TX
      // payload reads; the RX buffer absorbs that (docs/nic-top.md, "RX buffer").
      const bothDirections = process.env['NICGEN_BIDIR'] !== '0';
      const r = await writeBench(dut, tb, { writes: 24, qps: tb.rng.int(1, 4), bothDirections, link });
      console.log(`write_random: ${r.writes} WRITEs, ${r.bytes} bytes, ${r.frames} frames in ${r.cycles} cycles (${(r.bytes / Math.max(1, r.cycles)).toFixed(2)} B/cycle)`);
      for (const f of r.faults) console.log(`write_random: link faults ${f}`);
    },
  }),
  throughput_mtu4096: defineBench({
    about: 'one QP A->B, 6 x 64 KiB WRITEs at path MTU 4096 (NICGEN_PMTU=8..12 for others), link at line rate, memory without back-pressure: prints B/cycle, fails on any RX drop',
    design: pairDesign,
    maxCycles: 2_000_000,
    link: true,
    test: async (dut, tb, { link }) => { await throughputBench(dut, tb, 'throughput_mtu4096', 6, Number(process.env['NICGEN_PMTU'] ?? 12), link); },
  }),
  write_scale_mr4096: defineBench({
    about: 'random RDMA WRITEs both ways on nic_pair with 4,096 MRs per NIC (the MR table in block RAM), MRs in random slots of the whole table; scoreboard on both hosts',
    design: () => pairDesign(SCALE_LARGE),
    maxCycles: 20_000_000,
    link: true,
    test: async (dut, tb, { link }) => withPairLink(link, { ...PACED, params: SCALE_LARGE, mrSlots: 'random' }, async l => {
      const env = await PairEnv.create(dut, tb, l.env);
      const r = await runWriteScenario(env, tb, { writes: 24, qps: tb.rng.int(1, 4), bothDirections: true, lossy: l.lossy });
      const slots = [env.a, env.b].flatMap(h => h.drv.mrs.flatMap((m, i) => (m ? [i] : [])));
      console.log(`write_scale_mr4096: ${r.writes} WRITEs, ${r.bytes} bytes in ${r.cycles} cycles; MR slots ${slots.join(', ')}`);
    }),
  }),
  write_scale_qp64: defineBench({
    about: 'random RDMA WRITEs both ways on nic_pair with 64 QPs and 256 MRs per NIC, spread over all 64 QPs, MRs in random slots; scoreboard on both hosts',
    design: () => pairDesign(SCALE_QP),
    maxCycles: 20_000_000,
    link: true,
    test: async (dut, tb, { link }) => withPairLink(link, { ...PACED, params: SCALE_QP, mrSlots: 'random' }, async l => {
      const env = await PairEnv.create(dut, tb, l.env);
      const r = await runWriteScenario(env, tb, { writes: 48, qps: SCALE_QP.numQp, bothDirections: true, lossy: l.lossy });
      console.log(`write_scale_qp64: ${r.writes} WRITEs, ${r.bytes} bytes in ${r.cycles} cycles`);
    }),
  }),
  write_scale_qp256: defineBench({
    about: 'random RDMA WRITEs both ways on nic_pair with 256 QPs (nic_top\'s most) and 256 MRs per NIC, 8 WRITEs on random QPs, MRs in random slots; scoreboard on both hosts (the model simulates only a few hundred cycles/s: few WRITEs)',
    design: () => pairDesign(SCALE_QP_MAX),
    maxCycles: 40_000_000,
    link: true,
    test: async (dut, tb, { link }) => withPairLink(link, { ...PACED, params: SCALE_QP_MAX, mrSlots: 'random' }, async l => {
      const env = await PairEnv.create(dut, tb, l.env);
      // 8 WRITEs: this model simulates 240-540 cycles/s (2026-12-07; 68 k at 4 QPs); a run of
      // 64 was stopped after 6 minutes at cycle 86 k, longer than a regression run's default
      // timeout (600 s) allows.
      const r = await runWriteScenario(env, tb, { writes: 8, qps: SCALE_QP_MAX.numQp, bothDirections: true, lossy: l.lossy });
      console.log(`write_scale_qp256: ${r.writes} WRITEs, ${r.bytes} bytes in ${r.cycles} cycles`);
    }),
  }),
  throughput_mtu256: defineBench({
    about: 'one QP A->B, 3 x 64 KiB WRITEs at path MTU 256 (768 frames), link at line rate: the receiver must drop nothing',
    design: pairDesign,
    maxCycles: 1_000_000,
    link: true,
    test: async (dut, tb, { link }) => { await throughputBench(dut, tb, 'throughput_mtu256', 3, 8, link); },
  }),
};
