// The decoded work-queue entry that nic_wqe_fetch hands to the TX engine. The byte offsets
// and sizes of the 128-byte WQE come from regmap.ts WQE_FIELDS.

import { Struct, UInt, Vec, cat, lit, mux, type Value } from '../hdl/index.ts';
import { MAX_SGE, WQE_BYTES, WQE_FIELDS, fieldOf } from './regmap.ts';
import { qpIndexWidth } from './types.ts';

type WqeFieldName = typeof WQE_FIELDS[number]['name'];
const bits = (name: WqeFieldName): number => fieldOf(WQE_FIELDS, name).size * 8;

/** One scatter/gather entry (sizes from sge0_*). */
export const Sge = Struct('sge', { addr: UInt(bits('sge0_addr')), len: UInt(bits('sge0_len')), lkey: UInt(bits('sge0_lkey')) });

/** What the fetch stage found when it read the WQE; not SUCCESS means the TX engine sends
 *  nothing and writes an error CQE with this status. Values are CQE_STATUS codes. */
export const WQE_STATUS_BITS = 4;

/** A decoded WQE. `ringIndex` is the free-running SQ index of this WQE (its CI value). */
export function wqeStruct(numQp: number) {
  return Struct('wqe', {
    qp: UInt(qpIndexWidth(numQp)),
    ringIndex: UInt(16),
    status: UInt(WQE_STATUS_BITS),
    opcode: UInt(bits('opcode')),
    flags: UInt(bits('flags')),
    numSge: UInt(bits('num_sge')),
    length: UInt(bits('length')),
    wrId: UInt(bits('wr_id')),
    remoteVa: UInt(bits('remote_va')),
    rkey: UInt(bits('rkey')),
    sge: Vec(Sge, MAX_SGE),
  });
}
export type WqeShape = ReturnType<typeof wqeStruct>;

/** The bits of WQE field `name` inside the raw 1024-bit WQE (byte 0 at bit 0). */
export function wqeField(raw: Value, name: WqeFieldName): Value {
  const f = fieldOf(WQE_FIELDS, name);
  if (raw.width !== WQE_BYTES * 8) throw new Error(`wqeField: raw WQE must be ${WQE_BYTES * 8} bits`);
  return raw.bits(f.offset * 8 + f.size * 8 - 1, f.offset * 8);
}

/** The SGE vector of a raw WQE (element 0 at the LSBs, as Vec packs). SGE i is zero unless
 *  i < `numSge`: nic_wqe_fetch decodes a WQE as soon as its used SGEs are in, so the bytes of
 *  the others are not read yet (num_sge > 4 keeps all four; req_tx rejects it anyway). */
export function wqeSges(raw: Value, numSge: Value): Value {
  const parts: Value[] = [];
  for (let i = MAX_SGE - 1; i >= 0; i--) {
    const sge = cat(wqeField(raw, `sge${i}_lkey` as WqeFieldName), wqeField(raw, `sge${i}_len` as WqeFieldName), wqeField(raw, `sge${i}_addr` as WqeFieldName));
    parts.push(mux(numSge.gt(i), sge, lit(0, Sge.width)));
  }
  return cat(...parts);
}

/** Bytes at the start of a WQE that hold everything a WQE with `numSge` SGEs uses (the
 *  header, then its SGEs; more than MAX_SGE counts as MAX_SGE). */
export function wqeUsedBytes(numSge: number): number {
  const sge0 = fieldOf(WQE_FIELDS, 'sge0_addr').offset;
  const stride = fieldOf(WQE_FIELDS, 'sge1_addr').offset - sge0;
  return sge0 + stride * Math.min(numSge, MAX_SGE);
}
