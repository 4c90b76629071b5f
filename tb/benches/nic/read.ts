// End-to-end RDMA READ benches on nic_pair: the mixed WRITE/READ scenario and the READ access
// violations. --pcap/--pcap-rx (or NICGEN_PCAP=<file>) write captures and the fault flags reach
// the link; NICGEN_BIDIR=0 keeps the WQEs on host A (READ traffic still flows both ways:
// requests out, responses back).

import type { TestBench } from '../../core/index.ts';
import { PairEnv, type PairDut } from '../../nic/env.ts';
import { runMixedScenario } from '../../nic/mixed-scenario.ts';
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

export const nicPairReadBenches: BenchGroup = {
  read_mixed: defineBench({
    about: 'random RDMA WRITEs and READs both ways, 1-4 QPs, 0..64 KiB, 1-4 SGEs, fences, PSN wrap; READ data checked per QP program order',
    design: pairDesign,
    maxCycles: 40_000_000,
    link: true,
    test: mixed,
  }),
  read_protection: defineBench({
    about: 'READ with bad tag / PD / no remote-read / out of bounds: NAK 0x62, error CQE, QP ERROR, nothing lands, flushes',
    design: pairDesign,
    maxCycles: 5_000_000,
    link: true,
    test: async (dut, tb, { link }) => withPairLink(link, {}, async l => {
      const env = await PairEnv.create(dut, tb, l.env);
      const r = await runReadProtectionScenario(env, tb);
      console.log(`read_protection: ${r.naks} NAKs 0x62`);
    }),
  }),
};
