// The READ-response landing chain (read-resp-rx-landing.ts) keeps up with the wire: READ
// RESPONSE frames back to back at one beat a cycle, landing at a VA that is not bus-aligned
// (every 4 KiB piece is 65 W beats at 512 bits, as many as its 65-beat frame: no spare cycle)
// and crosses a page. The parser model must never fall more than LATE_BOUND cycles behind
// the wire; a chain one cycle per frame too slow is 48+ cycles behind after 64 frames.
// Measured before the fix (512 bits, 64 frames): 7 cycles per frame behind (307 at the last
// frame): nic_dma_write waited for each piece's translation with the RX stream stopped, and
// the W store-and-forward gate held its next burst's W job; nic_pair's RX buffer overflowed.

import { describe, expect, it } from 'vitest';
import { envSeed, randomSeed } from '../../core/index.ts';
import { runLanding, type LandingOptions } from './read-resp-rx-landing.ts';

/** Cycles the parser may lag the wire (translation latency at the first piece, pipeline). */
const LATE_BOUND = 16;

async function check(o: Omit<LandingOptions, 'seed'>): Promise<void> {
  const seed = envSeed() ?? randomSeed();
  const r = await runLanding({ ...o, seed });
  const where = `${o.dataWidth} bits, MTU ${1 << o.pmtuLog2}, page offset ${o.pageOffset}, seed ${seed} (replay: NICGEN_SEED=${seed})`;
  console.log(`landing ${where}: ${r.frames} frames, ${r.wBeats} W beats in ${r.cycles} cycles, parser at most ${r.maxLate} cycles behind the wire`);
  const k = r.lateAtFrame.findIndex(x => x > LATE_BOUND);
  expect(k, `${where}: the parser fell ${r.lateAtFrame[k]} cycles behind the wire at frame ${k} (bound ${LATE_BOUND}); per frame: ${r.lateAtFrame.join(',')}`).toBe(-1);
  expect(r.maxLate, `${where}: largest lag behind the wire (cycles)`).toBeLessThanOrEqual(LATE_BOUND);
}

describe('READ-response landing chain at wire rate', () => {
  it('512 bits, 4 READs of 64 KiB at MTU 4096 (64 frames), unaligned landing', async () => {
    await check({ dataWidth: 512, reads: 4, readLen: 65536, pmtuLog2: 12, pageOffset: 5, xlateLatency: [3, 8] });
  }, 600_000);

  it('512 bits, 2 READs of 64 KiB at MTU 1024 (128 frames), unaligned landing', async () => {
    await check({ dataWidth: 512, reads: 2, readLen: 65536, pmtuLog2: 10, pageOffset: 2049, xlateLatency: [3, 8] });
  }, 600_000);

  it('64 bits, 2 READs of 64 KiB at MTU 4096 (32 frames), unaligned landing', async () => {
    await check({ dataWidth: 64, reads: 2, readLen: 65536, pmtuLog2: 12, pageOffset: 3, xlateLatency: [3, 8] });
  }, 600_000);
});
