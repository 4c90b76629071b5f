// nic_dma_write: the DMA write engine. For each DmaWriteCmd, `len` bytes follow on the
// payload byte stream (packed from byte 0, tlast on the command's last beat; none when
// len = 0). The engine
//   1. validates [va, va+len) with one translation (zero-length commands need none);
//   2. on error, drops the command's payload, writes nothing and reports the status;
//   3. else cuts the range at 4 KiB pages, each page chunk into AXI INCR write bursts
//      (dma-burst.ts), shifts the payload onto the bus lanes with strobes for the unaligned
//      head and tail, and reports OK once every B came back.
// The validating translation also answers the physical address of va's page, so the first
// page chunk takes its address from it; only the following pages are translated on their
// own. A command inside one page (every WRITE packet up to MTU 4096 that does not cross a
// page) therefore costs one translation, not two: half the load on the shared TLB, and a
// command takes 5 cycles of the FSM instead of 6-7 (what bounds short commands at wide
// buses: 6.05 cycles per 256-byte command at 512 bits, was 7.1).
//
//   command FSM : cmd -> validation -> payload job (keep/drop) + page-chunk requests
//   burst gen   : translated chunk -> AW bursts; per burst a W job (beats) and a B entry
//   packer      : payload -> bus lanes (one rotation per command, see byte-align.ts) -> W
//   B tracker   : B responses and queued error/zero-length results -> DmaStatus, in order
// Statuses come out in command order because every command leaves exactly one "last"
// entry in the B tracker's FIFO, and those entries are queued through the same chunk FIFO.

import { Bool, cat, defineModule, lit, mux, pack, Struct, UInt, intIn, oneOf, powerOfTwoIn } from '../hdl/index.ts';
import { skidBuffer } from '../lib/skid.ts';
import { syncFifo } from '../lib/fifo.ts';
import { AXI_BURST, axi4, stream, unusedFields } from '../lib/interfaces.ts';
import { busBytesLog2, lowBytesMask } from './byte-align.ts';
import { checkBurstBytes, nextBurst } from './dma-burst.ts';
import { ADDR_WIDTH, byteStream, DmaStatus, DmaWriteCmd, PAGE_BITS, XlateReq, xlateReq, xlateResp } from './types.ts';

export type DmaWriteParams = {
  /** Bus and stream width in bits (64 .. 512). */
  dataWidth: number;
  /** AXI id width; the engine uses id 0 only. */
  idWidth: number;
  /** Write bursts waiting for their B response at most (a power of two). */
  maxBursts: number;
  /** Burst window in bytes (the seed design's 2 KiB chunks). */
  burstBytes: number;
};
export const dmaWriteDefaults: DmaWriteParams = { dataWidth: 64, idWidth: 4, maxBursts: 16, burstBytes: 2048 };

export const nicDmaWrite = defineModule('nic_dma_write', dmaWriteDefaults, (m, p) => {
  const lb = busBytesLog2(p.dataWidth);
  const B = 1 << lb;
  const burstLog2 = checkBurstBytes(p.burstBytes, lb);
  // Bus words of a command: up to (2^32 + B - 2) / B, counted from 0.
  const beatBits = 33 - lb;
  const { clk, rst } = m.clockAndReset();
  const cmd = stream(DmaWriteCmd).sink(m, 's_cmd');
  const payload = byteStream(p.dataWidth).sink(m, 's_axis');
  const status = stream(DmaStatus).source(m, 'm_status');
  const xreq = xlateReq.source(m, 'm_xlate_req');
  const xresp = xlateResp.sink(m, 's_xlate_resp');
  const axi = axi4({ idWidth: p.idWidth, addrWidth: ADDR_WIDTH, dataWidth: p.dataWidth }).source(m, 'm_axi');
  const inKeep = payload.tkeep!, inLast = payload.tlast!;

  /** Work for the chunk side: a page chunk or a ready result. A page chunk either carries its
   *  physical address (`known`: the command's first page, from the validation) or waits for
   *  its own page translation. */
  const Chunk = Struct('dma_write_chunk', { result: Bool, status: UInt(3), len: UInt(13), last: Bool, known: Bool, pa: UInt(ADDR_WIDTH) });
  /** Work for the packer: one per command with payload. Beat indexes count bus words. */
  const Job = Struct('dma_write_job', { drop: Bool, off: UInt(lb), inLast: UInt(beatBits), outLast: UInt(beatBits), endLane: UInt(lb) });
  /** One per burst or result, in command order: does it wait for a B, is it the command's last. */
  const Pend = Struct('dma_write_pend', { result: Bool, status: UInt(3), last: Bool });

  const chunks = m.instance('u_chunk_fifo', syncFifo, { width: Chunk.width, depth: 4 });
  const jobs = m.instance('u_job_fifo', syncFifo, { width: Job.width, depth: 4 });
  const wjobs = m.instance('u_wlen_fifo', syncFifo, { width: 8, depth: p.maxBursts });
  const pends = m.instance('u_pend_fifo', syncFifo, { width: Pend.width, depth: p.maxBursts });

  // ---- command FSM -------------------------------------------------------------------
  const fsm = m.fsm('state', ['IDLE', 'WAIT_VALID', 'CHUNK'] as const);
  /** What the page translations of the current command repeat; its range walk is in cur_*. */
  const XlateCtx = Struct('dma_write_xlate_ctx', { key: UInt(32), pd: UInt(16), access: UInt(3) });
  const cmdReg = m.reg('cmd_xlate_reg', XlateCtx, { reset: null });
  const curVa = m.reg('cur_va_reg', UInt(ADDR_WIDTH));
  const curRem = m.reg('cur_rem_reg', UInt(32));
  const reqValid = m.reg('xlate_req_valid_reg', Bool);
  const reqData = m.reg('xlate_req_data_reg', XlateReq, { reset: null });
  // Page translations asked for and not yet answered; while any, the next answer is a page's.
  const pagePending = m.reg('page_pending_reg', UInt(4));

  const reqFree = m.let('xlate_req_free', reqValid.lnot().lor(xreq.ready));
  xreq.valid.set(reqValid);
  xreq.data.set(reqData);
  m.if(xreq.ready, () => reqValid.set(0));

  const c = cmd.data;
  const queuesFree = m.let('queues_free', chunks.s.ready.land(jobs.s.ready));
  cmd.ready.set(fsm.is('IDLE').land(reqFree).land(queuesFree));
  const accept = m.let('cmd_accept', cmd.valid.land(fsm.is('IDLE')).land(reqFree).land(queuesFree));

  const pageResp = m.let('page_resp', pagePending.ne(0));
  const validResp = m.let('valid_resp', fsm.is('WAIT_VALID').land(pageResp.lnot()).land(xresp.valid).land(queuesFree));
  const rs = xresp.data.field('status');

  // In WAIT_VALID, cur_va/cur_rem still hold the whole command (set at accept).
  const va = curVa, len = curRem;
  const off = va.bits(lb - 1, 0);
  const endSum = m.let('end_sum', va.bits(lb - 1, 0).zext(33).addw(len.zext(33)).asUnsigned());
  const job = pack(Job, {
    drop: rs.ne(0),
    off,
    inLast: len.subw(1).shr(lb).trunc(beatBits),
    outLast: endSum.subw(1).shr(lb).trunc(beatBits),
    endLane: endSum.bits(lb - 1, 0),
  });
  const toPage = m.let('to_page', lit(1 << PAGE_BITS, 13).subw(curVa.bits(PAGE_BITS - 1, 0).zext(13)));
  const chunkFits = m.let('chunk_fits', curRem.le(toPage.zext(32)));
  const chunkLen = m.let('chunk_len', mux(chunkFits, curRem.trunc(13), toPage).asUnsigned());
  const issuePage = m.let('page_issue', fsm.is('CHUNK').land(reqFree).land(chunks.s.ready));

  chunks.s.valid.set(0);
  chunks.s.data.set(pack(Chunk, { result: 0, status: 0, len: chunkLen, last: chunkFits, known: 0, pa: 0 }));
  jobs.s.valid.set(0);
  jobs.s.data.set(job);

  /** A page chunk was queued: step past it; the command is done when it was the last. */
  const advance = (): void => {
    curVa.set(curVa.addw(chunkLen.zext(ADDR_WIDTH)));
    curRem.set(curRem.subw(chunkLen.zext(32)));
    m.if(chunkFits, () => fsm.goto('IDLE')).else(() => fsm.goto('CHUNK'));
  };

  fsm.states({
    IDLE: () => m.if(accept, () => {
      m.if(c.field('len').eq(0), () => {
        // Nothing to move or check: an OK result queued behind earlier commands.
        chunks.s.valid.set(1);
        chunks.s.data.set(pack(Chunk, { result: 1, status: 0, len: 0, last: 1, known: 0, pa: 0 }));
      }).else(() => {
        cmdReg.set(pack(XlateCtx, { key: c.field('key'), pd: c.field('pd'), access: c.field('access') }));
        // The chunk walk starts at va, so WAIT_VALID can cut the first chunk.
        curVa.set(c.field('va'));
        curRem.set(c.field('len'));
        reqValid.set(1);
        reqData.set(pack(XlateReq, { key: c.field('key'), va: c.field('va'), len: c.field('len'), pd: c.field('pd'), access: c.field('access') }));
        fsm.goto('WAIT_VALID');
      });
    }),
    WAIT_VALID: () => m.if(validResp, () => {
      jobs.s.valid.set(1);
      chunks.s.valid.set(1);
      m.if(rs.ne(0), () => {
        chunks.s.data.set(pack(Chunk, { result: 1, status: rs, len: 0, last: 1, known: 0, pa: 0 }));
        fsm.goto('IDLE');
      }).else(() => {
        // The first page chunk, at the address the validation translated.
        chunks.s.data.set(pack(Chunk, { result: 0, status: 0, len: chunkLen, last: chunkFits, known: 1, pa: xresp.data.field('pa') }));
        advance();
      });
    }),
    CHUNK: () => m.if(issuePage, () => {
      chunks.s.valid.set(1);
      reqValid.set(1);
      reqData.set(pack(XlateReq, { key: cmdReg.field('key'), va: curVa, len: chunkLen.zext(32), pd: cmdReg.field('pd'), access: cmdReg.field('access') }));
      advance();
    }),
  });

  // ---- burst generator ---------------------------------------------------------------
  const head = chunks.m.data.as(Chunk);
  const busy = m.reg('burst_busy_reg', Bool);
  const pa = m.reg('burst_pa_reg', UInt(ADDR_WIDTH));
  const rem = m.reg('burst_rem_reg', UInt(13));
  const chunkLast = m.reg('burst_last_reg', Bool);
  const awValid = m.reg('aw_valid_reg', Bool);
  const awAddr = m.reg('aw_addr_reg', UInt(ADDR_WIDTH));
  const awLen = m.reg('aw_len_reg', UInt(8));

  const resultPop = m.let('result_pop', busy.lnot().land(chunks.m.valid).land(head.field('result')).land(pends.s.ready));
  const known = head.field('known');
  const chunkLoad = m.let('chunk_load', busy.lnot().land(chunks.m.valid).land(head.field('result').lnot()).land(known.lor(xresp.valid)));
  // A chunk that takes the next translation answer (which must be its page's).
  const pageLoad = m.let('page_load', chunkLoad.land(known.lnot()));
  m.assert(pageLoad.lnot().lor(pageResp), 'a page chunk without a pending page translation');
  m.assert(pageLoad.lnot().lor(rs.eq(0)), 'a page of a validated range failed to translate');
  chunks.m.ready.set(resultPop.lor(chunkLoad));
  xresp.ready.set(mux(pageResp, pageLoad, validResp));
  pagePending.set(pagePending.addw(issuePage.zext(4)).subw(pageLoad.zext(4)));

  m.if(chunkLoad, () => {
    busy.set(1);
    pa.set(mux(known, head.field('pa'), xresp.data.field('pa')));
    rem.set(head.field('len'));
    chunkLast.set(head.field('last'));
  });

  const nb = nextBurst(pa, rem, lb, burstLog2);
  const awFree = m.let('aw_free', awValid.lnot().lor(axi.awready));
  const issue = m.let('burst_issue', busy.land(awFree).land(pends.s.ready).land(wjobs.s.ready));
  const lastBurst = m.let('last_burst', rem.eq(nb.bytes));
  wjobs.s.valid.set(issue);
  wjobs.s.data.set(nb.len);
  pends.s.valid.set(issue.lor(resultPop));
  pends.s.data.set(mux(resultPop,
    pack(Pend, { result: 1, status: head.field('status'), last: 1 }),
    pack(Pend, { result: 0, status: 0, last: chunkLast.land(lastBurst) })));
  m.if(axi.awready, () => awValid.set(0));
  m.if(issue, () => {
    awValid.set(1);
    awAddr.set(nb.addr);
    awLen.set(nb.len);
    pa.set(pa.addw(nb.bytes.zext(ADDR_WIDTH)));
    rem.set(rem.subw(nb.bytes));
    m.if(lastBurst, () => busy.set(0));
  });

  axi.awid.set(0);
  axi.awaddr.set(awAddr);
  axi.awlen.set(awLen);
  axi.awsize.set(lb);
  axi.awburst.set(AXI_BURST.INCR);
  axi.awlock.set(0);
  axi.awcache.set(0b0011);
  axi.awprot.set(0);
  axi.awvalid.set(awValid);
  // The read channels are not used by this engine.
  axi.arid.set(0); axi.araddr.set(0); axi.arlen.set(0); axi.arsize.set(0); axi.arburst.set(0);
  axi.arlock.set(0); axi.arcache.set(0); axi.arprot.set(0); axi.arvalid.set(0); axi.rready.set(0);
  unusedFields(m, axi, ['arready', 'rid', 'rdata', 'rresp', 'rlast', 'rvalid'], 'write-only engine');
  unusedFields(m, axi, ['bid'], 'one id: responses arrive in order');
  unusedFields(m, axi, ['bresp'], 'bus errors are not reported (DmaStatus has translation codes only)');

  // ---- packer ------------------------------------------------------------------------
  const cur = m.reg('job_reg', Job, { reset: null });
  const active = m.reg('job_active_reg', Bool);
  const outIdx = m.reg('out_index_reg', UInt(beatBits));
  const prev = m.reg('prev_reg', UInt(p.dataWidth), { reset: null });
  const wBeat = m.reg('w_beat_reg', UInt(8));
  const skid = m.instance('u_w_skid', skidBuffer, { width: p.dataWidth + B + 1 });

  const drop = cur.field('drop');
  const needIn = m.let('need_in', outIdx.le(cur.field('inLast')));
  const wOk = m.let('w_ok', wjobs.m.valid.land(skid.s.ready));
  payload.tready.set(active.land(drop.lor(needIn.land(wOk))));
  const inBeat = m.let('in_beat', payload.tvalid.land(active).land(drop.lor(needIn.land(wOk))));
  const wGo = m.let('w_go', active.land(drop.lnot()).land(wOk).land(needIn.lnot().lor(payload.tvalid)));
  const done = m.let('job_done', outIdx.eq(mux(drop, cur.field('inLast'), cur.field('outLast'))).land(mux(drop, inBeat, wGo)));
  m.assert(inBeat.lnot().lor(inLast.eq(outIdx.eq(cur.field('inLast')))), 'payload tlast does not match the command length');
  m.assert(inBeat.lnot().lor(inLast).lor(inKeep.andr()), 'payload beat before tlast is not full');

  // Bus word j holds payload bytes [jB - off, jB - off + B): the top `off` bytes of the
  // previous payload beat and the low B - off bytes of this one.
  const shift = m.let('lane_shift', lit(B, lb + 1).subw(cur.field('off').zext(lb + 1)).asUnsigned());
  const wdata = m.let('w_data', cat(payload.tdata, prev).shr(cat(shift, lit(0, 3))).trunc(p.dataWidth).asUnsigned());
  const ones = lit((1n << BigInt(B)) - 1n, B);
  const headMask = mux(outIdx.eq(0), lowBytesMask(cur.field('off'), B).not(), ones);
  const endLane = cur.field('endLane');
  const tailMask = mux(outIdx.eq(cur.field('outLast')).land(endLane.ne(0)), lowBytesMask(endLane, B), ones);
  const wstrb = m.let('w_strb', headMask.and(tailMask).asUnsigned());
  const wlast = m.let('w_last', wBeat.eq(wjobs.m.data));

  skid.s.valid.set(wGo);
  skid.s.data.set(cat(wlast, wstrb, wdata));
  wjobs.m.ready.set(wGo.land(wlast));
  m.if(inBeat, () => prev.set(payload.tdata));
  m.if(wGo, () => wBeat.set(mux(wlast, lit(0, 8), wBeat.addw(1))));
  m.if(inBeat.lor(wGo), () => outIdx.set(outIdx.addw(1)));
  m.if(done, () => active.set(0));
  // Take the next job in the cycle the current one ends, so back-to-back commands stream.
  const load = m.let('job_load', active.lnot().lor(done).land(jobs.m.valid));
  jobs.m.ready.set(load);
  m.if(load, () => {
    cur.set(jobs.m.data.as(Job));
    active.set(1);
    outIdx.set(0);
  });

  axi.wdata.set(skid.m.data.bits(p.dataWidth - 1, 0));
  axi.wstrb.set(skid.m.data.bits(p.dataWidth + B - 1, p.dataWidth));
  axi.wlast.set(skid.m.data.bit(p.dataWidth + B));
  axi.wvalid.set(skid.m.valid);
  skid.m.ready.set(axi.wready);

  // ---- B tracker ---------------------------------------------------------------------
  const pend = pends.m.data.as(Pend);
  const statusValid = m.reg('status_valid_reg', Bool);
  const statusData = m.reg('status_data_reg', UInt(3));
  const statusFree = m.let('status_free', statusValid.lnot().lor(status.ready));
  const bready = m.let('b_ready', pends.m.valid.land(pend.field('result').lnot()).land(pend.field('last').lnot().lor(statusFree)));
  const bTake = m.let('b_take', bready.land(axi.bvalid));
  const resultTake = m.let('result_take', pends.m.valid.land(pend.field('result')).land(statusFree));
  axi.bready.set(bready);
  pends.m.ready.set(bTake.lor(resultTake));
  m.assert(axi.bvalid.land(pends.m.valid.lnot()).lnot(), 'write response without an outstanding burst');
  status.valid.set(statusValid);
  status.data.set(statusData.as(DmaStatus));
  m.if(status.ready, () => statusValid.set(0));
  m.if(resultTake, () => { statusValid.set(1); statusData.set(pend.field('status')); });
  m.if(bTake.land(pend.field('last')), () => { statusValid.set(1); statusData.set(0); });

  for (const f of [chunks, jobs, wjobs, pends]) {
    m.unused(f.count, 'only empty/full matter'); m.unused(f.full, 'only empty/full matter'); m.unused(f.empty, 'm_valid is used');
  }

  return { clk, rst, cmd, payload, status, xlateReq: xreq, xlateResp: xresp, axi };
}, { doc: 'DMA write engine: validate, translate per page, AXI write bursts with strobes, status after B', params: { rules: { dataWidth: oneOf(64, 128, 256, 512), idWidth: intIn(1, 16), maxBursts: powerOfTwoIn(2, 256), burstBytes: powerOfTwoIn(8, 4096) } } });
