// 24-bit PSN arithmetic in hardware (NIC.md: the sign of the 24-bit difference decides, a
// window of +-2^23). The models' counterpart is tb/model/psn.ts.

import type { Value } from '../hdl/index.ts';

/** a >= b in the +-2^23 PSN window: the 24-bit difference a - b is not negative. */
export function psnGe(a: Value, b: Value): Value {
  return a.subw(b).trunc(24).bit(23).lnot();
}
/** a > b in the PSN window. */
export function psnGt(a: Value, b: Value): Value {
  return psnGe(a, b).land(a.ne(b));
}
