// nic_icrc_insert: fills the four ICRC placeholder bytes at the end of each RoCEv2 frame's
// IPv4 packet with the ICRC (least significant byte first), computed in line at full width.
//
// The CRC (crcParallel over ROCE_ICRC) is fed as beats are accepted: coverage starts at the
// first IPv4 byte (the CRC module skips the 14 Ethernet bytes on its start beat) and ends
// four bytes before the IPv4 packet's end, found from the IPv4 total length (bytes 16-17),
// which arrives long before the end. Routers' mutable fields (NIC.md §6) are forced to 0xFF
// on the way into the CRC only. The CRC is known one cycle after its last byte went in, and
// every beat leaves through a skid buffer (registered m_axis and s_axis_tready), at least one
// cycle after it went into the CRC: the ICRC is always known when its beat leaves, so the
// stream never stalls here: one beat per cycle, one cycle of latency, no frame buffer. The
// packetizer in front drives s_axis from its output register (nic_packetizer: flattened, its
// payload lanes and this module's coverage and CRC network were one path, docs/synth.md);
// s_axis_tready here is a register, so no ready path runs from m_axis_tx_tready back into
// it. When the ICRC straddles two beats the second one takes the CRC on entry (crc_valid
// then, or the copy latched from it).
//
// tuser passes through unchanged. Frames whose IPv4 total length is too small to hold an
// ICRC (< 44) are not RoCEv2 frames; their content after the header is undefined here.

import { Bool, cat, defineModule, lit, mux, pack, Struct, UInt, type Value } from '../hdl/index.ts';
import { log2Exact } from '../lib/util.ts';
import { atLeast, byteAt, countWidth, laneBits, leftGtOf, select } from './frame-util.ts';
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
  const lenOffset = ETH_BYTES - lenBeat * B;
  const ipLeftNow = m.let('ip_left', mux(atLen, lenOffset >= 0 ? totalLen.addw(lenOffset) : totalLen.subw(-lenOffset), ipLeft));
  // Every decision below compares ip_left with a constant (frame-util.ts leftGtOf).
  const leftGt = leftGtOf(atLen, totalLen, lenOffset, ipLeft);
  const known = atLeast(beat, lenBeat);
  const live = m.let('live', known.land(ipDone.lnot()));
  // Lane i is covered while ip_left > i + 4 (the ICRC's four bytes are not).
  const covThermo = m.let('cov_thermo', cat(...Array.from({ length: B }, (_, i) => leftGt(i + 4)).reverse()));
  const covLanes = m.let('cov_lanes', mux(ipDone, lit(0, B), mux(known, covThermo, lit((1n << BigInt(B)) - 1n, B))).and(s.tkeep!));
  const covEnds = m.let('cov_ends', live.land(leftGt(B + 4).lnot()));
  const icrcHere = m.let('icrc_here', live.land(leftGt(B + 3).lnot()));

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
        m.if(leftGt(B).lnot(), () => ipDone.set(1)).else(() => ipLeft.set(ipLeftNow.subw(B)));
      });
      m.if(crcValid.land(covEnds), () => crcDone.set(1));
    });
  });

  // ---- output stage: a skid buffer whose slots carry their beat's ICRC ---------------------
  // Two slots (out, skid), as gen/lib/skid.ts: s_axis_tready is a register (the packetizer's
  // output register in front takes it as its m_axis_tready), and the out slot drives m_axis. A beat leaves at least one cycle after it was fed to the CRC, so
  // its frame's ICRC is known by then: a beat that ends the coverage and holds ICRC bytes
  // (`need`) gets the CRC from crc_valid in the very next cycle, any later beat of the frame
  // (the second half of a straddling ICRC) takes it on entry. Each slot keeps its own copy, so
  // the next frame's CRC (a one-beat frame at 512 bits ends its coverage in beat 0) can
  // arrive while this frame's ICRC beat still waits on m_axis_tready.
  const Slot = Struct('icrc_slot', {
    data: UInt(W), keep: UInt(B), last: Bool, user: UInt(1), q: UInt(qW), here: Bool, need: Bool, icrc: UInt(32),
  });
  const outValid = m.reg('out_valid_reg', Bool);
  const outSlot = m.reg('out_slot_reg', Slot, { reset: null });
  const skidValid = m.reg('skid_valid_reg', Bool);
  const skidSlot = m.reg('skid_slot_reg', Slot, { reset: null });
  const icrcReg = m.reg('icrc_reg', UInt(32), { reset: null });

  // The CRC of the frame being accepted, when its coverage ended in an earlier beat.
  const icrcKnown = m.let('icrc_known', mux(crc.crc_valid, crc.crc, icrcReg));
  const needNow = m.let('icrc_need', icrcHere.land(crcValid).land(covEnds));
  const incoming = pack(Slot, {
    data: s.tdata, keep: s.tkeep!, last: s.tlast!, user: s.tuser!, q: ipLeftNow.trunc(qW), here: icrcHere, need: needNow, icrc: icrcKnown,
  });
  /** A slot as it is after this cycle's CRC answer (only a `need` slot takes it). */
  const settled = (slot: Value): Value => {
    const v = slot.as(Slot);
    const take = v.field('need').land(crc.crc_valid);
    return pack(Slot, {
      data: v.field('data'), keep: v.field('keep'), last: v.field('last'), user: v.field('user'), q: v.field('q'),
      here: v.field('here'), need: v.field('need').land(take.lnot()), icrc: mux(take, crc.crc, v.field('icrc')),
    });
  };
  m.if(crc.crc_valid, () => icrcReg.set(crc.crc));

  s.tready.set(skidValid.lnot());
  const outFree = m.let('out_free', o.tready.lor(outValid.lnot()));
  m.if(outFree, () => {
    m.if(skidValid, () => {
      outValid.set(1);
      outSlot.set(settled(skidSlot));
      skidValid.set(0);
    }).else(() => {
      outValid.set(accept);
      m.if(accept, () => outSlot.set(incoming));
    });
  }).else(() => {
    outSlot.set(settled(outSlot));
    m.if(accept, () => {
      skidValid.set(1);
      skidSlot.set(incoming);
    });
  });
  m.if(skidValid.land(outFree.lnot()), () => skidSlot.set(settled(skidSlot)));

  // ICRC byte j goes to lane q - 4 + j: shift it up by q bytes in a (B+4)-byte field and drop
  // the low four bytes.
  const cur = outSlot.as(Slot);
  const stQ = cur.field('q');
  m.assert(outValid.lnot().lor(cur.field('need').lnot()).lor(crc.crc_valid), 'ICRC beat on m_axis before its CRC');
  const icrc = m.let('icrc', mux(cur.field('need'), crc.crc, cur.field('icrc')));
  const shiftBits = cat(stQ, lit(0, 3));
  const placed = m.let('icrc_placed', icrc.zext(8 * (B + 4)).shl(shiftBits).bits(8 * (B + 4) - 1, 32));
  const placedLanes = m.let('icrc_lanes', lit(0xf, B + 4).shl(stQ).bits(B + 3, 4));
  const stData = cur.field('data');
  const patched = stData.and(laneBits(placedLanes).not()).or(placed);
  o.tdata.set(mux(cur.field('here'), patched, stData));
  o.tkeep!.set(cur.field('keep'));
  o.tlast!.set(cur.field('last'));
  o.tuser!.set(cur.field('user'));
  o.tvalid.set(outValid);

  return { clk, rst, s_axis: s, m_axis: o };
}, { doc: 'RoCEv2 ICRC insertion in line: one hold stage, full rate' });
