// nic_byte_splitter: re-packs a byte stream into pieces of given lengths, each piece packed
// from byte 0 with its own tlast (what nic_dma_write expects per command).
//
// The input is the concatenation of its packets' bytes (tlast only says where a packet's
// partial last beat ends); `s_len` gives the piece lengths in order, and together they cover
// the input exactly. A 2·B-byte buffer holds `cnt` bytes, oldest at byte 0 and zeros above:
// each cycle one output beat of min(B, piece bytes left) leaves from the bottom and one input
// beat is appended at byte cnt - taken, whenever that leaves room for a whole beat. So a long
// piece moves one beat a cycle at any alignment; a cycle may be lost where pieces change.

import { Bool, cat, defineModule, lit, mux, UInt, type Value } from '../hdl/index.ts';
import { stream } from '../lib/interfaces.ts';
import { busBytesLog2, byteMaskToBits, lowBytesMask } from './byte-align.ts';
import { byteStream } from './types.ts';

export type ByteSplitterParams = { dataWidth: number };
/** Piece lengths: 1..4096 bytes (one packet's payload at most). */
export const PIECE_LEN_BITS = 13;

/** Number of set bits of a contiguous-from-bit-0 byte mask (the bytes of a beat). */
function keepCount(keep: Value, bytes: number, w: number): Value {
  let sum: Value = lit(0, w);
  for (let i = 0; i < bytes; i++) sum = sum.addw(keep.bit(i).zext(w));
  return sum;
}

export const nicByteSplitter = defineModule('nic_byte_splitter', { dataWidth: 64 } as ByteSplitterParams, (m, p) => {
  const lb = busBytesLog2(p.dataWidth);
  const B = 1 << lb;
  const cw = lb + 2; // cnt: 0..2B
  const { clk, rst } = m.clockAndReset();
  const sIn = byteStream(p.dataWidth).sink(m, 's_axis');
  const sLen = stream(UInt(PIECE_LEN_BITS)).sink(m, 's_len');
  const mOut = byteStream(p.dataWidth).source(m, 'm_axis');

  const buf = m.reg('buf_reg', UInt(2 * p.dataWidth));
  const cnt = m.reg('cnt_reg', UInt(cw));
  const active = m.reg('piece_active_reg', Bool);
  const rem = m.reg('piece_rem_reg', UInt(PIECE_LEN_BITS));
  const oValid = m.reg('out_valid_reg', Bool);
  const oData = m.reg('out_data_reg', UInt(p.dataWidth), { reset: null });
  const oKeep = m.reg('out_keep_reg', UInt(B), { reset: null });
  const oLast = m.reg('out_last_reg', Bool, { reset: null });
  mOut.tvalid.set(oValid);
  mOut.tdata.set(oData);
  mOut.tkeep!.set(oKeep);
  mOut.tlast!.set(oLast);
  m.if(mOut.tready, () => oValid.set(0));

  // ---- output: one beat of the current piece when the buffer holds enough bytes ----------
  const outFree = m.let('out_free', oValid.lnot().lor(mOut.tready));
  const lastBeat = m.let('piece_last_beat', rem.le(B));
  const need = m.let('need', mux(lastBeat, rem.trunc(lb + 1), lit(B, lb + 1)).asUnsigned());
  const fire = m.let('fire', active.land(outFree).land(cnt.ge(need.zext(cw))));
  const taken = m.let('taken', mux(fire, need, lit(0, lb + 1)).zext(cw).asUnsigned());
  m.if(fire, () => {
    oValid.set(1);
    oData.set(buf.bits(p.dataWidth - 1, 0));
    oKeep.set(lowBytesMask(need, B));
    oLast.set(lastBeat);
    rem.set(rem.subw(need.zext(PIECE_LEN_BITS)));
    m.if(lastBeat, () => active.set(0));
  });
  const load = m.let('piece_load', active.lnot().lor(fire.land(lastBeat)).land(sLen.valid));
  sLen.ready.set(load);
  m.if(load, () => { active.set(1); rem.set(sLen.data); });
  m.assert(sLen.valid.lnot().lor(sLen.data.ne(0)), 'zero-length piece');

  // ---- input: append a beat above the bytes left after this cycle's output ---------------
  const left = m.let('cnt_left', cnt.subw(taken));
  const take = m.let('in_take', sIn.tvalid.land(left.le(B)));
  sIn.tready.set(left.le(B));
  const ones = lit((1n << BigInt(B)) - 1n, B);
  const inKeep = mux(sIn.tlast!, sIn.tkeep!, ones);
  const inBytes = m.let('in_bytes', keepCount(inKeep, B, cw));
  const inData = m.let('in_data', sIn.tdata.and(byteMaskToBits(inKeep, B)).asUnsigned());
  const shifted = m.let('buf_shifted', buf.shr(cat(taken, lit(0, 3))));
  const appended = inData.zext(2 * p.dataWidth).shl(cat(left, lit(0, 3)));
  m.if(take, () => {
    buf.set(shifted.or(appended));
    cnt.set(left.addw(inBytes));
  }).elif(fire, () => {
    buf.set(shifted);
    cnt.set(left);
  });

  return { clk, rst, s_axis: sIn, s_len: sLen, m_axis: mOut };
}, { doc: 'byte stream to pieces of given lengths, each re-packed from byte 0 with its own tlast' });
