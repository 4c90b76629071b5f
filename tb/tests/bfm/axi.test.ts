// AXI4 master -> register slice DUT -> AxiRam: random bursts of every type, size and
// alignment read back what was written; responses really are reordered across ids; and
// illegal requests fail the test with the rule's name.

import { describe, expect, it } from 'vitest';
import { AxiMaster, AxiRam, ProtocolError, type AxiRamOptions, type BurstName } from '../../bfm/index.ts';
import { runTest, TestFailure, type Rng } from '../../core/index.ts';
import { axiPassDesign } from './duts.ts';

const BASE = 0x7_1234_0000_0000n; // above 2^32: addresses travel as bigints
const BUS = 8;

interface RandomBurst { addr: bigint; len: number; size: number; burst: BurstName; id: number }

/** A legal random burst inside the 4 KiB page at `page`. */
function randomBurst(rng: Rng, page: bigint): RandomBurst {
  const burst = rng.pick(['FIXED', 'INCR', 'INCR', 'WRAP'] as const);
  const size = rng.int(0, Math.log2(BUS));
  const bytes = 1 << size;
  const len = burst === 'WRAP' ? rng.pick([1, 3, 7, 15]) : burst === 'FIXED' ? rng.int(0, 15) : rng.int(0, Math.min(255, 4096 / bytes - 1));
  const span = burst === 'FIXED' ? bytes : (len + 1) * bytes;
  // INCR/FIXED may start unaligned; WRAP must be aligned to the beat size.
  let off = rng.int(0, 4096 - span);
  if (burst === 'WRAP') off -= off % bytes;
  return { addr: page + BigInt(off), len, size, burst, id: rng.int(0, 15) };
}

const slowRam: AxiRamOptions = { readLatency: { fixed: 2, random: 30 }, writeLatency: { fixed: 1, random: 20 }, backpressure: 0.3, stall: 0.2 };

describe('AXI4 master through a register slice into AxiRam', () => {
  it('reads back random bursts of all types, sizes and alignments, with reordering across ids', async () => {
    let report = '';
    const r = await runTest(axiPassDesign, async (dut, tb) => {
      await tb.reset(2);
      const m = new AxiMaster(tb, dut.s_axi, { pause: 0.2, backpressure: 0.3 });
      const ram = new AxiRam(tb, dut.m_axi, slowRam);
      const workers = Array.from({ length: 8 }, (_, w) => tb.fork(async () => {
        const rng = tb.rng.fork();
        for (let i = 0; i < 12; i++) {
          const b = randomBurst(rng, BASE + BigInt((w * 64 + i) * 4096));
          const data = rng.bytes(m.burstBytes(b));
          const wr = await m.writeBurst({ ...b, data });
          expect(wr.resp).toBe(0);
          const rd = await m.readBurst(b);
          expect(rd.resp.every(x => x === 0)).toBe(true);
          const what = `${b.burst} addr 0x${b.addr.toString(16)} len ${b.len} size ${b.size} (seed ${tb.seed})`;
          if (b.burst === 'FIXED') {
            // Every beat hits the same bytes: they all read what the last beat wrote.
            const per = data.length / (b.len + 1);
            const lastBeat = data.subarray(data.length - per);
            for (let k = 0; k <= b.len; k++) expect(rd.data.subarray(k * per, (k + 1) * per), what).toEqual(lastBeat);
          } else {
            expect(rd.data, what).toEqual(data);
          }
          // INCR bytes are contiguous from the start address: check the memory itself too.
          if (b.burst === 'INCR') expect(ram.memory.read(b.addr, data.length), what).toEqual(data);
        }
      }, `worker${w}`));
      for (const t of workers) await t.join();
      expect(ram.idle).toBe(true);
      expect(m.checker!.idle).toBe(true);
      const s = ram.stats;
      report = `seed ${tb.seed}: ${JSON.stringify(s)}`;
      expect(s.writeBursts).toBe(96);
      expect(s.readBursts).toBe(96);
      expect(s.reorderedReads + s.reorderedWrites).toBeGreaterThan(0);
      expect(s.maxOutstandingReads).toBeGreaterThan(1);
      expect(s.maxOutstandingWrites).toBeGreaterThan(1);
    });
    console.log(`axi random bursts: ${r.cycles} cycles, ${report}`);
  });

  it('writes and reads long unaligned ranges split into legal bursts', async () => {
    await runTest(axiPassDesign, async (dut, tb) => {
      await tb.reset(2);
      const m = new AxiMaster(tb, dut.s_axi);
      const ram = new AxiRam(tb, dut.m_axi, { readLatency: 3 });
      const addr = BASE + 3n * 4096n - 13n;
      const data = tb.rng.bytes(9000);
      await m.write(addr, data, { id: 3 });
      expect(ram.memory.read(addr, data.length)).toEqual(data);
      expect(await m.read(addr + 1n, 8990, { id: 9 })).toEqual(data.subarray(1, 8991));
      // 13 bytes up to the page boundary, four bursts of 256 beats (2 KiB), 795 bytes left.
      expect(ram.stats.writeBursts).toBe(6);
      expect(ram.stats.writeBytes).toBe(9000);
    });
  });

  it('keeps order within one id and answers in order when reordering is off', async () => {
    await runTest(axiPassDesign, async (dut, tb) => {
      await tb.reset(2);
      const m = new AxiMaster(tb, dut.s_axi);
      const ram = new AxiRam(tb, dut.m_axi, { readLatency: { fixed: 0, random: 40 }, reorder: false });
      const ops = Array.from({ length: 20 }, (_, i) => m.issueRead({ addr: BASE + BigInt(i * 64), len: 7, id: i % 4 }));
      await m.idle();
      const order = ops.map(o => o.result!.cycle);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(ram.stats.reorderedReads).toBe(0);
    });
  });

  it('interleaves the R beats of different ids when asked, each burst still reading back', async () => {
    await runTest(axiPassDesign, async (dut, tb) => {
      await tb.reset(2);
      const m = new AxiMaster(tb, dut.s_axi, { backpressure: 0.2 });
      const ram = new AxiRam(tb, dut.m_axi, { readLatency: { fixed: 0, random: 6 }, stall: 0.1, interleave: true });
      const bursts = Array.from({ length: 24 }, (_, i) => ({ addr: BASE + BigInt(i * 4096 + 8 * i), len: 15 + (i % 3) * 8, size: 3, burst: 'INCR' as const, id: i % 6 }));
      const data = bursts.map(b => tb.rng.bytes(m.burstBytes(b)));
      bursts.forEach((b, i) => ram.memory.write(b.addr, data[i]!));
      const ops = bursts.map(b => m.issueRead(b));
      await m.idle();
      ops.forEach((o, i) => expect(o.result!.data, `burst ${i} (id ${bursts[i]!.id}, seed ${tb.seed})`).toEqual(data[i]));
      expect(ram.stats.interleavedReads, 'R beats that switched to another unfinished burst').toBeGreaterThan(10);
      expect(ram.idle).toBe(true);
    });
  });

  it('writes only strobed bytes', async () => {
    await runTest(axiPassDesign, async (dut, tb) => {
      await tb.reset(2);
      const m = new AxiMaster(tb, dut.s_axi);
      const ram = new AxiRam(tb, dut.m_axi);
      ram.memory.write(BASE, new Uint8Array(8).fill(0xee));
      await m.writeBurst({ addr: BASE, len: 0, data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]), strb: [0b1010_0101] });
      expect([...ram.memory.read(BASE, 8)]).toEqual([1, 0xee, 3, 0xee, 0xee, 6, 0xee, 8]);
    });
  });

  it('returns SLVERR where the test configures it', async () => {
    await runTest(axiPassDesign, async (dut, tb) => {
      await tb.reset(2);
      const m = new AxiMaster(tb, dut.s_axi);
      new AxiRam(tb, dut.m_axi, { respond: b => (b.addr >= BASE + 0x10000n ? 2 : 0) });
      await m.write(BASE, Uint8Array.of(1));
      await expect(m.write(BASE + 0x10000n, Uint8Array.of(1))).rejects.toThrow(/s_axi: write response 2 for id 0 addr 0x7123400010000/);
    });
  });
});

describe('AXI4 checks fail the test', () => {
  const illegal = (fn: (m: AxiMaster) => void) => runTest(axiPassDesign, async (dut, tb) => {
    await tb.reset(2);
    // The master does not check, so the error must come from the RAM's side of the DUT.
    const m = new AxiMaster(tb, dut.s_axi, { check: false });
    new AxiRam(tb, dut.m_axi);
    fn(m);
    await m.idle();
  }, { seed: 11, pictures: false });

  it('reports an INCR burst crossing 4 KiB', async () => {
    const err = await illegal(m => { m.issueWrite({ addr: BASE + 0xff0n, len: 3, data: new Uint8Array(32) }); }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    expect((err as TestFailure).cause).toBeInstanceOf(ProtocolError);
    await expect(Promise.reject(err)).rejects.toThrow(
      /^m_axi: AWADDR_BOUNDARY violated in cycle \d+ \(\d+ ns\): burst 0x7123400000ff0\.\.0x712340000100f crosses a 4 KiB boundary/);
  });

  it('reports a read crossing 4 KiB', async () => {
    await expect(illegal(m => { m.issueRead({ addr: BASE + 0x1ffcn, len: 1, size: 3 }); })).rejects.toThrow(/m_axi: ARADDR_BOUNDARY violated in cycle \d+/);
  });

  it('reports a strobe outside the addressed bytes of a narrow beat', async () => {
    await expect(illegal(m => { m.issueWrite({ addr: BASE + 2n, len: 1, size: 1, data: new Uint8Array(4), strb: [0b1100, 0b100_0000] }); }))
      .rejects.toThrow(/m_axi: WSTRB violated in cycle \d+ \(\d+ ns\): wstrb 0b1000000 has strobes outside byte lanes 4\.\.5 on beat 2 of 2/);
  });

  it('reports WLAST on the wrong beat', async () => {
    await expect(illegal(m => { m.issueWrite({ addr: BASE, len: 3, data: new Uint8Array(32), wlastOn: 1 }); }))
      .rejects.toThrow(/m_axi: WLAST violated in cycle \d+ \(\d+ ns\): wlast 1 on beat 2 of 4/);
  });

  it('reports an illegal WRAP length and a size wider than the bus', async () => {
    await expect(illegal(m => { m.issueRead({ addr: BASE, len: 2, burst: 'WRAP' }); })).rejects.toThrow(/ARLEN_WRAP violated/);
    await expect(illegal(m => { m.issueRead({ addr: BASE, len: 0, size: 4 }); })).rejects.toThrow(/ARSIZE violated .*wider than the 8-byte bus/);
  });
});
