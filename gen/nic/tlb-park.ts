// nic_tlb's parked requests (see the header of tlb.ts): `missSlots` entries, each holding one
// request that left stage L without an answer to send yet, or with an answer that must wait
// for an older parked request of the same client.
//
// - A miss parks and waits for its page-table line: it attaches to a fill engine that reads
//   the same line address for the same MR, has not delivered the beat with its PTE yet and
//   has seen no mr_changed of that MR since its read was asked for (or the parked request is
//   itself stale: it was accepted before the change, so either contents will do); otherwise
//   it asks for a demand read (round robin among waiting entries). It takes its PFN from
//   the R beat that carries it and is done at the burst's last beat (PT_ERROR when any beat
//   of the burst had an error response).
// - A request of a client that already has a parked entry parks too, hit or not, with its
//   answer ready (or waiting for its own line when it missed): `older` lists the entries of
//   the same client parked before it, and an entry answers only when that list is empty.
//   So every client's answers stay in request order.

import { Bool, cat, lit, mux, UInt, type ModuleBuilder, type Reg, type Sig, type Value } from '../hdl/index.ts';
import { rrArbiter } from '../lib/arbiter.ts';
import { LADDR_W, PFN_W, type Fills, type LineTarget } from './tlb-fill.ts';
import { oneHotMux } from './mux-util.ts';
import { XLATE_STATUS_EXT as ST } from './tlb-types.ts';
import { ADDR_WIDTH, PAGE_BITS } from './types.ts';

export interface ParkGeometry { slots: number; numClients: number; cw: number; mw: number; sw: number; lineW: number; ptesPerBeat: number }

/** What stage L hands over when it parks a request. */
export interface ParkIncoming {
  take: Value; client: Value; status: Value; needPte: Value; miss: Value; pfn: Value; offset: Value;
  pteSlot: Value; stale: Value; target: LineTarget;
}

/** The demand read the parked entries ask for (wires, set here, read by the fill engines). */
export interface DemandWires { valid: Sig; fresh: Sig; target: { mrIdx: Sig; line: Sig; set: Sig; lineAddr: Sig } }

interface Entry {
  valid: Reg; client: Reg; status: Reg; needPte: Reg; done: Reg; wait: Reg; eng: Reg; pteSlot: Reg;
  lineAddr: Reg; mrIdx: Reg; line: Reg; set: Reg; stale: Reg; pfn: Reg; offset: Reg; older: Reg;
}

function makeEntry(m: ModuleBuilder, j: number, g: ParkGeometry): Entry {
  const r = (name: string, w: number) => m.reg(`park${j}_${name}_reg`, UInt(w), { reset: null });
  return {
    valid: m.reg(`park${j}_valid_reg`, Bool), client: r('client', g.cw), status: r('status', 3), needPte: r('need_pte', 1),
    done: r('done', 1), wait: r('wait', 1), eng: r('engine', 1), pteSlot: r('pte_slot', 3), lineAddr: r('addr', LADDR_W),
    mrIdx: r('mr_idx', g.mw), line: r('line', g.lineW), set: r('set', g.sw), stale: r('stale', 1), pfn: r('pfn', PFN_W),
    offset: r('offset', PAGE_BITS), older: r('older', g.slots),
  };
}

export interface Parks {
  /** Client c has a parked entry. */
  clientParked: Value[];
  /** Some entry is free (L may park). */
  free: Value;
  /** Client c's answer from its oldest parked entry (valid, packed XlateResp fields). */
  answer: { valid: Value; status: Value; pa: Value }[];
  /** Some parked miss has not got its line yet (it waits for an engine or for the burst it
   *  attached to): registers only. */
  missWaiting: Value;
}

export function parkSlots(m: ModuleBuilder, g: ParkGeometry, inval: (mr: Value) => Value, inc: ParkIncoming, fills: Fills,
  r: { lanes: Value[]; beatOk: Value; rlast: Value }, demand: DemandWires, outReady: Value[]): Parks {
  const ent = Array.from({ length: g.slots }, (_, j) => makeEntry(m, j, g));
  const onesBelow = (j: number): Value => (j === 0 ? lit(1, 1) : cat(...ent.slice(0, j).map(e => e.valid)).andr());
  // The lowest free entry.
  const freeOh = ent.map((e, j) => m.let(`park${j}_is_first_free`, e.valid.lnot().land(onesBelow(j))));
  const free = m.let('park_free', cat(...freeOh).orr());
  const head = ent.map((e, j) => m.let(`park${j}_head`, e.valid.land(e.done).land(e.older.eq(0))));
  const readyOf = (e: Entry): Value => oneHotMux(cat(...outReady.map((_, c) => e.client.eq(c)).reverse()), outReady);
  const leave = ent.map((e, j) => m.let(`park${j}_leave`, head[j]!.land(readyOf(e))));
  const leaveVec = cat(...[...leave].reverse());
  const staleNow = ent.map((e, j) => m.let(`park${j}_stale_now`, e.stale.lor(inval(e.mrIdx))));
  const beatIdx = (e: Entry): Value | null => (g.ptesPerBeat < 8 ? e.pteSlot.bits(2, Math.log2(g.ptesPerBeat)) : null);

  // ---- waiting for a line: attach to a fill of the same line, or ask for a demand read -------
  const attach = ent.map((e, j) => fills.engines.map((f, k) => m.let(`park${j}_attach${k}`, e.valid.land(e.wait)
    .land(fills.canStillDeliver(k, beatIdx(e))).land(f.lineAddr.eq(e.lineAddr)).land(f.mrIdx.eq(e.mrIdx))
    .land(f.fresh.lor(staleNow[j]!)))));
  const asks = ent.map((e, j) => e.valid.land(e.wait).land(cat(...attach[j]!).orr().lnot()));
  const arb = m.instance('u_park_arb', rrArbiter, { n: g.slots });
  arb.req.set(cat(...[...asks].reverse()));
  arb.accept.set(fills.demandStart);
  demand.valid.set(arb.grant_valid);
  const pickField = (a: (e: Entry) => Value): Value => oneHotMux(arb.grant, ent.map(a));
  demand.fresh.set(oneHotMux(arb.grant, staleNow).lnot());
  demand.target.mrIdx.set(pickField(e => e.mrIdx));
  demand.target.line.set(pickField(e => e.line));
  demand.target.set.set(pickField(e => e.set));
  demand.target.lineAddr.set(pickField(e => e.lineAddr));

  // ---- per entry ---------------------------------------------------------------------------
  const lane = (e: Entry): Value => (g.ptesPerBeat === 1 ? r.lanes[0]! : oneHotMux(
    cat(...r.lanes.map((_, l) => e.pteSlot.bits(Math.log2(g.ptesPerBeat) - 1, 0).eq(l)).reverse()), r.lanes));
  const sameClientAsNew = cat(...ent.map((e, k) => e.valid.land(leave[k]!.lnot()).land(e.client.eq(inc.client))).reverse());
  ent.forEach((e, j) => {
    const f = (a: (x: Fills['engines'][number]) => Value): Value => mux(e.eng.bit(0), a(fills.engines[1]!), a(fills.engines[0]!));
    const myBeat = m.let(`park${j}_beat_now`, e.valid.land(e.wait.lnot()).land(e.done.lnot()).land(f(x => x.beatNow)));
    const idx = beatIdx(e);
    const myPte = idx ? f(x => x.beat!).eq(idx) : lit(1, 1);
    m.if(inc.take.land(freeOh[j]!), () => {
      e.valid.set(1);
      e.client.set(inc.client);
      e.status.set(inc.status);
      e.needPte.set(inc.needPte);
      e.done.set(inc.miss.lnot());
      e.wait.set(inc.miss);
      e.pteSlot.set(inc.pteSlot);
      e.pfn.set(inc.pfn);
      e.offset.set(inc.offset);
      e.stale.set(inc.stale);
      e.mrIdx.set(inc.target.mrIdx);
      e.line.set(inc.target.line);
      e.set.set(inc.target.set);
      e.lineAddr.set(inc.target.lineAddr);
      e.older.set(sameClientAsNew);
    }).else(() => {
      e.older.set(e.older.and(leaveVec.not()));
      e.stale.set(staleNow[j]!);
      m.if(attach[j]![1]!, () => { e.wait.set(0); e.eng.set(1); })
        .elif(attach[j]![0]!, () => { e.wait.set(0); e.eng.set(0); })
        .elif(fills.demandStart.land(arb.grant.bit(j)), () => { e.wait.set(0); e.eng.set(fills.startEngine); });
      m.if(myBeat.land(myPte), () => e.pfn.set(lane(e)));
      m.if(myBeat.land(r.rlast), () => {
        e.done.set(1);
        m.if(f(x => x.err).lor(r.beatOk.lnot()), () => e.status.set(ST.PT_ERROR));
      });
      m.if(leave[j]!, () => e.valid.set(0));
    });
  });
  m.assert(inc.take.land(free.lnot()).lnot(), 'parked a request with no free entry');

  const answer = Array.from({ length: g.numClients }, (_, c) => {
    const sel = cat(...ent.map((e, j) => head[j]!.land(e.client.eq(c))).reverse());
    const status = oneHotMux(sel, ent.map(e => e.status));
    const ok = oneHotMux(sel, ent.map(e => e.needPte.land(e.status.eq(ST.OK))));
    const pa = mux(ok, oneHotMux(sel, ent.map(e => cat(e.pfn, e.offset))), lit(0, ADDR_WIDTH));
    return { valid: m.let(`park_answer_valid_${c}`, sel.orr()), status, pa };
  });
  const clientParked = Array.from({ length: g.numClients }, (_, c) =>
    m.let(`client${c}_parked`, cat(...ent.map(e => e.valid.land(e.client.eq(c)))).orr()));
  const missWaiting = m.let('park_miss_waiting', cat(...ent.map(e => e.valid.land(e.done.lnot()))).orr());
  return { clientParked, free, answer, missWaiting };
}
