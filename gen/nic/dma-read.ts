// nic_dma_read: the DMA read engine. For each message (1..4 SGEs on `s_cmd`):
//   1. validate: one translation per SGE over its whole range; zero-length SGEs need none;
//   2. report one DmaStatus (OK, or the first failing SGE's translation status, then stop);
//   3. stream the message: each SGE is cut at 4 KiB pages (one translation per page gives
//      the physical page), each page chunk into AXI INCR read bursts (dma-burst.ts), and the
//      returned words are packed into the output byte stream (no gaps between SGEs), with
//      tlast every 2^segLog2 message bytes and at the end of the message.
//
// Three decoupled parts keep the AXI read channel busy:
//   issuer   (FSM)      : SGEs -> validation requests -> status -> page-chunk requests
//   burst gen           : translated chunk -> AR bursts, one per cycle, at most
//                         `maxBursts` outstanding (limited by the burst-meta FIFO)
//   packer              : R beats -> byte rotation -> packed beats -> m_axis (no register:
//                         a word leaves with the R beat that completes it)
// Every SGE's first page chunk takes its physical address from the SGE's validating
// translation (kept per SGE): only its later pages are translated again.
// A message of one SGE inside one 4 KiB page (every short WRITE) takes its physical address
// from its validating translation: no page translation, and its AR leaves ~8 cycles sooner
// (loaded into the burst generator in the cycle its last validation answer arrives, or in FAST
// once the generator is idle). The burst generator cuts a chunk's first burst in its load
// cycle and offers a burst on AR in the cycle it cuts it when the AR register is empty. Why: the doorbell -> first TX beat latency, which waits for the whole payload
// (nic_tx_frame_gate). With `arSlice` (both engines in nic_top) every burst goes through the AR
// register instead (AR from registers only, a cycle later, still one burst per cycle): the cut
// then ends at the module boundary instead of running on into the read mux's arbiter.
// Abort (abortQps > 0; nic_top's requester engine, driven by nic_req_tx at a go-back-N
// rewind): s_abort {qp} ends the QP's stream at a packet boundary (with abort_open, at once,
// inside the packet its consumer drops: issue-11n), drops the rest of its messages inside and
// reports where (m_abort_done); see "abort" below.
// Translation responses come back in request order. Page requests of one message are all
// sent before the next message's validation requests, and validation waits for its own
// answers, so "a page translation is owed" (pages_owed) tells whose answer the next response is.

import { Bool, bool, cat, defineModule, lit, mux, pack, Struct, UInt, Vec, intIn, oneOf, powerOfTwoIn, type ModuleBuilder, type Value } from '../hdl/index.ts';
import { syncFifo } from '../lib/fifo.ts';
import { AXI_BURST, axi4, stream, unusedFields } from '../lib/interfaces.ts';
import { byteMaskToBits, busBytesLog2, lowBytesMask, rotateRightBytes } from './byte-align.ts';
import { burstMetaShape, checkBurstBytes, nextBurst } from './dma-burst.ts';
import { ADDR_WIDTH, byteStream, DmaReadCmd, DmaStatus, PAGE_BITS, qpIndexWidth, XlateReq, xlateReq, xlateResp } from './types.ts';

export type DmaReadParams = {
  /** Bus and stream width in bits (64 .. 512). */
  dataWidth: number;
  /** AXI id width; the engine uses id 0 only (responses in order). */
  idWidth: number;
  /** Read bursts in flight at most (a power of two). */
  maxBursts: number;
  /** Burst window in bytes (the seed design's 2 KiB chunks). */
  burstBytes: number;
  /** QPs the abort distinguishes; 0: no abort ports (the READ responder's engine). */
  abortQps: number;
  /** Bits of the message id in a message's tag (returned in the abort report). */
  msgIdWidth: number;
  /** 0: up to maxBursts bursts in flight. n > 0: the latency window (below): bursts in flight
   *  are kept under the host's measured read latency + n beats. */
  latWindow: number;
  /** AR from registers only (arvalid/araddr/arlen never a function of this cycle's burst cut):
   *  each burst leaves a cycle after it is cut, still one per cycle while arready stays high.
   *  Why: without it the cut (chunk FIFO, translation answer, burst arithmetic) runs on into the
   *  read mux's arbiter (nic_top at 512 bits, issue 15). false: a burst cut with the AR
   *  register empty is offered in the same cycle (a cycle less to the first AR). */
  arSlice: boolean;
};
export const dmaReadDefaults: DmaReadParams = { dataWidth: 64, idWidth: 4, maxBursts: 8, burstBytes: 2048, abortQps: 0, msgIdWidth: 4, latWindow: 0, arSlice: false };

/** The latency window's measured latency saturates here (cycles). */
const LAT_MAX = 1023;

/** The tag of a message (s_cmd_tag, with its first SGE): its QP and an id of the sender's. */
export function dmaReadTag(abortQps: number, msgIdWidth: number) {
  return Struct('dma_read_tag', { qp: UInt(qpIndexWidth(abortQps)), msg: UInt(msgIdWidth) });
}
/** The abort's report: where the QP's stream ended (message `msg`, `offset` bytes passed on, a
 *  packet boundary), or `none`: nothing of the QP was left to stream. */
export function dmaAbortDone(msgIdWidth: number) {
  return Struct('dma_abort_done', { none: Bool, msg: UInt(msgIdWidth), offset: UInt(32) });
}
/** The abort request on s_abort: the QP whose messages inside are cut. */
export function dmaAbortReq(abortQps: number) {
  return Struct('dma_abort', { qp: UInt(qpIndexWidth(Math.max(abortQps, 1))) });
}
const andNot = (a: Value, b: Value | undefined): Value => (b ? a.land(b.lnot()) : a);
const orMaybe = (a: Value, b: Value | undefined): Value => (b ? a.lor(b) : a);
const andMaybe = (a: Value, b: Value | undefined): Value => (b ? a.land(b) : a);

/** The latency window (latWindow > 0; nic_top's requester engine, issue-11n). AXI returns a
 *  master's reads in order, so at a go-back-N abort every beat already asked for comes (and is
 *  dropped) before the resend's own reads: reads in flight cost the resend their drain. Enough
 *  in flight to cover the host's read latency keeps the wire busy, more only adds to that drain
 *  (with 8 x 2 KiB in flight and a memory answering in ~15 cycles, 755 cycles of it). So the
 *  bursts in flight are kept under `lat + latWindow` beats, where `lat` is the host's read latency
 *  as measured: cycles from a burst issued with nothing in flight (so nothing is ahead of it on
 *  R) to its first R beat offered; each such burst measures it again (a message after a pause,
 *  the first after reset: until then lat is 0). Returns the "one more burst fits" condition
 *  (registers only) and the measurement, to be given the issue strobe. */
function latencyWindow(m: ModuleBuilder, slack: number, inFlight: Value, burstBeatsLog2: number) {
  const timing = m.reg('lat_timing_reg', Bool);
  const count = m.reg('lat_count_reg', UInt(10));
  const lat = m.reg('lat_est_reg', UInt(10));
  const width = Math.max(inFlight.width + burstBeatsLog2, 11) + 1;
  // lat / 4 more: each burst stays counted until its last beat is taken, so the pipe holds
  // whole bursts beyond the latency, and a page's translation or the AR register adds a cycle
  // here and there (at 512 bits and latency 200 the window without it ran at 0.85 beats/cycle).
  const limit = m.let('lat_window_beats', lat.zext(width).addw(lat.bits(9, 2).zext(width)).addw(lit(slack, width)));
  const ok = m.let('lat_window_ok', cat(inFlight, lit(0, burstBeatsLog2)).zext(width).lt(limit));
  const measure = (issue: Value, nothingInFlight: Value, rvalid: Value): void => {
    m.if(timing, () => {
      m.if(rvalid, () => { timing.set(0); lat.set(count); })
        .elif(count.ne(LAT_MAX), () => count.set(count.addw(1)));
    }).elif(issue.land(nothingInFlight), () => { timing.set(1); count.set(0); });
  };
  return { ok, measure };
}

const MAX_SGE = 4;

/** What the engine keeps of an SGE between validation and data. */
const Sge = Struct('dma_sge', { va: UInt(ADDR_WIDTH), len: UInt(32), key: UInt(32), pd: UInt(16), access: UInt(3) });
/** A page chunk waiting for its translation: bytes (1..4096), last of message, segment size;
 *  an SGE's first chunk carries its physical address from the validating translation (known). */
const Chunk = Struct('dma_read_chunk', { len: UInt(13), last: Bool, seg: UInt(4), known: Bool, pa: UInt(ADDR_WIDTH) });

export const nicDmaRead = defineModule('nic_dma_read', dmaReadDefaults, (m, p) => {
  const lb = busBytesLog2(p.dataWidth);
  const B = 1 << lb;
  const burstLog2 = checkBurstBytes(p.burstBytes, lb);
  const { clk, rst } = m.clockAndReset();
  const cmd = stream(DmaReadCmd).sink(m, 's_cmd');
  const status = stream(DmaStatus).source(m, 'm_status');
  const xreq = xlateReq.source(m, 'm_xlate_req');
  const xresp = xlateResp.sink(m, 's_xlate_resp');
  const axi = axi4({ idWidth: p.idWidth, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth }).source(m, 'm_axi');
  const out = byteStream(p.dataWidth).source(m, 'm_axis');
  const tkeep = out.tkeep!, tlast = out.tlast!;

  // ---- abort (abortQps > 0) ----------------------------------------------------------
  // s_abort {qp}: the QP's stream ends at the first packet boundary of its messages the packer
  // reaches: the one it is at (nothing of the next packet passed on yet: between two packets
  // of the QP's message, before its next message, or before a short last packet waiting as a
  // flush), else the next tlast of the QP's message it is in; from there on every chunk, burst and R beat of the QP's messages inside is
  // dropped. No new message is taken while an abort is open; it closes when the engine is
  // empty. Statuses are reported as usual. A sender whose consumer may already expect the
  // bytes after a boundary (a packet command passed on) must hold the abort until they are out
  // (nic_req_tx does: docs/nic-reliability.md "NAK-path recovery").
  const ab = p.abortQps > 0;
  const Tag = dmaReadTag(Math.max(p.abortQps, 1), p.msgIdWidth);
  const AbortDone = dmaAbortDone(p.msgIdWidth);
  const tw = ab ? Tag.width : 0;
  const abortQ = dmaAbortReq(p.abortQps);
  const A = ab ? {
    tagIn: m.input('s_cmd_tag', Tag),
    req: stream(abortQ).sink(m, 's_abort'),
    done: stream(AbortDone).source(m, 'm_abort_done'),
    active: m.reg('abort_active_reg', Bool),
    dropping: m.reg('abort_dropping_reg', Bool),
    qp: m.reg('abort_qp_reg', UInt(qpIndexWidth(p.abortQps))),
    /** The consumer holds the aborted QP's packet open and discards it (nic_tx_frame_gate's
     *  drop): the stream ends at once, inside it, with one beat of tlast and no bytes. */
    open: m.input('abort_open', Bool),
    doneValid: m.reg('abort_done_valid_reg', Bool),
    doneData: m.reg('abort_done_data_reg', AbortDone, { reset: null }),
    msgTag: m.reg('msg_tag_reg', Tag, { reset: null }),
  } : undefined;
  const withTag = (tag: Value | undefined, data: Value): Value => (tag ? cat(tag, data) : data);

  // ---- issuer ------------------------------------------------------------------------
  const fsm = m.fsm('state', ['COLLECT', 'WAIT_VALID', 'LOAD_SGE', 'CHUNK', 'FAST'] as const);
  const sges = m.reg('sge_reg', Vec(Sge, MAX_SGE), { reset: null });
  const nSge = m.reg('sge_count_reg', UInt(3));
  const vSent = m.reg('valid_sent_reg', UInt(3));
  const vRcvd = m.reg('valid_rcvd_reg', UInt(3));
  const err = m.reg('err_reg', UInt(3));
  const anyData = m.reg('any_data_reg', Bool);
  const lastNz = m.reg('last_data_sge_reg', UInt(2));
  const segReg = m.reg('seg_reg', UInt(4));
  const idx = m.reg('sge_index_reg', UInt(2));
  const curVa = m.reg('cur_va_reg', UInt(ADDR_WIDTH));
  const curRem = m.reg('cur_rem_reg', UInt(32));
  const reqValid = m.reg('xlate_req_valid_reg', Bool);
  const reqData = m.reg('xlate_req_data_reg', XlateReq, { reset: null });
  const statusValid = m.reg('status_valid_reg', Bool);
  const statusData = m.reg('status_data_reg', UInt(3));
  const onePage = m.reg('one_page_reg', Bool);
  const validPa = m.reg('valid_pa_reg', UInt(ADDR_WIDTH), { reset: null });
  // Per SGE: the physical address of its first byte (its validating translation's answer), and
  // for validation request k the SGE it was for (zero-length SGEs send none).
  const sgePa = m.reg('sge_pa_reg', Vec(UInt(ADDR_WIDTH), MAX_SGE), { reset: null });
  const validSge = m.reg('valid_sge_reg', Vec(UInt(2), MAX_SGE), { reset: null });
  // Page translations asked for and not yet answered: their answers come before any later
  // validation answer, and a known chunk at the FIFO head never takes one.
  const pagesOwed = m.reg('pages_owed_reg', UInt(3));
  const firstChunk = m.reg('first_chunk_reg', Bool);

  const chunks = m.instance('u_chunk_fifo', syncFifo, { width: Chunk.width + tw, depth: 4 });
  const reqFree = m.let('xlate_req_free', reqValid.lnot().lor(xreq.ready));
  const statusFree = m.let('status_free', statusValid.lnot().lor(status.ready));

  xreq.valid.set(reqValid);
  xreq.data.set(reqData);
  m.if(xreq.ready, () => reqValid.set(0));
  status.valid.set(statusValid);
  status.data.set(statusData.as(DmaStatus));
  m.if(status.ready, () => statusValid.set(0));

  const c = cmd.data;
  const blockNew = A ? m.let('abort_block_new', A.active.land(nSge.eq(0))) : undefined;
  const cmdReady = m.let('cmd_ready', andNot(fsm.is('COLLECT').land(reqFree), blockNew));
  const accept = m.let('cmd_accept', cmd.valid.land(cmdReady));
  cmd.ready.set(cmdReady);
  m.assert(accept.lnot().lor(c.field('segLog2').ge(lb)), `segLog2 must be at least log2 of the bus bytes (${lb})`);
  m.assert(accept.lnot().lor(nSge.lt(MAX_SGE - 1)).lor(c.field('last')), `a message has at most ${MAX_SGE} SGEs`);

  const clearMessage = (): void => {
    nSge.set(0); vSent.set(0); vRcvd.set(0); err.set(0); anyData.set(0); lastNz.set(0); idx.set(0);
  };

  // Whose answer is next: a queued page chunk's, else a validation's.
  const pageResp = m.let('page_resp', pagesOwed.ne(0));
  const burstBusy = m.reg('burst_busy_reg', Bool);
  const validPending = m.let('valid_pending', vRcvd.ne(vSent));
  // The message's last validation answer is on s_xlate_resp now: WAIT_VALID finishes in this
  // cycle with it (status and, for one page, the burst load), not a cycle after.
  const validAnswer = m.let('valid_answer', pageResp.lnot().land(validPending).land(xresp.valid));
  const lastAnswer = m.let('last_answer', validAnswer.land(vRcvd.addw(1).eq(vSent)));
  const allValid = m.let('all_valid', validPending.lnot().lor(lastAnswer));
  const errFinal = m.let('err_final', mux(err.ne(0).lor(lastAnswer.lnot()), err, xresp.data.field('status')));
  const paFinal = m.let('pa_final', mux(lastAnswer, xresp.data.field('pa'), validPa));
  const waitDone = m.let('wait_done', fsm.is('WAIT_VALID').land(allValid).land(statusFree));
  const goFast = m.let('go_fast', waitDone.land(errFinal.eq(0)).land(anyData).land(onePage));
  // One page: load the burst generator from the validating translation once it is idle and no
  // page chunk is queued (so none is owed an answer): right in WAIT_VALID, else in FAST.
  // Dropping for an abort: the issuer's message, the chunk at the FIFO head, the burst generator's chunk.
  const isAborted = (tag: Value): Value => tag.as(Tag).field('qp').eq(A!.qp);
  const issuerDrop = A ? m.let('issuer_drop', A.dropping.land(isAborted(A.msgTag))) : undefined;
  const fastLoad = m.let('fast_load', andNot(fsm.is('FAST').lor(goFast).land(burstBusy.lnot()).land(chunks.m.valid.lnot()), issuerDrop));
  const head = chunks.m.data.bits(Chunk.width - 1, 0).as(Chunk);
  const headTag = A ? chunks.m.data.bits(Chunk.width + tw - 1, Chunk.width) : undefined;
  const headKnown = m.let('head_known', head.field('known'));
  const headDrop = A ? m.let('chunk_drop', A.dropping.land(chunks.m.valid).land(isAborted(headTag!))) : undefined;
  const chunkLoad = m.let('chunk_load', andNot(burstBusy.lnot().land(chunks.m.valid).land(headKnown.lor(xresp.valid)), headDrop));
  // A dropped chunk that was owed a page translation still takes its answer.
  const chunkDropPop = headDrop ? m.let('chunk_drop_pop', headDrop.land(headKnown.lor(xresp.valid))) : undefined;
  const pageAnswer = m.let('page_answer', orMaybe(chunkLoad, chunkDropPop).land(headKnown.lnot()));
  xresp.ready.set(mux(pageResp, pageAnswer, validPending));
  m.if(validAnswer, () => {
    vRcvd.set(vRcvd.addw(1));
    m.if(err.eq(0), () => err.set(xresp.data.field('status')));
    validPa.set(xresp.data.field('pa'));
    const sw = m.switch(validSge.at(vRcvd.trunc(2)));
    for (let i = 0; i < MAX_SGE; i++) sw.case(i, () => sgePa.setBits((i + 1) * ADDR_WIDTH - 1, i * ADDR_WIDTH, xresp.data.field('pa')));
  });
  const pageAsked = m.wire('page_asked', Bool);
  pageAsked.set(0);
  m.if(pageAsked.land(pageAnswer.lnot()), () => pagesOwed.set(pagesOwed.addw(1)))
    .elif(pageAnswer.land(pageAsked.lnot()), () => pagesOwed.set(pagesOwed.subw(1)));

  const cur = sges.at(idx);
  const toPage = m.let('to_page', lit(1 << PAGE_BITS, 13).subw(curVa.bits(PAGE_BITS - 1, 0).zext(13)));
  const chunkFits = m.let('chunk_fits', curRem.le(toPage.zext(32)));
  const chunkLen = m.let('chunk_len', mux(chunkFits, curRem.trunc(13), toPage).asUnsigned());
  chunks.s.valid.set(0);
  chunks.s.data.set(withTag(A?.msgTag, pack(Chunk, { len: chunkLen, last: idx.eq(lastNz).land(chunkFits), seg: segReg, known: firstChunk, pa: sgePa.at(idx) })));

  // With an abort dropping the issuer's message, LOAD_SGE and CHUNK leave it for COLLECT.
  const abandonOr = (body: () => void): (() => void) => (issuerDrop ? () => m.if(issuerDrop, () => {
    clearMessage();
    fsm.goto('COLLECT');
  }).else(body) : body);
  fsm.states({
    COLLECT: () => m.if(accept, () => {
      const sw = m.switch(nSge);
      for (let i = 0; i < MAX_SGE; i++) {
        sw.case(i, () => sges.setBits((i + 1) * Sge.width - 1, i * Sge.width, pack(Sge, {
          va: c.field('va'), len: c.field('len'), key: c.field('key'), pd: c.field('pd'), access: c.field('access'),
        })));
      }
      nSge.set(nSge.addw(1));
      if (A) m.if(nSge.eq(0), () => A.msgTag.set(A.tagIn));
      segReg.set(c.field('segLog2'));
      const inPage = c.field('va').bits(PAGE_BITS - 1, 0).zext(33).addw(c.field('len').zext(33)).le(1 << PAGE_BITS);
      onePage.set(nSge.eq(0).land(c.field('last')).land(inPage));
      // Zero-length SGEs move no data and (as in the verbs) need no key check.
      m.if(c.field('len').ne(0), () => {
        reqValid.set(1);
        reqData.set(pack(XlateReq, { key: c.field('key'), va: c.field('va'), len: c.field('len'), pd: c.field('pd'), access: c.field('access') }));
        vSent.set(vSent.addw(1));
        const sw2 = m.switch(vSent.trunc(2));
        for (let k = 0; k < MAX_SGE; k++) sw2.case(k, () => validSge.setBits(2 * k + 1, 2 * k, nSge.trunc(2)));
        anyData.set(1);
        lastNz.set(nSge.trunc(2));
      });
      m.if(c.field('last'), () => fsm.goto('WAIT_VALID'));
    }),
    WAIT_VALID: () => m.if(waitDone, () => {
      statusValid.set(1);
      statusData.set(errFinal);
      m.if(errFinal.ne(0).lor(anyData.lnot()).lor(fastLoad), () => {
        clearMessage();
        fsm.goto('COLLECT');
      }).elif(onePage, () => fsm.goto('FAST')).else(() => {
        idx.set(0);
        fsm.goto('LOAD_SGE');
      });
    }),
    FAST: () => m.if(orMaybe(fastLoad, issuerDrop), () => {
      clearMessage();
      fsm.goto('COLLECT');
    }),
    LOAD_SGE: abandonOr(() => {
      curVa.set(cur.field('va'));
      curRem.set(cur.field('len'));
      firstChunk.set(1);
      fsm.goto('CHUNK');
    }),
    CHUNK: abandonOr(() => m.if(curRem.eq(0), () => {
      m.if(idx.eq(lastNz), () => {
        clearMessage();
        fsm.goto('COLLECT');
      }).else(() => {
        idx.set(idx.addw(1));
        fsm.goto('LOAD_SGE');
      });
    }).elif(firstChunk.lor(reqFree).land(chunks.s.ready), () => {
      // An SGE's first chunk starts at the address its validation translated: no page request.
      chunks.s.valid.set(1);
      firstChunk.set(0);
      m.if(firstChunk.lnot(), () => {
        reqValid.set(1);
        reqData.set(pack(XlateReq, { key: cur.field('key'), va: curVa, len: chunkLen.zext(32), pd: cur.field('pd'), access: cur.field('access') }));
        pageAsked.set(1);
      });
      curVa.set(curVa.addw(chunkLen.zext(ADDR_WIDTH)));
      curRem.set(curRem.subw(chunkLen.zext(32)));
    })),
  });

  // ---- burst generator ---------------------------------------------------------------
  const Meta = burstMetaShape(lb);
  const metas = m.instance('u_burst_fifo', syncFifo, { width: Meta.width + tw, depth: p.maxBursts });
  const burstTag = A ? m.reg('burst_tag_reg', Tag, { reset: null }) : undefined;
  const pa = m.reg('burst_pa_reg', UInt(ADDR_WIDTH));
  const rem = m.reg('burst_rem_reg', UInt(13));
  const chunkLast = m.reg('burst_last_reg', Bool);
  const chunkSeg = m.reg('burst_seg_reg', UInt(4));
  const arValid = m.reg('ar_valid_reg', Bool);
  const arAddr = m.reg('ar_addr_reg', UInt(ADDR_WIDTH));
  const arLen = m.reg('ar_len_reg', UInt(8));

  chunks.m.ready.set(orMaybe(chunkLoad, chunkDropPop));
  m.assert(pageAnswer.lnot().lor(xresp.data.field('status').eq(0)), 'a page of a validated SGE failed to translate');
  // The chunk being loaded (a page chunk with its translation, or a one-page message with its
  // validating one) is cut from in the load cycle already: its first AR leaves a cycle sooner.
  const load = m.let('burst_load', chunkLoad.lor(fastLoad));
  const bPa = m.let('burst_cur_pa', mux(burstBusy, pa, mux(chunkLoad, mux(headKnown, head.field('pa'), xresp.data.field('pa')), paFinal)));
  const bRem = m.let('burst_cur_rem', mux(burstBusy, rem, mux(chunkLoad, head.field('len'), sges.at(0).field('len').trunc(13))));
  const bLast = m.let('burst_cur_last', mux(burstBusy, chunkLast, chunkLoad.lnot().lor(head.field('last'))));
  const bSeg = m.let('burst_cur_seg', mux(burstBusy, chunkSeg, mux(chunkLoad, head.field('seg'), segReg)));
  m.if(load, () => {
    burstBusy.set(1);
    pa.set(bPa);
    rem.set(bRem);
    chunkLast.set(bLast);
    chunkSeg.set(bSeg);
    if (burstTag) burstTag.set(mux(chunkLoad, headTag!, A!.msgTag));
  });
  const bTag = burstTag ? m.let('burst_cur_tag', mux(burstBusy, burstTag, mux(chunkLoad, headTag!, A!.msgTag))) : undefined;
  const burstDrop = burstTag ? m.let('burst_drop', A!.dropping.land(burstBusy).land(isAborted(burstTag))) : undefined;

  const nb = nextBurst(bPa, bRem, lb, burstLog2);
  const win = p.latWindow ? latencyWindow(m, p.latWindow, metas.count, burstLog2 - lb) : undefined;
  const burstWant = m.let('burst_want', andMaybe(andNot(burstBusy, burstDrop).lor(load).land(metas.s.ready), win?.ok));
  // Without arSlice: with the AR register empty a new burst is offered on the AR channel in its
  // issue cycle (built without arready, so arvalid never depends on it); if not taken it waits
  // in the register. With arSlice: every burst goes into the AR register first (a pipeline
  // register: it takes the next burst in the cycle arready takes the one it holds, so still one
  // burst per cycle), and AR is driven by that register only.
  const direct = p.arSlice ? undefined : m.let('ar_direct', burstWant.land(arValid.lnot()));
  const issue = direct ? m.let('burst_issue', direct.lor(burstWant.land(axi.arready)))
    : m.let('burst_issue', burstWant.land(arValid.lnot().lor(axi.arready)));
  const lastBurst = m.let('last_burst', bRem.eq(nb.bytes));
  metas.s.valid.set(issue);
  win?.measure(issue, metas.m.valid.lnot(), axi.rvalid);
  metas.s.data.set(withTag(bTag, pack(Meta, { head: nb.head, tail: nb.tail, len: nb.len, last: bLast.land(lastBurst), seg: bSeg })));
  m.if(axi.arready, () => arValid.set(0));
  m.if(direct ? issue.land(direct.land(axi.arready).lnot()) : issue, () => {
    arValid.set(1);
    arAddr.set(nb.addr);
    arLen.set(nb.len);
  });
  m.if(issue, () => {
    pa.set(bPa.addw(nb.bytes.zext(ADDR_WIDTH)));
    rem.set(bRem.subw(nb.bytes));
    m.if(lastBurst, () => burstBusy.set(0));
  });
  if (burstDrop) m.if(burstDrop, () => burstBusy.set(0));

  axi.arid.set(0);
  axi.araddr.set(direct ? mux(arValid, arAddr, nb.addr) : arAddr);
  axi.arlen.set(direct ? mux(arValid, arLen, nb.len) : arLen);
  axi.arsize.set(lb);
  axi.arburst.set(AXI_BURST.INCR);
  axi.arlock.set(0);
  axi.arcache.set(0b0011);
  axi.arprot.set(0);
  axi.arvalid.set(direct ? arValid.lor(direct) : arValid);
  // The write channels are not used by this engine.
  axi.awid.set(0); axi.awaddr.set(0); axi.awlen.set(0); axi.awsize.set(0); axi.awburst.set(0);
  axi.awlock.set(0); axi.awcache.set(0); axi.awprot.set(0); axi.awvalid.set(0);
  axi.wdata.set(0); axi.wstrb.set(0); axi.wlast.set(0); axi.wvalid.set(0); axi.bready.set(0);
  unusedFields(m, axi, ['awready', 'wready', 'bid', 'bresp', 'bvalid'], 'read-only engine');
  unusedFields(m, axi, ['rid'], 'one id: responses arrive in order');
  unusedFields(m, axi, ['rresp'], 'bus errors are not reported (DmaStatus has translation codes only)');

  // ---- packer ------------------------------------------------------------------------
  // No output register: a packed word goes out in the cycle its last R beat is offered, so a
  // message's last byte reaches the TX frame gate one cycle sooner (the doorbell -> first TX
  // beat latency waits for it). m_axis_tvalid is built from registers and the R beat on offer
  // (never from m_axis_tready), and an R beat that completes a word is taken only with that
  // word; R holds its beat meanwhile (AXI), so m_axis holds too. The ready path is short:
  // m_axis_tready (nic_tx_frame_gate's FIFO, a register, through nic_tx_cmd_mux) -> rready.
  const meta = metas.m.data.bits(Meta.width - 1, 0).as(Meta);
  const metaTag = A ? metas.m.data.bits(Meta.width + tw - 1, Meta.width) : undefined;
  const hold = m.reg('hold_reg', UInt(p.dataWidth), { reset: null });
  const held = m.reg('held_bytes_reg', UInt(lb));
  const flush = m.reg('flush_reg', Bool);
  const firstBeat = m.reg('first_beat_reg', Bool, { reset: 1 });
  const segOff = m.reg('seg_offset_reg', UInt(16));
  const beatCount = m.reg('beat_count_reg', UInt(8));

  // Valid lanes of this beat: [start, end), end = B when the tail field is 0.
  const start = m.let('beat_start', mux(firstBeat, meta.field('head'), lit(0, lb)).asUnsigned());
  const tailLane = meta.field('tail');
  const end = m.let('beat_end', mux(axi.rlast.land(tailLane.ne(0)), tailLane.zext(lb + 1), lit(B, lb + 1)).asUnsigned());
  const count = m.let('beat_bytes', end.subw(start.zext(lb + 1)).asUnsigned());
  // Rotate so the beat's first valid byte lands right after the held bytes.
  const rotated = m.let('rotated', rotateRightBytes(axi.rdata, start.subw(held).asUnsigned(), B));
  const holdBits = m.let('hold_mask', byteMaskToBits(lowBytesMask(held, B), B));
  const merged = m.let('merged', hold.and(holdBits).or(rotated.and(holdBits.not())).asUnsigned());
  const total = m.let('total_bytes', held.zext(lb + 1).addw(count).asUnsigned());
  const full = m.let('beat_full', total.bit(lb));
  const left = m.let('left_bytes', total.bits(lb - 1, 0));
  const msgEnd = m.let('msg_end', axi.rlast.land(meta.field('last')));
  const segEnd = m.let('seg_end', segOff.addw(B).eq(lit(1, 16).shl(meta.field('seg'))));

  // An R beat on offer either completes a word (full, or the message's last bytes) or only
  // adds to the held bytes; flush sends the bytes a message's full last beat left over.
  const offered = m.let('r_offered', axi.rvalid.land(metas.m.valid).land(flush.lnot()));
  const emits = m.let('r_emits', full.lor(msgEnd));
  const msgOff = A ? m.reg('msg_offset_reg', UInt(32)) : undefined;
  // Abort: the packer is at a packet boundary (between messages, or between two packets of a
  // message: segOff 0), nothing of the next packet passed on; the burst at its head is the
  // aborted QP's (inside a message, the head burst is that message's). Bytes already taken
  // into hold_reg past the boundary are the QP's too (they are cleared with the cut).
  const boundary = A ? m.let('pkt_boundary', segOff.eq(0).land(flush.lnot())) : undefined;
  const headA = A ? m.let('abort_head', A.active.land(metas.m.valid).land(isAborted(metaTag!))) : undefined;
  const cutting = A ? m.let('abort_cutting', A.active.land(A.dropping.lnot())) : undefined;
  // With abort_open (the consumer drops the QP's packet in progress and waits for its tlast),
  // the stream ends at once, inside that packet or before its first beat: one beat with tlast and
  // no bytes (tkeep 0) ends it for nic_tx_cmd_mux and the gate; no R beat is taken in that cycle,
  // the bytes held are cleared with the cut. Why: the rest of a 4 KiB packet would otherwise
  // still be read, one beat per cycle, ahead of the QP's resend (issue-11n: 369 cycles at 64
  // bits in the NAK recovery bench). Without it, never inside a packet (below).
  const cutM = A ? m.let('abort_cut_open', cutting!.land(A.open).land(headA!).land(flush.lnot())) : undefined;
  const cutB = A ? m.let('abort_cut_between', cutting!.land(boundary!).land(headA!).land(A.open.lnot())) : undefined;
  const packDrop = A ? m.let('r_drop', headA!.land(A.dropping.lor(cutB!)).land(flush.lnot())) : undefined;
  const rready = m.let('r_ready', andNot(metas.m.valid.land(flush.lnot()).land(orMaybe(out.tready.lor(emits.lnot()), packDrop)), cutM));
  const beat = m.let('r_beat', axi.rvalid.land(rready));
  axi.rready.set(rready);
  m.assert(axi.rvalid.land(metas.m.valid.lnot()).lnot(), 'read data without an outstanding burst');
  m.assert(beat.lnot().lor(axi.rlast.eq(beatCount.eq(meta.field('len')))), 'rlast does not match the burst length');
  metas.m.ready.set(beat.land(axi.rlast));

  out.tvalid.set(orMaybe(flush.lor(andNot(offered.land(emits), packDrop)), cutM));
  out.tdata.set(mux(flush, hold, merged));
  const keepNow = mux(flush, lowBytesMask(held, B), mux(full, lit((1n << BigInt(B)) - 1n, B), lowBytesMask(left, B)));
  tkeep.set(cutM ? mux(cutM, lit(0, B), keepNow) : keepNow);
  tlast.set(orMaybe(flush.lor(full.lnot()).lor(segEnd).lor(msgEnd.land(left.eq(0))), cutM));

  m.if(flush, () => m.if(out.tready, () => {
    flush.set(0); held.set(0); segOff.set(0);
  })).elif(beat, () => {
    firstBeat.set(axi.rlast);
    beatCount.set(mux(axi.rlast, lit(0, 8), beatCount.addw(1)));
    const pack1 = (): void => {
      held.set(left);
      m.if(full, () => {
        hold.set(rotated);
        segOff.set(mux(segEnd, lit(0, 16), segOff.addw(B)));
        m.if(msgEnd, () => m.if(left.eq(0), () => segOff.set(0)).else(() => flush.set(1)));
      }).else(() => {
        hold.set(merged);
        m.if(msgEnd, () => { held.set(0); segOff.set(0); });
      });
    };
    // A dropped beat moves the burst position only.
    if (packDrop) m.if(packDrop.lnot(), pack1); else pack1();
  });
  if (A) abortControl();

  /** The abort's cut, report and end (after the packer's updates: the cut overrides them). */
  function abortControl(): void {
    const a = A!;
    const outFire = m.let('out_fire', out.tvalid.land(out.tready));
    // Every beat but a message's last is full.
    const outMsgEnd = m.let('out_msg_end', flush.lor(msgEnd.land(full.lnot().lor(left.eq(0)))));
    m.if(outFire, () => msgOff!.set(mux(outMsgEnd, lit(0, 32), msgOff!.addw(B))));
    const cutMid = m.let('abort_cut_mid_fire', cutM!.land(out.tready));
    const cutA = m.let('abort_cut_tlast', cutting!.land(outFire).land(tlast).land(outMsgEnd.lnot()).land(isAborted(metaTag!)).land(cutM!.lnot()));
    // A packet boundary with a flush pending: the QP's message ends with a short last packet
    // (its bytes left over in hold_reg, its R beats all taken, so the head burst may be another
    // message's): cut before it while it is not passed on. pack_tag_reg: the message of the
    // last R beat taken.
    const packTag = m.reg('pack_tag_reg', Tag, { reset: null });
    m.if(beat, () => packTag.set(metaTag!));
    const cutF = m.let('abort_cut_flush', cutting!.land(flush).land(segOff.eq(0)).land(out.tready.lnot()).land(isAborted(packTag)));
    const engineEmpty = m.let('engine_empty', fsm.is('COLLECT').land(nSge.eq(0)).land(chunks.m.valid.lnot()).land(burstBusy.lnot())
      .land(metas.m.valid.lnot()).land(flush.lnot()).land(pagesOwed.eq(0)));
    a.req.ready.set(a.active.lnot().land(a.doneValid.lnot()));
    m.if(a.req.valid.land(a.active.lnot()).land(a.doneValid.lnot()), () => {
      a.active.set(1);
      a.qp.set(a.req.data.field('qp'));
    });
    a.done.valid.set(a.doneValid);
    a.done.data.set(a.doneData);
    m.if(a.done.ready, () => a.doneValid.set(0));
    m.if(cutA.lor(cutB!).lor(cutF).lor(cutMid), () => {
      // The cut message's bytes past the tlast (held, or a pending flush) are its QP's too.
      held.set(0); segOff.set(0); flush.set(0); msgOff!.set(0);
      a.dropping.set(1);
      a.doneValid.set(1);
      a.doneData.set(pack(AbortDone, { none: 0, msg: mux(cutF, packTag, metaTag!).as(Tag).field('msg'), offset: mux(cutA, msgOff!.addw(B), msgOff!) }));
      // (A cut for an open packet reports the bytes passed on before it: inside that packet.)
    }).elif(cutting!.land(engineEmpty), () => {
      a.active.set(0);
      a.doneValid.set(1);
      a.doneData.set(pack(AbortDone, { none: 1, msg: 0, offset: 0 }));
    });
    m.if(a.dropping.land(engineEmpty), () => { a.active.set(0); a.dropping.set(0); });
  }

  m.unused(chunks.count, 'only empty/full matter'); m.unused(chunks.full, 'only empty/full matter'); m.unused(chunks.empty, 'm_valid is used');
  if (!p.latWindow) m.unused(metas.count, 'only empty/full matter');
  m.unused(metas.full, 'only empty/full matter'); m.unused(metas.empty, 'm_valid is used');

  return { clk, rst, cmd, status, xlateReq: xreq, xlateResp: xresp, axi, data: out, ...(A ? { cmdTag: A.tagIn, abort: A.req, abortDone: A.done, abortOpen: A.open } : {}) };
}, { doc: 'DMA read engine: validate SGEs, translate per page, AXI read bursts, packed byte stream out', params: { rules: { dataWidth: oneOf(64, 128, 256, 512), idWidth: intIn(1, 16), maxBursts: powerOfTwoIn(2, 256), burstBytes: powerOfTwoIn(8, 4096), abortQps: intIn(0, 256), msgIdWidth: intIn(1, 8), latWindow: intIn(0, 1024), arSlice: bool } } });
