// Runs nic_responder against a packet list: the stand-ins of responder-agents.ts around it,
// the reference model on the same packets, and a comparison that names the first difference
// (which list, which index, which packet, at which cycle).

import { expect } from 'vitest';
import { runTest, type TestBench } from '../../core/index.ts';
import type { Rng } from '../../core/rng.ts';
import { design } from '../../design.ts';
import { QpCtx } from '../../../gen/nic/ctx.ts';
import { responder } from '../../../gen/nic/responder.ts';
import { AxisSink, AxisSource, StreamSink, StreamSource, type Agent } from './framing-support.ts';
import { DmaAgent, RegsAgent, TlbAgent, type CtxModel } from './responder-agents.ts';
import { ResponderModel, type Expected, type RxHdr, type RxPkt } from './responder-model.ts';
import type { World } from './responder-stim.ts';

export const NUM_QP = 4;
export const respDesign = (dataWidth: number) => design(responder, { dataWidth, numQp: NUM_QP });

export interface BenchOpts {
  /** Probabilities of valid / ready per cycle at each port. */
  pIn: number; pOut: number;
  dmaLat: number;
  poison?: (va: bigint) => boolean;
  /** nic_read_responder stand-in with this many slots per QP, each freed `rdFreeLat` cycles
   *  after its ReadReq was taken (rd_room = a slot is free). Without it, rd_room is each
   *  QP's constant `rdRoom` (what the model assumes). */
  rdSlots?: number; rdFreeLat?: number;
}
export const busy: BenchOpts = { pIn: 0.8, pOut: 0.7, dmaLat: 30 };
export const fullRate: BenchOpts = { pIn: 1, pOut: 1, dmaLat: 40 };

interface AckCmdV {
  opcode: number; destQpn: number; psn: number; ackReq: number; payloadLen: number; hasReth: number; rethVa: bigint; rethRkey: number; rethLen: number;
  hasAeth: number; aethSyndrome: number; aethMsn: number; srcMac: bigint; dstMac: bigint; srcIp: number; dstIp: number; srcPort: number; ttl: number; dscp: number;
}

export interface ReadReqV { qp: number; psn: number; va: bigint; rkey: number; len: number; pd: number; pmtu: number; msn: number }

export interface BenchResult {
  exp: Expected;
  reads: { value: ReadReqV; cycle: number }[];
  rrespHdrs: { value: RxHdr; cycle: number }[];
  rrespFrames: { bytes: Uint8Array }[];
  acks: { value: AckCmdV; cycle: number }[];
  ackIn: { value: { qp: number; psn: number; syndrome: number; msn: number }; cycle: number }[];
  dma: DmaAgent; regs: RegsAgent; tlb: TlbAgent;
  payloadBeats: { first: number; last: number; beats: number };
  cycles: number;
}

const CFG = { config: 1, mac: 0x02_1122_3344_55n, ipAddr: 0x0a00_0001, ipCfg: (0x2e << 8) | 64, irqMod: 0 };

/** Simulate the packets `setup` makes (from the test's seeded RNG, so the printed seed
 *  replays world and traffic) at `dataWidth`; `check` compares everything against the model. */
export async function runBench(dataWidth: number, setup: (rng: Rng) => { world: World; pkts: RxPkt[] }, o: BenchOpts, check = true): Promise<BenchResult> {
  let res: BenchResult | undefined;
  await runTest(respDesign(dataWidth), async (dut, tb) => {
    const { world, pkts } = setup(tb.rng.fork());
    console.log(`nic_responder W=${dataWidth} seed=${tb.seed}: ${pkts.length} packets, ${pkts.reduce((a, p) => a + p.payload.length, 0)} payload bytes`);
    const model = new ResponderModel(world.qps.map(s => ({ ...s })), world.mrs);
    for (const p of pkts) model.receive(p);
    const exp = model.exp;

    const ctx: CtxModel[] = world.qps.map(s => ({ state: s.state, expPsn: s.expPsn, msn: s.msn }));
    const zero = Object.fromEntries(QpCtx.fields.map(f => [f.name, f.shape.width > 32 ? 0n : 0]));
    const publish = (): void => {
      dut.qp_ctx.value = world.qps.map((s, q) => ({
        ...zero, state: ctx[q]!.state, expPsn: ctx[q]!.expPsn, msn: ctx[q]!.msn, pmtu: s.pmtu, pd: s.pd,
        destQpn: s.destQpn, destMac: s.destMac, destIp: s.destIp, udpSport: s.udpSport,
      })) as never;
    };
    publish();
    dut.cfg.value = CFG as never;
    dut.s_hdr.valid.value = 0;
    dut.s_payload.tvalid.value = 0;
    await tb.reset(2);

    const B = dataWidth / 8;
    const hdrs = new StreamSource<RxHdr>(dut.s_hdr as never, tb.rng.fork(), o.pIn);
    const pay = new AxisSource(dut.s_payload, B, tb.rng.fork(), o.pIn);
    for (const p of pkts) {
      hdrs.queue.push(p.hdr);
      if (p.hdr.payloadLen > 0) pay.push({ bytes: p.payload, user: 0 });
    }
    const tlb = new TlbAgent(dut.m_xlate_req as never, dut.s_xlate_resp as never, world.mrs, tb.rng.fork());
    const paySink = new AxisSink(dut.m_payload, B, tb.rng.fork(), o.pOut, 'm_payload');
    const dma = new DmaAgent(dut.m_dma_cmd as never, paySink, dut.s_dma_status as never, world.mrs, tb.rng.fork(), { readyProb: o.pOut, maxLat: o.dmaLat, ...(o.poison ? { poison: o.poison } : {}) });
    const acks = new StreamSink<AckCmdV>(dut.m_ack_cmd as never, tb.rng.fork(), o.pOut);
    const ackIn = new StreamSink<{ qp: number; psn: number; syndrome: number; msn: number }>(dut.m_ack_in as never, tb.rng.fork(), o.pOut);
    const regs = new RegsAgent(dut as never, ctx, publish);
    const reads = new StreamSink<ReadReqV>(dut.m_read_req as never, tb.rng.fork(), o.pOut);
    const rrHdrs = new StreamSink<RxHdr>(dut.m_rresp_hdr as never, tb.rng.fork(), o.pOut);
    const rrPay = new AxisSink(dut.m_rresp_payload, B, tb.rng.fork(), o.pOut, 'm_rresp_payload');
    const room = new RoomAgent(dut as never, world, reads, o);
    // room after the ReadReq sink: it sees each take in the cycle it happens, as the READ
    // responder's slot counters do.
    const agents: Agent[] = [regs, hdrs, pay, tlb, dma, acks, ackIn, reads, rrHdrs, rrPay, room];

    // Run until every input is taken and the outputs have been quiet for a while.
    let lastActivity = tb.cycle;
    const activity = (): number => reads.items.length + rrHdrs.items.length + rrPay.frames.length + acks.items.length + ackIn.items.length + dma.cmds.length + paySink.frames.length + dma.statusCycles.length + regs.expUpd.length + regs.qpErrors.length + regs.drops.length;
    let seen = activity();
    const limit = 40 * pkts.reduce((a, p) => a + Math.ceil(p.payload.length / B) + 4, 0) + 20_000;
    const start = tb.cycle;
    while (!(hdrs.queue.length === 0 && pay.idle && tb.cycle - lastActivity > 400)) {
      if (tb.cycle - start > limit) throw new Error(`nic_responder: inputs not consumed after ${limit} cycles (cycle ${tb.cycle}): ${hdrs.queue.length} headers left`);
      for (const a of agents) a.drive(tb);
      tb.settle();
      for (const a of agents) a.commit(tb);
      const n = activity();
      const beat = (Number(dut.m_payload.tvalid.value) && Number(dut.m_payload.tready.value)) || (Number(dut.s_payload.tvalid.value) && Number(dut.s_payload.tready.value))
        || (Number(dut.m_rresp_payload.tvalid.value) && Number(dut.m_rresp_payload.tready.value));
      if (n !== seen || beat) { seen = n; lastActivity = tb.cycle; }
      await tb.rising();
    }
    const beats = paySink.frames.reduce((a, f) => a + f.beats, 0);
    res = {
      exp, acks: acks.items, ackIn: ackIn.items, dma, regs, tlb, cycles: tb.cycle,
      reads: reads.items, rrespHdrs: rrHdrs.items, rrespFrames: rrPay.frames,
      payloadBeats: { first: paySink.frames[0]?.firstCycle ?? 0, last: paySink.frames.at(-1)?.lastCycle ?? 0, beats },
    };
    if (check) compareAll(res, world, tb);
  });
  return res!;
}

/** Drives rd_room: each QP's constant, or a slot counter (rdSlots) that must never be
 *  over-subscribed (the READ responder asserts the same). */
class RoomAgent implements Agent {
  private readonly free: number[];
  private readonly frees: { qp: number; at: number }[] = [];
  constructor(
    private readonly dut: { rd_room: { value: number | bigint } },
    private readonly world: World, private readonly reads: StreamSink<ReadReqV>, private readonly o: BenchOpts,
  ) { this.free = world.qps.map(() => o.rdSlots ?? 0); }
  private seen = 0;
  drive(tb: TestBench): void {
    while (this.frees[0] && this.frees[0].at <= tb.cycle) this.free[this.frees.shift()!.qp]!++;
    const bits = this.world.qps.map((s, q) => (this.o.rdSlots === undefined ? s.rdRoom : this.free[q]! > 0) ? 1 << q : 0);
    this.dut.rd_room.value = bits.reduce((a, b) => a | b, 0);
  }
  commit(tb: TestBench): void {
    if (this.o.rdSlots === undefined) return;
    for (; this.seen < this.reads.items.length; this.seen++) {
      const r = this.reads.items[this.seen]!;
      if (this.free[r.value.qp]! <= 0) throw new Error(`rd_room: QP ${r.value.qp} got a ReadReq (psn 0x${r.value.psn.toString(16)}) at cycle ${r.cycle} with no free READ slot`);
      this.free[r.value.qp]!--;
      this.frees.push({ qp: r.value.qp, at: tb.cycle + (this.o.rdFreeLat ?? 20) });
    }
  }
}

const hex = (v: number | bigint): string => `0x${v.toString(16)}`;

function firstDiff<T, U>(what: string, got: T[], want: U[], same: (g: T, w: U) => string | null, describe: (i: number) => string): void {
  for (let i = 0; i < Math.max(got.length, want.length); i++) {
    const g = got[i], w = want[i];
    if (g === undefined) throw new Error(`${what}: only ${got.length} of ${want.length}; missing #${i} (${describe(i)})`);
    if (w === undefined) throw new Error(`${what}: ${got.length} but the model expects ${want.length}; extra #${i}: ${JSON.stringify(g, (_k, v: unknown) => (typeof v === 'bigint' ? hex(v) : v))}`);
    const d = same(g, w);
    if (d) throw new Error(`${what} #${i} (${describe(i)}): ${d}`);
  }
}

export function compareAll(r: BenchResult, world: World, tb: TestBench): void {
  const { exp } = r;
  firstDiff('DMA write commands', r.dma.done, exp.writes, (g, w) => {
    const c = g.cmd;
    if (c.va !== w.va || c.len !== w.len || c.key !== w.key || c.pd !== w.pd || c.access !== w.access) {
      return `got va ${hex(c.va)} len ${c.len} key ${hex(c.key)} pd ${c.pd} access ${c.access}, want va ${hex(w.va)} len ${w.len} key ${hex(w.key)} pd ${w.pd} access ${w.access}`;
    }
    const k = g.bytes.findIndex((b, j) => b !== w.bytes[j]);
    return k >= 0 ? `payload byte ${k} is ${hex(g.bytes[k]!)}, want ${hex(w.bytes[k]!)}` : null;
  }, i => `${exp.writes[i]?.pkt}, command taken at cycle ${r.dma.cmds[i]?.cycle}`);
  firstDiff('ACK/NAK commands', r.acks, exp.acks, (g, w) => {
    const s = world.qps[w.qp]!;
    const v = g.value;
    const want = {
      opcode: 0x11, destQpn: s.destQpn, psn: w.psn, ackReq: 0, payloadLen: 0, hasReth: 0, hasAeth: 1, aethSyndrome: w.syndrome, aethMsn: w.msn,
      srcMac: CFG.mac, dstMac: s.destMac, srcIp: CFG.ipAddr, dstIp: s.destIp, srcPort: s.udpSport, ttl: CFG.ipCfg & 0xff, dscp: CFG.ipCfg >> 8,
    };
    const bad = Object.entries(want).filter(([k, x]) => BigInt(v[k as keyof AckCmdV]) !== BigInt(x));
    if (bad.length) return `at cycle ${g.cycle}: ${bad.map(([k, x]) => `${k} ${hex(v[k as keyof AckCmdV])} want ${hex(x)}`).join(', ')}`;
    // An ACK/NAK never leaves before the writes of the packets before it are complete.
    if (w.writesBefore > 0) {
      const done = r.dma.statusCycles[w.writesBefore - 1];
      if (done === undefined || done >= g.cycle) return `left at cycle ${g.cycle} before the status of write #${w.writesBefore - 1} (cycle ${done})`;
    }
    return null;
  }, i => `${exp.acks[i]?.pkt}: syndrome ${hex(exp.acks[i]?.syndrome ?? 0)} psn ${hex(exp.acks[i]?.psn ?? 0)} msn ${hex(exp.acks[i]?.msn ?? 0)}`);
  firstDiff('m_ack_in', r.ackIn, exp.ackIn, (g, w) => JSON.stringify(g.value) === JSON.stringify(w) ? null : `got ${JSON.stringify(g.value)} at cycle ${g.cycle}, want ${JSON.stringify(w)}`, () => 'ACK for the tracker');
  const upd = (name: string, got: { qp: number; value: number; cycle: number }[], want: { qp: number; value: number }[]) =>
    firstDiff(name, got, want, (g, w) => g.qp === w.qp && g.value === w.value ? null : `got qp ${g.qp} value ${hex(g.value)} at cycle ${g.cycle}, want qp ${w.qp} value ${hex(w.value)}`, () => 'update');
  upd('exp_psn_upd', r.regs.expUpd, exp.expUpd);
  upd('msn_upd', r.regs.msnUpd, exp.msnUpd);
  firstDiff('m_read_req', r.reads, exp.reads, (g, w) => {
    const v = g.value;
    const want = { qp: w.qp, psn: w.psn, va: w.va, rkey: w.rkey, len: w.len, pd: w.pd, pmtu: w.pmtu, msn: w.msn };
    const bad = Object.entries(want).filter(([k, x]) => BigInt(v[k as keyof ReadReqV]) !== BigInt(x));
    if (bad.length) return `at cycle ${g.cycle}: ${bad.map(([k, x]) => `${k} ${hex(v[k as keyof ReadReqV])} want ${hex(x)}`).join(', ')}`;
    // A READ's DMA must not overtake earlier WRITEs: their statuses are taken first.
    if (w.writesBefore > 0) {
      const done = r.dma.statusCycles[w.writesBefore - 1];
      if (done === undefined || done >= g.cycle) return `left at cycle ${g.cycle} before the status of write #${w.writesBefore - 1} (cycle ${done})`;
    }
    return null;
  }, i => `${exp.reads[i]?.pkt}`);
  firstDiff('m_rresp_hdr', r.rrespHdrs, exp.rresp, (g, w) => {
    const bad = Object.entries(w.hdr).filter(([k, x]) => BigInt(g.value[k as keyof RxHdr]) !== BigInt(x));
    return bad.length ? `at cycle ${g.cycle}: ${bad.map(([k, x]) => `${k} ${hex(g.value[k as keyof RxHdr])} want ${hex(x)}`).join(', ')}` : null;
  }, i => `${exp.rresp[i]?.pkt}`);
  const wantPay = exp.rresp.filter(x => x.payload.length > 0);
  firstDiff('m_rresp_payload packets', r.rrespFrames, wantPay, (g, w) => {
    if (g.bytes.length !== w.payload.length) return `${g.bytes.length} bytes, want ${w.payload.length}`;
    const k = g.bytes.findIndex((b, j) => b !== w.payload[j]);
    return k >= 0 ? `byte ${k} is ${hex(g.bytes[k]!)}, want ${hex(w.payload[k]!)}` : null;
  }, i => `payload of ${wantPay[i]?.pkt}`);
  expect(r.regs.qpErrors.map(e => e.qp), 'qp_error events (QP indexes, in order)').toEqual(exp.qpErrors);
  expect(r.regs.drops.length, 'drop pulses').toBe(exp.drops);
  expect(r.dma.done.filter(d => d.status !== 0).length, 'DMA writes outside the MR map').toBe(0);
  void tb;
}
