// End-to-end RDMA READ benches on nic_pair: the mixed WRITE/READ scenario and the READ access
// violations. --pcap/--pcap-rx (or NICGEN_PCAP=<file>) write captures and the fault flags reach
// the link; NICGEN_BIDIR=0 keeps the WQEs on host A (READ traffic still flows both ways:
// requests out, responses back).

import type { TestBench } from '../../core/index.ts';
import { PairEnv, type PairDut } from '../../nic/env.ts';
import { runMixedScenario } from '../../nic/mixed-scenario.ts';
import { runLocalErrorScenario } from '../../nic/local-error-scenario.ts';
import { runProtectionScenario } from '../../nic/protection-scenario.ts';
import { runReadProtectionScenario } from '../../nic/read-protection-scenario.ts';
import { defineBench, type BenchArgs, type BenchGroup } from '../bench.ts';
import { withPairLink } from './pair-link.ts';
import { PACED, pairDesign } from './write.ts';

async function mixed(dut: PairDut, tb: TestBench, { link }: BenchArgs): Promise<void> {
  await withPairLink(link, PACED, async l => {
    const env = await PairEnv.create(dut, tb, l.env);
    const r = await runMixedScenario(env, tb, { wqes: 40, qps: tb.rng.int(1, 4), bothDirections: process.env['NICGEN_BIDIR'] !== '0', lossy: l.lossy });
    console.log(`read_mixed: ${r.reads} READs, ${r.writes} WRITEs (${r.fences} fenced), ${r.bytes} bytes in ${r.cycles} cycles`);
    for (const f of env.link.describeFaults()) console.log(`read_mixed: link faults ${f}`);
  });
}

/** A directed scenario on a default PairEnv (captures and faults from the link flags); its summary line is printed as `<test>: ...`. */
function directed(name: string, about: string, maxCycles: number, scenario: (env: PairEnv, tb: TestBench) => Promise<string>) {
  return defineBench({
    about, design: pairDesign, maxCycles,
    link: true,
    test: async function directedScenario(dut, tb, { link }: BenchArgs) {
      await withPairLink(link, {}, async l => {
        const env = await PairEnv.create(dut, tb, l.env);
        console.log(`${name}: ${await scenario(env, tb)}`);
      });
    },
  });
}

export const nicPairReadBenches: BenchGroup = {
  read_mixed: defineBench({
    about: 'random RDMA WRITEs and READs both ways, 1-4 QPs, 0..64 KiB, 1-4 SGEs, fences, PSN wrap; READ data checked per QP program order',
    design: pairDesign,
    maxCycles: 40_000_000,
    link: true,
    test: mixed,
  }),
  read_protection: directed('read_protection', 'READ with bad tag / PD / no remote-read / out of bounds: NAK 0x62, error CQE, QP ERROR, nothing lands, flushes', 5_000_000,
    async (env, tb) => `${(await runReadProtectionScenario(env, tb)).naks} NAKs 0x62`),
  write_protection: directed('write_protection', 'WRITE with bad tag / PD / no remote-write / out of bounds: nothing written, NAK 0x62, error CQE, QP ERROR, later WQEs flushed', 5_000_000,
    async (env, tb) => `${(await runProtectionScenario(env, tb)).naks} NAKs 0x62`),
  local_errors: directed('local_errors', 'the requester\'s own checks: 0-SGE WQEs, unknown opcode, length mismatch, QP not in RTS, bad lkey on WRITE and READ, flushes; QP states after', 2_000_000,
    async (env, tb) => { const r = await runLocalErrorScenario(env, tb); return `${r.cqes} CQEs in ${r.cycles} cycles`; }),
};
