// Would a correct NIC let a remote request use this rkey on this range? The same checks as the
// translation model (tlb.ts translate): key names a registered MR (index = key >> 8, no other
// bits), the tag matches, the MR's PD is the QP's, the access bit is set, and [va, va + len)
// lies inside the MR without wrapping 2^64. Used by the fuzzer to know where a hostile WRITE
// may legitimately land and which READ RESPONSE data a hostile READ may legitimately get.

import type { MemoryRegion } from './mr.ts';

/** The MR that grants the access, or undefined. `need` is ACCESS.REMOTE_READ or REMOTE_WRITE. */
export function remoteGrant(mrs: readonly (MemoryRegion | undefined)[], key: number, pd: number, va: bigint, len: number, need: number): MemoryRegion | undefined {
  const mr = mrs[key >>> 8];
  if (!mr || mr.tag !== (key & 0xff) || mr.pd !== pd || (mr.access & need) === 0) return undefined;
  if (va < mr.va || va + BigInt(len) > mr.va + BigInt(mr.len)) return undefined;
  return mr;
}
