// nic_dma_write against the AXI4 memory slave over scattered host memory, a TS translation
// responder, and the reference model in dma-model.ts. Every test prints its seed;
// NICGEN_SEED=<n> repeats a run.

import { describe, expect, it } from 'vitest';
import { emitTop } from '../../../gen/emit/index.ts';
import type { IOOf } from '../../../gen/hdl/index.ts';
import { nicDmaWrite, dmaWriteDefaults } from '../../../gen/nic/dma-write.ts';
import { XLATE_ACCESS, XLATE_STATUS } from '../../../gen/nic/types.ts';
import { AxiStreamSource, type AxiMasterPorts } from '../../bfm/index.ts';
import { envSeed, randomSeed, Rng, runTest, typedDesign } from '../../core/index.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { PageAllocator } from '../../model/page-allocator.ts';
import { dmaMemory, XlateStandIn, type MemTiming, type XlateTiming } from './dma-standins.ts';
import { StructSink, StructSource } from './stage-streams.ts';
import { expectWrite, firstDiff, XlateModel, type Region, type WriteCommand, type XlateRequest } from './dma-model.ts';

const BURST = dmaWriteDefaults.burstBytes;
const W = XLATE_ACCESS.REMOTE_WRITE | XLATE_ACCESS.LOCAL_WRITE;

interface Setup { mem: HostMemory; xm: XlateModel; regions: Region[]; rng: Rng }

/** Four regions of 72 KiB on scattered, randomly filled pages; region 4 is read-only. */
function setup(seed: number): Setup {
  const rng = new Rng(seed);
  const mem = new HostMemory();
  const alloc = new PageAllocator({ base: 0x7f12_3400_0000n, pages: 256, rng: rng.fork() });
  const xm = new XlateModel();
  const regions = [1, 2, 3, 4].map(i => xm.addRegion({
    index: i, tag: rng.int(0, 255), pd: 3, access: i === 4 ? XLATE_ACCESS.REMOTE_READ : W,
    len: 72 * 1024, vaPage: 0x9_0000n + BigInt(i * 64), offset: rng.int(0, 4095),
  }, alloc, mem, rng));
  return { mem, xm, regions, rng };
}

const LENGTHS = [0, 1, 63, 64, 65, 4095, 4096, 4097];

/** Commands over disjoint slices of the writable regions, so the expected memory is unambiguous. */
function commands(s: Setup, lens: number[], errP: number): WriteCommand[] {
  const { rng } = s;
  const writable = s.regions.slice(0, 3);
  const cursor = writable.map(() => 0);
  const out: WriteCommand[] = [];
  for (const len of lens) {
    let ri = rng.int(0, 2);
    for (let t = 0; t < 3 && cursor[ri]! + len + 200 > writable[ri]!.len; t++) ri = (ri + 1) % 3;
    const r = writable[ri]!;
    const gap = rng.int(0, 150);
    if (cursor[ri]! + gap + len > r.len) throw new Error('test setup: regions too small for the commands');
    const va = r.va + BigInt(cursor[ri]! + gap);
    cursor[ri] = cursor[ri]! + gap + len;
    let c: WriteCommand = { va, len, key: r.key, pd: r.pd, access: XLATE_ACCESS.REMOTE_WRITE, data: rng.bytes(len) };
    if (len > 0 && rng.bool(errP)) c = corrupt(c, r, s.regions[3]!, rng.int(XLATE_STATUS.BAD_KEY, XLATE_STATUS.OUT_OF_BOUNDS), rng);
    out.push(c);
  }
  return out;
}

function corrupt(c: WriteCommand, r: Region, readOnly: Region, kind: number, rng: Rng): WriteCommand {
  switch (kind) {
    case XLATE_STATUS.BAD_KEY: return { ...c, key: (rng.int(9, 200) << 8) | (r.key & 0xff) };
    case XLATE_STATUS.BAD_TAG: return { ...c, key: (r.key & ~0xff) | ((r.key + 1) & 0xff) };
    case XLATE_STATUS.BAD_PD: return { ...c, pd: r.pd + 1 };
    // A read-only region: the write would land in memory that must stay unchanged.
    case XLATE_STATUS.NO_ACCESS: return { ...c, key: readOnly.key, pd: readOnly.pd, va: readOnly.va + BigInt(rng.int(0, readOnly.len - c.len)) };
    default: return { ...c, va: r.va + BigInt(r.len - c.len + rng.int(1, 100)) };
  }
}

interface RunOptions { slave: MemTiming; xlate: XlateTiming; statusReadyP: number; validP: number }
const RANDOM_TIMING: RunOptions = {
  slave: { latency: 6, readyP: 0.7, validP: 0.8 },
  xlate: { minLatency: 1, maxLatency: 8, readyP: 0.7, validP: 0.8 },
  statusReadyP: 0.7, validP: 0.8,
};
const FAST: RunOptions = {
  slave: { latency: 0, readyP: 1, validP: 1 },
  xlate: { minLatency: 2, maxLatency: 2, readyP: 1, validP: 1 },
  statusReadyP: 1, validP: 1,
};

/** The translations the engine asks for: the whole range, then one per page after the first
 *  (the validation's answer carries the first page's address). */
function engineXlate(cmds: readonly WriteCommand[], x: XlateModel): XlateRequest[] {
  const out: XlateRequest[] = [];
  for (const c of cmds) {
    if (c.len === 0) continue;
    const q = { key: c.key, va: c.va, len: c.len, pd: c.pd, access: c.access };
    out.push(q);
    if (x.translate(q).status !== 0) continue;
    for (const p of x.pieces(c.key, c.va, c.len).slice(1)) out.push({ ...q, va: p.va, len: p.len });
  }
  return out;
}

const big = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v);

/** Result of a run: W beats per cycle over the run's W beats, and the cycle of every status. */
interface RunResult { rate: number; statusCycles: number[] }

async function runWrite(dw: number, seed: number, s: Setup, cmds: WriteCommand[], o: RunOptions, label: string): Promise<number> {
  return (await runWriteCycles(dw, seed, s, cmds, o, label)).rate;
}

async function runWriteCycles(dw: number, seed: number, s: Setup, cmds: WriteCommand[], o: RunOptions, label: string): Promise<RunResult> {
  const bytes = dw / 8;
  const exp = expectWrite(cmds, s.xm, bytes, BURST);
  const design = typedDesign<IOOf<typeof nicDmaWrite>>(emitTop(nicDmaWrite, { dataWidth: dw }));
  const where = `[${label}, dataWidth ${dw}, seed ${seed}]`;
  const snap = s.mem.snapshot();
  let rate = 0;
  let statusCycles: number[] = [];
  await runTest(design, async (dut, tb) => {
    // The models start after reset: what they offer during it would be lost.
    await tb.reset(2);
    const cmd = new StructSource(tb, dut.cmd, 's_cmd', { pause: 1 - o.validP });
    const payload = new AxiStreamSource(tb, dut.payload, { pause: 1 - o.validP });
    const status = new StructSink(tb, dut.status, 'm_status', { pause: 1 - o.statusReadyP });
    const xl = new XlateStandIn(tb, dut.xlateReq, dut.xlateResp, (q: XlateRequest) => s.xm.translate(q), o.xlate);
    const axi = dmaMemory(tb, dut.axi as unknown as AxiMasterPorts, s.mem, o.slave, 'nic_dma_write.m_axi');
    for (const c of cmds) {
      cmd.push({ va: c.va, len: c.len, key: c.key, pd: c.pd, access: c.access });
      if (c.len > 0) payload.send(c.data);
    }
    await tb.until(() => status.items.length >= cmds.length && cmd.idle && payload.idle, { timeout: 400_000, what: `${where}: ${cmds.length} statuses` });
    // A little longer: nothing more may come out.
    await tb.clockCycles(30);

    const got = status.items.map(x => x.value.status);
    for (let i = 0; i < Math.max(got.length, exp.statuses.length); i++) {
      if (got[i] !== exp.statuses[i]) throw new Error(`status of command ${i} ${where}: got ${got[i]} at cycle ${status.items[i]?.cycle}, expected ${exp.statuses[i]} (command ${JSON.stringify({ ...cmds[i], data: undefined }, big)})`);
    }
    const gotX = xl.requests.map(r => r.value);
    const expX = engineXlate(cmds, s.xm);
    for (let i = 0; i < Math.max(gotX.length, expX.length); i++) {
      const g = gotX[i], e: XlateRequest | undefined = expX[i];
      const same = g && e && g.key === e.key && g.va === e.va && g.len === e.len && g.pd === e.pd && g.access === e.access;
      if (!same) throw new Error(`translation request ${i} ${where}: got ${JSON.stringify(g, big)} at cycle ${xl.requests[i]?.cycle}, expected ${JSON.stringify(e, big)}`);
    }
    for (let i = 0; i < Math.max(axi.aw.length, exp.bursts.length); i++) {
      const g = axi.aw[i], e = exp.bursts[i];
      if (!g || !e || g.addr !== e.addr || g.len !== e.len) {
        throw new Error(`AW burst ${i} ${where}: got ${g ? `0x${g.addr.toString(16)} len ${g.len} at cycle ${g.cycle}` : 'none'}, expected ${e ? `0x${e.addr.toString(16)} len ${e.len}` : 'none'}`);
      }
    }
    for (const w of exp.writes) {
      const now = s.mem.read(w.pa, w.data.length);
      const d = firstDiff(now, w.data);
      if (d >= 0) throw new Error(`memory at 0x${(w.pa + BigInt(d)).toString(16)} ${where}: got ${now[d]}, expected ${w.data[d]} (range 0x${w.pa.toString(16)}+${w.data.length})`);
    }
    snap.expectUnchangedOutside(exp.writes.map(w => ({ addr: w.pa, len: w.data.length })), `host memory ${where}`);
    const wb = axi.wBeatCycles;
    rate = wb.length ? wb.length / (wb[wb.length - 1]! - wb[0]! + 1) : 0;
    statusCycles = status.items.map(x => x.cycle);
    const total = exp.writes.reduce((n, w) => n + w.data.length, 0);
    console.log(`${where}: ${cmds.length} commands (${exp.statuses.filter(x => x !== 0).length} failing), ${total} bytes written, ${axi.aw.length} bursts, ${wb.length} W beats in ${tb.cycle} cycles`);
  }, { seed, maxCycles: 2_000_000 });
  snap.release();
  return { rate, statusCycles };
}

function seedFor(name: string): number {
  const seed = envSeed() ?? randomSeed();
  console.log(`${name}: seed ${seed}`);
  return seed;
}

for (const dw of [64, 512]) {
  describe(`nic_dma_write, dataWidth ${dw}`, () => {
    it('edge lengths at unaligned addresses, random timing', async () => {
      const seed = seedFor(`write ${dw} edge lengths`);
      const s = setup(seed);
      const lens = [...LENGTHS, 8191, 8193, ...LENGTHS].map(x => x);
      await runWrite(dw, seed, s, commands(s, lens, 0), RANDOM_TIMING, 'edge lengths');
    });

    it('random lengths, page crossings, errors, backpressure', async () => {
      const seed = seedFor(`write ${dw} random`);
      const s = setup(seed);
      const lens = Array.from({ length: 40 }, () => (s.rng.bool(0.3) ? s.rng.pick(LENGTHS) : s.rng.bool(0.7) ? s.rng.int(1, 3000) : s.rng.int(1, 20000)));
      await runWrite(dw, seed, s, commands(s, lens, 0.25), RANDOM_TIMING, 'random');
    });

    it('translation errors: payload dropped, nothing written, right status, later commands unaffected', async () => {
      const seed = seedFor(`write ${dw} errors`);
      const s = setup(seed);
      // One call, so the good commands' ranges stay disjoint; then break every other one.
      const cmds = commands(s, Array.from({ length: 10 }, (_, i) => s.rng.int(1, i % 2 ? 3000 : 6000)), 0);
      for (let kind = XLATE_STATUS.BAD_KEY; kind <= XLATE_STATUS.OUT_OF_BOUNDS; kind++) {
        const i = 2 * (kind - 1), bad = cmds[i]!;
        cmds[i] = corrupt(bad, s.regions.find(r => r.key === bad.key)!, s.regions[3]!, kind, s.rng);
      }
      cmds.push({ va: 0n, len: 0, key: 0xdead00, pd: 9, access: 4, data: new Uint8Array(0) });
      const exp = expectWrite(cmds, s.xm, dw / 8, BURST);
      expect(exp.statuses).toEqual([1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0]);
      await runWrite(dw, seed, s, cmds, RANDOM_TIMING, 'errors');
    });

    it('64 KiB write: throughput at memory latency 0', async () => {
      const seed = seedFor(`write ${dw} throughput`);
      for (const offset of [0, 5]) {
        const s = setup(seed);
        const r = s.regions[0]!;
        const va = ((r.va + 4095n) & ~4095n) + BigInt(offset);
        const cmds: WriteCommand[] = [{ va, len: 65536, key: r.key, pd: r.pd, access: XLATE_ACCESS.REMOTE_WRITE, data: s.rng.bytes(65536) }];
        const rate = await runWrite(dw, seed, s, cmds, FAST, 'throughput');
        console.log(`nic_dma_write dataWidth ${dw}: 64 KiB at offset ${offset}, memory latency 0: ${rate.toFixed(3)} W beats/cycle`);
        expect(rate, `W beats/cycle at offset ${offset}`).toBeGreaterThanOrEqual(0.95);
      }
    });

    it('back-to-back 256-byte packets (MTU 256 WRITEs): cycles per command', async () => {
      const seed = seedFor(`write ${dw} short packets`);
      const s = setup(seed);
      const r = s.regions[0]!;
      // Consecutive packets of one message: every 16th crosses a 4 KiB page.
      const n = 48, len = 256;
      const cmds: WriteCommand[] = Array.from({ length: n }, (_, k) => (
        { va: r.va + BigInt(k * len), len, key: r.key, pd: r.pd, access: XLATE_ACCESS.REMOTE_WRITE, data: s.rng.bytes(len) }));
      // The TLB answers a hit 3 cycles after taking the request.
      const timing: RunOptions = { ...FAST, xlate: { ...FAST.xlate, minLatency: 3, maxLatency: 3 } };
      const { statusCycles: c } = await runWriteCycles(dw, seed, s, cmds, timing, 'short packets');
      const perCmd = (c[n - 1]! - c[8]!) / (n - 1 - 8);
      const beats = Math.ceil(len / (dw / 8));
      console.log(`nic_dma_write dataWidth ${dw}: ${len}-byte commands back to back: ${perCmd.toFixed(2)} cycles per command (${beats} payload beats)`);
      // At line rate a 256-byte WRITE packet is ~40 bus beats on the wire at 64 bits (headers,
      // ICRC): the engine must keep up with its W beats (33 when unaligned). At 512 bits the
      // per-command translation work is the floor: one 3-cycle translation and two cycles
      // around it (6.05 measured); with a second one for the first page it was 7.1.
      const bound = Math.max(beats + 2, 6.5);
      expect(perCmd, `cycles per 256-byte command (seed ${seed})`).toBeLessThanOrEqual(bound);
    });
  });
}
