// The CQE status a requester reports for a NAK's AETH syndrome (NIC.md): one mapping shared
// by every block that completes work requests from NAKs (nic_ack_tracker, nic_read_resp_rx).

import { lit, mux, type UIntShape, type Value } from '../hdl/index.ts';
import { AETH } from './flow-types.ts';
import { CQE_STATUS } from './regmap.ts';

/** CQE_STATUS (4 bits) of NAK 0x61/0x62/0x63; SUCCESS for any other syndrome. */
export function nakCqeStatus(syn: Value): Value<UIntShape> {
  return mux(syn.eq(AETH.NAK_INVALID_REQ), lit(CQE_STATUS.REMOTE_INVALID_REQUEST, 4),
    mux(syn.eq(AETH.NAK_REMOTE_ACCESS), lit(CQE_STATUS.REMOTE_ACCESS_ERROR, 4),
      mux(syn.eq(AETH.NAK_REMOTE_OP), lit(CQE_STATUS.REMOTE_OPERATIONAL_ERROR, 4), lit(CQE_STATUS.SUCCESS, 4)))).asUnsigned();
}

/** The same mapping for models and tests. */
export function nakCqeStatusOf(syn: number): number {
  if (syn === AETH.NAK_INVALID_REQ) return CQE_STATUS.REMOTE_INVALID_REQUEST;
  if (syn === AETH.NAK_REMOTE_ACCESS) return CQE_STATUS.REMOTE_ACCESS_ERROR;
  if (syn === AETH.NAK_REMOTE_OP) return CQE_STATUS.REMOTE_OPERATIONAL_ERROR;
  return CQE_STATUS.SUCCESS;
}
