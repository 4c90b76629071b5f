// nic_tlb hit-under-miss and fill-engine timing, against the reference model (tb/model/tlb.ts,
// through TlbBench, which also checks that every client's answers come in its request order):
// - one client's hits are answered while another client's miss waits for a slow page-table
//   read, and the missing client's later requests wait behind its miss;
// - a demand miss does not wait behind a prefetch in flight (the second fill engine takes it);
// - seeded random traffic from every client with long random page-table latency,
//   back-pressure on both sides and several MRs, so misses park, attach to fills of the
//   same line and queue behind their client's older requests.

import { describe, expect, it } from 'vitest';
import { nicTlb } from '../../../gen/nic/tlb.ts';
import type { TlbParams } from '../../../gen/nic/tlb-types.ts';
import { runTest } from '../../core/index.ts';
import { keyOf, writePageTable, type MrDesc, type XlateRequest } from '../../model/tlb.ts';
import { design as dslDesign } from '../../design.ts';
import { makeRequest, REQ_KINDS, TlbBench, type TlbPorts } from './tlb-bench.ts';

const configs: Partial<TlbParams>[] = [
  { dataWidth: 64, numMr: 16, numClients: 2, lines: 8 },
  { dataWidth: 512, numMr: 8, numClients: 3, lines: 4, missSlots: 2, respSlice: true },
  // nic_top's: five clients, 32 lines (a line memory of 32 words of 8 PTEs).
  { dataWidth: 512, numMr: 16, numClients: 5, lines: 32 },
];
/** Page-table read latency of the timing tests (AR handshake to first R beat). */
const READ = 200;

/** MR 3: 64 pages, page table line-aligned (pages 0..7 are line 0); the other MRs invalid. */
function oneMr(b: TlbBench, numMr: number): { mrs: MrDesc[]; at: (page: number, len?: number) => XlateRequest } {
  const mr: MrDesc = { valid: true, tag: 7, pd: 1, access: 7, va: 0x5555_0000_0000n, len: 64n * 4096n, ptBase: 0n };
  mr.ptBase = b.ptBaseFor(64) & ~63n;
  writePageTable(b.mem, b.alloc, mr, b.tb.rng);
  const mrs = Array.from({ length: numMr }, (_, j) => (j === 3 ? mr : { ...mr, valid: false }));
  const at = (page: number, len = 16): XlateRequest => ({ key: keyOf(3, 7), va: mr.va + BigInt(page * 4096 + 100), len, pd: 1, access: 4 });
  return { mrs, at };
}

for (const params of configs) {
  const tag = `dataWidth=${params.dataWidth} clients=${params.numClients}`;
  const design = dslDesign(nicTlb, params);
  const numMr = params.numMr!, clients = params.numClients!;

  /** A bench whose page-table reads all take READ cycles, one valid MR, out of reset. */
  const slowTableBench = async (dut: unknown, tb: Parameters<Parameters<typeof runTest>[1]>[1]) => {
    const b = new TlbBench(tb, dut as TlbPorts, numMr, { ramFixedLatency: READ, ramLatency: 0, ramBackpressure: 0 });
    const { mrs, at } = oneMr(b, numMr);
    b.setTable(mrs);
    await tb.reset(2);
    return { b, at };
  };

  describe(`nic_tlb hit under miss ${tag}`, () => {
    it('hits of one client are answered while another client waits for its page-table line', async () => {
      await runTest(design, async (dut, tb) => {
        const { b, at } = await slowTableBench(dut, tb);
        b.request(0, at(0));
        await b.drain('warm-up of line 0');
        const other = clients - 1;
        const t0 = tb.cycle;
        b.request(other, at(40)); // line 5: cold
        b.request(other, at(1)); // cached, but must wait behind the miss of its client
        for (let k = 0; k < 16; k++) b.request(0, at(k % 8));
        await b.drain('hits under the miss', 5 * READ);
        const after = b.answered.filter(a => a.cycle > t0);
        const hitCycles = after.filter(a => a.client === 0).map(a => a.cycle - t0);
        const otherCycles = after.filter(a => a.client === other).map(a => a.cycle - t0);
        console.log(`[tlb hum ${tag}] client 0 hits answered at +${hitCycles.join(', +')}; client ${other} (miss, then a hit) at +${otherCycles.join(', +')}`);
        expect(hitCycles).toHaveLength(16);
        expect(otherCycles).toHaveLength(2);
        // A blocking TLB answers none of the hits before the miss's line (READ cycles).
        expect(Math.max(...hitCycles), 'last hit of client 0 (cycles after the miss was sent)').toBeLessThan(16 + 24);
        expect(otherCycles[0], 'the miss waits for its line').toBeGreaterThanOrEqual(READ);
        expect(otherCycles[1]! - otherCycles[0]!, 'the hit behind the miss comes right after it').toBeLessThan(8);
        await tb.clockCycles(2);
        expect([dut.hits.value, dut.misses.value], 'hits, misses').toEqual([17, 2]);
      }, { seed: 3 });
    });

    it('a demand miss does not wait behind a prefetch in flight', async () => {
      await runTest(design, async (dut, tb) => {
        const { b, at } = await slowTableBench(dut, tb);
        b.request(0, at(0));
        await b.drain('cold miss of line 0');
        b.request(0, at(1)); // a hit: starts the prefetch of line 1
        await b.drain('hit on line 0');
        const t0 = tb.cycle;
        b.request(clients - 1, at(16)); // line 2 (another set than line 1), while line 1 is being read
        await b.drain('miss during the prefetch', 5 * READ);
        const took = b.answered.at(-1)!.cycle - t0;
        console.log(`[tlb pf ${tag}] demand miss answered ${took} cycles after it was sent (read latency ${READ})`);
        expect(took, 'demand miss latency').toBeLessThan(READ + 40);
        await tb.clockCycles(READ);
        b.request(0, at(9)); // the prefetched line
        await b.drain('page 9');
        await tb.clockCycles(2);
        expect([dut.hits.value, dut.misses.value], 'hits (page 1, page 9), misses (page 0, page 16)').toEqual([2, 2]);
      }, { seed: 4 });
    });

    it('random traffic with long page-table reads and back-pressure matches the model, in order per client', async () => {
      await runTest(design, async (dut, tb) => {
        console.log(`[tlb hum ${tag} random] seed=${tb.seed}`);
        const b = new TlbBench(tb, dut as unknown as TlbPorts, numMr,
          { reqPause: 0.15, respPause: 0.3, ramFixedLatency: 20, ramLatency: tb.rng.int(50, 300), ramBackpressure: 0.3 });
        const mrs = Array.from({ length: numMr }, () => b.randomMr(tb.rng, { maxPages: 48 }));
        b.setTable(mrs);
        await tb.reset(2);
        // Mostly walks through a few pages of a few MRs (hits and prefetches), some random kinds.
        const hot = Array.from({ length: 3 }, () => tb.rng.int(0, numMr - 1));
        for (let k = 0; k < 500; k++) {
          const client = tb.rng.int(0, clients - 1);
          if (tb.rng.bool(0.7)) {
            const j = tb.rng.pick(hot), m = mrs[j]!;
            const va = m.va + BigInt(Math.floor(tb.rng.float() * Number(m.len)));
            b.request(client, { key: keyOf(j, m.tag), va, len: 1, pd: m.pd, access: 0 });
          } else b.request(client, makeRequest(tb.rng, mrs, tb.rng.pick(REQ_KINDS), numMr));
        }
        await b.drain('all translations answered', 400_000);
        await tb.clockCycles(2);
        expect(dut.hits.value + dut.misses.value, 'hits + misses = translations that needed a PTE').toBe(b.translations);
        expect(dut.hits.value).toBeGreaterThan(0);
        expect(dut.misses.value).toBeGreaterThan(0);
      }, { maxCycles: 500_000 });
    });
  });
}
