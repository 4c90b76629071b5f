// Constants wider than a tool's literal limit (65,536 bits: Verilator 5 refuses `73216'd0`, the
// reset of nic_ack_tracker's per-QP records at 256 QPs): printed as a concatenation of pieces (a
// replication over 8k bits is a Verilator -Wall warning), and a module with such a register passes Verilator -Wall.

import { describe, expect, it } from 'vitest';
import { UInt, Vec, defineModule } from '../hdl/index.ts';
import { emitToDir, verilatorLint } from '../lib/lint-helper.ts';
import { printConst } from './expr.ts';

describe('constants wider than 65,536 bits', () => {
  it('print as a concatenation of pieces of at most 65,536 bits; narrower ones as before', () => {
    expect(printConst(0n, 73216, false)).toBe("{7680'd0, 65536'd0}");
    expect(printConst(0n, 65536, false)).toBe("65536'd0");
    expect(printConst((1n << 65536n) | 5n, 65540, false)).toBe("{4'd1, 65536'd5}");
  });

  it('a Vec register of 70,000 bits with a reset passes Verilator -Wall', () => {
    const wide = defineModule('wide_reset_reg', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const d = m.input('d', UInt(1000));
      const q = m.output('q', UInt(1000));
      const r = m.reg('r_reg', Vec(UInt(1000), 70));
      for (let i = 0; i < 70; i++) r.setBits(1000 * i + 999, 1000 * i, i === 0 ? d : r.at(i - 1));
      q.set(r.at(69));
      return { clk, rst, d, q };
    });
    verilatorLint(emitToDir(wide));
  });
});
