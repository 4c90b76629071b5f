// End to end RDMA READ: two NICs (nic_pair) back to back through the link model, host memories
// behind AXI RAM models with random latency and back-pressure, the driver model on both hosts.
//  - a random mix of WRITEs and READs in both directions on 4 QP pairs (0, 1, MTU-1, MTU,
//    MTU+1 .. 64 KiB; unaligned, page-crossing, 1-4 SGEs; path MTU 256..4096 per QP; PSNs from
//    just below 2^24; FENCEs where ordering needs them and at random), checked by the scoreboard:
//    every READ returns the bytes its QP's earlier WRITEs left, CQEs in order, nothing else
//    changes on either host;
//  - the capture of that run decoded by tshark (READ REQUEST with RETH, READ RESPONSE FIRST/
//    MIDDLE/LAST/ONLY with AETH on all but MIDDLE, PSNs, MSNs, payload lengths) and every ICRC
//    checked by scapy;
//  - remote access violations on READ: NAK 0x62, error CQE, QP in ERROR, nothing lands in the
//    requester's memory, the WQEs behind it flushed.
// The seed is printed; NICGEN_SEED=<n> replays a run.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envSeed, runTest } from '../../core/index.ts';
import { PACED, pairDesign } from '../../benches/nic/write.ts';
import { PcapWriter } from '../../model/pcap.ts';
import type { ExpectedPacket } from '../../model/wire-expect.ts';
import { PairEnv } from '../../nic/env.ts';
import { runMixedScenario } from '../../nic/mixed-scenario.ts';
import { runReadProtectionScenario } from '../../nic/read-protection-scenario.ts';
import { checkCapture } from '../../nic/wire-check.ts';

const MAC_A = '02:00:00:00:00:0a';
const BUILD_TIMEOUT = 1_800_000;
const SEED = envSeed() ?? 11;

describe('nic_pair end to end: RDMA READ', () => {
  const pcapPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-e2e-read-')), 'mixed.pcap');
  let wire: Map<string, ExpectedPacket[]> | undefined;

  it('random WRITE/READ mix, both directions: READs return what their QP wrote before, CQEs in order', async () => {
    console.log(`e2e-read mixed run: seed ${SEED} (replay with NICGEN_SEED=${SEED}), pcap ${pcapPath}`);
    const pcap = PcapWriter.open(pcapPath);
    try {
      await runTest(pairDesign(), async (dut, tb) => {
        // Host memory interleaves R beats of different ids (AXI allows it): every read client
        // (WQE fetch, the TLB's two fill engines, both DMA reads) must route beats by id.
        const env = await PairEnv.create(dut, tb, { ...PACED, pcap, interleave: true });
        const r = await runMixedScenario(env, tb, { wqes: 40, qps: 4, bothDirections: true });
        const interleaved = env.a.ram.stats.interleavedReads + env.b.ram.stats.interleavedReads;
        wire = r.wire;
        console.log(`e2e-read: ${r.reads} READs, ${r.writes} WRITEs (${r.fences} fenced), ${r.bytes} bytes in ${r.cycles} cycles; `
          + `${env.sb.completions} CQEs, ${env.sb.bytesChecked} bytes compared at CQEs; ${interleaved} interleaved R beats`);
        expect(r.reads).toBeGreaterThanOrEqual(10);
        expect(r.fences).toBeGreaterThan(0);
        expect(interleaved, 'R beats that switched to another unfinished burst').toBeGreaterThan(0);
      }, { seed: SEED, maxCycles: 40_000_000 });
    } finally {
      pcap.close();
    }
  }, BUILD_TIMEOUT);

  it('the capture decodes as valid RoCEv2 (tshark) matching the model, every ICRC verifies (scapy)', () => {
    expect(wire, 'the mixed run completed first').toBeDefined();
    const r = checkCapture(pcapPath, wire!, MAC_A);
    expect(r.requests).toBeGreaterThanOrEqual(40);
    expect(r.responses).toBeGreaterThanOrEqual(10);
    expect(r.acks).toBeGreaterThan(0);
  });

  it('READ access violations: NAK 0x62, error CQE, QP in ERROR, nothing lands locally, later WQEs flushed', async () => {
    await runTest(pairDesign(), async (dut, tb) => {
      const env = await PairEnv.create(dut, tb);
      const r = await runReadProtectionScenario(env, tb);
      expect(r.naks).toBe(4);
    }, { seed: SEED, maxCycles: 5_000_000 });
  }, BUILD_TIMEOUT);
});
