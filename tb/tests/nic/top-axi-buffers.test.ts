// nic_top's client buffers (gen/nic/top-axi-buffers.ts), each wrapped alone between an AXI
// master BFM (the "engine", pausing and back-pressuring at random) and an AxiRam (the shared
// side, random latency). Checked against the memory model: every read returns the memory's
// bytes and every write lands; and the rule each buffer exists for:
//  - read: the shared side never sees RREADY low (an R beat without room trips the block's
//    assertion, which fails the run) although the engine stalls its R half of the time; and
//    the R FIFO falls through: a beat arriving on the shared side is visible to the engine
//    (RVALID) in the same cycle, from the FIFO if older beats wait there, else itself;
//  - write: once an AW passed to the shared side, that burst's W beats follow with no gap
//    even though the engine pauses between W beats (its burst was buffered first).
// Lint of both wrappers with verilator -Wall, iverilog and yosys.

import { describe, expect, it } from 'vitest';
import { defineModule, type ModuleBuilder } from '../../../gen/hdl/index.ts';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { axi4Read, axi4Write } from '../../../gen/nic/axi-ports.ts';
import { creditedReadClient, storeForwardWriteClient, type ClientBufferOptions } from '../../../gen/nic/top-axi-buffers.ts';
import { portsOf, type PortMap } from '../../../gen/nic/top-wiring.ts';
import { ADDR_WIDTH } from '../../../gen/nic/types.ts';
import { ClockPhases } from '../../bfm/clock-phases.ts';
import { AxiMaster, AxiRam } from '../../bfm/index.ts';
import { high } from '../../bfm/ports.ts';
import { runTest } from '../../core/index.ts';
import { design } from '../../design.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { readMasterPorts, readSlavePorts, writeMasterPorts, writeSlavePorts } from './axi-halves.ts';
import { hex } from './support/hex.ts';

const ID_W = 4;
const BYTES = 4096;
const REGION = 0x8000_0000n;

function options(m: ModuleBuilder, W: number, engine: PortMap, shared: PortMap): { o: ClientBufferOptions; inst: Parameters<typeof creditedReadClient>[2] } {
  return {
    o: { name: 'buf', dataWidth: W, idWidth: ID_W, bytes: BYTES, engine, enginePrefix: 's_axi', mux: shared, muxPrefix: 'm_axi' },
    inst: (name, def, params) => portsOf(m.instance(name, def, params), name),
  };
}

const readWrapper = defineModule('tb_read_client_buffer', { dataWidth: 64 }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const spec = { idWidth: ID_W, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth };
  const s_axi = axi4Read(spec).sink(m, 's_axi');
  const m_axi = axi4Read(spec).source(m, 'm_axi');
  const { o, inst } = options(m, p.dataWidth, portsOf({ s_axi }), portsOf({ m_axi }));
  creditedReadClient(m, o, inst);
  return { clk, rst, s_axi, m_axi };
});

const writeWrapper = defineModule('tb_write_client_buffer', { dataWidth: 64 }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const spec = { idWidth: ID_W, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth };
  const s_axi = axi4Write(spec).sink(m, 's_axi');
  const m_axi = axi4Write(spec).source(m, 'm_axi');
  const { o, inst } = options(m, p.dataWidth, portsOf({ s_axi }), portsOf({ m_axi }));
  storeForwardWriteClient(m, o, inst);
  return { clk, rst, s_axi, m_axi };
});

/** Bus-aligned bursts of 1..256 beats inside one 4 KiB page. */
function burstsOf(rng: { int(a: number, b: number): number; pick<T>(x: readonly T[]): T }, count: number, busBytes: number): { addr: bigint; len: number }[] {
  return Array.from({ length: count }, () => {
    const beats = Math.min(rng.pick([1, 2, 16, 64, 256, rng.int(1, 256)]), 4096 / busBytes);
    const off = rng.int(0, 4096 / busBytes - beats) * busBytes;
    return { addr: REGION + BigInt(rng.int(0, 15) * 4096 + off), len: beats - 1 };
  });
}

describe('nic_top client buffers', () => {
  for (const W of [64, 512]) {
    it(`dataWidth ${W}: wrappers lint clean (verilator -Wall, iverilog, yosys)`, () => {
      for (const e of [emitToDir(readWrapper, { dataWidth: W }), emitToDir(writeWrapper, { dataWidth: W })]) {
        verilatorLint(e); iverilogCompile(e); yosysSynth(e);
      }
    });
  }

  it('credited R buffer: reads byte-exact, the shared R channel never waits for a stalling engine, beats fall through', async () => {
    await runTest(design(readWrapper, { dataWidth: 64 }), async (dut, tb) => {
      const mem = new HostMemory();
      mem.fillRandom(REGION, 0x10000, tb.rng);
      const ram = new AxiRam(tb, readMasterPorts(dut.m_axi), { memory: mem, readLatency: { fixed: 1, random: 30 }, reorder: false });
      const eng = new AxiMaster(tb, readSlavePorts(dut.s_axi), { name: 'engine', pause: 0.1, backpressure: 0.5 });
      let rStalls = 0, rHidden = 0;
      ClockPhases.of(tb).onSample(() => {
        if (high(dut.m_axi.rvalid) && !high(dut.m_axi.rready)) rStalls++;
        if (high(dut.m_axi.rvalid) && !high(dut.s_axi.rvalid)) rHidden++;
      });
      await tb.reset(2);
      const plan = burstsOf(tb.rng, 60, 8);
      const ops = plan.map(b => ({ b, op: eng.issueRead({ addr: b.addr, len: b.len, id: tb.rng.int(0, 3) }) }));
      for (const { b, op } of ops) {
        const res = await op.wait();
        const want = mem.read(b.addr, (b.len + 1) * 8);
        const at = want.findIndex((x, k) => x !== res.data[k]);
        expect(at, `read ${hex(b.addr)} len ${b.len + 1}: first differing byte at ${at} (cycle ${res.cycle}, seed ${tb.seed})`).toBe(-1);
      }
      expect(ram.stats.readBursts).toBe(plan.length);
      expect(rStalls, `cycles with RVALID and RREADY low on the shared side (seed ${tb.seed})`).toBe(0);
      expect(rHidden, `cycles with RVALID on the shared side but not at the engine (seed ${tb.seed})`).toBe(0);
    }, { maxCycles: 400_000 });
  });

  it('store-and-forward W buffer: writes land, an AW that passed is followed by its W beats without a gap', async () => {
    await runTest(design(writeWrapper, { dataWidth: 64 }), async (dut, tb) => {
      const mem = new HostMemory();
      const ram = new AxiRam(tb, writeMasterPorts(dut.m_axi), { memory: mem, writeLatency: { fixed: 1, random: 10 } });
      const eng = new AxiMaster(tb, writeSlavePorts(dut.s_axi), { name: 'engine', pause: 0.3 });
      // W beats owed on the shared side by AWs that passed; a cycle with some owed and WVALID
      // low is a gap the engine's pauses caused (what the buffer must hide).
      let owed = 0, gaps = 0, awTaken = 0;
      ClockPhases.of(tb).onSample(() => {
        const m = dut.m_axi;
        if (owed > 0 && !high(m.wvalid)) gaps++;
        if (high(m.awvalid) && high(m.awready)) { owed += Number(m.awlen.value) + 1; awTaken++; }
        if (high(m.wvalid) && high(m.wready)) owed--;
      });
      await tb.reset(2);
      const plan = burstsOf(tb.rng, 60, 8).map(b => ({ ...b, data: tb.rng.bytes((b.len + 1) * 8) }));
      // Disjoint targets, so the final memory says which write landed.
      plan.forEach((b, k) => { b.addr = REGION + BigInt(k * 4096) + (b.addr % 4096n); });
      const ops = plan.map(b => eng.issueWrite({ addr: b.addr, len: b.len, id: tb.rng.int(0, 3), data: b.data }));
      for (const op of ops) await op.wait();
      for (const b of plan) {
        const got = mem.read(b.addr, b.data.length);
        const at = b.data.findIndex((x, k) => x !== got[k]);
        expect(at, `write ${hex(b.addr)} len ${b.len + 1}: first differing byte at ${at} (seed ${tb.seed})`).toBe(-1);
      }
      expect(awTaken).toBe(plan.length);
      expect(ram.stats.writeBursts).toBe(plan.length);
      expect(gaps, `cycles with W beats owed and WVALID low on the shared side (seed ${tb.seed})`).toBe(0);
    }, { maxCycles: 400_000 });
  });
});
