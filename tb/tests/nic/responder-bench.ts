// Runs nic_responder against a packet list: tb/bfm stream models and the stand-ins of
// responder-standins.ts around it (protocol checkers on every stream), the reference model
// on the same packets, and a comparison that names the first difference (which list, which
// index, which packet, at which cycle).

import { expect } from 'vitest';
import { AxiStreamSink, AxiStreamSource, ClockPhases } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import type { Rng } from '../../core/rng.ts';
import { design } from '../../design.ts';
import { emptyQpCtx } from './qp-ctx.ts';
import { AETH } from '../../../gen/nic/flow-types.ts';
import { responder } from '../../../gen/nic/responder.ts';
import { DmaStandIn, RegsStandIn, RoomStandIn, TlbStandIn, type CtxModel, type ReadReqV } from './responder-standins.ts';
import { drain, StructSink, StructSource } from './stage-streams.ts';
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
   *  QP's constant `rdRoom` (what the model assumes: it cannot know when slots free). */
  rdSlots?: number; rdFreeLat?: number;
  /** rd_busy bit q high while QP q has a ReadReq taken less than rdFreeLat cycles ago (its READ
   *  responses are not all out): the responder then holds that QP's ACKs (checked by
   *  checkDeferred, not the model). */
  rdBusy?: boolean;
}
export const busy: BenchOpts = { pIn: 0.8, pOut: 0.7, dmaLat: 30 };
export const fullRate: BenchOpts = { pIn: 1, pOut: 1, dmaLat: 40 };

interface AckCmdV {
  opcode: number; destQpn: number; psn: number; ackReq: number; payloadLen: number; hasReth: number; rethVa: bigint; rethRkey: number; rethLen: number;
  hasAeth: number; aethSyndrome: number; aethMsn: number; srcMac: bigint; dstMac: bigint; srcIp: number; dstIp: number; srcPort: number; ttl: number; dscp: number;
}

export type { ReadReqV };

export interface BenchResult {
  exp: Expected;
  reads: { value: ReadReqV; cycle: number }[];
  rrespHdrs: { value: RxHdr; cycle: number }[];
  rrespFrames: { bytes: Uint8Array }[];
  acks: { value: AckCmdV; cycle: number }[];
  /** Cycles in which rd_busy was high, per QP (the sample phase's view). */
  busyAt: Set<number>[];
  counters: { seqNakTx: number; seqNakRx: number; dupReq: number };
  dma: DmaStandIn; regs: RegsStandIn; tlb: TlbStandIn;
  payloadBeats: { first: number; last: number; beats: number };
  cycles: number;
  /** Cycle in which each header was taken on s_hdr, in order. */
  hdrCycles: number[];
  /** With rdBusy: ACK/NAKs of the model that a newer one replaced while held. */
  held?: number;
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
    const publish = (): void => {
      dut.qp_ctx.value = world.qps.map((s, q) => ({
        ...emptyQpCtx(), state: ctx[q]!.state, expPsn: ctx[q]!.expPsn, msn: ctx[q]!.msn, pmtu: s.pmtu, pd: s.pd,
        destQpn: s.destQpn, destMac: s.destMac, destIp: s.destIp, udpSport: s.udpSport,
      })) as never;
    };
    publish();
    dut.cfg.value = CFG as never;
    dut.s_hdr.valid.value = 0;
    dut.s_payload.tvalid.value = 0;
    dut.rd_busy.value = 0;
    await tb.reset(2);

    const B = dataWidth / 8;
    const pIn = 1 - o.pIn, pOut = 1 - o.pOut;
    const hdrs = new StructSource(tb, dut.s_hdr, 's_hdr', { pause: pIn });
    const pay = new AxiStreamSource(tb, dut.s_payload, { pause: pIn });
    for (const p of pkts) {
      hdrs.push(p.hdr as never);
      if (p.hdr.payloadLen > 0) pay.send(p.payload);
    }
    const regs = new RegsStandIn(tb, dut as never, ctx, publish);
    const tlb = new TlbStandIn(tb, dut.m_xlate_req as never, dut.s_xlate_resp as never, world.mrs);
    const dma = new DmaStandIn(tb, { cmd: dut.m_dma_cmd as never, payload: dut.m_payload, status: dut.s_dma_status }, world.mrs,
      { pause: pOut, maxLat: o.dmaLat, ...(o.poison ? { poison: o.poison } : {}) });
    const acks = new StructSink<AckCmdV>(tb, dut.m_ack_cmd as never, 'm_ack_cmd', { pause: pOut });
    const reads = new StructSink<ReadReqV>(tb, dut.m_read_req as never, 'm_read_req', { pause: pOut });
    const rrHdrs = new StructSink<RxHdr>(tb, dut.m_rresp_hdr as never, 'm_rresp_hdr', { pause: pOut });
    const rrPay = new AxiStreamSink(tb, dut.m_rresp_payload, { pause: pOut });
    // After the ReadReq sink: it sees each take in the cycle it happens.
    const room = new RoomStandIn(tb, dut.rd_room as { value: number }, reads, {
      fixed: world.qps.map(s => s.rdRoom), ...(o.rdSlots === undefined ? {} : { slots: o.rdSlots }), freeLat: o.rdFreeLat ?? 20,
      ...(o.rdBusy ? { busy: dut.rd_busy as { value: number } } : {}), dupRoom: dut.rd_dup_room as { value: number },
    });
    const busyAt = world.qps.map(() => new Set<number>());
    const counters = { seqNakTx: 0, seqNakRx: 0, dupReq: 0 };
    ClockPhases.of(tb).onSample(() => {
      const b = Number(dut.rd_busy.value);
      for (let q = 0; q < NUM_QP; q++) if ((b >> q) & 1) busyAt[q]!.add(tb.cycle);
      counters.seqNakTx += Number(dut.cnt_seq_nak_tx.value);
      counters.seqNakRx += Number(dut.cnt_seq_nak_rx.value);
      counters.dupReq += Number(dut.cnt_dup_req.value);
    });
    // First beat on m_payload, for the throughput test.
    let firstBeat = -1;
    ClockPhases.of(tb).onSample(() => {
      if (firstBeat < 0 && dut.m_payload.tvalid.value === 1 && dut.m_payload.tready.value === 1) firstBeat = tb.cycle;
    });

    // Run until every input is taken, every READ slot is free again, and nothing has moved on
    // any stream or event output for 400 cycles since (a held ACK leaves only after a free).
    const watches = [hdrs.watch, pay.watch, acks.watch, reads.watch, rrHdrs.watch, rrPay.watch];
    const activity = (): number => watches.reduce((a, w) => a + (w?.transfers ?? 0), 0) + dma.transfers + regs.events + room.events;
    let seen = activity(), lastActivity = tb.cycle;
    ClockPhases.of(tb).onSample(() => {
      const n = activity();
      if (n !== seen) { seen = n; lastActivity = tb.cycle; }
    });
    const limit = 40 * pkts.reduce((a, p) => a + Math.ceil(p.payload.length / B) + 4, 0) + 20_000;
    await tb.until(() => hdrs.idle && pay.idle && room.idle && tb.cycle - lastActivity > 400, { timeout: limit, what: 'nic_responder inputs consumed, outputs quiet' })
      .catch((e: unknown) => {
        throw new Error(`nic_responder: inputs not consumed after ${limit} cycles (cycle ${tb.cycle}): ${hdrs.pending} headers and ${pay.queued} payloads left`, { cause: e });
      });
    const payPackets = dma.packets;
    const beats = payPackets.reduce((a, f) => a + f.beats, 0);
    res = {
      exp, acks: acks.items, busyAt, counters, dma, regs, tlb, cycles: tb.cycle, hdrCycles: hdrs.sent.map(x => x.cycle),
      reads: reads.items, rrespHdrs: rrHdrs.items, rrespFrames: (await drain(rrPay)).map(f => ({ bytes: f.data })),
      payloadBeats: { first: firstBeat < 0 ? 0 : firstBeat, last: payPackets.at(-1)?.cycle ?? 0, beats },
    };
    if (check) {
      compareAll(res, world, tb, { deferred: !!o.rdBusy });
      if (o.rdBusy) res.held = checkDeferred(res, world, tb);
    }
  });
  return res!;
}

/**
 * With rd_busy: the ACK/NAK commands of each QP are the model's in order with some left out
 * (a newer one replaced a held one), none leaves while its QP's READ responses are not all out
 * (rd_busy high in the cycle it was taken), and the newest one is never lost: each QP's last
 * command is the model's last, or a held NAK 0x60 that a plain ACK below its PSN could not
 * replace. Everything else is as the model says. Returns how many were held back.
 */
export function checkDeferred(r: BenchResult, world: World, tb: TestBench): number {
  let held = 0;
  for (let q = 0; q < NUM_QP; q++) {
    const want = r.exp.acks.filter(a => a.qp === q), got = r.acks.filter(a => a.value.destQpn === world.qps[q]!.destQpn);
    let k = 0;
    for (const g of got) {
      if (r.busyAt[q]!.has(g.cycle)) throw new Error(`QP ${q}: ACK/NAK psn 0x${g.value.psn.toString(16)} taken at cycle ${g.cycle} while rd_busy was high (seed ${tb.seed})`);
      while (k < want.length && !(want[k]!.psn === g.value.psn && want[k]!.syndrome === g.value.aethSyndrome && want[k]!.msn === g.value.aethMsn)) k++;
      if (k === want.length) throw new Error(`QP ${q}: ACK/NAK ${JSON.stringify({ psn: g.value.psn, syndrome: g.value.aethSyndrome, msn: g.value.aethMsn })} at cycle ${g.cycle} is not the model's next (seed ${tb.seed})`);
      k++;
    }
    held += want.length - got.length;
    const last = want.at(-1), gl = got.at(-1)?.value;
    if (last && !(gl && gl.psn === last.psn && gl.aethSyndrome === last.syndrome) && !(gl && gl.aethSyndrome === AETH.NAK_PSN_SEQ && last.syndrome === AETH.ACK && ((gl.psn - last.psn) & 0xffffff) > 0 && ((gl.psn - last.psn) & 0xffffff) < 0x800000)) {
      throw new Error(`QP ${q}: the last ACK/NAK the model sends (psn 0x${last.psn.toString(16)}, syndrome 0x${last.syndrome.toString(16)}) never left (seed ${tb.seed})`);
    }
  }
  return held;
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

export function compareAll(r: BenchResult, world: World, tb: TestBench, o: { deferred?: boolean } = {}): void {
  const { exp } = r;
  const sentNaks = o.deferred ? r.acks.filter(a => a.value.aethSyndrome === AETH.NAK_PSN_SEQ).length : exp.acks.filter(a => a.syndrome === AETH.NAK_PSN_SEQ).length;
  expect(r.counters, 'counter pulses: NAK 0x60 sent / received, duplicate requests').toEqual({ seqNakTx: sentNaks, seqNakRx: exp.seqNakRx, dupReq: exp.dupReq });
  firstDiff('DMA write commands', r.dma.done, exp.writes, (g, w) => {
    const c = g.cmd;
    if (c.va !== w.va || c.len !== w.len || c.key !== w.key || c.pd !== w.pd || c.access !== w.access) {
      return `got va ${hex(c.va)} len ${c.len} key ${hex(c.key)} pd ${c.pd} access ${c.access}, want va ${hex(w.va)} len ${w.len} key ${hex(w.key)} pd ${w.pd} access ${w.access}`;
    }
    const k = g.bytes.findIndex((b, j) => b !== w.bytes[j]);
    return k >= 0 ? `payload byte ${k} is ${hex(g.bytes[k]!)}, want ${hex(w.bytes[k]!)}` : null;
  }, i => `${exp.writes[i]?.pkt}, command taken at cycle ${r.dma.cmds[i]?.cycle}`);
  if (!o.deferred) firstDiff('ACK/NAK commands', r.acks, exp.acks, (g, w) => {
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
