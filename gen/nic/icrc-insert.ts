// nic_icrc_insert: fills the four ICRC placeholder bytes at the end of each RoCEv2 frame's
// IPv4 packet with the ICRC (least significant byte first), computed in line at full width.
//
// The CRC (crcParallel over ROCE_ICRC) is fed as beats are accepted: coverage starts at the
// first IPv4 byte (the CRC module skips the 14 Ethernet bytes on its start beat) and ends
// four bytes before the IPv4 packet's end, found from the IPv4 total length (bytes 16-17),
// which arrives long before the end. Routers' mutable fields (NIC.md §6) are forced to 0xFF
// on the way into the CRC only. The CRC is known one cycle after its last byte went in, so
// every beat passes through one register stage and a beat holding ICRC bytes waits there
// until the CRC is ready — it is ready exactly then, so the stream never stalls: one beat
// per cycle, one cycle of latency, no frame buffer. When the ICRC straddles two beats the
// second one uses the CRC latched when the first went out.
//
// tuser passes through unchanged. Frames whose IPv4 total length is too small to hold an
// ICRC (< 44) are not RoCEv2 frames; their content after the header is undefined here.

import { Bool, cat, defineModule, lit, mux, UInt, type Value } from '../hdl/index.ts';
import { log2Exact } from '../lib/util.ts';
import { atLeast, byteAt, countWidth, laneBits, select, thermo } from './frame-util.ts';
import { icrcMaskLanes, icrcParallel, icrcStart } from './icrc-params.ts';
import { ETH_BYTES, OFF } from './roce.ts';
import { frameStream, type NicParams } from './types.ts';

export type IcrcInsertParams = Pick<NicParams, 'dataWidth'>;

export const icrcInsert = defineModule('nic_icrc_insert', { dataWidth: 64 } as IcrcInsertParams, (m, p) => {
  const W = p.dataWidth, B = W / 8;
  const lb = log2Exact(B, 'dataWidth / 8');
  const { clk, rst } = m.clockAndReset();
  const s = frameStream(W).sink(m, 's_axis');
  const o = frameStream(W).source(m, 'm_axis');

  const start = icrcStart(B);
  const lenBeat = Math.floor(OFF.ipTotalLen / B);
  const masks = icrcMaskLanes(B);
  const kMax = Math.max(start.beat, lenBeat, ...masks.keys()) + 1;
  const kW = countWidth(kMax);
  const qW = lb + 3; // holds up to B + 3

  // ---- input side: position in the frame, and the CRC feed -------------------------------
  const beat = m.reg('beat_reg', UInt(kW));
  const ipLeft = m.reg('ip_left_reg', UInt(16), { reset: null });
  const ipDone = m.reg('ip_done_reg', Bool);
  const crcDone = m.reg('crc_done_reg', Bool);

  const accept = m.let('accept', s.tvalid.land(s.tready));
  const lenLane = OFF.ipTotalLen % B;
  const totalLen = cat(byteAt(s.tdata, lenLane), byteAt(s.tdata, lenLane + 1));
  const atLen = beat.eq(lenBeat);
  // IPv4 bytes from this beat's first byte to the end of the IPv4 packet.
  const ipLeftNow = m.let('ip_left', mux(atLen, totalLen.addw(ETH_BYTES).subw(lenBeat * B), ipLeft));
  const known = atLeast(beat, lenBeat);
  const live = m.let('live', known.land(ipDone.lnot()));
  const covLeft = m.let('cov_left', mux(ipLeftNow.le(4), lit(0, 16), ipLeftNow.subw(4)));
  const covLanes = m.let('cov_lanes', mux(ipDone, lit(0, B), mux(known, thermo(covLeft, B), lit((1n << BigInt(B)) - 1n, B))).and(s.tkeep!));
  const covEnds = m.let('cov_ends', live.land(ipLeftNow.le(B + 4)));
  const icrcHere = m.let('icrc_here', live.land(ipLeftNow.le(B + 3)));
  const icrcEnds = m.let('icrc_ends', live.land(ipLeftNow.le(B)));

  const crc = m.instance('u_crc', icrcParallel, { bytes: B, skip: start.skip });
  const maskKeys = [...masks.keys()].sort((a, b) => a - b);
  const maskWord: Value = maskKeys.length === 0 ? lit(0, W)
    : select(beat, [...maskKeys, 0], [...maskKeys.map(k => laneBits(lit(masks.get(k)!, B))), lit(0, W)]);
  const crcValid = m.let('crc_feed', accept.land(atLeast(beat, start.beat)).land(crcDone.lnot()).land(covLanes.orr()));
  crc.data.set(s.tdata.or(maskWord));
  crc.keep.set(covLanes);
  crc.valid.set(crcValid);
  crc.start.set(beat.eq(start.beat));
  crc.last.set(covEnds.lor(s.tlast!));

  m.if(accept, () => {
    m.if(s.tlast!, () => {
      beat.set(0);
      ipDone.set(0);
      crcDone.set(0);
    }).else(() => {
      m.if(beat.lt(kMax), () => beat.set(beat.addw(1)));
      m.if(live, () => {
        m.if(ipLeftNow.le(B), () => ipDone.set(1)).else(() => ipLeft.set(ipLeftNow.subw(B)));
      });
      m.if(crcValid.land(covEnds), () => crcDone.set(1));
    });
  });

  // ---- hold stage: one beat, released when its ICRC bytes are known ------------------------
  const stValid = m.reg('st_valid_reg', Bool);
  const stData = m.reg('st_data_reg', UInt(W), { reset: null });
  const stKeep = m.reg('st_keep_reg', UInt(B), { reset: null });
  const stLast = m.reg('st_last_reg', Bool, { reset: null });
  const stUser = m.reg('st_user_reg', UInt(1), { reset: null });
  const stQ = m.reg('st_q_reg', UInt(qW), { reset: null });
  const stHere = m.reg('st_icrc_here_reg', Bool, { reset: null });
  const stEnds = m.reg('st_icrc_ends_reg', Bool, { reset: null });
  const icrcHave = m.reg('icrc_have_reg', Bool);
  const icrcReg = m.reg('icrc_reg', UInt(32), { reset: null });

  const icrc = m.let('icrc', mux(crc.crc_valid, crc.crc, icrcReg));
  const avail = crc.crc_valid.lor(icrcHave);
  const outValid = m.let('out_valid', stValid.land(stHere.lnot().lor(avail)));
  const fire = m.let('fire', outValid.land(o.tready));
  s.tready.set(stValid.lnot().lor(fire));

  m.if(accept, () => {
    stValid.set(1);
    stData.set(s.tdata);
    stKeep.set(s.tkeep!);
    stLast.set(s.tlast!);
    stUser.set(s.tuser!);
    stQ.set(ipLeftNow.trunc(qW));
    stHere.set(icrcHere);
    stEnds.set(icrcEnds);
  }).elif(fire, () => stValid.set(0));
  m.if(crc.crc_valid, () => {
    icrcReg.set(crc.crc);
    icrcHave.set(1);
  });
  m.if(fire.land(stHere).land(stEnds), () => icrcHave.set(0));

  // ICRC byte j goes to lane q - 4 + j: shift it up by q bytes in a (B+4)-byte field and drop
  // the low four bytes.
  const shiftBits = cat(stQ, lit(0, 3));
  const placed = m.let('icrc_placed', icrc.zext(8 * (B + 4)).shl(shiftBits).bits(8 * (B + 4) - 1, 32));
  const placedLanes = m.let('icrc_lanes', lit(0xf, B + 4).shl(stQ).bits(B + 3, 4));
  const patched = stData.and(laneBits(placedLanes).not()).or(placed);
  o.tdata.set(mux(stHere, patched, stData));
  o.tkeep!.set(stKeep);
  o.tlast!.set(stLast);
  o.tuser!.set(stUser);
  o.tvalid.set(outValid);

  return { clk, rst, s_axis: s, m_axis: o };
}, { doc: 'RoCEv2 ICRC insertion in line: one hold stage, full rate' });
