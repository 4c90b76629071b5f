// nic_tlb (stage 3): key/PD/access/bounds checks and VA -> PA translation through per-MR page
// tables in host memory, cached on chip.
//
// Ports
//   s<i>_xlate_req_* / m<i>_xlate_resp_*   one XlateReq sink and one XlateResp source per client
//                      (IO keys req.c<i> / resp.c<i>); responses come back in request order per
//                      client.
//   mr_tbl             Vec(MrEntry, numMr) straight from nic_regs (ctx.ts): tag, pd, access
//                      (bit 31 valid, bits 2:0 local write / remote read / remote write), va, len,
//                      ptBase. PTEs are 8-byte aligned; ptBase bits 2:0 are ignored.
//   mr_changed         one bit per MR, from nic_regs: high for a cycle when the MR's registers
//                      changed, in (or after) the cycle the new values show on mr_tbl.
//   m_axi_ar* / r*     AXI4 read master for page-table lines (ID 0, one burst in flight).
//   hits / misses      free-running 32-bit counters (TLB_HITS / TLB_MISSES).
//
// Pipeline (one request per cycle on hits):
//   accept  round robin among clients (gen/lib rrArbiter); the request and its MR entry
//           (selected by the key's index) are registered: stage A.
//   A       checks, in NIC.md order: BAD_KEY (index >= numMr or MR not valid), BAD_TAG,
//           BAD_PD, NO_ACCESS (a required access bit missing), OUT_OF_BOUNDS ([va, va+len) not
//           inside [mr.va, mr.va+mr.len), in 65-bit arithmetic); the page-table index
//           (va >> 12) - (mr.va >> 12), its TLB line and set are computed and registered: stage L.
//   L       lookup; a hit (or an error) answers into the client's output register slice.
//   So a hit answers 3 cycles after the request is taken.
//
// The cache: `lines` direct-mapped lines of 8 PTEs (one 64-byte page-table line, aligned in
// physical memory, so a line read never crosses 4 KiB), tagged by (MR index, line number);
// the set is the line number's low bits XOR the folded MR index. A miss stalls the pipeline
// (a blocking TLB: responses stay in order) while the line is read, and the translation is
// answered from the line buffer. After every successful translation the next line of the
// same page table is prefetched in the background when it is in the table and not cached,
// so a sequential walk through an MR only waits for the first line.
//
// Hit rate: `hits` counts OK translations answered from the cache without waiting; `misses`
// counts translations that waited for a page-table read (their own, or a prefetch still in
// flight) and PT_ERROR answers. DMA engines ask once per page chunk, so without the prefetch a
// sequential transfer would miss on 1 request in 8; with it, only the first line misses as
// long as a line of 8 pages takes longer to move than one page-table read.
//
// Zero-length requests are checked (bounds: mr.va <= va <= mr.va + mr.len) but not
// translated: OK with pa = 0 and not counted, since no byte will be moved.
//
// Invalidation: when mr_changed[j] is high, every line of MR j is dropped; a line read in
// flight for MR j is not installed; requests already accepted finish with the MR contents
// they were checked against (they were ordered before the change) but install nothing.
// Requests accepted after the pulse see only the new MR contents.

import { Bool, cat, defineModule, lit, mux, pack, UInt, Vec, type Value } from '../hdl/index.ts';
import { rrArbiter } from '../lib/arbiter.ts';
import { AXI_BURST, type Stream } from '../lib/interfaces.ts';
import { skidBuffer } from '../lib/skid.ts';
import { indexWidth, log2Exact, positiveInt } from '../lib/util.ts';
import { axi4Read } from './axi-ports.ts';
import { MrEntry } from './ctx.ts';
import { oneHotMux } from './mux-util.ts';
import { LINE_BYTES, PTES_PER_LINE, tlbDefaults, XLATE_STATUS_EXT as ST } from './tlb-types.ts';
import { ADDR_WIDTH, mrIndexWidth, PAGE_BITS, XlateReq, xlateReq, XlateResp, xlateResp } from './types.ts';

/** Bits of a page-table index (VA page number difference). */
const IDX_W = ADDR_WIDTH - PAGE_BITS;
/** Bits of a TLB line number: (index + 3-bit skew) >> 3. */
const LINE_W = IDX_W + 1 - 3;
/** Bits of a physical page frame number (PTE bits 63:12). */
const PFN_W = ADDR_WIDTH - PAGE_BITS;
/** Bits of a 64-byte-granular physical address. */
const LADDR_W = ADDR_WIDTH - 6;

/** XOR of `w`-bit chunks of `v` (a cheap hash of the MR index into a set number). */
function fold(v: Value, w: number): Value {
  if (v.width <= w) return v.zext(w);
  let acc: Value = v.bits(w - 1, 0);
  for (let lo = w; lo < v.width; lo += w) acc = acc.xor(v.bits(Math.min(lo + w, v.width) - 1, lo).zext(w));
  return acc;
}

export const nicTlb = defineModule('nic_tlb', tlbDefaults, (m, p) => {
  const busBytes = p.dataWidth / 8;
  log2Exact(busBytes, 'nic_tlb: dataWidth / 8');
  if (p.dataWidth < 64 || p.dataWidth > 512) throw new Error(`nic_tlb: dataWidth ${p.dataWidth} is outside 64..512`);
  positiveInt(p.numClients, 'nic_tlb: numClients');
  positiveInt(p.numMr, 'nic_tlb: numMr');
  const sw = log2Exact(p.lines, 'nic_tlb: lines');
  const mw = mrIndexWidth(p.numMr);
  const cw = indexWidth(p.numClients);
  const beats = LINE_BYTES / busBytes;
  const ptesPerBeat = busBytes / 8;
  const Line = Vec(UInt(PFN_W), PTES_PER_LINE);

  const { clk, rst } = m.clockAndReset();
  const reqs: Record<string, Stream<typeof XlateReq, 'sink'>> = {};
  const resps: Record<string, Stream<typeof XlateResp, 'source'>> = {};
  const req: Stream<typeof XlateReq, 'sink'>[] = [];
  const resp: Stream<typeof XlateResp, 'source'>[] = [];
  for (let i = 0; i < p.numClients; i++) {
    req.push(reqs[`c${i}`] = xlateReq.sink(m, `s${i}_xlate_req`));
    resp.push(resps[`c${i}`] = xlateResp.source(m, `m${i}_xlate_resp`));
  }
  const mrTbl = m.input('mr_tbl', Vec(MrEntry, p.numMr));
  const mrChanged = m.input('mr_changed', UInt(p.numMr));
  const axi = axi4Read({ idWidth: p.idWidth, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth }).source(m, 'm_axi');
  const hits = m.output('hits', UInt(32));
  const misses = m.output('misses', UInt(32));
  m.unused(axi.rid, 'one burst in flight: every R beat belongs to it');
  const inval = (mr: Value): Value => mrChanged.bit(mr);

  // ---- registers of the two stages and of the cache ---------------------------------------
  const aValid = m.reg('a_valid_reg', Bool);
  const aClient = m.reg('a_client_reg', UInt(cw), { reset: null });
  const aReq = m.reg('a_req_reg', XlateReq, { reset: null });
  const aMr = m.reg('a_mr_reg', MrEntry, { reset: null });
  const aMrIdx = m.reg('a_mr_idx_reg', UInt(mw), { reset: null });
  const aKeyOk = m.reg('a_key_ok_reg', Bool, { reset: null });
  const aStale = m.reg('a_stale_reg', Bool, { reset: null });
  m.unused(aReq, 'key bits 31:8 were decoded into a_mr_idx_reg / a_key_ok_reg at accept');
  m.unused(aMr, 'ACCESS bits 30:3 are reserved; ptBase bits 2:0 are below PTE alignment');

  const lValid = m.reg('l_valid_reg', Bool);
  const lClient = m.reg('l_client_reg', UInt(cw), { reset: null });
  const lStatus = m.reg('l_status_reg', UInt(3), { reset: null });
  const lZero = m.reg('l_zero_len_reg', Bool, { reset: null });
  const lMrIdx = m.reg('l_mr_idx_reg', UInt(mw), { reset: null });
  const lLine = m.reg('l_line_reg', UInt(LINE_W), { reset: null });
  const lSlot = m.reg('l_slot_reg', UInt(3), { reset: null });
  const lSet = m.reg('l_set_reg', UInt(sw), { reset: null });
  const lNextSet = m.reg('l_next_set_reg', UInt(sw), { reset: null });
  const lNextOk = m.reg('l_next_ok_reg', Bool, { reset: null });
  const lLineAddr = m.reg('l_line_addr_reg', UInt(LADDR_W), { reset: null });
  const lOffset = m.reg('l_offset_reg', UInt(PAGE_BITS), { reset: null });
  const lStale = m.reg('l_stale_reg', Bool, { reset: null });
  const lMissed = m.reg('l_missed_reg', Bool, { reset: null });

  const tagValid = Array.from({ length: p.lines }, (_, i) => m.reg(`tag_valid_${i}_reg`, Bool));
  const tagMr = Array.from({ length: p.lines }, (_, i) => m.reg(`tag_mr_${i}_reg`, UInt(mw), { reset: null }));
  const tagLine = Array.from({ length: p.lines }, (_, i) => m.reg(`tag_line_${i}_reg`, UInt(LINE_W), { reset: null }));
  const lineData = Array.from({ length: p.lines }, (_, i) => m.reg(`line_data_${i}_reg`, Line, { reset: null }));

  const fill = m.fsm('fill_state', ['IDLE', 'ADDR', 'DATA'] as const);
  const fMrIdx = m.reg('fill_mr_idx_reg', UInt(mw), { reset: null });
  const fLine = m.reg('fill_line_reg', UInt(LINE_W), { reset: null });
  const fSet = m.reg('fill_set_reg', UInt(sw), { reset: null });
  const fAddr = m.reg('fill_addr_reg', UInt(LADDR_W), { reset: null });
  const fInstall = m.reg('fill_install_reg', Bool, { reset: null });
  const fDemand = m.reg('fill_demand_reg', Bool, { reset: null });
  const fErr = m.reg('fill_err_reg', Bool, { reset: null });
  const fBeat = beats > 1 ? m.reg('fill_beat_reg', UInt(Math.log2(beats)), { reset: null }) : null;
  const lineBuf = m.reg('line_buf_reg', Line, { reset: null });
  // The line buffer holds the answer for the request waiting in L (a demand read finished).
  const bufValid = m.reg('line_buf_valid_reg', Bool);
  const hitCount = m.reg('hit_count_reg', UInt(32));
  const missCount = m.reg('miss_count_reg', UInt(32));

  // ---- stage L: lookup ---------------------------------------------------------------------
  const tagWord = (i: number): Value => cat(tagValid[i]!, tagMr[i]!, tagLine[i]!);
  const tagVec = m.let('tag_vec', cat(...tagValid.map((_, i) => tagWord(i)).reverse()).as(Vec(UInt(1 + mw + LINE_W), p.lines)));
  const lHit = m.let('l_hit', tagVec.at(lSet).eq(cat(lit(1, 1), lMrIdx, lLine)));
  const lNextLine = m.let('l_next_line', lLine.addw(1));
  const lNextHit = m.let('l_next_hit', tagVec.at(lNextSet).eq(cat(lit(1, 1), lMrIdx, lNextLine)));
  // Named: an unnamed concat under two dynamic selects is emitted twice (emitter quirk).
  const dataVec = m.let('line_data_vec', cat(...[...lineData].reverse()).as(Vec(Line, p.lines)));
  const lPfnCached = m.let('l_pfn_cached', dataVec.at(lSet).at(lSlot));
  const lNeedPte = m.let('l_need_pte', lStatus.eq(ST.OK).land(lZero.lnot()));
  const lDone = m.let('l_done', lValid.land(lNeedPte.lnot().lor(lHit).lor(bufValid)));
  const outStatus = m.let('l_out_status', mux(lNeedPte.land(lHit.lnot()).land(fErr), lit(ST.PT_ERROR, 3), lStatus));
  const pfn = mux(lHit, lPfnCached, lineBuf.at(lSlot));
  const outPa = m.let('l_out_pa', mux(lNeedPte.land(outStatus.eq(ST.OK)), cat(pfn, lOffset), lit(0, ADDR_WIDTH)));
  const result = pack(XlateResp, { status: outStatus, pa: outPa });

  const outReady: Value[] = [];
  resp.forEach((r, i) => {
    const slice = m.instance(`u_resp_slice_${i}`, skidBuffer, { width: XlateResp.width });
    slice.s.data.set(result);
    slice.s.valid.set(lDone.land(lClient.eq(i)));
    outReady.push(slice.s.ready);
    r.data.set(slice.m.data.as(XlateResp));
    r.valid.set(slice.m.valid);
    slice.m.ready.set(r.ready);
  });
  const lToClientReady = m.let('l_out_ready', oneHotMux(cat(...resp.map((_, i) => lClient.eq(i)).reverse()), outReady));
  const lAdv = m.let('l_advance', lDone.land(lToClientReady));
  const lFree = m.let('l_free', lValid.lnot().lor(lAdv));
  const aAdv = m.let('a_advance', aValid.land(lFree));
  const aFree = m.let('a_free', aValid.lnot().lor(aAdv));

  // ---- accept: round robin, register the request and its MR entry ---------------------------
  const arb = m.instance('u_arb', rrArbiter, { n: p.numClients });
  arb.req.set(cat(...req.map(r => r.valid).reverse()));
  const take = m.let('take', arb.grant_valid.land(aFree));
  arb.accept.set(take);
  req.forEach((r, i) => r.ready.set(arb.grant.bit(i).land(aFree)));
  const selReq = m.let('sel_req', oneHotMux(arb.grant, req.map(r => r.data)).as(XlateReq));
  const selKey = selReq.field('key');
  const selIdx = selKey.bits(8 + mw - 1, 8);
  const idxOk: Value[] = [];
  if (8 + mw < 32) idxOk.push(selKey.bits(31, 8 + mw).eq(0));
  if (p.numMr < 2 ** mw) idxOk.push(selIdx.lt(p.numMr));
  const selKeyOk = m.let('sel_key_ok', idxOk.length ? idxOk.reduce((a, b) => a.land(b)) : lit(1, 1));
  // An out-of-range index reads MR 0 (harmlessly: the answer is BAD_KEY anyway).
  const selMrIdx = m.let('sel_mr_idx', mux(selKeyOk, selIdx, lit(0, mw)));
  m.if(take, () => {
    aValid.set(1);
    aClient.set(arb.grant_index);
    aReq.set(selReq);
    aMr.set(mrTbl.at(selMrIdx));
    aMrIdx.set(selMrIdx);
    aKeyOk.set(selKeyOk);
    aStale.set(0);
  }).elif(aAdv, () => aValid.set(0))
    .else(() => aStale.set(aStale.lor(inval(aMrIdx))));

  // ---- stage A: checks and page-table arithmetic ---------------------------------------------
  const va = aReq.field('va'), len = aReq.field('len');
  const mrVa = aMr.field('va'), mrLen = aMr.field('len'), mrAccess = aMr.field('access'), ptBase = aMr.field('ptBase');
  const vaEnd = m.let('a_va_end', va.add(len));
  const mrEnd = m.let('a_mr_end', mrVa.add(mrLen));
  const badKey = aKeyOk.lnot().lor(mrAccess.bit(31).lnot());
  const badTag = aReq.field('key').bits(7, 0).ne(aMr.field('tag'));
  const badPd = aReq.field('pd').ne(aMr.field('pd'));
  const noAccess = aReq.field('access').and(mrAccess.bits(2, 0).not()).orr();
  const outOfBounds = va.lt(mrVa).lor(vaEnd.gt(mrEnd));
  const aStatus = m.let('a_status', mux(badKey, lit(ST.BAD_KEY, 3), mux(badTag, lit(ST.BAD_TAG, 3), mux(badPd, lit(ST.BAD_PD, 3),
    mux(noAccess, lit(ST.NO_ACCESS, 3), mux(outOfBounds, lit(ST.OUT_OF_BOUNDS, 3), lit(ST.OK, 3)))))));
  const mrVpn = mrVa.bits(ADDR_WIDTH - 1, PAGE_BITS);
  const skew = ptBase.bits(5, 3);
  // PTE slot counted from the 64-byte line that holds the table's first entry.
  const q = m.let('a_pte_slot', va.bits(ADDR_WIDTH - 1, PAGE_BITS).subw(mrVpn).add(skew));
  const aLine = m.let('a_line', q.bits(IDX_W, 3));
  const lastPage = mrEnd.subw(1).bits(ADDR_WIDTH, PAGE_BITS);
  const lastLine = m.let('a_last_line', lastPage.subw(mrVpn.zext(IDX_W + 1)).add(skew).bits(IDX_W + 1, 3));
  const aNextOk = m.let('a_next_ok', aLine.zext(LINE_W + 1).lt(lastLine));
  const hash = fold(aMrIdx, sw);
  const lineLow = aLine.bits(sw - 1, 0);

  m.if(aAdv, () => {
    lValid.set(1);
    lClient.set(aClient);
    lStatus.set(aStatus);
    lZero.set(len.eq(0));
    lMrIdx.set(aMrIdx);
    lLine.set(aLine);
    lSlot.set(q.bits(2, 0));
    lSet.set(lineLow.xor(hash));
    lNextSet.set(lineLow.addw(1).xor(hash));
    lNextOk.set(aNextOk);
    lLineAddr.set(ptBase.bits(ADDR_WIDTH - 1, 6).addw(aLine.zext(LADDR_W)));
    lOffset.set(va.bits(PAGE_BITS - 1, 0));
    lStale.set(aStale.lor(inval(aMrIdx)));
    lMissed.set(0);
  }).elif(lAdv, () => lValid.set(0))
    .else(() => {
      lStale.set(lStale.lor(inval(lMrIdx)));
      m.if(lValid.land(lNeedPte).land(lHit.lnot()), () => lMissed.set(1));
    });

  // ---- counters ------------------------------------------------------------------------------
  m.if(lAdv.land(lNeedPte), () => {
    m.if(lHit.land(lMissed.lnot()), () => hitCount.set(hitCount.addw(1))).else(() => missCount.set(missCount.addw(1)));
  });
  hits.set(hitCount);
  misses.set(missCount);

  // ---- line fill: demand reads for L, prefetch of the next line ------------------------------
  const idle = fill.is('IDLE');
  const lStaleNow = m.let('l_stale_now', lStale.lor(inval(lMrIdx)));
  const demand = m.let('fill_demand', idle.land(lValid).land(lNeedPte).land(lHit.lnot()).land(bufValid.lnot()));
  const prefetch = m.let('fill_prefetch', idle.land(lAdv).land(lNeedPte).land(outStatus.eq(ST.OK))
    .land(lNextOk).land(lNextHit.lnot()).land(lStaleNow.lnot()));
  m.if(demand.lor(prefetch), () => {
    fill.goto('ADDR');
    fMrIdx.set(lMrIdx);
    fLine.set(mux(prefetch, lNextLine, lLine));
    fSet.set(mux(prefetch, lNextSet, lSet));
    fAddr.set(mux(prefetch, lLineAddr.addw(1), lLineAddr));
    fInstall.set(lStaleNow.lnot());
    fDemand.set(demand);
    fErr.set(0);
    fBeat?.set(0);
  });

  axi.arid.set(0);
  axi.araddr.set(cat(fAddr, lit(0, 6)));
  axi.arlen.set(beats - 1);
  axi.arsize.set(Math.log2(busBytes));
  axi.arburst.set(AXI_BURST.INCR);
  axi.arlock.set(0);
  axi.arcache.set(0b0011);
  axi.arprot.set(0);
  axi.arvalid.set(fill.is('ADDR'));
  m.if(fill.is('ADDR').land(axi.arready), () => fill.goto('DATA'));

  axi.rready.set(fill.is('DATA'));
  const beat = m.let('fill_beat', fill.is('DATA').land(axi.rvalid));
  const beatOk = axi.rresp.eq(0);
  // The line with this beat's entries merged in (entry k arrives in beat k / ptesPerBeat).
  const merged: Value[] = [];
  for (let k = 0; k < PTES_PER_LINE; k++) {
    const lane = k % ptesPerBeat;
    const pte = axi.rdata.bits(64 * lane + 63, 64 * lane + PAGE_BITS);
    merged.push(fBeat ? mux(fBeat.eq(Math.floor(k / ptesPerBeat)), pte, lineBuf.at(k)) : pte);
  }
  m.unused(axi.rdata, 'PTE bits 11:0 are below the page frame number');
  const lineNext = m.let('line_next', cat(...merged.reverse()).as(Line));
  const install = m.let('fill_install', beat.land(axi.rlast).land(fInstall).land(fErr.lnot()).land(beatOk).land(inval(fMrIdx).lnot()));
  m.if(fill.is('IDLE').lnot().land(inval(fMrIdx)), () => fInstall.set(0));
  m.if(beat, () => {
    lineBuf.set(lineNext);
    fBeat?.set(fBeat.addw(1));
    m.if(beatOk.lnot(), () => fErr.set(1));
    m.if(axi.rlast, () => {
      fill.goto('IDLE');
      bufValid.set(fDemand);
    });
  });
  if (fBeat) m.assert(beat.land(axi.rlast).lnot().lor(fBeat.eq(beats - 1)), 'page-table burst ended early or late (rlast)');
  // L consumes the line buffer's answer when it moves on.
  m.if(lAdv, () => bufValid.set(0));
  m.assert(lAdv.land(beat).land(axi.rlast).land(fDemand).lnot(), 'a demand read finished while its request left');

  for (let i = 0; i < p.lines; i++) {
    m.if(inval(tagMr[i]!), () => tagValid[i]!.set(0));
    m.if(install.land(fSet.eq(i)), () => {
      tagValid[i]!.set(1);
      tagMr[i]!.set(fMrIdx);
      tagLine[i]!.set(fLine);
      lineData[i]!.set(lineNext);
    });
  }

  return { clk, rst, req: reqs, resp: resps, mr_tbl: mrTbl, mr_changed: mrChanged, m_axi: axi, hits, misses };
}, { doc: 'Address translation: key/PD/access/bounds checks, page-table walk, 8-PTE-line TLB with next-line prefetch' });
