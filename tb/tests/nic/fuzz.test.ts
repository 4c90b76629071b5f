// The hostile-frame fuzzer in make test: 2000 frames (seed from NICGEN_SEED, 1 in make test)
// into B of a nic_pair while 150 real WRITEs and READs run both ways, then alone
// (tb/nic/fuzz-scenario.ts, docs/fuzz.md). The scenario checks the invariants itself and
// throws with the last frames it sent; here the run must also have exercised what it claims:
// frames of every kind, in-sequence WRITEs that landed (rkey-granted bytes), READ responses
// audited byte for byte, target QPs driven to ERROR and back, and frames sent both alongside
// the real traffic and alone. Long runs: `nicgen sim nic_pair --test fuzz`, `make regress`.

import { describe, expect, it } from 'vitest';
import { fuzzBench, fuzzSummary } from '../../benches/nic/fuzz.ts';
import { pairDesign } from '../../benches/nic/write.ts';
import { envSeed, runTest } from '../../core/index.ts';
import type { FuzzResult } from '../../nic/fuzz-scenario.ts';

const BUILD_TIMEOUT = 1_800_000;
const FRAMES = 2000;

describe('hostile frames into a live NIC', () => {
  it(`${FRAMES} frames alongside real traffic and alone: nothing hangs, counters account, memory and READ data only where rkeys allow`, async () => {
    let r: FuzzResult | undefined;
    const res = await runTest(pairDesign(), async (dut, tb) => {
      r = await fuzzBench(dut, tb, {}, { frames: FRAMES, realWqes: 150 });
    }, { seed: envSeed() ?? 1, maxCycles: 20_000_000 });
    for (const line of fuzzSummary(r!)) console.log(`${line} (seed ${res.seed})`);
    const x = r!.rxB;
    expect(r!.frames).toBeGreaterThanOrEqual(FRAMES);
    expect(r!.interleaved, 'frames sent while the real traffic ran').toBeGreaterThan(50);
    expect(r!.frames - r!.interleaved, 'frames sent alone').toBeGreaterThan(50);
    expect(x.icrc, 'bad-ICRC frames').toBeGreaterThan(10);
    expect(x.malformed, 'malformed frames').toBeGreaterThan(50);
    expect(x.unknownQp, 'frames to unknown QPs').toBeGreaterThan(10);
    for (const s of [0x60, 0x61, 0x62]) expect(r!.naks.get(s) ?? 0, `NAKs 0x${s.toString(16)} from B`).toBeGreaterThan(5);
    expect(r!.revived, 'target QPs driven to ERROR and reconnected').toBeGreaterThan(10);
    expect(r!.grantedBytes, 'bytes opened by WRITEs with a valid rkey').toBeGreaterThan(10_000);
    expect(r!.readBytesCompared, 'READ response bytes compared with a read-only MR').toBeGreaterThan(1000);
    expect(r!.real?.reads ?? 0).toBeGreaterThan(10);
  }, BUILD_TIMEOUT);
});
