// Unused: Verilator -Wall rejects inputs, wires and registers (or bits of them) that
// nothing reads. We report them first, at the user's line, with the fix: use them, or say
// why not with m.unused(x, 'why') (which becomes a reasoned lint waiver in the Verilog).

import { readBits } from '../hdl/analysis.ts';
import type { Diagnostic } from '../hdl/errors.ts';
import type { ModuleIR } from '../hdl/ir.ts';

export function checkUnused(m: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  const read = readBits(m);
  for (const s of m.signals) {
    if (s.kind === 'output' || s.unusedReason !== null) continue;
    // Instance outputs left unread are waived in the emitted Verilog with the reason.
    if (s.instPort && s.instPort.inst.module.ports.some(p => p.signal.name === s.instPort!.port && p.signal.kind === 'output')) continue;
    const full = (1n << BigInt(s.shape.width)) - 1n;
    const bits = read.get(s);
    if (bits === full) continue;
    const what = s.kind === 'input' ? 'input' : s.kind === 'reg' ? 'register' : 'wire';
    const which = bits === 0n ? '' : ` (bits ${ranges(full & ~bits)})`;
    out.push({ pass: 'unused', message: `${what} ${s.name}${which} of module ${m.name} is never read`, hint: `use it, or mark it with m.unused(${s.name}, 'why')`, loc: s.loc });
  }
  return out;
}

/** `7:4, 0` for the set bits of a mask. */
function ranges(mask: bigint): string {
  const parts: string[] = [];
  let i = 0;
  while (mask >> BigInt(i)) {
    if ((mask >> BigInt(i)) & 1n) {
      let j = i;
      while ((mask >> BigInt(j + 1)) & 1n) j++;
      parts.unshift(j === i ? `${i}` : `${j}:${i}`);
      i = j + 1;
    } else i++;
  }
  return parts.join(', ');
}
