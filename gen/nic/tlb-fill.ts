// nic_tlb's line fills (see the header of tlb.ts): two fill engines that read one 64-byte
// page-table line each over the AXI read port (engine e uses ARID e), the queue of one
// next-line prefetch, and the cache writes as R beats arrive.
//
// - Either engine serves a demand read (a parked miss) or a prefetch; a demand read always
//   goes first, and a prefetch starts only when no parked miss waits for an engine, so a
//   demand read never waits behind a prefetch that has not started, and behind at most one
//   that has (the other engine takes the demand read while it is in flight). nic_top's read
//   mux serves these reads first only while a parked miss waits (tlb.ts `pt_urgent`); a
//   prefetch AR goes after any payload AR asked for in the same cycle.
// - One AR at a time: an engine starts (raises ARVALID) only while no engine is in ADDR, so
//   the AR payload never changes while ARVALID is high.
// - R beats of the two engines may come in any order and interleave (AXI allows it across
//   IDs); each beat is routed by RID. An installing fill writes each beat straight into the
//   line memory (word {set, beat}, see tlb.ts) and clears that line's tag; the last beat
//   sets the tag when no beat of the burst had an error and the fill is still installing.
// - A fill stops installing (`install` low) when its MR is invalidated (then `fresh` also
//   goes low: a parked miss accepted after the change must not take its data) or when a
//   demand fill for the same set starts (the demand line wins the set).

import { Bool, cat, lit, mux, UInt, type Fsm, type MemoryHandle, type ModuleBuilder, type Reg, type Value } from '../hdl/index.ts';
import { AXI_BURST, type BundleIO } from '../lib/interfaces.ts';
import type { Axi4ReadSpec } from './axi-ports.ts';
import { ADDR_WIDTH, PAGE_BITS } from './types.ts';

/** Fill engines (one AXI ID each). */
export const FILL_ENGINES = 2;
/** Bits of a physical page frame number (PTE bits 63:12). */
export const PFN_W = ADDR_WIDTH - PAGE_BITS;
/** Bits of a 64-byte-granular physical address. */
export const LADDR_W = ADDR_WIDTH - 6;

/** The cache: `lines` tags (valid, MR index, line number) in registers, and the lines of PTEs
 *  in one memory of `beats` words per line (word {set, beat}: one R beat's PFNs). */
export interface CacheRegs {
  tagValid: Reg[];
  tagMr: Reg[];
  tagLine: Reg[];
  lineMem: MemoryHandle;
}

/** Where a line read goes: the page-table line, its cache tag and set. */
export interface LineTarget { mrIdx: Value; line: Value; set: Value; lineAddr: Value }

export interface FillEngine {
  state: Fsm<'IDLE' | 'ADDR' | 'DATA'>;
  mrIdx: Reg; line: Reg; set: Reg; lineAddr: Reg;
  /** Install the line into the cache at the end. */
  install: Reg;
  /** No mr_changed of its MR since the read was asked for. */
  fresh: Reg;
  /** A beat of this burst had an error response. */
  err: Reg;
  /** Beats received so far (null with one beat per line). */
  beat: Reg | null;
  /** An R beat of this engine is taken this cycle. */
  beatNow: Value;
}

export interface FillGeometry { mw: number; sw: number; lineW: number; beats: number; ptesPerBeat: number; busBytes: number }

function makeEngine(m: ModuleBuilder, e: number, g: FillGeometry, axi: BundleIO<Axi4ReadSpec, 'source'>): FillEngine {
  const state = m.fsm(`fill${e}_state`, ['IDLE', 'ADDR', 'DATA'] as const);
  const beatNow = m.let(`fill${e}_beat_now`, state.is('DATA').land(axi.rvalid).land(axi.rid.eq(e)));
  return {
    state,
    mrIdx: m.reg(`fill${e}_mr_idx_reg`, UInt(g.mw), { reset: null }),
    line: m.reg(`fill${e}_line_reg`, UInt(g.lineW), { reset: null }),
    set: m.reg(`fill${e}_set_reg`, UInt(g.sw), { reset: null }),
    lineAddr: m.reg(`fill${e}_addr_reg`, UInt(LADDR_W), { reset: null }),
    install: m.reg(`fill${e}_install_reg`, Bool, { reset: null }),
    fresh: m.reg(`fill${e}_fresh_reg`, Bool, { reset: null }),
    err: m.reg(`fill${e}_err_reg`, Bool, { reset: null }),
    beat: g.beats > 1 ? m.reg(`fill${e}_beat_reg`, UInt(Math.log2(g.beats)), { reset: null }) : null,
    beatNow,
  };
}

/** The PFN in each 64-bit lane of the R data (PTE bits 63:12). */
export function rdataLanes(axi: BundleIO<Axi4ReadSpec, 'source'>, ptesPerBeat: number): Value[] {
  return Array.from({ length: ptesPerBeat }, (_, l) => axi.rdata.bits(64 * l + 63, 64 * l + PAGE_BITS));
}

export interface FillRequest {
  /** A parked miss waits for an engine (its target below). */
  demand: Value;
  demandTarget: LineTarget;
  /** Install the demand line (its request was not invalidated). */
  demandFresh: Value;
  /** A miss parks this cycle: it will ask for an engine next cycle, so no prefetch starts now. */
  holdPrefetch: Value;
}

export interface Fills {
  engines: FillEngine[];
  /** A demand read starts this cycle (on engine `startEngine`). */
  demandStart: Value;
  startEngine: Value;
  /** Engine e is busy and has not yet delivered the beat with index `beatIdx` (it may be attached to). */
  canStillDeliver: (e: number, beatIdx: Value | null) => Value;
  /** The line memory is written this cycle, at word `lineWriteAddr` ({set, beat}). */
  lineWrite: Value;
  lineWriteAddr: Value;
}

/**
 * The fill engines, the prefetch queue and the cache writes. `prefetch` (a valid bit and a
 * target) queues the next line after a hit; `tagHit(set, mr, line)` looks a tag up.
 */
export function lineFills(m: ModuleBuilder, g: FillGeometry, axi: BundleIO<Axi4ReadSpec, 'source'>, cache: CacheRegs,
  inval: (mr: Value) => Value, req: FillRequest, prefetch: { valid: Value; target: LineTarget },
  tagHit: (set: Value, mr: Value, line: Value) => Value): Fills {
  const eng = Array.from({ length: FILL_ENGINES }, (_, e) => makeEngine(m, e, g, axi));
  const anyAddr = m.let('fill_any_addr', cat(...eng.map(f => f.state.is('ADDR'))).orr());
  const idle = eng.map(f => f.state.is('IDLE'));
  const canStart = m.let('fill_can_start', cat(...idle).orr().land(anyAddr.lnot()));
  // The lowest idle engine.
  const startEngine = m.let('fill_start_engine', idle[0]!.lnot().zext(1));
  if (FILL_ENGINES !== 2) throw new Error('nic_tlb: the engine pick assumes two fill engines');

  // ---- prefetch queue: the newest next-line request, until it starts or is no longer needed
  const pfValid = m.reg('pf_valid_reg', Bool);
  const pfMr = m.reg('pf_mr_idx_reg', UInt(g.mw), { reset: null });
  const pfLine = m.reg('pf_line_reg', UInt(g.lineW), { reset: null });
  const pfSet = m.reg('pf_set_reg', UInt(g.sw), { reset: null });
  const pfAddr = m.reg('pf_addr_reg', UInt(LADDR_W), { reset: null });
  const busySameSet = (set: Value): Value => cat(...eng.map(f => f.state.is('IDLE').lnot().land(f.set.eq(set)))).orr();
  // Already cached, or a busy engine owns its set (reading it, or another line there).
  const pfMoot = m.let('pf_moot', tagHit(pfSet, pfMr, pfLine).lor(busySameSet(pfSet)).lor(inval(pfMr)));
  const demandStart = m.let('fill_demand_start', req.demand.land(canStart));
  const pfStart = m.let('fill_prefetch_start', pfValid.land(pfMoot.lnot()).land(canStart).land(req.demand.lnot()).land(req.holdPrefetch.lnot()));
  m.if(prefetch.valid, () => {
    pfValid.set(1);
    pfMr.set(prefetch.target.mrIdx);
    pfLine.set(prefetch.target.line);
    pfSet.set(prefetch.target.set);
    pfAddr.set(prefetch.target.lineAddr);
  }).elif(pfStart.lor(pfMoot), () => pfValid.set(0));

  // ---- starting a read --------------------------------------------------------------------
  const t = req.demandTarget;
  eng.forEach((f, e) => {
    const mine = startEngine.eq(e);
    m.if(f.state.is('IDLE').lnot().land(inval(f.mrIdx)), () => { f.install.set(0); f.fresh.set(0); });
    // A demand read takes the set from an older fill of the same set.
    m.if(demandStart.land(mine.lnot()).land(f.set.eq(t.set)), () => f.install.set(0));
    m.if(demandStart.lor(pfStart).land(mine), () => {
      f.state.goto('ADDR');
      f.mrIdx.set(mux(demandStart, t.mrIdx, pfMr));
      f.line.set(mux(demandStart, t.line, pfLine));
      f.set.set(mux(demandStart, t.set, pfSet));
      f.lineAddr.set(mux(demandStart, t.lineAddr, pfAddr));
      const fresh = mux(demandStart, req.demandFresh.land(inval(t.mrIdx).lnot()), lit(1, 1));
      f.install.set(fresh);
      f.fresh.set(fresh);
      f.err.set(0);
      f.beat?.set(0);
    });
  });

  // ---- AR (one engine in ADDR at a time) -----------------------------------------------------
  const arEngine = m.let('fill_ar_engine', eng[1]!.state.is('ADDR').zext(1));
  axi.arid.set(arEngine.zext(axi.arid.width));
  axi.araddr.set(cat(mux(arEngine.bit(0), eng[1]!.lineAddr, eng[0]!.lineAddr), lit(0, 6)));
  axi.arlen.set(g.beats - 1);
  axi.arsize.set(Math.log2(g.busBytes));
  axi.arburst.set(AXI_BURST.INCR);
  axi.arlock.set(0);
  axi.arcache.set(0b0011);
  axi.arprot.set(0);
  axi.arvalid.set(anyAddr);
  eng.forEach((f, e) => m.if(f.state.is('ADDR').land(axi.arready).land(arEngine.eq(e)), () => f.state.goto('DATA')));
  m.assert(cat(...eng.map(f => f.state.is('ADDR'))).eq((1 << FILL_ENGINES) - 1).lnot(), 'two fill engines in ADDR');

  // ---- R beats ---------------------------------------------------------------------------------
  const rEng = axi.rid.bit(0);
  if (axi.rid.width > 1) m.unused(axi.rid, 'the TLB only uses IDs 0 and 1');
  axi.rready.set(mux(rEng, eng[1]!.state.is('DATA'), eng[0]!.state.is('DATA')));
  const beatOk = axi.rresp.eq(0);
  eng.forEach((f, e) => {
    m.if(f.beatNow, () => {
      f.beat?.set(f.beat.addw(1));
      m.if(beatOk.lnot(), () => f.err.set(1));
      m.if(axi.rlast, () => f.state.goto('IDLE'));
    });
    if (f.beat) m.assert(f.beatNow.land(axi.rlast).lnot().lor(f.beat.eq(g.beats - 1)), `page-table burst of engine ${e} ended early or late (rlast)`);
  });
  if (axi.rid.width > 1) m.assert(axi.rvalid.land(axi.rid.gt(FILL_ENGINES - 1)).lnot(), 'R beat with an ID no fill engine uses');
  const w = cacheWrites(m, g, axi, cache, inval, eng, beatOk);

  const canStillDeliver = (e: number, beatIdx: Value | null): Value => {
    const f = eng[e]!;
    if (!f.beat || !beatIdx) return f.state.is('ADDR').lor(f.state.is('DATA').land(f.beatNow.lnot()));
    const notPassed = mux(f.beatNow, f.beat.lt(beatIdx), f.beat.le(beatIdx));
    return f.state.is('ADDR').lor(f.state.is('DATA').land(notPassed));
  };
  return { engines: eng, demandStart, startEngine, canStillDeliver, lineWrite: w.write, lineWriteAddr: w.addr };
}

/** Each installing beat goes straight into its word of the line memory (and clears the line's
 *  tag until the last beat). */
function cacheWrites(m: ModuleBuilder, g: FillGeometry, axi: BundleIO<Axi4ReadSpec, 'source'>, cache: CacheRegs,
  inval: (mr: Value) => Value, eng: FillEngine[], beatOk: Value): { write: Value; addr: Value } {
  const rEng = axi.rid.bit(0);
  const pick = (a: (f: FillEngine) => Value): Value => mux(rEng, a(eng[1]!), a(eng[0]!));
  const beatAny = m.let('fill_beat_any', cat(...eng.map(f => f.beatNow)).orr());
  const wSet = m.let('fill_w_set', pick(f => f.set));
  const wMr = m.let('fill_w_mr_idx', pick(f => f.mrIdx));
  const write = m.let('fill_write', beatAny.land(pick(f => f.install)).land(inval(wMr).lnot()));
  const complete = m.let('fill_complete', axi.rlast.land(beatOk).land(pick(f => f.err).lnot()));
  const wAddr = m.let('fill_w_addr', eng[0]!.beat ? cat(wSet, pick(f => f.beat!)) : wSet);
  const lanes = rdataLanes(axi, g.ptesPerBeat);
  m.unused(axi.rdata, 'PTE bits 11:0 are below the page frame number');
  m.if(write, () => cache.lineMem.write(wAddr, cat(...[...lanes].reverse())));
  cache.tagValid.forEach((tv, i) => {
    m.if(inval(cache.tagMr[i]!), () => tv.set(0));
    m.if(write.land(wSet.eq(i)), () => {
      tv.set(complete);
      cache.tagMr[i]!.set(wMr);
      cache.tagLine[i]!.set(pick(f => f.line));
    });
  });
  return { write, addr: wAddr };
}
