// nic_read_responder against a TS model: random READ requests (0..64 KiB, MTU 256..4096,
// PSNs near the 2^24 wrap) on 1-4 QPs, a DMA-read stand-in that validates against an MR
// map and answers statuses in order after random delays, random back-pressure everywhere.
// Checked: DmaReadCmds, READ RESPONSE commands (opcode, PSN, AETH, length, addressing),
// NAK 0x62 + qp_error for bad rkeys/PD/access/bounds (and no response data), flushed
// requests of QPs not in RTR/RTS, the per-QP resource limit (rd_room), the shared pool of
// READ contexts (s_req waits while all are taken; more QPs than contexts), rd_busy every
// cycle (a request whose response commands are not all taken), command rate.
// Streams are tb/bfm channel models (stage-streams.ts), each with its ready/valid checker.

import { describe, expect, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { emptyQpCtx } from './qp-ctx.ts';
import { nicReadResponder } from '../../../gen/nic/read-responder.ts';
import { QP_STATE } from '../../../gen/nic/regmap.ts';
import { XLATE_ACCESS, XLATE_STATUS } from '../../../gen/nic/types.ts';
import { ClockPhases, type Readable } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import type { Rng } from '../../core/rng.ts';
import { design } from '../../design.ts';
import { psnAdd } from '../../model/psn.ts';
import { segmentReadResponse } from '../../model/segment.ts';
import { mrCheck } from './responder-model.ts';
import { makeWorld, type World } from './responder-stim.ts';
import { StructSink, StructSource, type StructInPorts, type StructOutPorts } from './stage-streams.ts';

/** The stage's configuration: more QPs (8) than READ contexts (4), 2 READs per QP allowed,
 *  so the pool fills before the per-QP limits do and the limits still bite (one model build). */
const BASE = { numQp: 8, contexts: 4, perQp: 2 };
type Conf = typeof BASE;
const CFG = { config: 1, mac: 0x02_1122_3344_55n, ipAddr: 0x0a00_0001, ipCfg: (0x2e << 8) | 64, irqMod: 0 };

interface Req { qp: number; psn: number; va: bigint; rkey: number; len: number; pd: number; pmtu: number; msn: number; dup: number }
interface DmaCmdV { va: bigint; len: number; key: number; pd: number; last: number; segLog2: number; access: number }
interface PktV { opcode: number; destQpn: number; psn: number; payloadLen: number; hasAeth: number; aethSyndrome: number; aethMsn: number; hasReth: number; ackReq: number; dstMac: bigint; dstIp: number; srcPort: number; srcMac: bigint; srcIp: number; ttl: number; dscp: number }
type PktWant = Pick<PktV, 'opcode' | 'destQpn' | 'psn' | 'payloadLen' | 'hasAeth' | 'aethSyndrome' | 'aethMsn'>;

/** The model: what the responder must emit for `reqs`, in arrival order. */
function model(world: World, reqs: Req[]): { dma: DmaCmdV[]; pkts: PktWant[]; errs: number[] } {
  const out = { dma: [] as DmaCmdV[], pkts: [] as PktWant[], errs: [] as number[] };
  const dead = new Set<number>();
  for (const r of reqs) {
    const s = world.qps[r.qp]!;
    if (dead.has(r.qp) || !(s.state === QP_STATE.RTR || s.state === QP_STATE.RTS)) continue;
    out.dma.push({ va: r.va, len: r.len, key: r.rkey, pd: r.pd, last: 1, segLog2: r.pmtu, access: XLATE_ACCESS.REMOTE_READ });
    // Zero-length READs touch no memory, so (as in the verbs) their rkey is not checked.
    const st = r.len === 0 ? XLATE_STATUS.OK : mrCheck(world.mrs, r.rkey, r.pd, r.va, r.len, XLATE_ACCESS.REMOTE_READ);
    if (st !== XLATE_STATUS.OK) {
      out.pkts.push({ opcode: 0x11, destQpn: s.destQpn, psn: r.psn, payloadLen: 0, hasAeth: 1, aethSyndrome: 0x62, aethMsn: psnAdd(r.msn, -1) });
      out.errs.push(r.qp);
      dead.add(r.qp);
      continue;
    }
    const path = { eth: { dst: 0, src: 0 }, ip: { dscp: 0, ecn: 0, id: 0, df: true, ttl: 64, src: 0, dst: 0 }, udp: { srcPort: 0xc000 }, destQp: s.destQpn };
    for (const p of segmentReadResponse({ path, payload: new Uint8Array(r.len), mtu: 1 << r.pmtu, requestPsn: r.psn, msn: r.msn })) {
      out.pkts.push({ opcode: p.bth.opcode, destQpn: s.destQpn, psn: p.bth.psn, payloadLen: p.payload.length, hasAeth: p.aeth ? 1 : 0, aethSyndrome: p.aeth ? 0x1f : 0, aethMsn: p.aeth ? r.msn : 0 });
    }
  }
  return out;
}

/** Requests in arrival order; a bad one (if any) is its QP's last, since the WRITE responder
 *  stops accepting requests of a QP in ERROR. */
function makeReqs(rng: Rng, world: World, n: number, o: { maxLen: number; pBad: number; qps: number }): Req[] {
  const reqs: Req[] = [];
  const psn = world.qps.map(s => s.expPsn), msn = world.qps.map(s => s.msn);
  const ended = new Set<number>();
  for (let i = 0; i < n; i++) {
    const q = rng.int(0, o.qps - 1);
    if (ended.has(q)) continue;
    const s = world.qps[q]!, mr = world.mrs[4 * q + 3]!;
    const mtu = 1 << s.pmtu;
    const len = rng.pick([0, 1, mtu - 1, mtu, mtu + 1, rng.int(0, o.maxLen), rng.int(0, o.maxLen), rng.int(0, 4 * mtu)]);
    const r: Req = { qp: q, psn: psn[q]!, va: mr.va + BigInt(rng.int(0, Number(mr.len) - len)), rkey: mr.key, len, pd: s.pd, pmtu: s.pmtu, msn: msn[q] = psnAdd(msn[q]!, 1), dup: 0 };
    if (len > 0 && rng.bool(o.pBad)) {
      const kind = rng.pick(['rkey', 'tag', 'pd', 'access', 'bounds'] as const);
      if (kind === 'rkey') r.rkey = 0x7f00_0000 | rng.int(0, 255);
      if (kind === 'tag') r.rkey = (mr.key & ~0xff) | ((mr.key + 1) & 0xff);
      if (kind === 'pd') r.pd = (s.pd + 1) & 0xffff;
      if (kind === 'access') r.rkey = world.mrs[4 * q]!.key; // REMOTE_WRITE | LOCAL_WRITE only
      if (kind === 'bounds') r.va = mr.va + mr.len - BigInt(len) + 1n;
      ended.add(q);
    }
    psn[q] = psnAdd(psn[q]!, Math.max(1, Math.ceil(len / mtu)));
    reqs.push(r);
  }
  return reqs;
}

/** The WRITE responder's hook: offers the next request only while its QP has room (rd_room;
 *  rd_dup_room for a duplicate). */
function reqSource(tb: TestBench, port: StructInPorts<Req>, room: { fresh: Readable; dup: Readable }, reqs: Req[], pIn: number): StructSource<Req> {
  const src: StructSource<Req> = new StructSource<Req>(tb, port, 's_req', {
    pause: rng => {
      const r = reqs[src.sent.length]!;
      return !((Number((r.dup ? room.dup : room.fresh).value) >> r.qp) & 1) || rng.bool(1 - pIn);
    },
  });
  for (const r of reqs) src.push(r);
  return src;
}

interface DmaStub { readonly cmds: { v: DmaCmdV; cycle: number }[] }

/** nic_dma_read's command/status side: statuses in order, 1..maxLat cycles after the command. */
function dmaStub(tb: TestBench, cmd: StructOutPorts<DmaCmdV>, st: StructInPorts<{ status: number }>, world: World, pReady: number, maxLat: number): DmaStub {
  const rng = tb.rng.fork();
  const cmds: { v: DmaCmdV; cycle: number }[] = [];
  const status = new StructSource(tb, st, 's_dma_status');
  new StructSink<DmaCmdV>(tb, cmd, 'm_dma_cmd', {
    pause: 1 - pReady,
    onItem: (c, cycle) => {
      const v = { va: BigInt(c.va), len: Number(c.len), key: Number(c.key), pd: Number(c.pd), last: Number(c.last), segLog2: Number(c.segLog2), access: Number(c.access) };
      cmds.push({ v, cycle });
      status.push({ status: v.len === 0 ? 0 : mrCheck(world.mrs, v.key, v.pd, v.va, v.len, v.access) }, cycle + rng.int(1, maxLat));
    },
  });
  return { cmds };
}

interface Flow { valid: Readable; ready: Readable; data: { readonly value: unknown } }
const fires = (f: Flow): boolean => Number(f.valid.value) !== 0 && Number(f.ready.value) !== 0;

const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `0x${x.toString(16)}` : x));

async function run(o: { n: number; maxLen: number; pBad: number; qps: number; pIn: number; pOut: number; maxLat: number; states?: number[]; reqs?: (w: World) => Req[]; conf?: Conf }) {
  const conf = o.conf ?? BASE;
  const NUM_QP = conf.numQp;
  let result: { pkts: { value: PktV; cycle: number }[]; dma: DmaStub; errs: number[]; want: ReturnType<typeof model>; maxCount: number[]; roomLow: boolean; seed: number; taken: number[]; maxHeld: number; poolWaits: number } | undefined;
  await runTest(design(nicReadResponder, { dataWidth: 64, ...conf }), async (dut, tb) => {
    const rng = tb.rng.fork();
    const world = makeWorld(rng, NUM_QP, o.qps);
    if (o.states) o.states.forEach((s, q) => { world.qps[q]!.state = s; });
    const reqs = o.reqs ? o.reqs(world) : makeReqs(rng, world, o.n, o);
    const want = model(world, reqs);
    console.log(`nic_read_responder seed=${tb.seed}: ${reqs.length} requests, ${want.pkts.length} packet commands, errors on QPs [${want.errs}]`);
    const ctx = world.qps.map(s => ({ state: s.state }));
    dut.qp_ctx.value = world.qps.map((s, q) => ({ ...emptyQpCtx(), state: ctx[q]!.state, pmtu: s.pmtu, pd: s.pd, destQpn: s.destQpn, destMac: s.destMac, destIp: s.destIp, udpSport: s.udpSport })) as never;
    dut.cfg.value = CFG as never;
    dut.s_req.valid.value = 0;
    dut.s_dma_status.valid.value = 0;
    await tb.reset(2);
    const src = reqSource(tb, dut.s_req as never, { fresh: dut.rd_room, dup: dut.rd_dup_room }, reqs, o.pIn);
    const takenAt: number[] = [];
    const dma = dmaStub(tb, dut.m_dma_cmd as never, dut.s_dma_status as never, world, o.pOut, o.maxLat);
    const pkts = new StructSink<PktV>(tb, dut.m_pkt_cmd as never, 'm_pkt_cmd', { pause: 1 - o.pOut });
    const errs: number[] = [];
    const maxCount = Array.from({ length: NUM_QP }, () => 0);
    const outstanding = Array.from({ length: NUM_QP }, () => 0);
    // Contexts held (all QPs, duplicates too) and cycles s_req waited with its QP in room:
    // the pool was full.
    let held = 0, maxHeld = 0, poolWaits = 0;
    let roomLow = false, idle = 0;
    // Read straight from the ports in the sample phase, so the order in which the bus models
    // sample does not matter.
    const sReq = dut.s_req as unknown as Flow, mPkt = dut.m_pkt_cmd as unknown as Flow, mDma = dut.m_dma_cmd as unknown as Flow;
    ClockPhases.of(tb).onSample(() => {
      // rd_busy (nic_responder holds a QP's ACKs behind its READ responses): bit q high exactly
      // while a request of q is here whose last response (or NAK) command was not taken yet.
      const rb = Number(dut.rd_busy.value);
      for (let q = 0; q < NUM_QP; q++) {
        const st = world.qps[q]!.state;
        if ((st === QP_STATE.RTR || st === QP_STATE.RTS) && ((rb >> q) & 1) !== (outstanding[q]! > 0 ? 1 : 0)) {
          throw new Error(`rd_busy bit ${q} is ${(rb >> q) & 1} at cycle ${tb.cycle} with ${outstanding[q]} READ(s) of the QP not fully answered (seed ${tb.seed})`);
        }
      }
      let busy = fires(mPkt) || fires(mDma);
      const e = dut.qp_error.value as { valid: number; qp: number };
      if (Number(e.valid)) { errs.push(Number(e.qp)); busy = true; }
      // The test's own view of the resources: accepted minus (last response / NAK / flush).
      // A slot is free again once the last response (or NAK) command is taken, or at once for
      // a flushed QP; the RTL frees it one register stage earlier, hence the +1 below.
      if (Number(sReq.valid.value) && !Number(sReq.ready.value)) poolWaits++;
      if (fires(sReq)) {
        takenAt.push(tb.cycle);
        held++;
        maxHeld = Math.max(maxHeld, held);
        const q = Number((sReq.data.value as { qp: number }).qp);
        const st = world.qps[q]!.state;
        if (st === QP_STATE.RTR || st === QP_STATE.RTS) { outstanding[q]!++; maxCount[q] = Math.max(maxCount[q]!, outstanding[q]!); } else held--;
      }
      const taken = fires(mPkt) ? mPkt.data.value as PktV : null;
      if (taken && [0x0f, 0x10, 0x11].includes(Number(taken.opcode))) { outstanding[world.qps.findIndex(s => s.destQpn === Number(taken.destQpn))]!--; held--; }
      if (Number(dut.rd_room.value) !== (1 << NUM_QP) - 1) roomLow = true;
      idle = !busy && src.idle ? idle + 1 : 0;
    });
    const limit = 200_000;
    try {
      await tb.until(() => idle >= 300, { timeout: limit, what: 'read responder: 300 idle cycles after the last request' });
    } catch (err) {
      throw new Error(`not done after ${limit} cycles: ${src.pending} requests left, ${pkts.items.length}/${want.pkts.length} packets (${String(err)})`);
    }
    result = { pkts: pkts.items, dma, errs, want, maxCount, roomLow, seed: tb.seed, taken: takenAt, maxHeld, poolWaits };
  });
  const r = result!;
  const replay = `(replay with NICGEN_SEED=${r.seed})`;
  const dmaGot = r.dma.cmds.map(c => c.v);
  for (let i = 0; i < Math.max(dmaGot.length, r.want.dma.length); i++) {
    if (show(dmaGot[i]) !== show(r.want.dma[i])) throw new Error(`DmaReadCmd #${i} at cycle ${r.dma.cmds[i]?.cycle}: got ${show(dmaGot[i])}, want ${show(r.want.dma[i])} ${replay}`);
  }
  for (let i = 0; i < Math.max(r.pkts.length, r.want.pkts.length); i++) {
    const w = r.want.pkts[i], g = r.pkts[i]?.value;
    const gv = g && w ? Object.fromEntries(Object.keys(w).map(k => [k, Number(g[k as keyof PktV])])) : g;
    if (show(gv) !== show(w)) throw new Error(`packet command #${i} at cycle ${r.pkts[i]?.cycle}: got ${show(gv)}, want ${show(w)} ${replay}`);
    if (g && (Number(g.hasReth) || Number(g.ackReq) || BigInt(g.srcMac) !== CFG.mac || Number(g.srcIp) !== CFG.ipAddr || Number(g.ttl) !== 64 || Number(g.dscp) !== 0x2e)) throw new Error(`packet command #${i}: bad fixed fields ${show(g)} ${replay}`);
  }
  expect(r.errs, `qp_error events ${replay}`).toEqual(r.want.errs);
  // +1: the RTL frees a slot a register stage before the test sees it; +1 more with duplicates.
  const dups = o.reqs ? 1 : 0;
  for (const c of r.maxCount) expect(c, `outstanding READs of one QP ${replay}`).toBeLessThanOrEqual(conf.perQp + 1 + dups);
  // The pool: every context is freed a register stage before the test sees it (+1).
  expect(r.maxHeld, `READ contexts held at once, pool of ${conf.contexts} ${replay}`).toBeLessThanOrEqual(conf.contexts + 1);
  return r;
}

describe('nic_read_responder', () => {
  it('passes the Verilog tools', () => {
    const e = emitToDir(nicReadResponder, BASE);
    verilatorLint(e);
    iverilogCompile(e);
    yosysSynth(e);
    verilatorLint(emitToDir(nicReadResponder, { numQp: 64, contexts: 16, perQp: 3 }));
    verilatorLint(emitToDir(nicReadResponder, { numQp: 8, contexts: 128, perQp: 16 }));
  }, 300_000);

  it('answers random READs (0..64 KiB, all MTUs, PSN wrap, bad keys) under back-pressure', async () => {
    const r = await run({ n: 60, maxLen: 65536, pBad: 0.08, qps: BASE.numQp, pIn: 0.7, pOut: 0.6, maxLat: 30 });
    expect(r.want.pkts.length).toBeGreaterThan(60);
    expect(r.roomLow, 'some QP used all its READ slots (rd_room went low)').toBe(true);
  }, 600_000);

  it('every range error gives one NAK 0x62 and no response, and frees the QP slot', async () => {
    const r = await run({ n: 40, maxLen: 9000, pBad: 0.5, qps: BASE.numQp, pIn: 1, pOut: 0.8, maxLat: 10 });
    expect(r.errs.length, 'every QP met an error').toBeGreaterThan(0);
  }, 600_000);

  it('flushes requests of QPs that are not RTR/RTS (no DMA, no packets)', async () => {
    const r = await run({ n: 30, maxLen: 3000, pBad: 0, qps: BASE.numQp, pIn: 1, pOut: 1, maxLat: 5, states: [QP_STATE.RTS, QP_STATE.ERROR, QP_STATE.RESET, QP_STATE.RTR] });
    expect(r.dma.cmds.length, 'requests of the RTS/RTR QPs still go to the DMA').toBeGreaterThan(0);
  }, 600_000);

  // Soak finding 3: a duplicate READ in one of its QP's READ slots made the next READ, within
  // the advertised limit, find no room (NAK 0x61 at the WRITE responder, QP to ERROR).
  it('a duplicate READ takes its QP\'s duplicate slot: the next READs within the limit still find room', async () => {
    const reqs = (w: World): Req[] => {
      const s = w.qps[0]!, mr = w.mrs[3]!;
      const req = (k: number, dup: number): Req => ({ qp: 0, psn: psnAdd(s.expPsn, k), va: mr.va, rkey: mr.key, len: 64, pd: s.pd, pmtu: s.pmtu, msn: psnAdd(s.msn, k + 1), dup });
      // READ 0, its duplicate while READ 0 is still waiting for its DMA, then READ 1: perQp = 2.
      return [req(0, 0), req(0, 1), req(1, 0)];
    };
    const r = await run({ n: 3, maxLen: 64, pBad: 0, qps: 1, pIn: 1, pOut: 1, maxLat: 300, reqs });
    // Offered back to back (pIn 1): READ 1 must not wait for READ 0's answer (which frees a
    // READ slot; the DMA stub answers 1..300 cycles after the command).
    expect(r.taken.length).toBe(3);
    expect(r.taken[2]! - r.taken[1]!, `READ 1 taken at cycle ${r.taken[2]}, its duplicate predecessor at ${r.taken[1]}, first response at ${r.pkts[0]!.cycle}`).toBeLessThanOrEqual(2);
  }, 600_000);

  // The pool shared by all QPs: 8 QPs, 2 READs each allowed, 4 contexts in all. s_req must
  // wait while the pool is full (not refuse: the peer kept to its limit) and every READ is
  // still answered in arrival order.
  it('more QPs than READ contexts: requests wait for a free context, all are answered in order', async () => {
    const r = await run({ n: 60, maxLen: 9000, pBad: 0.04, qps: BASE.numQp, pIn: 1, pOut: 0.7, maxLat: 30 });
    expect(r.poolWaits, 's_req waited for a free context (the pool was full)').toBeGreaterThan(0);
    expect(r.maxHeld, 'the whole pool was in use').toBeGreaterThanOrEqual(BASE.contexts);
  }, 600_000);

  // nic_top sizes the pool for every QP at its limit (1,024 contexts at 256 QPs): a pool deeper
  // than LUTRAM_CONTEXTS (64) is a block-RAM FIFO, whose registered read is a cycle later.
  it('a pool deeper than LUTRAM (block-RAM FIFO, 128 contexts): over 64 READs held at once, all answered in order', async () => {
    const conf = { numQp: 8, contexts: 128, perQp: 16 };
    const r = await run({ n: 240, maxLen: 9000, pBad: 0.04, qps: conf.numQp, pIn: 1, pOut: 0.3, maxLat: 30, conf });
    expect(r.maxHeld, `READs held at once (replay with NICGEN_SEED=${r.seed})`).toBeGreaterThan(64);
  }, 600_000);

  it('keeps up at full rate: one command per cycle for 64 KiB READs', async () => {
    const r = await run({ n: 6, maxLen: 65536, pBad: 0, qps: 1, pIn: 1, pOut: 1, maxLat: 8 });
    // Consecutive packets of one response leave in consecutive cycles.
    let gaps = 0;
    for (let i = 1; i < r.pkts.length; i++) if (r.pkts[i]!.value.opcode !== 0x0d && r.pkts[i]!.value.opcode !== 0x10 && r.pkts[i]!.cycle !== r.pkts[i - 1]!.cycle + 1) gaps++;
    expect(gaps, 'cycles lost inside a response').toBe(0);
  }, 600_000);
});
