// End to end: two NICs (nic_pair) back to back through the link model, host memories behind
// AXI RAM models with random latency and back-pressure, the driver model on both hosts.
//  - random RDMA WRITEs (0, 1, MTU-1, MTU, MTU+1 .. 64 KiB; unaligned; page crossing; 1-4 SGEs;
//    1-4 QPs; path MTU 256..4096; PSNs from just below 2^24), checked by the scoreboard;
//  - the capture of that run decoded by tshark and checked by scapy (every ICRC);
//  - remote access violations: nothing written, NAK 0x62, error CQE, QP in ERROR, flushes.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTest } from '../../core/index.ts';
import { pairDesign, writeBench } from '../../benches/nic/write.ts';
import { PairEnv } from '../../nic/env.ts';
import { runProtectionScenario } from '../../nic/protection-scenario.ts';
import { checkCapture } from '../../nic/wire-check.ts';
import type { ExpectedPacket } from '../../model/wire-expect.ts';

const MAC_A = '02:00:00:00:00:0a';
const BUILD_TIMEOUT = 900_000;

describe('nic_pair end to end', () => {
  const pcapPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-e2e-')), 'write_random.pcap');
  let wire: Map<string, ExpectedPacket[]> | undefined;

  it('random RDMA WRITEs arrive byte-exact, nothing else changes, CQEs in order', async () => {
    const r = await runTest(pairDesign(), async (dut, tb) => {
      const x = await writeBench(dut, tb, { writes: 24, qps: 4, maxLen: 65536, pcapPath, bothDirections: false });
      wire = x.wire;
      expect(x.frames).toBeGreaterThan(24);
    }, { seed: 6, maxCycles: 20_000_000 });
    expect(r.cycles).toBeGreaterThan(0);
  }, BUILD_TIMEOUT);

  it('the capture decodes as valid RoCEv2 (tshark) matching the model, every ICRC verifies (scapy)', () => {
    expect(wire, 'the WRITE test ran first').toBeDefined();
    const r = checkCapture(pcapPath, wire!, MAC_A);
    expect(r.requests).toBeGreaterThanOrEqual(16);
    expect(r.acks).toBeGreaterThan(0);
  });

  it('remote access violations: nothing written, NAK 0x62, error CQE, QP in ERROR, later WQEs flushed', async () => {
    await runTest(pairDesign(), async (dut, tb) => {
      const env = await PairEnv.create(dut, tb);
      const r = await runProtectionScenario(env, tb);
      expect(r.naks).toBeGreaterThanOrEqual(4);
    }, { seed: 1, maxCycles: 5_000_000 });
  }, BUILD_TIMEOUT);
});
