// nic_tlb (stage 3): key/PD/access/bounds checks and VA -> PA translation through per-MR page
// tables in host memory, cached on chip.
//
// Ports
//   s<i>_xlate_req_* / m<i>_xlate_resp_*   one XlateReq sink and one XlateResp source per client
//                      (IO keys req.c<i> / resp.c<i>); responses come back in request order per
//                      client (not across clients: a hit of one client passes another's miss).
//   mr_rd_en / mr_rd_addr / mr_rd_data
//                      read port of nic_regs' MR table (block RAM, mr-table.ts): the MrEntry
//                      (ctx.ts: tag, pd, access (bit 31 valid, bits 2:0 local write / remote
//                      read / remote write), va, len, ptBase) of MR mr_rd_addr shows on
//                      mr_rd_data one clock after mr_rd_en, and holds while mr_rd_en is low.
//                      PTEs are 8-byte aligned; ptBase bits 2:0 are ignored.
//   mr_changed         {valid, mr} from nic_regs: valid for a cycle when MR mr's registers
//                      changed, in (or after) the cycle a read of it returns the new values.
//   m_axi_ar* / r*     AXI4 read master for page-table lines: up to two bursts in flight (ID 0
//                      and ID 1, one per fill engine), answered in any order, beats may
//                      interleave.
//   pt_urgent          high while a translation waits for a page-table read (a parked miss
//                      without its line yet: its demand read is asked for or outstanding, or
//                      it attached to a prefetch in flight); low while only prefetches run.
//                      From registers. nic_top feeds it to nic_axi_rd_mux's urgent input
//                      (axi-mux.ts): a demand read goes ahead of the payload reads, a
//                      prefetch, which nothing waits for, after any asked for with it.
//   hits / misses      free-running 32-bit counters (TLB_HITS / TLB_MISSES).
//
// Pipeline (one request per cycle on hits):
//   accept  round robin among clients (gen/lib rrArbiter), skipping a client that has a parked
//           request or a miss in L (so its later requests wait here, not in the pipeline); the
//           request is registered and its MR entry (selected by the key's index) read from the
//           MR table, whose registered read port is stage A's MR register: stage A.
//   A       checks, in NIC.md order: BAD_KEY (index >= numMr or MR not valid), BAD_TAG,
//           BAD_PD, NO_ACCESS (a required access bit missing), OUT_OF_BOUNDS ([va, va+len) not
//           inside [mr.va, mr.va+mr.len), in 65-bit arithmetic); the page-table index
//           (va >> 12) - (mr.va >> 12), its TLB line and set are computed and registered, and
//           the line memory's word of that set holding its PTE is read (registered read port,
//           so the word is there in L): stage L.
//   L       lookup (tags in registers, compared combinationally; the PTE from the word read);
//           a hit (or an error, or a zero-length request) answers at once, unless its
//           client has a parked request; a miss parks (below) and L takes the next request.
//   So a hit answers 2 cycles after the request is taken (3 with `respSlice`).
//
// Hit under miss (tlb-park.ts): `missSlots` parked entries. A miss parks and waits for its
// page-table line while the pipeline goes on answering the other clients; a request of a
// client that already has a parked entry parks behind it (hit or miss), and an entry answers
// only after its client's older entries, so each client's answers stay in request order. A
// second client's miss parks too (it then waits for a fill engine, not for the first miss's
// answer); only when every entry is taken does a miss stall L. Without `respSlice`, answers
// leave from L or an entry straight to the client, and an answer of L the client does not take
// at once parks too (so VALID stays high with the same payload); L then only offers an answer
// while an entry is free.
//
// Line fills (tlb-fill.ts): two fill engines, each reading one 64-byte line. A parked miss
// first attaches to a fill already reading its line (a prefetch, say); otherwise it asks for a
// demand read, which takes the first idle engine. After every hit the next line of the same
// page table is queued for prefetch (when it is in the table and not cached); the queued
// prefetch starts only when no parked miss waits for an engine and the line is still not
// cached, so a demand read never waits for a prefetch to start, and with one prefetch in
// flight it takes the other engine at once. A sequential walk through an MR only waits for
// the first line.
//
// The cache: `lines` direct-mapped lines of 8 PTEs (one 64-byte page-table line, aligned in
// physical memory, so a line read never crosses 4 KiB), tagged by (MR index, line number);
// the set is the line number's low bits XOR the folded MR index. The tags (valid, MR index,
// line number: 1 + log2(numMr) + 50 bits per line) are registers; the PTEs (their page frame
// numbers, 52 bits each) are one memory `line_mem` of `lines` x (64 bytes / bus bytes) words,
// one word per R beat of a line: word {set, beat} holds the bus-width/64 PFNs of that beat
// (at 512 bits one 416-bit word per line, at 64 bits 8 words of one PFN), so a fill writes
// each R beat as one whole word and clears the line's tag; the last beat sets the tag (no
// error response in the burst). One registered read port: each cycle it reads the word of
// the request entering L (A's set and PTE slot), or, when L keeps its request, L's word
// again, so a request waiting in L (a miss with every parked entry taken, or an answer no
// entry can hold) always looks at the word as it was one cycle earlier, not at the one it
// read when it entered L: a fill may rewrite its set meanwhile (a fill of its own line turns
// its miss into a hit). The read is read-before-write: when a fill writes the very word
// read in that cycle, the word L gets is the old one while the tags already show the fill,
// so `l_word_stale_reg` keeps L from answering or parking for one cycle while it reads again.
// (tlb.test.ts 'a request waiting in L while a fill rewrites its set' fails without the
// re-read and, with respSlice, without that one-cycle wait.) A hit still answers 2 cycles
// after it is taken.
//
// Hit rate: `hits` counts OK translations found in the cache when they left L (answered, or
// parked behind their client's older request); `misses` counts translations that parked to
// wait for a page-table read (their own, or a fill of the same line already in flight),
// including the ones answered PT_ERROR. DMA engines ask once per page chunk, so without the
// prefetch a sequential transfer would miss on 1 request in 8; with it, only the first line
// misses as long as a line of 8 pages takes longer to move than one page-table read.
//
// Zero-length requests are checked (bounds: mr.va <= va <= mr.va + mr.len) but not
// translated: OK with pa = 0 and not counted, since no byte will be moved.
//
// Invalidation: when mr_changed[j] is high, every line of MR j is dropped, a queued prefetch
// for MR j is dropped, and a fill in flight for MR j installs nothing. Requests already
// accepted (in A, in L or parked) finish with the MR contents they were checked against
// (they were ordered before the change) but install nothing: a parked one reads its PTE
// itself or from any fill of its line. Requests accepted after the pulse see only the new MR
// contents, and a miss among them never takes its PTE from a fill asked for before the
// pulse (its page table may have been rewritten since).

import { Bool, cat, defineModule, lit, mux, pack, UInt, Vec, type Value } from '../hdl/index.ts';
import { rrArbiter } from '../lib/arbiter.ts';
import type { Stream } from '../lib/interfaces.ts';
import { skidBuffer } from '../lib/skid.ts';
import { indexWidth, log2Exact, positiveInt } from '../lib/util.ts';
import { axi4Read } from './axi-ports.ts';
import { MrEntry, mrChangeEvent } from './ctx.ts';
import { oneHotMux } from './mux-util.ts';
import { lineFills, LADDR_W, PFN_W, rdataLanes } from './tlb-fill.ts';
import { parkSlots, type DemandWires } from './tlb-park.ts';
import { LINE_BYTES, tlbDefaults, XLATE_STATUS_EXT as ST } from './tlb-types.ts';
import { ADDR_WIDTH, mrIndexWidth, PAGE_BITS, XlateReq, xlateReq, XlateResp, xlateResp } from './types.ts';

/** Bits of a page-table index (VA page number difference). */
const IDX_W = ADDR_WIDTH - PAGE_BITS;
/** Bits of a TLB line number: (index + 3-bit skew) >> 3. */
const LINE_W = IDX_W + 1 - 3;

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
  positiveInt(p.missSlots, 'nic_tlb: missSlots');
  positiveInt(p.idWidth, 'nic_tlb: idWidth');
  const sw = log2Exact(p.lines, 'nic_tlb: lines');
  const mw = mrIndexWidth(p.numMr);
  const cw = indexWidth(p.numClients);
  const beats = LINE_BYTES / busBytes;
  const ptesPerBeat = busBytes / 8;

  const { clk, rst } = m.clockAndReset();
  const reqs: Record<string, Stream<typeof XlateReq, 'sink'>> = {};
  const resps: Record<string, Stream<typeof XlateResp, 'source'>> = {};
  const req: Stream<typeof XlateReq, 'sink'>[] = [];
  const resp: Stream<typeof XlateResp, 'source'>[] = [];
  for (let i = 0; i < p.numClients; i++) {
    req.push(reqs[`c${i}`] = xlateReq.sink(m, `s${i}_xlate_req`));
    resp.push(resps[`c${i}`] = xlateResp.source(m, `m${i}_xlate_resp`));
  }
  const mrRdEn = m.output('mr_rd_en', Bool);
  const mrRdAddr = m.output('mr_rd_addr', UInt(mw));
  const mrRdData = m.input('mr_rd_data', MrEntry);
  const mrChanged = m.input('mr_changed', mrChangeEvent(p.numMr));
  const axi = axi4Read({ idWidth: p.idWidth, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth }).source(m, 'm_axi');
  const ptUrgent = m.output('pt_urgent', Bool);
  const hits = m.output('hits', UInt(32));
  const misses = m.output('misses', UInt(32));
  const inval = (mr: Value): Value => mrChanged.field('valid').land(mrChanged.field('mr').eq(mr));

  // ---- registers of the two stages and of the cache ---------------------------------------
  const aValid = m.reg('a_valid_reg', Bool);
  const aClient = m.reg('a_client_reg', UInt(cw), { reset: null });
  const aReq = m.reg('a_req_reg', XlateReq, { reset: null });
  // The MR table's read port registers the entry at accept (read enable = take): stage A's MR.
  const aMr = mrRdData;
  const aMrIdx = m.reg('a_mr_idx_reg', UInt(mw), { reset: null });
  const aKeyOk = m.reg('a_key_ok_reg', Bool, { reset: null });
  const aStale = m.reg('a_stale_reg', Bool, { reset: null });
  m.unused(aReq, 'key bits 31:8 were decoded into a_mr_idx_reg / a_key_ok_reg at accept');
  m.unused(mrRdData, 'ACCESS bits 30:3 are reserved; ptBase bits 2:0 are below PTE alignment');

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

  const tagValid = Array.from({ length: p.lines }, (_, i) => m.reg(`tag_valid_${i}_reg`, Bool));
  const tagMr = Array.from({ length: p.lines }, (_, i) => m.reg(`tag_mr_${i}_reg`, UInt(mw), { reset: null }));
  const tagLine = Array.from({ length: p.lines }, (_, i) => m.reg(`tag_line_${i}_reg`, UInt(LINE_W), { reset: null }));
  // The PTEs: one memory word per R beat of a line (word {set, beat}: ptesPerBeat PFNs), so a
  // fill writes each beat as one whole word. Read (registered) with the address of the request
  // that enters L, so its word is there when it is looked up, and re-read while it waits in L.
  const beatW = Math.log2(beats);
  const lineMem = m.memory('line_mem', UInt(ptesPerBeat * PFN_W), p.lines * beats);
  const wordAddr = (set: Value, slot: Value): Value => (beats > 1 ? cat(set, slot.bits(2, 3 - beatW)) : set);
  // A fill wrote the word L's request read in the same cycle: the word read is the old one
  // (read before write) while the tags already show the new line, so L waits a cycle and reads
  // it again.
  const lWordStale = m.reg('l_word_stale_reg', Bool);

  const hitCount = m.reg('hit_count_reg', UInt(32));
  const missCount = m.reg('miss_count_reg', UInt(32));

  // ---- stage L: lookup ---------------------------------------------------------------------
  const tagWord = (i: number): Value => cat(tagValid[i]!, tagMr[i]!, tagLine[i]!);
  const tagVec = m.let('tag_vec', cat(...tagValid.map((_, i) => tagWord(i)).reverse()).as(Vec(UInt(1 + mw + LINE_W), p.lines)));
  const tagHit = (set: Value, mr: Value, line: Value): Value => tagVec.at(set).eq(cat(lit(1, 1), mr, line));
  const lHit = m.let('l_hit', tagHit(lSet, lMrIdx, lLine));
  const lNextLine = m.let('l_next_line', lLine.addw(1));
  const lNextHit = m.let('l_next_hit', tagHit(lNextSet, lMrIdx, lNextLine));
  const lineRdAddr = m.wire('line_rd_addr', UInt(Math.log2(p.lines * beats)));
  const lWord = m.let('l_word', lineMem.read(lineRdAddr));
  const lPfnCached = m.let('l_pfn_cached', ptesPerBeat === 1 ? lWord
    : lWord.as(Vec(UInt(PFN_W), ptesPerBeat)).at(lSlot.bits(Math.log2(ptesPerBeat) - 1, 0)));
  const lNeedPte = m.let('l_need_pte', lStatus.eq(ST.OK).land(lZero.lnot()));
  const lMiss = m.let('l_miss', lValid.land(lNeedPte).land(lHit.lnot()));
  const lStaleNow = m.let('l_stale_now', lStale.lor(inval(lMrIdx)));
  const outPa = m.let('l_out_pa', mux(lNeedPte, cat(lPfnCached, lOffset), lit(0, ADDR_WIDTH)));

  // Each answer goes to its client through a register slice (respSlice) or straight out.
  const slices = p.respSlice ? resp.map((_, i) => m.instance(`u_resp_slice_${i}`, skidBuffer, { width: XlateResp.width })) : null;
  const outReady = slices ? slices.map(sl => sl.s.ready) : resp.map(r => r.ready);
  const lToClientReady = m.let('l_out_ready', oneHotMux(cat(...resp.map((_, i) => lClient.eq(i)).reverse()), outReady));

  // ---- parked requests and line fills (tlb-park.ts, tlb-fill.ts) -------------------------------
  const demand: DemandWires = {
    valid: m.wire('demand_valid', Bool), fresh: m.wire('demand_fresh', Bool),
    target: { mrIdx: m.wire('demand_mr_idx', UInt(mw)), line: m.wire('demand_line', UInt(LINE_W)), set: m.wire('demand_set', UInt(sw)), lineAddr: m.wire('demand_addr', UInt(LADDR_W)) },
  };
  const lClientParked = m.wire('l_client_parked', Bool);
  const parkFree = m.wire('l_park_free', Bool);
  // L parks a miss, and anything of a client that already has a parked request (its order).
  const lMustPark = m.let('l_must_park', lValid.land(lWordStale.lnot()).land(lMiss.lor(lClientParked)));
  // Without the slice, L offers its answer only when it could park it: an answer the client
  // does not take at once moves into a parked entry, so valid stays high with the same
  // payload (L's own answer could change while it waits: a fill may overwrite its line).
  const lDirect = m.let('l_direct', lValid.land(lWordStale.lnot()).land(lMustPark.lnot()).land(p.respSlice ? lit(1, 1) : parkFree));
  const lUnanswered = p.respSlice ? lit(0, 1) : lDirect.land(lToClientReady.lnot());
  const lPark = m.let('l_park', lMustPark.lor(lUnanswered).land(parkFree));
  const lAdv = m.let('l_advance', lDirect.land(lToClientReady).lor(lPark));
  const lFree = m.let('l_free', lValid.lnot().lor(lAdv));
  const aAdv = m.let('a_advance', aValid.land(lFree));
  const aFree = m.let('a_free', aValid.lnot().lor(aAdv));
  // Queue the next line after a hit (an OK translation found in the cache).
  const lPrefetch = m.let('l_prefetch', lAdv.land(lNeedPte).land(lHit).land(lNextOk).land(lNextHit.lnot()).land(lStaleNow.lnot()));

  const geom = { mw, sw, lineW: LINE_W, beats, ptesPerBeat, busBytes };
  const fills = lineFills(m, geom, axi, { tagValid, tagMr, tagLine, lineMem }, inval,
    { demand: demand.valid, demandTarget: demand.target, demandFresh: demand.fresh, holdPrefetch: lPark.land(lMiss) },
    { valid: lPrefetch, target: { mrIdx: lMrIdx, line: lNextLine, set: lNextSet, lineAddr: lLineAddr.addw(1) } }, tagHit);
  const parks = parkSlots(m, { slots: p.missSlots, numClients: p.numClients, cw, mw, sw, lineW: LINE_W, ptesPerBeat }, inval, {
    take: lPark, client: lClient, status: lStatus, needPte: lNeedPte, miss: lMiss, pfn: lPfnCached, offset: lOffset,
    pteSlot: lSlot, stale: lStaleNow, target: { mrIdx: lMrIdx, line: lLine, set: lSet, lineAddr: lLineAddr },
  }, fills, { lanes: rdataLanes(axi, ptesPerBeat), beatOk: axi.rresp.eq(0), rlast: axi.rlast }, demand, outReady);
  lClientParked.set(oneHotMux(cat(...resp.map((_, i) => lClient.eq(i)).reverse()), parks.clientParked));
  parkFree.set(parks.free);
  ptUrgent.set(parks.missWaiting);

  // ---- answers: L's own (no parked request of its client), else the client's oldest parked one
  resp.forEach((r, i) => {
    const fromL = m.let(`l_answers_${i}`, lDirect.land(lClient.eq(i)));
    const a = parks.answer[i]!;
    const data = mux(fromL, pack(XlateResp, { status: lStatus, pa: outPa }), pack(XlateResp, { status: a.status, pa: a.pa }));
    const valid = fromL.lor(a.valid);
    m.assert(fromL.land(a.valid).lnot(), `client ${i}: answer from L and from a parked request at once`);
    const slice = slices?.[i];
    if (slice) {
      slice.s.data.set(data);
      slice.s.valid.set(valid);
      r.data.set(slice.m.data.as(XlateResp));
      r.valid.set(slice.m.valid);
      slice.m.ready.set(r.ready);
    } else {
      r.data.set(data.as(XlateResp));
      r.valid.set(valid);
    }
  });

  // ---- accept: round robin among clients without a parked (or parking) miss ---------------------
  const arb = m.instance('u_arb', rrArbiter, { n: p.numClients });
  const held = req.map((_, i) => parks.clientParked[i]!.lor(lMiss.land(lClient.eq(i))));
  arb.req.set(cat(...req.map((r, i) => r.valid.land(held[i]!.lnot())).reverse()));
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
  mrRdEn.set(take);
  mrRdAddr.set(selMrIdx);
  m.if(take, () => {
    aValid.set(1);
    aClient.set(arb.grant_index);
    aReq.set(selReq);
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
  const aSet = m.let('a_set', lineLow.xor(hash));
  // The line memory's read: A's word when A moves into L, else L's word again (it waits).
  lineRdAddr.set(mux(aAdv, wordAddr(aSet, q.bits(2, 0)), wordAddr(lSet, lSlot)));
  lWordStale.set(fills.lineWrite.land(fills.lineWriteAddr.eq(lineRdAddr)));

  m.if(aAdv, () => {
    lValid.set(1);
    lClient.set(aClient);
    lStatus.set(aStatus);
    lZero.set(len.eq(0));
    lMrIdx.set(aMrIdx);
    lLine.set(aLine);
    lSlot.set(q.bits(2, 0));
    lSet.set(aSet);
    lNextSet.set(lineLow.addw(1).xor(hash));
    lNextOk.set(aNextOk);
    lLineAddr.set(ptBase.bits(ADDR_WIDTH - 1, 6).addw(aLine.zext(LADDR_W)));
    lOffset.set(va.bits(PAGE_BITS - 1, 0));
    lStale.set(aStale.lor(inval(aMrIdx)));
  }).elif(lAdv, () => lValid.set(0))
    .else(() => lStale.set(lStaleNow));

  // ---- counters: a translation is counted when it leaves L (answered or parked) -----------------
  m.if(lAdv.land(lNeedPte), () => {
    m.if(lHit, () => hitCount.set(hitCount.addw(1))).else(() => missCount.set(missCount.addw(1)));
  });
  hits.set(hitCount);
  misses.set(missCount);

  return { clk, rst, req: reqs, resp: resps, mr_rd_en: mrRdEn, mr_rd_addr: mrRdAddr, mr_rd_data: mrRdData, mr_changed: mrChanged, m_axi: axi, pt_urgent: ptUrgent, hits, misses };
}, { doc: 'Address translation: key/PD/access/bounds checks, page-table walk, 8-PTE-line TLB with hit under miss and next-line prefetch' });
