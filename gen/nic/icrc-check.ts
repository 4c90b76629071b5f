// nic_icrc_check: receive side, store-and-forward. Every frame from the MAC is written into
// a block-RAM ring while its ICRC is computed in line; at the frame's end it is either
// committed (a descriptor with its length goes into a small FIFO) or dropped, which just
// moves the write pointer back to the frame's start, so the space is reused at once.
// Committed frames are read out in order at one beat per cycle, with their length on tuser
// (see rx-frame.ts). The MAC cannot be stalled: s_axis_rx_tready is always high, and a
// frame that does not fit is dropped.
//
// Verdict, in this order (drop_valid pulses with the RX_DROP reason):
//   tuser on any beat, buffer or descriptor overflow   → BAD_FRAME (overflow also pulses `overflow`)
//   ICRC locatable and wrong                           → BAD_ICRC
//   otherwise                                          → forwarded
// "Locatable" means the frame claims to be IPv4 (ethertype 0x0800, first IPv4 byte 0x45), its
// total length is at least 44 (IPv4 + UDP + BTH + ICRC) and the frame holds all of it. The
// ICRC is the last four bytes of the IPv4 packet, not of the frame: bytes after it (a MAC's
// padding of short frames) are not covered. Frames whose ICRC cannot be located are passed
// on: nic_rx_parser drops them and names the header field at fault.
//
// The check runs the CRC over the covered bytes and the carried ICRC together and compares
// the register with the CRC's residue constant (crcParallel's `match`), so the ICRC need not
// be extracted. The result is ready one cycle after the last IPv4 byte; the verdict waits
// for it in a one-frame "pending" register while the next frame is already being written.

import { Bool, cat, defineModule, DslError, lit, mux, UInt, oneOf, powerOfTwoIn, type Value } from '../hdl/index.ts';
import { syncFifo } from '../lib/fifo.ts';
import { log2Exact } from '../lib/util.ts';
import { RX_DROP, frameStream, type NicParams } from './types.ts';
import { atLeast, byteAt, countWidth, laneBits, leftGtOf, select, thermo } from './frame-util.ts';
import { keepCode } from '../lib/keep-code.ts';
import { icrcMaskLanes, icrcParallel, icrcStart } from './icrc-params.ts';
import { ETH_BYTES, ETHERTYPE_IPV4, IP_BASE_BYTES, OFF } from './roce.ts';
import { RX_LEN_WIDTH, rxFrameStream } from './rx-frame.ts';

export type IcrcCheckParams = Pick<NicParams, 'dataWidth'> & {
  /** Frame buffer size in bytes; a power of two, at least two 4 KiB-MTU frames. */
  bufferBytes: number;
  /** Committed frames the descriptor FIFO holds (a power of two). */
  maxFrames: number;
};

export const icrcCheck = defineModule('nic_icrc_check', { dataWidth: 64, bufferBytes: 16384, maxFrames: 16 } as IcrcCheckParams, (m, p) => {
  const W = p.dataWidth, B = W / 8;
  const lb = log2Exact(B, 'dataWidth / 8');
  log2Exact(p.bufferBytes, 'bufferBytes');
  if (p.bufferBytes < 2 * 4200 || p.bufferBytes > 32768) throw new DslError(`bufferBytes = ${p.bufferBytes}`, 'use 16384 or 32768: at least two 4 KiB-MTU frames, and frame lengths must fit the 16-bit sideband');
  const D = p.bufferBytes / B;
  const aw = log2Exact(D, 'buffer words');
  const { clk, rst } = m.clockAndReset();
  const s = frameStream(W).sink(m, 's_axis_rx');
  const o = rxFrameStream(W).source(m, 'm_axis');
  const dropValid = m.output('drop_valid', Bool);
  const dropReason = m.output('drop_reason', UInt(3));
  const overflow = m.output('overflow', Bool);

  const start = icrcStart(B);
  const etBeat = Math.floor(OFF.ethertype / B), verBeat = Math.floor(OFF.ipVerIhl / B), lenBeat = Math.floor(OFF.ipTotalLen / B);
  const masks = icrcMaskLanes(B);
  const kMax = Math.max(start.beat, etBeat, verBeat, lenBeat, ...masks.keys()) + 1;
  const kW = countWidth(kMax);
  const full = lit((1n << BigInt(B)) - 1n, B);

  // ---- write side: position, header facts, CRC --------------------------------------------
  s.tready.set(1);
  const accept = m.let('accept', s.tvalid);
  const beat = m.reg('beat_reg', UInt(kW));
  const ipLeft = m.reg('ip_left_reg', UInt(16), { reset: null });
  const ipDone = m.reg('ip_done_reg', Bool);
  const crcDone = m.reg('crc_done_reg', Bool);
  const etOk = m.reg('et_ok_reg', Bool, { reset: null });
  const verOk = m.reg('ver_ok_reg', Bool, { reset: null });
  const lenOk = m.reg('len_ok_reg', Bool, { reset: null });
  const complete = m.reg('complete_reg', Bool);
  const badFrame = m.reg('bad_frame_reg', Bool);
  const ovf = m.reg('ovf_reg', Bool);
  // Whole words before this beat (the frame's bytes so far are frame_words * B).
  const frameWords = m.reg('frame_words_reg', UInt(RX_LEN_WIDTH - lb));

  const inByte = (off: number) => byteAt(s.tdata, off % B);
  const etOkNow = m.let('et_ok', mux(beat.eq(etBeat), cat(inByte(OFF.ethertype), inByte(OFF.ethertype + 1)).eq(ETHERTYPE_IPV4), etOk));
  const verOkNow = m.let('ver_ok', mux(beat.eq(verBeat), inByte(OFF.ipVerIhl).eq(0x45), verOk));
  const totalLen = cat(inByte(OFF.ipTotalLen), inByte(OFF.ipTotalLen + 1));
  const atLen = beat.eq(lenBeat);
  const lenOkNow = m.let('len_ok', mux(atLen, totalLen.ge(IP_BASE_BYTES), lenOk));
  const lenOffset = ETH_BYTES - lenBeat * B;
  const ipLeftNow = m.let('ip_left', mux(atLen, totalLen.addw(ETH_BYTES).subw(lenBeat * B), ipLeft));
  // Every coverage decision compares ip_left with a constant (frame-util.ts leftGtOf).
  const leftGt = leftGtOf(atLen, totalLen, lenOffset, ipLeft);
  const known = atLeast(beat, lenBeat);
  const live = m.let('live', known.land(ipDone.lnot()));
  const endsHere = m.let('ip_ends', live.land(leftGt(B).lnot()));
  const ipThermo = m.let('ip_thermo', cat(...Array.from({ length: B }, (_, i) => leftGt(i)).reverse()));
  const ipLanes = m.let('ip_lanes', mux(ipDone, lit(0, B), mux(known, ipThermo, full)));
  const covLanes = m.let('cov_lanes', ipLanes.and(s.tkeep!));
  // The whole IPv4 packet is inside the frame: its last byte is in a valid lane.
  const completeNow = m.let('complete', complete.lor(endsHere.land(ipLanes.and(s.tkeep!.not()).eq(0))));
  // Frame bytes up to this beat: whole words, plus the last beat's lanes (tkeep contiguous,
  // as the CRC asserts) as the low bits, so no count of tkeep is added (timing, docs/synth.md).
  const wordsNext = m.let('frame_words_next', frameWords.addw(1));
  const partial = s.tlast!.land(s.tkeep!.bit(B - 1).lnot());
  const bytesNow = m.let('frame_bytes', mux(partial, cat(frameWords, keepCode(s.tkeep!, lb, n => n % B)), cat(wordsNext, lit(0, lb))));

  const crc = m.instance('u_crc', icrcParallel, { bytes: B, skip: start.skip });
  const maskKeys = [...masks.keys()].sort((a, b) => a - b);
  const maskWord = select(beat, [...maskKeys, 0], [...maskKeys.map(k => laneBits(lit(masks.get(k)!, B))), lit(0, W)]);
  const crcFeed = m.let('crc_feed', accept.land(atLeast(beat, start.beat)).land(crcDone.lnot()).land(covLanes.orr()));
  crc.data.set(s.tdata.or(maskWord));
  crc.keep.set(covLanes);
  crc.valid.set(crcFeed);
  crc.start.set(beat.eq(start.beat));
  crc.last.set(endsHere.lor(s.tlast!));
  const crcOk = m.reg('crc_ok_reg', Bool, { reset: null });
  m.if(crc.crc_valid, () => crcOk.set(crc.match));
  const crcOkNow = m.let('crc_ok', mux(crc.crc_valid, crc.match, crcOk));

  // ---- frame buffer pointers ---------------------------------------------------------------
  const mem = m.memory('frame_mem', UInt(W), D);
  const wrAddr = m.reg('wr_addr_reg', UInt(aw + 1));
  const commitPtr = m.reg('commit_ptr_reg', UInt(aw + 1));
  const rdPtr = m.reg('rd_ptr_reg', UInt(aw + 1));

  // ---- pending verdict of the frame that ended last cycle ----------------------------------
  const pend = m.reg('pend_valid_reg', Bool);
  const pendEnd = m.reg('pend_end_reg', UInt(aw + 1), { reset: null });
  const pendLen = m.reg('pend_len_reg', UInt(RX_LEN_WIDTH), { reset: null });
  const pendBad = m.reg('pend_bad_reg', Bool, { reset: null });
  const pendOvf = m.reg('pend_ovf_reg', Bool, { reset: null });
  const pendLoc = m.reg('pend_locatable_reg', Bool, { reset: null });
  const desc = m.instance('u_desc', syncFifo, { width: RX_LEN_WIDTH, depth: p.maxFrames });

  const icrcBad = m.let('icrc_bad', pendLoc.land(crcOkNow.lnot()));
  const descFull = desc.s.ready.lnot();
  const commit = m.let('commit', pend.land(pendBad.lnot()).land(icrcBad.lnot()).land(descFull.lnot()));
  const drop = m.let('drop', pend.land(commit.lnot()));
  desc.s.valid.set(commit);
  desc.s.data.set(pendLen);
  dropValid.set(drop);
  dropReason.set(mux(pendBad.lor(descFull.land(icrcBad.lnot())), lit(RX_DROP.BAD_FRAME, 3), lit(RX_DROP.BAD_ICRC, 3)));
  overflow.set(drop.land(pendOvf.lor(descFull.land(pendBad.lnot()).land(icrcBad.lnot()))));
  m.if(commit, () => commitPtr.set(pendEnd));

  // A dropped frame's space is reused at once: the next frame's first beat may already be
  // arriving, and it is written where the dropped frame began. Timing (docs/synth.md): the
  // verdict comes late in the cycle (CRC residue compare), so the room check and the next
  // write pointer are computed for both places side by side and `drop` only picks one.
  const wrHere = m.let('wr_here', mux(drop, commitPtr, wrAddr).bits(aw - 1, 0));
  const roomAt = (ptr: Value): Value => ptr.subw(rdPtr).bit(aw).lnot();
  const spaceKeep = m.let('space_keep', roomAt(wrAddr));
  const spaceDrop = m.let('space_drop', roomAt(commitPtr));
  const space = m.let('space', mux(drop, spaceDrop, spaceKeep));
  const writeAt = (room: Value): Value => accept.land(room).land(ovf.lnot());
  const write = m.let('write', writeAt(space));
  m.if(write, () => mem.write(wrHere, s.tdata));
  const nextAt = (ptr: Value, room: Value): Value => mux(writeAt(room), ptr.addw(1), ptr);
  const wrNext = m.let('wr_next', mux(drop, nextAt(commitPtr, spaceDrop), nextAt(wrAddr, spaceKeep)));
  wrAddr.set(wrNext);
  const ovfNow = ovf.lor(accept.land(space.lnot()));

  pend.set(accept.land(s.tlast!));
  m.if(accept.land(s.tlast!), () => {
    pendEnd.set(wrNext);
    pendLen.set(bytesNow);
    pendBad.set(badFrame.lor(s.tuser!.bit(0)).lor(ovfNow));
    pendOvf.set(ovfNow);
    pendLoc.set(etOkNow.land(verOkNow).land(lenOkNow).land(completeNow));
  });

  m.if(accept, () => {
    m.if(s.tlast!, () => {
      beat.set(0);
      ipDone.set(0);
      crcDone.set(0);
      complete.set(0);
      badFrame.set(0);
      ovf.set(0);
      frameWords.set(0);
    }).else(() => {
      m.if(beat.lt(kMax), () => beat.set(beat.addw(1)));
      m.if(live, () => {
        m.if(leftGt(B).lnot(), () => ipDone.set(1)).else(() => ipLeft.set(ipLeftNow.subw(B)));
      });
      m.if(crcFeed.land(endsHere), () => crcDone.set(1));
      etOk.set(etOkNow);
      verOk.set(verOkNow);
      lenOk.set(lenOkNow);
      complete.set(completeNow);
      badFrame.set(badFrame.lor(s.tuser!.bit(0)));
      ovf.set(ovfNow);
      frameWords.set(wordsNext);
    });
  });

  // ---- read side: descriptors → beats -------------------------------------------------------
  const curValid = m.reg('cur_valid_reg', Bool);
  const curLeft = m.reg('cur_left_reg', UInt(aw + 1), { reset: null });
  const curLen = m.reg('cur_len_reg', UInt(RX_LEN_WIDTH), { reset: null });
  const outValid = m.reg('out_valid_reg', Bool);
  const outLast = m.reg('out_last_reg', Bool, { reset: null });
  const outKeep = m.reg('out_keep_reg', UInt(B), { reset: null });
  const outLen = m.reg('out_len_reg', UInt(RX_LEN_WIDTH), { reset: null });

  const dLen = desc.m.data;
  const dWords = dLen.addw(B - 1).shr(lb).trunc(aw + 1);
  const load = m.let('load', curValid.land(outValid.lnot().lor(o.tready)));
  const lastWord = curLeft.eq(1);
  const pop = m.let('desc_pop', desc.m.valid.land(curValid.lnot().lor(load.land(lastWord))));
  desc.m.ready.set(pop);
  const curLastKeep = thermo(curLen.subw(1).bits(lb - 1, 0).zext(lb + 1).addw(1), B);

  o.tdata.set(mem.read(rdPtr.bits(aw - 1, 0), { enable: load }));
  m.if(load, () => {
    rdPtr.set(rdPtr.addw(1));
    curLeft.set(curLeft.subw(1));
    outValid.set(1);
    outLast.set(lastWord);
    outKeep.set(mux(lastWord, curLastKeep, full));
    outLen.set(curLen);
    m.if(lastWord, () => curValid.set(0));
  }).elif(o.tready, () => outValid.set(0));
  m.if(pop, () => {
    curValid.set(1);
    curLeft.set(dWords);
    curLen.set(dLen);
  });
  o.tvalid.set(outValid);
  o.tkeep!.set(outKeep);
  o.tlast!.set(outLast);
  o.tuser!.set(outLen);

  return { clk, rst, s_axis_rx: s, m_axis: o, drop_valid: dropValid, drop_reason: dropReason, overflow };
}, { doc: 'RoCEv2 ICRC check, store-and-forward frame buffer in block RAM, drops bad frames', params: { rules: { dataWidth: oneOf(64, 128, 256, 512), maxFrames: powerOfTwoIn(2, 4096) } } });
