// nic_axi_rd_mux / nic_axi_wr_mux: N tb/bfm AxiMasters (random ids, lengths, pauses and
// backpressure) share one AxiRam (random latency, backpressure, responses of different ids
// reordered) through the mux. Checked: every read returns the memory's bytes, every write
// lands (and nothing else changes), responses reach the right client with the right id and
// resp, AXI protocol on both sides (the bfm checkers), no deadlock, full throughput for
// back-to-back bursts when nobody pauses, and the read mux's added latency per read (0 cycles
// on AR and R by default, 1 each with `arBypass: false` / `rSlice: true`).

import { describe, expect, it } from 'vitest';
import { axiMuxDefaults, nicAxiRdMux, nicAxiWrMux, type AxiMuxParams } from '../../../gen/nic/axi-mux.ts';
import { AxiMaster, AxiRam, ClockPhases, type AxiOp, type ReadResult, type WriteResult } from '../../bfm/index.ts';
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

/** A DUT port bundle seen as named signals, and "all of these are high". */
type Signals = Record<string, { value: number | bigint }>;
const on = (q: Signals, ...xs: string[]): boolean => xs.every(x => Number(q[x]!.value) !== 0);

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

/** The registered form of the read mux (a register slice on AR and on R). */
const registered = { arBypass: false, rSlice: true } as const;
const rdCases: Partial<AxiMuxParams>[] = [
  { n: 3, dataWidth: 64 }, { n: 2, dataWidth: 512 }, { n: 4, dataWidth: 64, urgentMask: 0b0010, bulkCapBeats: 64 },
  { n: 3, dataWidth: 64, ...registered }, { n: 2, dataWidth: 64, arBypass: false }, { n: 2, dataWidth: 64, rSlice: true },
];
/** nic_top's read mux: client 1 (page-table reads) urgent, the others capped together. */
const urgentCase = { n: 4, dataWidth: 64, urgentMask: 0b0010, bulkCapBeats: 64 } as const;
const urgentCases: AxiMuxParams[] = [{ ...axiMuxDefaults, ...urgentCase }, { ...axiMuxDefaults, ...urgentCase, ...registered }];
const wrCases: Partial<AxiMuxParams>[] = [{ n: 3, dataWidth: 64 }, { n: 2, dataWidth: 512 }];

describe('AXI muxes emit clean Verilog', () => {
  const cases = [
    ...rdCases.map(p => ['rd', p] as const), ...wrCases.map(p => ['wr', p] as const),
    ['rd', { n: 1 }] as const, ['wr', { n: 5, wOrderDepth: 8 }] as const,
    ['rd', { n: 4, dataWidth: 512, urgentMask: 0b0010, bulkCapBeats: 64 }] as const, ['rd', { n: 3, urgentMask: 0b001 }] as const,
    ['rd', { n: 1, ...registered }] as const, ['rd', { n: 4, dataWidth: 512, urgentMask: 0b0010, bulkCapBeats: 64, ...registered }] as const,
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
    const arBypass = params.arBypass ?? axiMuxDefaults.arBypass, rSlice = params.rSlice ?? axiMuxDefaults.rSlice;
    const label = `n=${n} dataWidth=${params.dataWidth} arBypass=${arBypass} rSlice=${rSlice}`;
    const design = dslDesign(nicAxiRdMux, params);

    it(`${label}: random reads, reordered responses, SLVERR routed`, async () => {
      const r = await runTest(design, async (dut, tb) => {
        console.log(`[axi-mux rd ${label}] seed=${tb.seed}`);
        const mem = new HostMemory();
        mem.fillRandom(REGION, 0x10000, tb.rng);
        const ram = new AxiRam(tb, readMasterPorts(dut.m_axi), {
          memory: mem, readLatency: { fixed: 1, random: 24 }, backpressure: 0.3, stall: 0.2,
          respond: (b, kind) => (kind === 'read' && hitsErr(b.addr, (b.len + 1) * busBytes) ? SLVERR : 0),
        });
        const clients = Object.values(dut.s);
        const masters = clients.map((p, i) => new AxiMaster(tb, readSlavePorts(p), { name: `client${i}`, pause: 0.2, backpressure: 0.3 }));
        // Coverage: ARs the slave refused (held by the mux), some while other clients asked
        // (the AXI checker fails the test if such a client changed the pending AR).
        const mp = dut.m_axi as unknown as Signals, sp = clients as unknown as Signals[];
        let arRefused = 0, arRefusedWhileAsked = 0;
        ClockPhases.of(tb).onSample(() => {
          if (!on(mp, 'arvalid') || on(mp, 'arready')) return;
          arRefused++;
          if (sp.some(q => on(q, 'arvalid'))) arRefusedWhileAsked++;
        });
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
        expect(arRefusedWhileAsked, `ARs refused by the slave: ${arRefused} cycles, ${arRefusedWhileAsked} with a client asking`).toBeGreaterThan(0);
        expect(ram.stats.readBursts).toBe(plan.length);
      }, { maxCycles: 200_000 });
      expect(r.cycles).toBeGreaterThan(0);
    });

    it(`${label}: back-to-back bursts at one beat per cycle`, async () => {
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
        console.log(`[axi-mux rd ${label}] ${total} beats in ${cycles} cycles`);
        expect(ram.stats.readBursts).toBe(masters.length * per);
        // Fill and drain of the pipeline (AR stage, slave, R stage) is a handful of cycles.
        expect(cycles, `${total} beats took ${cycles} cycles`).toBeLessThanOrEqual(total + 12);
      }, { seed: 1 });
    });

    const arDelay = arBypass ? 0 : 1, rDelay = rSlice ? 1 : 0;
    it(`${label}: an idle mux delays AR by ${arDelay} and R by ${rDelay} cycles`, async () => {
      await runTest(design, async (dut, tb) => {
        console.log(`[axi-mux rd latency ${label}] seed=${tb.seed}`);
        new AxiRam(tb, readMasterPorts(dut.m_axi), { readLatency: { fixed: tb.rng.int(0, 4), random: 0 } });
        const ports = Object.values(dut.s) as unknown as Signals[];
        const masters = ports.map((q, i) => new AxiMaster(tb, readSlavePorts(q), { name: `client${i}` }));
        const mp = dut.m_axi as unknown as Signals;
        // First cycle of each event for the client being measured (-1: not yet).
        let who = 0, sAr = -1, mAr = -1, mR = -1, sR = -1;
        ClockPhases.of(tb).onSample(() => {
          if (sAr < 0 && on(ports[who]!, 'arvalid')) sAr = tb.cycle;
          if (mAr < 0 && on(mp, 'arvalid')) mAr = tb.cycle;
          if (mR < 0 && on(mp, 'rvalid', 'rready')) mR = tb.cycle;
          if (sR < 0 && on(ports[who]!, 'rvalid', 'rready')) sR = tb.cycle;
        });
        await tb.reset(2);
        for (const k of tb.rng.shuffle(Array.from({ length: 2 * n }, (_, i) => i % n))) {
          who = k; sAr = mAr = mR = sR = -1;
          await masters[k]!.issueRead({ addr: REGION + BigInt(tb.rng.int(0, 63) * busBytes), len: tb.rng.int(0, 3), id: tb.rng.int(0, 3) }).wait();
          await tb.clockCycles(3); // idle again
          const where = `client ${k} (seed ${tb.seed}): AR at the client in cycle ${sAr}, on m_axi ${mAr}; first R beat on m_axi ${mR}, at the client ${sR}`;
          expect(mAr - sAr, `${where}: AR delay`).toBe(arDelay);
          expect(sR - mR, `${where}: R delay`).toBe(rDelay);
        }
      });
    });
  }
});

describe('nic_axi_rd_mux: urgent client and bulk cap', () => {
  // Bulk clients flood the slave with long bursts; the urgent client reads one beat
  // now and then. An urgent read waits for at most the capped bulk beats already requested
  // (without the cap: for every burst the slave accepted, up to its 32 outstanding).
  for (const p of urgentCases) urgentTest(p);
});

describe('nic_axi_rd_mux: a speculative read of the urgent client never holds a bulk read', () => {
  // nic_tlb's next-line prefetch (s1_urgent low) and a payload read asked for in the same
  // cycle: the payload AR goes first, whatever the round robin's state, and its data is not
  // queued behind the prefetch's line. With s1_urgent high (a demand read) the other way round:
  // the urgent AR first, and no bulk AR until the urgent burst is done.
  for (const p of urgentCases) speculativeTest(p);
});

function speculativeTest(p: AxiMuxParams): void {
  const busBytes = p.dataWidth / 8, LATENCY = 6, LINE_BEATS = 8;
  it(`arBypass=${p.arBypass} rSlice=${p.rSlice}: bulk AR before a speculative one asked in the same cycle, none before a demand's RLAST`, async () => {
    await runTest(dslDesign(nicAxiRdMux, p), async (dut, tb) => {
      const mem = new HostMemory();
      mem.fillRandom(REGION, 0x20000, tb.rng);
      new AxiRam(tb, readMasterPorts(dut.m_axi), { memory: mem, readLatency: { fixed: LATENCY, random: 0 }, backpressure: 0, stall: 0 });
      const masters = Object.values(dut.s).map((q, i) => new AxiMaster(tb, readSlavePorts(q), { name: `client${i}` }));
      const o = dut.m_axi as unknown as Signals;
      const v = (x: string): number => Number(o[x]!.value);
      const idShift = axiMuxDefaults.idWidth;
      // Every AR accepted and every RLAST on the shared port: (cycle, client).
      const ars: { cycle: number; client: number }[] = [], lasts: { cycle: number; client: number }[] = [];
      ClockPhases.of(tb).onSample(() => {
        if (v('arvalid') && v('arready')) ars.push({ cycle: tb.cycle, client: v('arid') >> idShift });
        if (v('rvalid') && v('rready') && v('rlast')) lasts.push({ cycle: tb.cycle, client: v('rid') >> idShift });
      });
      await tb.reset(2);
      const read = (c: number, len: number) => {
        const addr = REGION + BigInt(c * 0x4000 + tb.rng.int(0, 0x1000 / busBytes - 1 - len) * busBytes);
        return { addr, bytes: (len + 1) * busBytes, op: masters[c]!.issueRead({ addr, len, id: tb.rng.int(0, 3) }) };
      };
      // Waits for each read in turn (a done one returns at once) and checks its data.
      const check = async (...rs: ReturnType<typeof read>[]): Promise<ReadResult[]> => {
        const out: ReadResult[] = [];
        for (const r of rs) {
          const res = await r.op.wait();
          expect(res.data, `read at ${hex(r.addr)}`).toEqual(mem.read(r.addr, r.bytes));
          out.push(res);
        }
        return out;
      };
      for (let k = 0; k < 24; k++) {
        // A few reads of random clients first, so the round robin starts from every state.
        await check(...Array.from({ length: tb.rng.int(0, 3) }, () => read(tb.rng.pick([0, 1, 2, 3]), tb.rng.int(0, 3))));
        await tb.clockCycles(tb.rng.int(1, 4));
        const demand = k % 2 === 1, bulkClient = tb.rng.pick([0, 2, 3]);
        dut.urgent.c1.value = demand ? 1 : 0;
        const from = ars.length, since = tb.cycle;
        const line = read(1, LINE_BEATS - 1), bulk = read(bulkClient, tb.rng.int(0, 3));
        // As nic_tlb: urgent until the demand's line is in (then bulk may go on).
        const [lineDone] = await check(line);
        dut.urgent.c1.value = 0;
        const [bulkDone] = await check(bulk);
        const arOf = (c: number) => ars.slice(from).find(a => a.client === c)!.cycle;
        const what = `round ${k} (${demand ? 'demand' : 'prefetch'}, bulk client ${bulkClient}; seed ${tb.seed})`;
        if (demand) {
          const lineLast = lasts.find(l => l.client === 1 && l.cycle >= since)!.cycle;
          expect(arOf(1), `${what}: the urgent AR goes first`).toBeLessThan(arOf(bulkClient));
          expect(arOf(bulkClient), `${what}: no bulk AR before the urgent RLAST (cycle ${lineLast})`).toBeGreaterThanOrEqual(lineLast);
        } else {
          expect(arOf(bulkClient), `${what}: the bulk AR goes first`).toBeLessThan(arOf(1));
          // Its data is not queued behind the line's beats either.
          expect(bulkDone!.cycle, `${what}: the bulk read's last beat`).toBeLessThan(lineDone!.cycle);
        }
      }
    }, { maxCycles: 50_000 });
  });
}

function urgentTest(p: AxiMuxParams): void {
  const busBytes = p.dataWidth / 8, LATENCY = 6;
  it(`n=${p.n} urgentMask=${p.urgentMask} bulkCapBeats=${p.bulkCapBeats} arBypass=${p.arBypass} rSlice=${p.rSlice}: urgent reads wait for at most the cap, bulk beats outstanding <= cap, bulk bus busy`, async () => {
    await runTest(dslDesign(nicAxiRdMux, p), async (dut, tb) => {
      console.log(`[axi-mux rd urgent arBypass=${p.arBypass} rSlice=${p.rSlice}] seed=${tb.seed}`);
      const mem = new HostMemory();
      mem.fillRandom(REGION, 0x20000, tb.rng);
      // The slave reorders IDs (AxiRam's default): bulk bursts requested after an urgent one must
      // not pass it again and again.
      new AxiRam(tb, readMasterPorts(dut.m_axi), { memory: mem, readLatency: { fixed: LATENCY, random: 0 }, backpressure: 0, stall: 0 });
      const masters = Object.values(dut.s).map((q, i) => new AxiMaster(tb, readSlavePorts(q), { name: `client${i}` }));
      // Outstanding bulk beats on the shared port: AR accepted minus R beats, by ID client bits.
      const o = dut.m_axi as unknown as Record<string, { value: number | bigint }>;
      const v = (x: string): number => Number(o[x]!.value);
      const idShift = axiMuxDefaults.idWidth;
      let bulkOut = 0, bulkMax = 0, bulkMaxAt = 0, bulkBeats = 0, firstBulk = -1, lastBulk = 0;
      ClockPhases.of(tb).onSample(() => {
        if (v('arvalid') && v('arready') && (v('arid') >> idShift) !== 1) {
          bulkOut += v('arlen') + 1;
          if (bulkOut > bulkMax) { bulkMax = bulkOut; bulkMaxAt = tb.cycle; }
        }
        if (v('rvalid') && v('rready') && (v('rid') >> idShift) !== 1) {
          bulkOut--; bulkBeats++; lastBulk = tb.cycle;
          if (firstBulk < 0) firstBulk = tb.cycle;
        }
      });
      await tb.reset(2);
      const BURST = 32, PER = 24;
      const bulk = [0, 2, 3].flatMap(c => Array.from({ length: PER }, (_, k) => {
        const addr = REGION + BigInt(c * 0x8000 + k * BURST * busBytes);
        return { addr, bytes: BURST * busBytes, op: masters[c]!.issueRead({ addr, len: BURST - 1, id: k % 4 }) };
      }));
      const waits: number[] = [];
      for (let k = 0; k < 12; k++) {
        await tb.clockCycles(tb.rng.int(20, 90));
        const addr = REGION + 0x1_0000n + BigInt(tb.rng.int(0, 0x1000 / busBytes - 1) * busBytes);
        const start = tb.cycle;
        // As nic_tlb does for a miss: urgent from the read's request until its data is in.
        dut.urgent.c1.value = 1;
        const r = await masters[1]!.issueRead({ addr, len: 0, id: k % 4 }).wait();
        dut.urgent.c1.value = 0;
        waits.push(r.cycle - start);
        expect(r.data, `urgent read ${k} at ${hex(addr)}: data`).toEqual(mem.read(addr, busBytes));
      }
      for (const b of bulk) {
        const r = await b.op.wait();
        const want = mem.read(b.addr, b.bytes);
        const at = want.findIndex((x, i) => x !== r.data[i]);
        expect(at, `bulk read ${hex(b.addr)}: first differing byte at offset ${at} (cycle ${r.cycle})`).toBe(-1);
      }
      const worst = Math.max(...waits);
      console.log(`[axi-mux rd urgent arBypass=${p.arBypass} rSlice=${p.rSlice}] urgent waits ${waits.join(' ')}; bulk outstanding max ${bulkMax}; ${bulkBeats} bulk beats in ${lastBulk - firstBulk + 1} cycles`);
      expect(bulkMax, `bulk beats outstanding reached ${bulkMax} at cycle ${bulkMaxAt} (cap ${p.bulkCapBeats}; seed ${tb.seed})`).toBeLessThanOrEqual(p.bulkCapBeats);
      // Cap beats ahead, the slave's latency, and the AR/R stages and BFM sampling.
      const bound = p.bulkCapBeats + LATENCY + 12;
      expect(worst, `an urgent read took ${worst} cycles (waits ${waits.join(',')}; bound ${bound}; seed ${tb.seed})`).toBeLessThanOrEqual(bound);
      // Two bursts in flight cover the slave's latency; each urgent read costs the bulk stream its
      // beat plus one refill (bulk ARs wait until the urgent RLAST: latency + slices).
      const slack = waits.length * (LATENCY + 6) + 12;
      expect(lastBulk - firstBulk + 1, `${bulkBeats} bulk beats took ${lastBulk - firstBulk + 1} cycles (slack ${slack})`).toBeLessThanOrEqual(bulkBeats + slack);
    }, { maxCycles: 100_000 });
  });
}

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
