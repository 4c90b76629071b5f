// The short fault soak of make test (issue 11 "Soaks"): random WRITEs and READs both ways on 4
// QP pairs over a link with 1 % drop, 0.5 % corruption, 0.5 % duplication and 0.5 % reordering
// on both directions (tb/nic/soak-scenario.ts, mix 'uniform'), recovered by go-back-N. Checked:
// scoreboard exact (every byte, no stray write on either host, every CQE SUCCESS in posting
// order), every QP RTS, no RETRY_EXC, the capture as sent passes tshark/scapy and every
// retransmission equals its first transmission, the resent requests in it add up to the NICs'
// RETX_PKTS. Seed 1 in make test; NICGEN_SEED=<n> replays another (the many-seed soaks with
// burst loss are nic_pair/soak in make regress).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nicPair } from '../../../gen/nic/nic-top.ts';
import { pairDesign } from '../../benches/nic/write.ts';
import { envSeed, runTest } from '../../core/index.ts';
import { PcapWriter } from '../../model/pcap.ts';
import { design } from '../../design.ts';
import { PairEnv, PAIR_PARAMS } from '../../nic/env.ts';
import { bothWays, runSoak, soakMix, soakSummary } from '../../nic/soak-scenario.ts';

const BUILD_TIMEOUT = 1_800_000;
const SEED = envSeed() ?? 1;

describe('fault soak (make test)', () => {
  it('WRITE/READ both ways on 4 QPs, 1 % drop + 0.5 % corrupt/dup/reorder both directions: exact, all SUCCESS, all RTS, capture checked', async () => {
    const mix = soakMix(SEED, 'uniform');
    const pcapPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-soak-')), 'soak.pcap');
    console.log(`soak: seed ${SEED} (replay with NICGEN_SEED=${SEED}), mix ${mix.name}, pcap ${pcapPath}`);
    const pcap = PcapWriter.open(pcapPath);
    try {
      await runTest(pairDesign(), async (dut, tb) => {
        const env = await PairEnv.create(dut, tb, { backpressure: 0.1, stall: 0.05, pcap, link: { bytesPerCycle: 8, faults: bothWays(mix.faults) } });
        const r = await runSoak(env, tb, { wqes: 200, maxLen: 16 * 1024, pcapPath, closePcap: () => pcap.close() });
        for (const l of soakSummary(mix.name, r, env)) console.log(l);
        const f = env.link.faults!;
        for (const d of ['a->b', 'b->a'] as const) {
          const s = f.stats(d);
          expect(s.dropped + s.corrupted, `${d}: frames lost or corrupted by the link`).toBeGreaterThan(0);
          expect(s.duplicated + s.reordered, `${d}: frames duplicated or reordered`).toBeGreaterThan(0);
        }
        expect(r.counters.A.RETX_PKTS + r.counters.B.RETX_PKTS, 'requests resent').toBeGreaterThan(0);
        expect(r.wire!.retransmissions).toBeGreaterThan(0);
      }, { seed: SEED, maxCycles: 20_000_000 });
    } finally {
      pcap.close();
    }
  }, BUILD_TIMEOUT);

  // Both pools small (4 QPs): the ACK tracker's entry pool at 8 slots (docs/synth.md "ACK
  // tracker entries pooled"; the default is 4 x 16 = 64) and nic_read_resp_rx's READ contexts
  // at 3 (docs/nic-read.md; the default is 4 x readsPerQp 2 = 8): nic_req_tx parks WQEs
  // (TRACKER_FULL, READ_LIMIT) while a pool is empty and goes on when retirements, completed
  // READs, rewinds or RESETs give slots back.
  it('the same with small pools: 8 ACK-tracker entry slots and 3 READ contexts for the 4 QPs (trackerEntries 8, readContexts 3): exact, all SUCCESS, all RTS', async () => {
    const mix = soakMix(SEED, 'uniform');
    console.log(`soak, small pools: seed ${SEED} (replay with NICGEN_SEED=${SEED}), mix ${mix.name}`);
    await runTest(design(nicPair, { ...PAIR_PARAMS, trackerEntries: 8, readContexts: 3 }, { diskCache: true }), async (dut, tb) => {
      const env = await PairEnv.create(dut, tb, { backpressure: 0.1, stall: 0.05, link: { bytesPerCycle: 8, faults: bothWays(mix.faults) } });
      const r = await runSoak(env, tb, { wqes: 200, maxLen: 16 * 1024 });
      for (const l of soakSummary(`${mix.name}, small pools`, r, env)) console.log(l);
      expect(r.counters.A.RETX_PKTS + r.counters.B.RETX_PKTS, 'requests resent').toBeGreaterThan(0);
    }, { seed: SEED, maxCycles: 20_000_000 });
  }, BUILD_TIMEOUT);
});
