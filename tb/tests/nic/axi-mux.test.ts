// nic_axi_rd_mux / nic_axi_wr_mux: N tb/bfm AxiMasters (random ids, lengths, pauses and
// backpressure) share one AxiRam (random latency, backpressure, responses of different ids
// reordered) through the mux. Checked: every read returns the memory's bytes, every write
// lands (and nothing else changes), responses reach the right client with the right id and
// resp, AXI protocol on both sides (the bfm checkers), no deadlock, and full throughput for
// back-to-back bursts when nobody pauses.

import { describe, expect, it } from 'vitest';
import { nicAxiRdMux, nicAxiWrMux, type AxiMuxParams } from '../../../gen/nic/axi-mux.ts';
import { AxiMaster, AxiRam, type AxiOp, type ReadResult, type WriteResult } from '../../bfm/index.ts';
import { runTest, type Rng } from '../../core/index.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { readMasterPorts, readSlavePorts, writeMasterPorts, writeSlavePorts } from './axi-halves.ts';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { design as dslDesign } from '../../design.ts';
import { hex } from './support/hex.ts';

const SLVERR = 2;
const REGION = 0x8000_0000n;
/** Bursts touching this range answer SLVERR (error routing). */
const ERR_LO = REGION + 0x3000n, ERR_HI = REGION + 0x3100n;
const hitsErr = (addr: bigint, bytes: number): boolean => addr < ERR_HI && addr + BigInt(bytes) > ERR_LO;

interface Burst { client: number; id: number; addr: bigint; len: number }

/** Random bus-aligned INCR bursts inside [base, base+span) that never cross 4 KiB. */
function randomBursts(rng: Rng, client: number, count: number, base: bigint, span: number, busBytes: number): Burst[] {
  const out: Burst[] = [];
  for (let k = 0; k < count; k++) {
    const beats = rng.pick([1, 2, 4, 8, 16, rng.int(1, 32)]);
    const off = rng.int(0, span / busBytes - beats) * busBytes;
    const addr = base + BigInt(off);
    const toPage = (4096 - Number(addr % 4096n)) / busBytes;
    out.push({ client, id: rng.int(0, 3), addr, len: Math.min(beats, toPage) - 1 });
  }
  return out;
}

const rdCases: Partial<AxiMuxParams>[] = [{ n: 3, dataWidth: 64 }, { n: 2, dataWidth: 512 }];
const wrCases: Partial<AxiMuxParams>[] = [{ n: 3, dataWidth: 64 }, { n: 2, dataWidth: 512 }];

describe('AXI muxes emit clean Verilog', () => {
  const cases = [
    ...rdCases.map(p => ['rd', p] as const), ...wrCases.map(p => ['wr', p] as const),
    ['rd', { n: 1 }] as const, ['wr', { n: 5, wOrderDepth: 8 }] as const,
  ];
  for (const [kind, p] of cases) {
    it(`${kind} ${JSON.stringify(p)}: verilator -Wall, iverilog, yosys synth + check -assert`, () => {
      const e = kind === 'rd' ? emitToDir(nicAxiRdMux, p) : emitToDir(nicAxiWrMux, p);
      verilatorLint(e);
      iverilogCompile(e);
      yosysSynth(e);
    });
  }
});

describe('nic_axi_rd_mux', () => {
  for (const params of rdCases) {
    const n = params.n!, busBytes = params.dataWidth! / 8;
    const design = dslDesign(nicAxiRdMux, params);

    it(`n=${n} dataWidth=${params.dataWidth}: random reads, reordered responses, SLVERR routed`, async () => {
      const r = await runTest(design, async (dut, tb) => {
        console.log(`[axi-mux rd n=${n} w=${params.dataWidth}] seed=${tb.seed}`);
        const mem = new HostMemory();
        mem.fillRandom(REGION, 0x10000, tb.rng);
        const ram = new AxiRam(tb, readMasterPorts(dut.m_axi), {
          memory: mem, readLatency: { fixed: 1, random: 24 }, backpressure: 0.3, stall: 0.2,
          respond: (b, kind) => (kind === 'read' && hitsErr(b.addr, (b.len + 1) * busBytes) ? SLVERR : 0),
        });
        const clients = Object.values(dut.s);
        const masters = clients.map((p, i) => new AxiMaster(tb, readSlavePorts(p), { name: `client${i}`, pause: 0.2, backpressure: 0.3 }));
        await tb.reset(2);
        const ops: { b: Burst; op: AxiOp<ReadResult> }[] = [];
        // Clients read overlapping ranges: the data is fixed, so any order is fine.
        const plan = masters.flatMap((_m, i) => randomBursts(tb.rng, i, 40, REGION, 0x10000, busBytes));
        plan.push({ client: n - 1, id: 3, addr: ERR_LO, len: 1 }); // at least one SLVERR
        tb.rng.shuffle(plan);
        for (const b of plan) ops.push({ b, op: masters[b.client]!.issueRead({ addr: b.addr, len: b.len, id: b.id }) });
        for (const { b, op } of ops) {
          const res = await op.wait();
          const where = `client ${b.client} id ${b.id} read ${hex(b.addr)} len ${b.len + 1}`;
          const bad = hitsErr(b.addr, (b.len + 1) * busBytes);
          expect(res.resp.every(x => x === (bad ? SLVERR : 0)), `${where}: resp ${res.resp.join(',')}`).toBe(true);
          const want = mem.read(b.addr, (b.len + 1) * busBytes);
          const at = want.findIndex((x, k) => x !== res.data[k]);
          expect(at, `${where}: first differing byte at offset ${at} (cycle ${res.cycle})`).toBe(-1);
        }
        expect(ram.stats.reorderedReads, 'the slave reordered responses at least once').toBeGreaterThan(0);
        expect(ram.stats.readBursts).toBe(plan.length);
      }, { maxCycles: 200_000 });
      expect(r.cycles).toBeGreaterThan(0);
    });

    it(`n=${n} dataWidth=${params.dataWidth}: back-to-back bursts at one beat per cycle`, async () => {
      await runTest(design, async (dut, tb) => {
        const mem = new HostMemory();
        const ram = new AxiRam(tb, readMasterPorts(dut.m_axi), { memory: mem, reorder: false });
        const masters = Object.values(dut.s).map((p, i) => new AxiMaster(tb, readSlavePorts(p), { name: `client${i}` }));
        await tb.reset(2);
        const per = 12, beats = 16;
        const ops = masters.flatMap((m, i) => Array.from({ length: per }, (_, k) =>
          m.issueRead({ addr: REGION + BigInt(i * 0x10000 + k * beats * busBytes), len: beats - 1, id: k % 4 })));
        const start = tb.cycle;
        await tb.until(() => ops.every(o => o.done), { timeout: 20_000 });
        const total = masters.length * per * beats;
        const cycles = tb.cycle - start;
        console.log(`[axi-mux rd n=${n} w=${params.dataWidth}] ${total} beats in ${cycles} cycles`);
        expect(ram.stats.readBursts).toBe(masters.length * per);
        // Fill and drain of the pipeline (AR slice, slave, R slice) is a handful of cycles.
        expect(cycles, `${total} beats took ${cycles} cycles`).toBeLessThanOrEqual(total + 12);
      }, { seed: 1 });
    });
  }
});

describe('nic_axi_wr_mux', () => {
  for (const params of wrCases) {
    const n = params.n!, busBytes = params.dataWidth! / 8;
    const design = dslDesign(nicAxiWrMux, params);

    it(`n=${n} dataWidth=${params.dataWidth}: random writes land in order, B routed by id`, async () => {
      await runTest(design, async (dut, tb) => {
        console.log(`[axi-mux wr n=${n} w=${params.dataWidth}] seed=${tb.seed}`);
        const mem = new HostMemory();
        mem.fillRandom(REGION, 0x4000 * (n + 1), tb.rng);
        const expected = new HostMemory();
        expected.write(REGION, mem.read(REGION, 0x4000 * (n + 1)));
        const snap = mem.snapshot();
        const ram = new AxiRam(tb, writeMasterPorts(dut.m_axi), {
          memory: mem, writeLatency: { fixed: 1, random: 20 }, backpressure: 0.3, stall: 0.2,
          respond: (b, kind) => (kind === 'write' && hitsErr(b.addr, (b.len + 1) * busBytes) ? SLVERR : 0),
        });
        const masters = Object.values(dut.s).map((p, i) => new AxiMaster(tb, writeSlavePorts(p), { name: `client${i}`, pause: 0.2, backpressure: 0.3 }));
        await tb.reset(2);
        // Each client writes its own 16 KiB (client 0's holds the SLVERR window); bursts of
        // one client may overlap, and then the later one must win (W follows AW order).
        const ops: { b: Burst; op: AxiOp<WriteResult>; data: Uint8Array }[] = [];
        const plan = masters.map((_m, i) => randomBursts(tb.rng, i, 30, REGION + BigInt(i * 0x4000), 0x4000, busBytes));
        plan[0]!.push({ client: 0, id: 2, addr: ERR_LO, len: 0 }); // at least one SLVERR
        const order: Burst[] = [];
        while (plan.some(q => q.length)) { const q = tb.rng.pick(plan.filter(x => x.length)); order.push(q.shift()!); }
        for (const b of order) {
          const data = tb.rng.bytes((b.len + 1) * busBytes);
          ops.push({ b, data, op: masters[b.client]!.issueWrite({ addr: b.addr, len: b.len, id: b.id, data }) });
          // The slave applies W data in AW order (AXI4 has no W interleaving), which the mux
          // keeps per client, so the later of two overlapping bursts wins whatever the ids.
          // (AxiRam stores the data of a burst it answers SLVERR to, so the model does too.)
          expected.write(b.addr, data);
        }
        const allowed: { addr: bigint; len: number }[] = [];
        for (const { b, op, data } of ops) {
          const res = await op.wait();
          const bad = hitsErr(b.addr, data.length);
          expect(res.resp, `client ${b.client} write ${hex(b.addr)} len ${b.len + 1}: bresp`).toBe(bad ? SLVERR : 0);
          allowed.push({ addr: b.addr, len: data.length });
        }
        await tb.clockCycles(5);
        const got = mem.read(REGION, 0x4000 * n), want = expected.read(REGION, 0x4000 * n);
        const at = want.findIndex((x, k) => x !== got[k]);
        expect(at, at < 0 ? '' : `memory differs first at ${hex(REGION + BigInt(at))}: ${got[at]} != ${want[at]}`).toBe(-1);
        snap.expectUnchangedOutside(allowed);
        snap.release();
        expect(ram.stats.writeBursts).toBe(order.length);
      }, { maxCycles: 200_000 });
    });

    it(`n=${n} dataWidth=${params.dataWidth}: back-to-back write bursts at one beat per cycle`, async () => {
      await runTest(design, async (dut, tb) => {
        const ram = new AxiRam(tb, writeMasterPorts(dut.m_axi), { reorder: false });
        const masters = Object.values(dut.s).map((p, i) => new AxiMaster(tb, writeSlavePorts(p), { name: `client${i}` }));
        await tb.reset(2);
        const per = 12, beats = 16;
        const ops = masters.flatMap((m, i) => Array.from({ length: per }, (_, k) =>
          m.issueWrite({ addr: REGION + BigInt(i * 0x10000 + k * beats * busBytes), len: beats - 1, id: k % 4, data: tb.rng.bytes(beats * busBytes) })));
        const start = tb.cycle;
        await tb.until(() => ops.every(o => o.done), { timeout: 20_000 });
        const total = masters.length * per * beats;
        const cycles = tb.cycle - start;
        console.log(`[axi-mux wr n=${n} w=${params.dataWidth}] ${total} beats in ${cycles} cycles`);
        expect(ram.stats.writeBursts).toBe(masters.length * per);
        expect(cycles, `${total} beats took ${cycles} cycles`).toBeLessThanOrEqual(total + 12);
      }, { seed: 1 });
    });
  }
});
