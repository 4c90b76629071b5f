// A completion request: what nic_completion turns into one 32-byte CQE. Field widths come
// from regmap.ts CQE_FIELDS.

import { Struct, UInt } from '../hdl/index.ts';
import { CQE_FIELDS, fieldOf } from './regmap.ts';
import { qpIndexWidth } from './types.ts';

const bits = (name: typeof CQE_FIELDS[number]['name']): number => fieldOf(CQE_FIELDS, name).size * 8;

export function cqeReqStruct(numQp: number) {
  return Struct('cqe_req', {
    qp: UInt(qpIndexWidth(numQp)),
    wrId: UInt(bits('wr_id')),
    byteLen: UInt(bits('byte_len')),
    opcode: UInt(bits('opcode')),
    status: UInt(bits('status')),
    syndrome: UInt(bits('syndrome')),
  });
}
export type CqeReqShape = ReturnType<typeof cqeReqStruct>;
