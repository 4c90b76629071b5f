// nic_packetizer: one TxPktCmd + its payload bytes → one Ethernet frame (no FCS):
// Ethernet, IPv4 (checksum computed here), UDP (checksum 0), BTH, RETH and/or AETH, the
// payload, 0-3 pad bytes and four zero ICRC placeholder bytes (nic_icrc_insert fills them).
//
// Two stages:
// 1. Header stage: a command is turned into its header bytes (up to 74), frame bookkeeping
//    and the IPv4 header's word sum (two carry-save words) in one register stage (the
//    checksum is folded from the registered pair as the header goes out). It refills while the previous frame's payload
//    streams, so frames follow each other without idle beats; no path runs from s_cmd to
//    m_axis (timing at 512 bits: docs/synth.md).
// 2. Output stage: frame beat k is either a pure header beat (k < hb), the "mixed" beat
//    k = hb (header tail in lanes 0..s-1, payload bytes from lane s on), or a body beat
//    (the s bytes carried over from the previous payload beat, then the next payload bytes).
//    s = H mod B and hb = H div B for the header length H; H is one of four values
//    (54/58/70/74), so the payload shifter is a 4-way mux of constant shifts, not a barrel
//    shifter. Pad and ICRC bytes fall out as zeros: payload lanes past payloadLen are masked.
//    One beat per cycle; a 4096-byte MIDDLE packet at 512 bits is ceil(4154/64) = 65 beats.
// m_axis comes from an output register (a pipeline register, one beat per cycle): flattened
// with nic_icrc_insert behind it, the output stage's payload lanes and nic_icrc_insert's
// coverage and CRC network were one path (docs/synth.md, "Datapath stages at 512 bits"); the
// register costs one cycle from payload to m_axis_tx. nic_icrc_insert's skid behind it keeps
// its s_axis_tready a register, so no ready path runs from m_axis_tx_tready to the inputs.
//
// The payload stream must carry exactly payloadLen bytes with tlast on the last beat. If it
// does not, `err_payload` pulses: a short payload is completed with zeros (the frame keeps
// its announced length), a long one is drained up to its tlast before the next frame.

import { Bool, cat, defineModule, lit, mux, UInt, type Value } from '../hdl/index.ts';
import { stream } from '../lib/interfaces.ts';
import { log2Exact } from '../lib/util.ts';
import { onesCarrySaveHw, type SparseWord } from './ones-sum.ts';
import { beBytes, countWidth, laneBits, packBytes, select, thermo } from './frame-util.ts';
import { ETH_BYTES, ETHERTYPE_IPV4, HEADER_LENGTHS, IP_BASE_BYTES, IPV4_BYTES, OFF, ROCE_PORT } from './roce.ts';
import { byteStream, frameStream, TxPktCmd, type NicParams } from './types.ts';

export type PacketizerParams = Pick<NicParams, 'dataWidth'>;

const MAX_HDR = HEADER_LENGTHS[HEADER_LENGTHS.length - 1];
const MAX_PAYLOAD = (1 << 13) - 1;

/** A 16-bit word of the IPv4 header sum from fields at bit offsets (the other bits known zero). */
function sparseWord(fields: readonly (readonly [Value, number])[]): SparseWord {
  const bits: (Value | null)[] = Array(16).fill(null);
  for (const [v, at] of fields) {
    for (let i = 0; i < v.width; i++) {
      if (at + i >= 16 || bits[at + i] !== null) throw new Error(`sparseWord: a ${v.width}-bit field at bit ${at} overlaps or leaves the word`);
      bits[at + i] = v.bit(i);
    }
  }
  return bits;
}

/** A constant word: its one bits as literals, its zeros known zero (no counter input). */
function constWord(c: number): SparseWord {
  return Array.from({ length: 16 }, (_, i) => ((c >> i) & 1 ? lit(1, 1) : null));
}

export const packetizer = defineModule('nic_packetizer', { dataWidth: 64 } as PacketizerParams, (m, p) => {
  const W = p.dataWidth, B = W / 8;
  const lb = log2Exact(B, 'dataWidth / 8');
  const { clk, rst } = m.clockAndReset();
  const s_cmd = stream(TxPktCmd).sink(m, 's_cmd');
  const s_payload = byteStream(W).sink(m, 's_payload');
  const m_axis = frameStream(W).source(m, 'm_axis');
  const errPayload = m.output('err_payload', Bool);

  const maxFrame = MAX_HDR + MAX_PAYLOAD + 3 + 4;
  const kW = countWidth(Math.ceil(maxFrame / B));
  const hbOf = HEADER_LENGTHS.map(h => Math.floor(h / B));
  const sOf = HEADER_LENGTHS.map(h => h % B);
  const maxHb = Math.max(...hbOf);
  const kinds = [0, 1, 2, 3];

  // ---- header stage ----------------------------------------------------------------------
  // A command is turned into its header bytes (checksum left out), frame bookkeeping and the
  // IPv4 header's word sum in one's-complement carry-save form (two words), in one register
  // stage. Timing (docs/synth.md): no adder feeds another here, and no path runs from s_cmd to
  // m_axis (each frame starts from the header register).
  const cmd = s_cmd.data;
  const ck = 8 * OFF.ipChecksum;
  const hdrValid = m.reg('hdr_valid_reg', Bool);
  const hdrBytes = m.reg('hdr_bytes_reg', UInt(8 * MAX_HDR - 16), { reset: null }); // all but the checksum
  const hdrSumX = m.reg('hdr_sum_x_reg', UInt(16), { reset: null });
  const hdrSumY = m.reg('hdr_sum_y_reg', UInt(16), { reset: null });
  const hdrKind = m.reg('hdr_kind_reg', UInt(2), { reset: null });
  const hdrPayLen = m.reg('hdr_pay_len_reg', UInt(13), { reset: null });
  const hdrLastIdx = m.reg('hdr_last_idx_reg', UInt(kW), { reset: null });
  const hdrLastKeep = m.reg('hdr_last_keep_reg', UInt(B), { reset: null });
  // IPv4 identification: a per-frame counter (any value is legal with DF set; a counter
  // makes captures easier to read).
  const ipId = m.reg('ip_id_reg', UInt(16));

  const hasReth = cmd.field('hasReth'), hasAeth = cmd.field('hasAeth');
  const payLen = cmd.field('payloadLen');
  const pad = m.let('cmd_pad', lit(0, 2).subw(payLen.bits(1, 0)));
  const extLen = m.let('cmd_ext_len', cat(hasReth, lit(0, 1), hasAeth, lit(0, 2)));
  // payloadLen + pad, the payload rounded up to whole words; every length is it plus a
  // constant of the header layout (one adder each, side by side).
  const padded = m.let('cmd_padded', payLen.zext(16).addw(3).and(0xfffc));
  const plus = (k: number): Value => padded.addw(lit(k, 16).addw(extLen.zext(16)));
  const ipLen = m.let('cmd_ip_len', plus(IP_BASE_BYTES));
  const udpLen = m.let('cmd_udp_len', plus(IP_BASE_BYTES - IPV4_BYTES));
  const frameLast = m.let('cmd_frame_last', plus(IP_BASE_BYTES + ETH_BYTES - 1).trunc(kW + lb)); // frame length - 1, at most 8275
  const tos = cat(cmd.field('dscp'), lit(0, 2));
  const ttl = cmd.field('ttl');
  const srcIp = cmd.field('srcIp'), dstIp = cmd.field('dstIp');
  // Header checksum: one's-complement sum of the ten 16-bit words (checksum word = 0), with the
  // total length's parts (payload, pad, extension header length) as addends of their own, not
  // its adder in front. The words reduce in carry-save form (gen/nic/ones-sum.ts: counters, no
  // carry chain) to X + Y = the sum modulo 0xFFFF; narrow fields share a word (TTL and DSCP; pad
  // and the extension length's two bits), so a column holds at most nine bits.
  const ipConst = 0x4500 + IP_BASE_BYTES + 0x4000 + 17;
  const [sumX, sumY] = onesCarrySaveHw(m, 'ip_csa', [
    constWord(ipConst), sparseWord([[cmd.field('dscp'), 2], [ttl, 8]]), sparseWord([[payLen, 0]]),
    sparseWord([[pad, 0], [hasAeth, 2], [hasReth, 4]]), ipId,
    srcIp.bits(31, 16), srcIp.bits(15, 0), dstIp.bits(31, 16), dstIp.bits(15, 0)]);

  const zero = lit(0, 8);
  const reth = [...beBytes(cmd.field('rethVa')), ...beBytes(cmd.field('rethRkey')), ...beBytes(cmd.field('rethLen'))];
  const aeth = [...beBytes(cmd.field('aethSyndrome')), ...beBytes(cmd.field('aethMsn'))];
  const ext: Value[] = [];
  // Bytes after the header must be zero: the mixed beat ORs the shifted payload onto them.
  for (let i = 0; i < 4; i++) ext.push(mux(hasReth, reth[i]!, mux(hasAeth, aeth[i]!, zero)));
  for (let i = 4; i < 16; i++) ext.push(mux(hasReth, reth[i]!, zero));
  for (let i = 0; i < 4; i++) ext.push(mux(hasReth.land(hasAeth), aeth[i]!, zero));
  const header = packBytes([
    ...beBytes(cmd.field('dstMac')), ...beBytes(cmd.field('srcMac')), ...beBytes(lit(ETHERTYPE_IPV4, 16)),
    lit(0x45, 8), tos, ...beBytes(ipLen), ...beBytes(ipId), lit(0x40, 8), zero, ttl, lit(17, 8), zero, zero,
    ...beBytes(srcIp), ...beBytes(dstIp),
    ...beBytes(cmd.field('srcPort')), ...beBytes(lit(ROCE_PORT, 16)), ...beBytes(udpLen), zero, zero,
    cmd.field('opcode'), cat(lit(0, 2), pad, lit(0, 4)), lit(0xff, 8), lit(0xff, 8), zero, ...beBytes(cmd.field('destQpn')),
    cat(cmd.field('ackReq'), lit(0, 7)), ...beBytes(cmd.field('psn')),
    ...ext,
  ]);

  const cmdKind = m.let('cmd_kind', cat(hasReth, hasAeth));
  const cmdLastIdx = m.let('cmd_last_idx', frameLast.shr(lb).trunc(kW));
  // Lanes of the last beat: lane i is valid when (frame length - 1) mod B >= i.
  const lastLane = frameLast.bits(lb - 1, 0);
  const cmdLastKeep = m.let('cmd_last_keep', cat(...Array.from({ length: B }, (_, i) => (i === 0 ? lit(1, 1) : lastLane.ge(i))).reverse()));

  // The checksum is folded from the registered pair on the way out: X + Y with its carry out
  // of bit 15 added back. Both X + Y and X + Y + 1 are formed side by side (the latter as
  // ({X,1} + {Y,1}) >> 1, one adder with a carry in) and the first one's carry picks, so one
  // carry chain and a mux follow the registers, not two chains. The fold is the same number as
  // the sum's: X + Y = the sum modulo 0xFFFF, and both are in 1..0xFFFF (the sum is not zero,
  // and a counter network fed any one bit never outputs all zeros, so X + Y > 0).
  const sum0 = m.let('ip_sum_xy', hdrSumX.add(hdrSumY));
  const sum1 = m.let('ip_sum_xy1', cat(hdrSumX, lit(1, 1)).addw(cat(hdrSumY, lit(1, 1))).bits(16, 1));
  const fold2 = m.let('ip_sum_fold', mux(sum0.bit(16), sum1, sum0.bits(15, 0)));
  const checksum = m.let('ip_checksum', fold2.not());
  const hBytes = m.let('hdr_full', cat(hdrBytes.bits(8 * MAX_HDR - 17, ck), packBytes(beBytes(checksum)), hdrBytes.bits(ck - 1, 0)));

  // ---- output stage ----------------------------------------------------------------------
  const inBody = m.reg('in_body_reg', Bool);
  const beat = m.reg('beat_reg', UInt(kW));
  const curKind = m.reg('cur_kind_reg', UInt(2), { reset: null });
  const curLastIdx = m.reg('cur_last_idx_reg', UInt(kW), { reset: null });
  const curLastKeep = m.reg('cur_last_keep_reg', UInt(B), { reset: null });
  const payRem = m.reg('pay_rem_reg', UInt(13));
  const carry = m.reg('carry_reg', UInt(W), { reset: null });
  const drain = m.reg('drain_reg', Bool);
  const errReg = m.reg('err_payload_reg', Bool);

  const kind = m.let('kind', mux(inBody, curKind, hdrKind));
  const lastIdx = m.let('last_idx', mux(inBody, curLastIdx, hdrLastIdx));
  const lastKeep = m.let('last_keep', mux(inBody, curLastKeep, hdrLastKeep));
  const remNow = m.let('pay_rem', mux(inBody, payRem, hdrPayLen));
  const hb = m.let('hdr_beats', select(kind, kinds, hbOf.map(h => lit(h, kW))));
  const active = m.let('active', inBody.lor(hdrValid.land(drain.lnot())));
  const mixed = m.let('mixed_beat', inBody.lnot().land(beat.eq(hb)));
  const atPayload = m.let('at_payload', inBody.lor(mixed));
  const needPay = m.let('need_payload', atPayload.land(remNow.ne(0)));

  const payKeep = m.let('pay_keep', s_payload.tkeep!.and(thermo(remNow, B)));
  const cur = m.let('pay_data', mux(needPay, s_payload.tdata.and(laneBits(payKeep)), lit(0, W)));
  const curUp = m.let('pay_shifted', select(kind, kinds, sOf.map(s => cur.shl(8 * s))));
  const curDown = m.let('pay_carry', select(kind, kinds, sOf.map(s => (s === 0 ? lit(0, W) : cur.shr(8 * (B - s))))));
  const hdrSlices: Value[] = [];
  for (let k = 0; k <= maxHb; k++) {
    const hi = Math.min(MAX_HDR, (k + 1) * B);
    const slice = k * B >= MAX_HDR ? lit(0, W) : hBytes.bits(8 * hi - 1, 8 * k * B).zext(W);
    hdrSlices.push(slice);
  }
  const hdrBeat = m.let('hdr_beat', select(beat, hdrSlices.map((_, k) => k), hdrSlices));
  const data = m.let('out_data', mux(inBody, carry, hdrBeat).or(mux(atPayload, curUp, lit(0, W))));
  const isLast = m.let('out_last', beat.eq(lastIdx));
  const keep = mux(isLast, lastKeep, lit((1n << BigInt(B)) - 1n, B));

  // Output register (timing: docs/synth.md): m_axis comes from flip-flops, so no path runs from
  // s_payload or the header register into the next module (nic_icrc_insert's coverage and CRC
  // network). A plain pipeline register: it takes a beat when it is empty or its beat leaves,
  // one beat per cycle. Its ready (m_axis_tready, or empty) reaches s_payload_tready as before;
  // nic_icrc_insert behind it drives that m_axis_tready from a register.
  const outValid = m.let('out_valid', active.land(needPay.lnot().lor(s_payload.tvalid)));
  const oValid = m.reg('m_valid_reg', Bool);
  const oData = m.reg('m_data_reg', UInt(W), { reset: null });
  const oKeep = m.reg('m_keep_reg', UInt(B), { reset: null });
  const oLast = m.reg('m_last_reg', Bool, { reset: null });
  const oFree = m.let('out_free', oValid.lnot().lor(m_axis.tready));
  const fire = m.let('fire', outValid.land(oFree));
  m.if(oFree, () => oValid.set(outValid));
  m.if(fire, () => {
    oData.set(data);
    oKeep.set(keep);
    oLast.set(isLast);
  });
  m_axis.tvalid.set(oValid);
  m_axis.tdata.set(oData);
  m_axis.tkeep!.set(oKeep);
  m_axis.tlast!.set(oLast);
  m_axis.tuser!.set(0);
  s_payload.tready.set(fire.land(needPay).lor(drain));

  // A command is taken when the header register is free or freed by this frame's mixed beat.
  const releaseHdr = m.let('release_hdr', fire.land(mixed));
  const hdrFree = hdrValid.lnot().lor(releaseHdr);
  const takeCmd = m.let('take_cmd', s_cmd.valid.land(hdrFree));
  s_cmd.ready.set(hdrFree);
  m.if(takeCmd, () => {
    ipId.set(ipId.addw(1));
    hdrValid.set(1);
    hdrBytes.set(cat(header.bits(8 * MAX_HDR - 1, ck + 16), header.bits(ck - 1, 0)));
    hdrSumX.set(sumX);
    hdrSumY.set(sumY);
    hdrKind.set(cmdKind);
    hdrPayLen.set(payLen);
    hdrLastIdx.set(cmdLastIdx);
    hdrLastKeep.set(cmdLastKeep);
  }).elif(releaseHdr, () => hdrValid.set(0));

  // Payload bookkeeping on each consumed beat; a length mismatch flags an error.
  errReg.set(0);
  const payTake = m.let('pay_take', fire.land(needPay));
  m.if(payTake, () => {
    m.if(remNow.le(B), () => {
      payRem.set(0);
      m.if(s_payload.tlast!.lnot(), () => { errReg.set(1); drain.set(1); });
    }).else(() => {
      payRem.set(remNow.subw(B));
      m.if(s_payload.tlast!, () => { errReg.set(1); payRem.set(0); });
    });
  }).elif(mixed.land(fire), () => payRem.set(0));
  m.if(drain.land(s_payload.tvalid).land(s_payload.tlast!), () => drain.set(0));

  m.if(fire, () => {
    m.if(atPayload, () => carry.set(curDown));
    m.if(mixed, () => {
      curKind.set(hdrKind);
      curLastIdx.set(hdrLastIdx);
      curLastKeep.set(hdrLastKeep);
    });
    m.if(isLast, () => {
      beat.set(0);
      inBody.set(0);
    }).else(() => {
      beat.set(beat.addw(1));
      m.if(mixed, () => inBody.set(1));
    });
  });

  errPayload.set(errReg);

  return { clk, rst, s_cmd, s_payload, m_axis, err_payload: errPayload };
}, { doc: 'RoCEv2 packetizer: TxPktCmd + payload bytes -> Ethernet/IPv4/UDP/BTH/RETH/AETH frame with ICRC placeholder' });
