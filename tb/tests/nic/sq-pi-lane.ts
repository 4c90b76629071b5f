// nic_wqe_fetch's SQ_PI writes for its stage tests (ctxPort 'vec'): the stage learns SQ_PI only
// through `sq_pi_wr` {valid, qp, pi} (one QP per cycle, what nic_regs' software lane carries in
// nic_top), and reads a QP's SQ_PI from qp_ctx. A test sets the SQ_PI it wants per QP
// (`want`); each cycle, right after a rising edge, this drives one write of a QP whose SQ_PI
// differs from what qp_ctx shows (round robin), and after the edge that takes it shows the new
// value in qp_ctx (`show(shown)`), as nic_regs' copy and the stage's SQ_PI memory would.

import type { TestBench } from '../../core/index.ts';

interface SqPiPort { value: unknown }

export interface SqPiLane {
  /** The SQ_PI each QP should reach (16 bits kept). */
  readonly want: number[];
  /** The SQ_PI each QP has as far as the stage knows (what qp_ctx shows). */
  readonly shown: number[];
  /** SQ_PI writes driven so far. */
  writes(): number;
}

export function sqPiLane(tb: TestBench, port: SqPiPort, numQp: number, show: (shown: readonly number[]) => void): SqPiLane {
  const want = Array<number>(numQp).fill(0);
  const shown = Array<number>(numQp).fill(0);
  let writes = 0;
  port.value = { valid: 0, qp: 0, pi: 0 };
  tb.fork(async () => {
    let cur = -1, curPi = 0, next = 0;
    for (;;) {
      await tb.rising();
      if (cur >= 0) { shown[cur] = curPi; show(shown); cur = -1; }
      for (let k = 0; k < numQp; k++) {
        const q = (next + k) % numQp;
        if ((want[q]! & 0xffff) !== shown[q]) { cur = q; curPi = want[q]! & 0xffff; next = q + 1; break; }
      }
      if (cur >= 0) writes++;
      port.value = cur >= 0 ? { valid: 1, qp: cur, pi: curPi } : { valid: 0, qp: 0, pi: 0 };
    }
  }, 'sq_pi_wr');
  return { want, shown, writes: () => writes };
}
