// nic_rx_parser: received frames (from nic_icrc_check, length on tuser) → RxPktHdr + payload.
//
// Header bytes are captured as they arrive. The decision is taken on the beat that holds the
// last header byte (its length follows from the opcode: 54, 58, 70 or 74 bytes), or on the
// frame's last beat if that comes first. It runs the receive checks in the order of the
// reference decoder (tb/model/packet.ts decodeRoce) and drops on the first failure with
// drop_valid and an RX_DROP reason:
//   frame < 14 bytes → TRUNCATED; ethertype ≠ 0x0800 → BAD_ETHERTYPE; frame < 34 → TRUNCATED;
//   version ≠ 4 or IHL ≠ 5 → BAD_IP; header checksum → BAD_IP_CHECKSUM;
//   total length > frame - 14 → TRUNCATED; total length < 20 → BAD_IP; MF/fragment → BAD_IP;
//   protocol ≠ 17 → NOT_ROCE; total < 28 → BAD_IP; UDP port ≠ 4791 → NOT_ROCE;
//   UDP length ≠ total - 20 → BAD_IP; total < 44 → BAD_IP; TVer ≠ 0 → NOT_ROCE;
//   opcode not RC 0x00..0x11 → NOT_ROCE; extension headers, payload/pad inconsistent → BAD_IP;
//   payload ≥ 8192 bytes (does not fit RxPktHdr) → BAD_IP.
// The ICRC was checked upstream (nic_icrc_check), and the frame length on tuser makes the
// truncation check possible before any payload byte leaves.
//
// Payload: bytes H .. H+payloadLen-1 are realigned to byte 0. Output beat m is the top
// B - s bytes of input beat hb+m (kept in `carry`) followed by the low s bytes of the next
// input beat (s = H mod B, never 0 for these H); a 4-way mux of constant shifts. When the
// payload's tail is already all in `carry`, one flush beat goes out without input — while
// the next frame's first beats are accepted, so there is no bubble on the input. Pad, ICRC
// and Ethernet padding are consumed and dropped. ImmDt of the *_IMM opcodes is skipped
// (RxPktHdr has no field for it). Both outputs go through skid buffers.
//
// Two pipeline stages (timing, docs/synth.md): stage 0 captures the header bytes and
// computes every check of the decision beat into a flag register beside the beat; stage 1
// picks the first failing check and does the rest from registers. A frame leaves one cycle
// later than with one stage; throughput is unchanged (one beat per cycle). The IPv4 header
// checksum is summed as the beats arrive, in one's-complement carry-save form (two 16-bit
// registers, gen/nic/ones-sum.ts: counters, no adders), and tested in stage 1 without a fold.

import { Bool, cat, defineModule, lit, mux, pack, UInt, type Value } from '../hdl/index.ts';
import { stream } from '../lib/interfaces.ts';
import { skidBuffer } from '../lib/skid.ts';
import { log2Exact } from '../lib/util.ts';
import { byteAt, countWidth, laneBits, packBytes, select, thermo } from './frame-util.ts';
import { onesCarrySaveHw, onesZeroHw } from './ones-sum.ts';
import { ETHERTYPE_IPV4, HEADER_LENGTHS, IP_BASE_BYTES, IPV4_BYTES, OFF, RC_OPCODES, ROCE_PORT, UDP_BYTES } from './roce.ts';
import { rxFrameStream } from './rx-frame.ts';
import { byteStream, RX_DROP, RxPktHdr, type NicParams } from './types.ts';

export type RxParserParams = Pick<NicParams, 'dataWidth'>;

const MAX_HDR = HEADER_LENGTHS[HEADER_LENGTHS.length - 1];

export const rxParser = defineModule('nic_rx_parser', { dataWidth: 64 } as RxParserParams, (m, p) => {
  const W = p.dataWidth, B = W / 8;
  log2Exact(B, 'dataWidth / 8');
  const { clk, rst } = m.clockAndReset();
  const s = rxFrameStream(W).sink(m, 's_axis');
  const mHdr = stream(RxPktHdr).source(m, 'm_hdr');
  const mPay = byteStream(W).source(m, 'm_payload');
  const dropValid = m.output('drop_valid', Bool);
  const dropReason = m.output('drop_reason', UInt(3));

  const sOf = HEADER_LENGTHS.map(h => h % B);
  if (sOf.includes(0)) throw new Error(`a header length is a multiple of ${B} bytes`);
  const kDecOf = HEADER_LENGTHS.map(h => Math.floor((h - 1) / B));
  const capBeats = Math.floor((MAX_HDR - 1) / B) + 1;
  const kMax = capBeats;
  const kW = countWidth(kMax);
  const kinds = [0, 1, 2, 3];

  // ---- stage 0: header capture, the combined view (captured bytes + this beat's lanes) and
  // the receive checks, each a registered flag ------------------------------------------------
  // Timing (docs/synth.md "Datapath stages at 512 bits"): the checks of the decision beat are
  // computed here from s_axis and stored as one flag each in p_checks_reg beside the beat
  // (p_*_reg); stage 1 picks the first failing one (a priority encoder of registered flags)
  // a cycle later. hdr_bytes_reg holds every header byte up to the beat in p_*_reg, so stage 1
  // reads the header fields from registers only. s_axis_tready is a function of registers.
  const beat = m.reg('beat_reg', UInt(kW));
  const preDecided = m.reg('pre_decided_reg', Bool);
  const hv = m.reg('hdr_bytes_reg', UInt(8 * MAX_HDR), { reset: null });
  const view: Value[] = [];
  for (let o = 0; o < MAX_HDR; o++) view.push(mux(beat.eq(Math.floor(o / B)), byteAt(s.tdata, o % B), byteAt(hv, o)));
  const viewVec = m.let('hdr_view', packBytes(view));
  m.unused(s.tkeep!, 'the frame length on tuser says where the frame ends');
  const beOf = (v: Value) => (off: number, n: number) => cat(...Array.from({ length: n }, (_, i) => byteAt(v, off + i)));
  const be = beOf(viewVec);

  const frameLen = s.tuser!;
  const totalLen = m.let('ip_total_len', be(OFF.ipTotalLen, 2));
  const opcodeTable = (opcode: Value, suffix: string) => {
    const known = m.wire(`op_known${suffix}`, Bool);
    const hasReth = m.wire(`op_reth${suffix}`, Bool);
    const hasAeth = m.wire(`op_aeth${suffix}`, Bool);
    const hasImm = m.wire(`op_imm${suffix}`, Bool);
    const payOk = m.wire(`op_payload${suffix}`, Bool);
    const sw = m.switch(opcode);
    for (const op of RC_OPCODES) {
      sw.case(op.code, () => {
        known.set(1);
        hasReth.set(op.reth ? 1 : 0);
        hasAeth.set(op.aeth ? 1 : 0);
        hasImm.set(op.imm ? 1 : 0);
        payOk.set(op.payload ? 1 : 0);
      });
    }
    sw.default(() => known.set(0));
    return { known, hasReth, hasAeth, hasImm, payOk };
  };
  // Opcode table → which extension headers follow the BTH.
  const { known, hasReth, hasAeth, hasImm, payOk } = opcodeTable(be(OFF.bth, 1), '');
  const bth1 = be(OFF.bth + 1, 1);
  const padCnt = bth1.bits(5, 4);
  const kind = m.let('hdr_kind', cat(hasReth, hasAeth.lor(hasImm)));
  const extLen = cat(hasReth, lit(0, 1), hasAeth.lor(hasImm), lit(0, 2));
  // Payload + pad bytes: total - 44 - ext, 17 bits, negative when the top bit is set.
  const body = m.let('body_len', totalLen.zext(17).subw(IP_BASE_BYTES).subw(extLen.zext(17)));
  const payLen17 = m.let('pay_len17', body.subw(padCnt.zext(17)));

  // IPv4 header checksum: the one's-complement sum of the header's ten words must be 0xFFFF.
  // It is kept in carry-save form in two registers (ones-sum.ts): each beat that holds IPv4
  // words adds them, straight from s_axis_tdata (no view mux, no adder: three counter levels
  // at 512 bits), to the pair accumulated so far; stage 1 tests X + Y = 0 (mod 0xFFFF) from the
  // registers. That is the same verdict as "the fold is 0xFFFF" whenever the checksum is
  // consulted: the sum is then nonzero, the version check before it having seen 0x45. The pair
  // is written as beats are accepted, so in stage 1 it holds the frame's words up to the beat in
  // p_*_reg, which is at or after the last IPv4 byte whenever the frame is long enough to be
  // checked (frame < 34 bytes is TRUNCATED first).
  const ipWords = Array.from({ length: IPV4_BYTES / 2 }, (_, i) => OFF.ipVerIhl + 2 * i);
  const ipBeats = [...new Set(ipWords.map(o => Math.floor(o / B)))];
  const slots = [...new Set(ipWords.map(o => o % B))].sort((a, b) => a - b);
  const wordAt = (lane: number): Value => cat(byteAt(s.tdata, lane), byteAt(s.tdata, lane + 1));
  const sumX = m.reg('ip_sum_x_reg', UInt(16), { reset: null });
  const sumY = m.reg('ip_sum_y_reg', UInt(16), { reset: null });
  const onBeats = (bs: readonly number[]): Value => bs.map(j => beat.eq(j)).reduce((a, b) => a.lor(b));
  const addends: Value[] = slots.map(lane => {
    const beatsHere = ipBeats.filter(j => ipWords.includes(j * B + lane));
    return beatsHere.length === ipBeats.length ? wordAt(lane) : mux(onBeats(beatsHere), wordAt(lane), lit(0, 16));
  });
  if (ipBeats.length > 1) {
    // Later IPv4 beats add to what the earlier ones left; the first starts from zero.
    const carryIn = beat.ne(Math.min(...ipBeats));
    addends.push(mux(carryIn, sumX, lit(0, 16)), mux(carryIn, sumY, lit(0, 16)));
  }
  const [nextX, nextY] = onesCarrySaveHw(m, 'ip_csa', addends);
  const sumOk = m.let('ip_sum_ok', onesZeroHw(sumX, sumY));

  const checks: [Value | 'stage1', number][] = [
    [frameLen.lt(14), RX_DROP.TRUNCATED],
    [be(OFF.ethertype, 2).ne(ETHERTYPE_IPV4), RX_DROP.BAD_ETHERTYPE],
    [frameLen.lt(14 + IPV4_BYTES), RX_DROP.TRUNCATED],
    [be(OFF.ipVerIhl, 1).ne(0x45), RX_DROP.BAD_IP],
    ['stage1', RX_DROP.BAD_IP_CHECKSUM], // tested in stage 1 from ip_sum_x_reg / ip_sum_y_reg
    [totalLen.zext(17).addw(14).gt(frameLen.zext(17)), RX_DROP.TRUNCATED],
    [totalLen.lt(IPV4_BYTES), RX_DROP.BAD_IP],
    [be(OFF.ipFrag, 2).and(0x3fff).ne(0), RX_DROP.BAD_IP],
    [be(OFF.ipProto, 1).ne(17), RX_DROP.NOT_ROCE],
    [totalLen.lt(IPV4_BYTES + UDP_BYTES), RX_DROP.BAD_IP],
    [be(OFF.udpDst, 2).ne(ROCE_PORT), RX_DROP.NOT_ROCE],
    [be(OFF.udpLen, 2).ne(totalLen.subw(IPV4_BYTES)), RX_DROP.BAD_IP],
    [totalLen.lt(IP_BASE_BYTES), RX_DROP.BAD_IP],
    [bth1.bits(3, 0).ne(0), RX_DROP.NOT_ROCE],
    [known.lnot(), RX_DROP.NOT_ROCE],
    [body.bit(16), RX_DROP.BAD_IP],
    [payOk.lnot().land(body.ne(0)), RX_DROP.BAD_IP],
    [body.bits(1, 0).ne(0), RX_DROP.BAD_IP],
    [payLen17.bit(16), RX_DROP.BAD_IP],
    [payLen17.bits(15, 13).ne(0), RX_DROP.BAD_IP],
  ];
  // Stage 0's flags, in check order (the checksum comparison is not among them).
  const stage0 = checks.flatMap(([c]) => (typeof c === 'string' ? [] : [c]));
  const kDec = select(kind, kinds, kDecOf.map(k => lit(k, kW)));

  // The pipeline register between the stages: one input beat, and for the decision beat its
  // checks, header kind and payload length.
  const pValid = m.reg('p_valid_reg', Bool);
  const pData = m.reg('p_data_reg', UInt(W), { reset: null });
  const pLast = m.reg('p_last_reg', Bool, { reset: null });
  const pDecide = m.reg('p_decide_reg', Bool, { reset: null });
  const pChecks = m.reg('p_checks_reg', UInt(stage0.length), { reset: null });
  const pKind = m.reg('p_kind_reg', UInt(2), { reset: null });
  const pPayLen = m.reg('p_pay_len_reg', UInt(13), { reset: null });

  // ---- stage 1: the decision, the header out and the payload realignment -----------------------
  const decided = m.reg('decided_reg', Bool);
  const discard = m.reg('discard_reg', Bool);
  const curKind = m.reg('cur_kind_reg', UInt(2), { reset: null });
  const payRem = m.reg('pay_rem_reg', UInt(13), { reset: null });
  const carry = m.reg('carry_reg', UInt(W), { reset: null });
  const flush = m.reg('flush_reg', Bool);

  const hdrSkid = m.instance('u_hdr', skidBuffer, { width: RxPktHdr.width });
  const paySkid = m.instance('u_pay', skidBuffer, { width: W + B + 1 });
  const inPayload = m.let('in_payload', decided.land(discard.lnot()));
  const pTake = m.let('p_take', pValid.land(decided.lor(hdrSkid.s.ready).land(flush.lor(inPayload).lnot().lor(paySkid.s.ready))));
  s.tready.set(pValid.lnot().lor(pTake));
  const accept = m.let('accept', s.tvalid.land(s.tready));
  const decide0 = m.let('decide_here', preDecided.lnot().land(beat.eq(kDec).lor(s.tlast!)));
  m.if(pTake, () => pValid.set(0));
  m.if(accept, () => {
    pValid.set(1);
    pData.set(s.tdata);
    pLast.set(s.tlast!);
    pDecide.set(decide0);
    pChecks.set(cat(...[...stage0].reverse()));
    m.if(onBeats(ipBeats), () => {
      sumX.set(nextX);
      sumY.set(nextY);
    });
    pKind.set(kind);
    pPayLen.set(payLen17.trunc(13));
    for (let j = 0; j < capBeats; j++) {
      const lo = j * B, hi = Math.min(MAX_HDR, (j + 1) * B);
      m.if(beat.eq(j), () => hv.setBits(8 * hi - 1, 8 * lo, s.tdata.bits(8 * (hi - lo) - 1, 0)));
    }
    m.if(s.tlast!, () => {
      beat.set(0);
      preDecided.set(0);
    }).else(() => {
      m.if(decide0, () => preDecided.set(1));
      m.if(beat.lt(kMax), () => beat.set(beat.addw(1)));
    });
  });

  // The first failing check, in the reference decoder's order.
  let reasonExpr: Value = lit(RX_DROP.NONE, 3);
  let flag = 0;
  const failing = checks.map(([c]) => (typeof c === 'string' ? sumOk.lnot() : pChecks.bit(flag++)));
  for (let i = checks.length - 1; i >= 0; i--) reasonExpr = mux(failing[i]!, lit(checks[i]![1], 3), reasonExpr);
  const reason = m.let('reason', reasonExpr);
  const payLen = pPayLen;
  const kindNow = pKind;

  // Header fields from the captured bytes (registers).
  const hb = beOf(hv);
  const op1 = opcodeTable(hb(OFF.bth, 1), '_hdr');
  m.unused(op1.known, 'the opcode checks ran in stage 0 (p_checks_reg)');
  m.unused(op1.hasImm, 'the header kind ran in stage 0 (p_kind_reg)');
  m.unused(op1.payOk, 'the payload checks ran in stage 0 (p_checks_reg)');
  m.unused(viewVec, 'destination MAC, IPv4 id/source/TTL bytes outside the checksum, P_Key, FECN/BECN and the last bytes of a RETH+ImmDt header are not checked or forwarded');
  const zeroIf = (c: Value, v: Value) => mux(c, v, lit(0, v.width));
  const hdr = m.let('hdr', pack(RxPktHdr, {
    opcode: hb(OFF.bth, 1),
    destQpn: hb(OFF.bth + 5, 3),
    psn: hb(OFF.bth + 9, 3),
    ackReq: hb(OFF.bth + 8, 1).bit(7),
    payloadLen: payLen,
    hasReth: op1.hasReth,
    rethVa: zeroIf(op1.hasReth, hb(OFF.ext, 8)),
    rethRkey: zeroIf(op1.hasReth, hb(OFF.ext + 8, 4)),
    rethLen: zeroIf(op1.hasReth, hb(OFF.ext + 12, 4)),
    hasAeth: op1.hasAeth,
    aethSyndrome: zeroIf(op1.hasAeth, hb(OFF.ext, 1)),
    aethMsn: zeroIf(op1.hasAeth, hb(OFF.ext + 1, 3)),
    srcMac: hb(6, 6),
    srcIp: hb(OFF.ipSrc, 4),
    srcPort: hb(OFF.udpSrc, 2),
  }));

  const decide = m.let('decide', pTake.land(pDecide));
  const good = m.let('good', decide.land(reason.eq(RX_DROP.NONE)));
  const payBeat = m.let('pay_beat', pTake.land(inPayload));

  hdrSkid.s.valid.set(good);
  hdrSkid.s.data.set(hdr);
  dropValid.set(decide.land(good.lnot()));
  dropReason.set(reason);

  // Payload realignment.
  const down = (kd: Value) => select(kd, kinds, sOf.map(sh => pData.shr(8 * sh)));
  const up = select(curKind, kinds, sOf.map(sh => pData.shl(8 * (B - sh))));
  const tailBytes = select(curKind, kinds, sOf.map(sh => lit(B - sh, 7)));
  const lastOut = payRem.le(B);
  const outKeep = thermo(payRem, B);
  const full = lit((1n << BigInt(B)) - 1n, B);
  paySkid.s.valid.set(flush.lor(payBeat));
  paySkid.s.data.set(mux(flush, cat(lit(1, 1), outKeep, carry.and(laneBits(outKeep))), cat(lastOut, mux(lastOut, outKeep, full), carry.or(up).and(laneBits(mux(lastOut, outKeep, full))))));

  m.if(flush.land(paySkid.s.ready), () => flush.set(0));
  m.if(payBeat, () => {
    carry.set(down(curKind));
    m.if(lastOut, () => discard.set(1)).else(() => {
      const rest = payRem.subw(B);
      payRem.set(rest);
      m.if(rest.le(tailBytes.zext(13)), () => { flush.set(1); discard.set(1); });
    });
  });
  m.if(good, () => {
    curKind.set(kindNow);
    payRem.set(payLen);
    carry.set(down(kindNow));
    const tailNow = select(kindNow, kinds, sOf.map(sh => lit(B - sh, 7)));
    m.if(payLen.eq(0), () => discard.set(1))
      .elif(payLen.le(tailNow.zext(13)), () => { flush.set(1); discard.set(1); });
  });
  m.if(decide.land(good.lnot()), () => discard.set(1));
  m.if(decide, () => decided.set(1));
  m.if(pTake.land(pLast), () => {
    decided.set(0);
    discard.set(0);
  });

  mHdr.data.set(hdrSkid.m.data.as(RxPktHdr));
  mHdr.valid.set(hdrSkid.m.valid);
  hdrSkid.m.ready.set(mHdr.ready);
  mPay.tdata.set(paySkid.m.data.bits(W - 1, 0));
  mPay.tkeep!.set(paySkid.m.data.bits(W + B - 1, W));
  mPay.tlast!.set(paySkid.m.data.bit(W + B));
  mPay.tvalid.set(paySkid.m.valid);
  paySkid.m.ready.set(mPay.tready);

  return { clk, rst, s_axis: s, m_hdr: mHdr, m_payload: mPay, drop_valid: dropValid, drop_reason: dropReason };
}, { doc: 'RoCEv2 receive parser: frame checks, RxPktHdr out, payload realigned to byte 0' });
