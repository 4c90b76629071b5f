// nic_tlb against the reference model (tb/model/tlb.ts): random MRs with scattered pages and
// page tables at odd 8-byte-aligned addresses in host memory, served by the tb/bfm AxiRam
// with random latency; random requests of every kind from every client; invalidation while
// a prefetch may be in flight; a page-table read error; counters; and the hit rate of a
// sequential 1 MiB write workload.

import { describe, expect, it } from 'vitest';
import { nicTlb } from '../../../gen/nic/tlb.ts';
import type { TlbParams } from '../../../gen/nic/tlb-types.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { keyOf, pteAddress, XLATE, type MrDesc } from '../../model/tlb.ts';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { design as dslDesign } from '../../design.ts';
import { makeRequest, PT_ERR_LO, REQ_KINDS, TlbBench, type TlbPorts } from './tlb-bench.ts';

const configs: Partial<TlbParams>[] = [
  { dataWidth: 64, numMr: 16, numClients: 2, lines: 8 },
  { dataWidth: 512, numMr: 8, numClients: 3, lines: 4, missSlots: 2, respSlice: true },
  // nic_top's: five clients, 32 lines (a line memory of 32 words of 8 PTEs).
  { dataWidth: 512, numMr: 16, numClients: 5, lines: 32 },
];

async function table(tb: TestBench, b: TlbBench, numMr: number): Promise<MrDesc[]> {
  const mrs = Array.from({ length: numMr }, (_, j) => b.randomMr(tb.rng, { valid: j === numMr - 1 ? false : tb.rng.bool(0.85) }));
  b.setTable(mrs);
  await tb.reset(2);
  return mrs;
}

describe('nic_tlb emits clean Verilog', () => {
  for (const params of configs) {
    it(`dataWidth=${params.dataWidth}: verilator -Wall, iverilog, yosys synth + check -assert`, () => {
      const e = emitToDir(nicTlb, params);
      verilatorLint(e);
      iverilogCompile(e);
      yosysSynth(e);
    });
  }
  it('rejects a line count that is not a power of two', () => {
    expect(() => nicTlb.elaborate({ lines: 6 })).toThrow(/power of two/);
  });
});

for (const params of configs) {
  const tag = `dataWidth=${params.dataWidth} clients=${params.numClients}`;
  const design = dslDesign(nicTlb, params);
  const numMr = params.numMr!, clients = params.numClients!;

  describe(`nic_tlb ${tag}`, () => {
    // Interleaved: the two fill engines' page-table reads (AXI ids 0 and 1) come back with their
    // R beats mixed, as AXI allows (only at 64 bits is a line more than one beat).
    for (const ramInterleave of [false, true]) it(`random requests of every kind from every client match the model${ramInterleave ? ', page-table R beats interleaved' : ''}`, async () => {
      await runTest(design, async (dut, tb) => {
        console.log(`[tlb ${tag}] seed=${tb.seed}`);
        const b = new TlbBench(tb, dut as unknown as TlbPorts, numMr, { reqPause: 0.3, respPause: 0.3, ramInterleave });
        const mrs = await table(tb, b, numMr);
        const kinds = new Map<string, number>();
        for (let k = 0; k < 600; k++) {
          const kind = tb.rng.pick(REQ_KINDS);
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
          b.request(tb.rng.int(0, clients - 1), makeRequest(tb.rng, mrs, kind, numMr));
        }
        await b.drain('all translations answered', 200_000);
        const statuses = new Set(b.answered.map(a => a.got.status));
        for (const s of [XLATE.OK, XLATE.BAD_KEY, XLATE.BAD_TAG, XLATE.BAD_PD, XLATE.OUT_OF_BOUNDS]) expect(statuses.has(s), `status ${s} seen`).toBe(true);
        await tb.clockCycles(2);
        expect(dut.hits.value + dut.misses.value, 'hits + misses = translations that needed a PTE').toBe(b.translations);
        expect(dut.misses.value).toBeGreaterThan(0);
        if (ramInterleave && params.dataWidth! < 512) expect(b.ram.stats.interleavedReads, 'page-table R beats that switched between the two reads').toBeGreaterThan(0);
      }, { maxCycles: 300_000 });
    });

    it('counters: cold miss, hit, prefetched next line, miss again after invalidation', async () => {
      await runTest(design, async (dut, tb) => {
        const b = new TlbBench(tb, dut as unknown as TlbPorts, numMr, { ramBackpressure: 0 });
        const mr: MrDesc = { valid: true, tag: 7, pd: 1, access: 7, va: 0x5555_0000_0000n, len: 64n * 4096n, ptBase: 0n };
        mr.ptBase = b.ptBaseFor(64) & ~63n; // line-aligned: pages 0..7 are line 0
        const { writePageTable } = await import('../../model/tlb.ts');
        writePageTable(b.mem, b.alloc, mr, tb.rng);
        const mrs = Array.from({ length: numMr }, (_, j) => (j === 3 ? mr : { ...mr, valid: false }));
        b.setTable(mrs);
        await tb.reset(2);
        const at = (page: number, len = 16) => ({ key: keyOf(3, 7), va: mr.va + BigInt(page * 4096 + 100), len, pd: 1, access: 4 });
        const counts = async (): Promise<[number, number]> => { await b.drain('answer'); await tb.clockCycles(2); return [dut.hits.value, dut.misses.value]; };
        b.request(0, at(0));
        expect(await counts(), 'first touch of page 0').toEqual([0, 1]);
        b.request(0, at(0));
        expect(await counts(), 'page 0 again').toEqual([1, 1]);
        await tb.clockCycles(200); // the prefetch of line 1 (pages 8..15) lands
        b.request(clients - 1, at(9));
        expect(await counts(), 'page 9 (prefetched line)').toEqual([2, 1]);
        b.request(0, at(2, 0));
        b.request(0, { ...at(2), pd: 2 });
        expect(await counts(), 'zero-length and failing requests are not counted').toEqual([2, 1]);
        await tb.rising();
        b.setTable(mrs, 3);
        await tb.rising();
        b.setTable(mrs);
        b.request(0, at(0));
        expect(await counts(), 'page 0 after mr_changed').toEqual([2, 2]);
      }, { seed: 11 });
    });

    it('re-registration: stale keys fail, no stale TLB entries, even with a prefetch in flight', async () => {
      await runTest(design, async (dut, tb) => {
        console.log(`[tlb ${tag} inval] seed=${tb.seed}`);
        const b = new TlbBench(tb, dut as unknown as TlbPorts, numMr, { reqPause: 0.2, respPause: 0.2 });
        let mrs = await table(tb, b, numMr);
        for (let round = 0; round < 12; round++) {
          // Warm the TLB on one MR (which starts a prefetch of the following line) ...
          const j = mrs.findIndex((m, i) => m.valid && i === tb.rng.int(0, numMr - 1)) >= 0 ? mrs.findIndex(m => m.valid) : 0;
          const old = mrs[j]!;
          const oldKey = keyOf(j, old.tag);
          const req0 = { key: oldKey, va: old.va, len: 1, pd: old.pd, access: 0 };
          if (old.valid) b.request(0, req0);
          await b.drain('warm-up');
          // ... and re-register it at once: a new page table (and, half the time, the same tag).
          const fresh = b.randomMr(tb.rng, { maxPages: 24 });
          const next: MrDesc = { ...fresh, tag: tb.rng.bool() ? old.tag : (old.tag + 1) & 0xff, va: old.valid ? old.va : fresh.va, len: old.valid ? old.len : fresh.len };
          next.ptBase = b.ptBaseFor(Number((next.va + next.len - 1n) / 4096n - next.va / 4096n + 1n));
          const { writePageTable } = await import('../../model/tlb.ts');
          writePageTable(b.mem, b.alloc, next, tb.rng);
          mrs = mrs.map((m, i) => (i === j ? next : m));
          b.setTable(mrs, j);
          await tb.rising();
          b.setTable(mrs);
          // Old key (BAD_TAG when the tag moved), then every page of the new registration.
          b.request(clients - 1, { ...req0, key: oldKey, pd: next.pd });
          const pages = Number((next.va + next.len - 1n) / 4096n - next.va / 4096n + 1n);
          for (let p = 0; p < pages; p++) {
            const va = p === 0 ? next.va : ((next.va >> 12n) + BigInt(p)) << 12n;
            b.request(tb.rng.int(0, clients - 1), { key: keyOf(j, next.tag), va, len: 1, pd: next.pd, access: 0 });
          }
          for (let k = 0; k < 20; k++) b.request(tb.rng.int(0, clients - 1), makeRequest(tb.rng, mrs, tb.rng.pick(REQ_KINDS), numMr));
          await b.drain('after re-registration');
        }
        expect(b.answered.some(a => a.got.status === XLATE.BAD_TAG)).toBe(true);
      }, { maxCycles: 300_000 });
    });

    it('a page-table read error answers PT_ERROR and is not cached', async () => {
      await runTest(design, async (dut, tb) => {
        const b = new TlbBench(tb, dut as unknown as TlbPorts, numMr);
        const mr: MrDesc = { valid: true, tag: 1, pd: 0, access: 7, va: 0x1000_0000n, len: 16n * 4096n, ptBase: PT_ERR_LO + 8n };
        const mrs = Array.from({ length: numMr }, (_, j) => (j === 0 ? mr : { ...mr, valid: false }));
        b.setTable(mrs);
        await tb.reset(2);
        for (let k = 0; k < 3; k++) b.request(0, { key: keyOf(0, 1), va: mr.va + 0x10n, len: 8, pd: 0, access: 1 });
        await b.drain('PT errors');
        expect(b.answered.map(a => a.got.status)).toEqual([XLATE.PT_ERROR, XLATE.PT_ERROR, XLATE.PT_ERROR]);
        expect(pteAddress(mr, mr.va)).toBe(PT_ERR_LO + 8n);
        await tb.clockCycles(2);
        expect([dut.hits.value, dut.misses.value]).toEqual([0, 3]);
      }, { seed: 5 });
    });

    it('sequential 1 MiB WRITE workload: hit rate >= 98%', async () => {
      await runTest(design, async (dut, tb) => {
        console.log(`[tlb ${tag} seq] seed=${tb.seed}`);
        const busBytes = params.dataWidth! / 8;
        const b = new TlbBench(tb, dut as unknown as TlbPorts, numMr, { ramLatency: 60 });
        const total = 1 << 20;
        const mr: MrDesc = { valid: true, tag: 0x5a, pd: 9, access: 4, va: 0x7f12_3456_7800n, len: BigInt(total), ptBase: 0n };
        mr.ptBase = b.ptBaseFor(257);
        const { writePageTable } = await import('../../model/tlb.ts');
        writePageTable(b.mem, b.alloc, mr, tb.rng);
        const mrs = Array.from({ length: numMr }, (_, j) => (j === 2 ? mr : { ...mr, valid: false }));
        b.setTable(mrs);
        await tb.reset(2);
        const client = clients - 1; // DMA write
        const key = keyOf(2, 0x5a);
        // The responder checks the whole RETH range once, then the DMA write engine asks once
        // per page chunk of each 4096-byte packet and moves the chunk (busBytes per cycle).
        b.request(client, { key, va: mr.va, len: total, pd: 9, access: 4 });
        for (let off = 0; off < total;) {
          const va = mr.va + BigInt(off);
          const chunk = Math.min(4096 - Number(va % 4096n), total - off, 4096 - (off % 4096));
          b.request(client, { key, va, len: chunk, pd: 9, access: 4 });
          await b.drain('chunk translation');
          await tb.clockCycles(Math.ceil(chunk / busBytes));
          off += chunk;
        }
        await tb.clockCycles(2);
        const hits = dut.hits.value, misses = dut.misses.value;
        const rate = hits / (hits + misses);
        console.log(`[tlb ${tag} seq] ${hits} hits, ${misses} misses over ${b.translations} translations: hit rate ${(100 * rate).toFixed(2)} %`);
        expect(hits + misses).toBe(b.translations);
        expect(rate).toBeGreaterThanOrEqual(0.98);
      }, { maxCycles: 2_000_000 });
    });
  });
}

// The PTEs live in a memory read (registered) when a request enters L, and re-read every cycle
// it waits there (tlb.ts). A request that waits in L as a miss (the one parked entry taken by a
// miss of the same line) while the fill it waits for rewrites its set must answer with the
// PTE of the line that is there when it answers, not with the word it read when it entered L
// (the set's previous line, whose PTE differs): caught if L keeps that first read (a snapshot),
// and, for the PTE in the fill's last beat, if L answers in the cycle after the write (the
// read of that cycle returns the old word while the tags already show the new line).
describe('nic_tlb: a request waiting in L while a fill rewrites its set', () => {
  const staleConfigs: Partial<TlbParams>[] = [
    { dataWidth: 64, numMr: 4, numClients: 2, lines: 4, missSlots: 1, respSlice: true },
    { dataWidth: 512, numMr: 4, numClients: 2, lines: 4, missSlots: 1, respSlice: true },
    { dataWidth: 512, numMr: 4, numClients: 2, lines: 4, missSlots: 1 },
  ];
  for (const params of staleConfigs) {
    it(`dataWidth=${params.dataWidth}${params.respSlice ? ' respSlice' : ''}: answers the new line's PTE`, async () => {
      await runTest(dslDesign(nicTlb, params), async (dut, tb) => {
        const b = new TlbBench(tb, dut as unknown as TlbPorts, 4, { ramFixedLatency: 30, ramLatency: 0, ramBackpressure: 0 });
        // MR 0 (set = line number mod 4): lines 0 and 4 share set 0.
        const mr: MrDesc = { valid: true, tag: 3, pd: 2, access: 7, va: 0x4444_0000_0000n, len: 64n * 4096n, ptBase: 0n };
        mr.ptBase = b.ptBaseFor(64) & ~63n;
        const { writePageTable } = await import('../../model/tlb.ts');
        writePageTable(b.mem, b.alloc, mr, tb.rng);
        const mrs = Array.from({ length: 4 }, (_, j) => (j === 0 ? mr : { ...mr, valid: false }));
        b.setTable(mrs);
        await tb.reset(2);
        const at = (page: number) => ({ key: keyOf(0, 3), va: mr.va + BigInt(page * 4096 + 8), len: 8, pd: 2, access: 2 });
        for (const delay of [0, 1, 2, 3, 5, 8, 13]) {
          // Set 0 holds line 4 (pages 32..39).
          b.request(0, at(39));
          await b.drain('line 4 in set 0');
          await tb.clockCycles(2);
          const [h0, m0] = [dut.hits.value, dut.misses.value];
          // Client 0 misses line 0 and takes the one parked entry; client 1's request for
          // line 0 then waits in L until that fill has rewritten set 0.
          b.request(0, at(0));
          await tb.clockCycles(delay);
          b.request(1, at(7));
          await b.drain('both answers');
          await tb.clockCycles(2);
          expect([dut.hits.value - h0, dut.misses.value - m0], `delay ${delay}: one miss parked, one waited in L and hit`).toEqual([1, 1]);
          // Drop MR 0's lines for the next round.
          await tb.rising();
          b.setTable(mrs, 0);
          await tb.rising();
          b.setTable(mrs);
        }
        expect(b.answered.length).toBe(21);
      }, { seed: 7 });
    });
  }
});
