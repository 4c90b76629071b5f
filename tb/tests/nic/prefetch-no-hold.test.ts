// A TLB prefetch does not hold a payload read (nic_top): in a run of 64-byte WRITEs on an idle
// pair (bench/nic-latency.ts), the second WRITE's translation hits, and nic_tlb queues the next
// page-table line for prefetch while the payload's AR is on its way, so both reach
// nic_axi_rd_mux in the same cycle. The prefetch is speculative (nic_tlb's pt_urgent low): the
// payload AR goes first and its data does not wait for the line. When the mux let every
// page-table read go first and held bulk reads until it was back, that WRITE's first TX beat
// came 11 (64 bits, L = 0) to 61 (L = 50) cycles after the other warm ones. Checked: every warm
// WRITE's first beat within one cycle of the earliest warm one. NICGEN_SEED=<n> replays a run.

import { describe, expect, it } from 'vitest';
import { measureLatency } from '../../../bench/nic-latency.ts';

const BUILD_TIMEOUT = 900_000;

describe('nic_top: a TLB prefetch does not hold a payload read', () => {
  for (const [W, L] of [[64, 0], [512, 50]] as const) {
    it(`${W} bits, memory latency ${L}: the WRITE beside a prefetch is as fast as the other warm ones`, async () => {
      const r = await measureLatency(W, L, 4);
      const warm = r.all.slice(1);
      const fastest = Math.min(...warm.map(s => s.firstBeat));
      warm.forEach((s, k) => expect(s.firstBeat, `WRITE ${k + 2} of ${r.all.length}: first TX beat ${s.firstBeat} cycles after the doorbell, the fastest warm one ${fastest} (reads: ${s.reads})`)
        .toBeLessThanOrEqual(fastest + 1));
    }, BUILD_TIMEOUT);
  }
});
