// Widths and signedness: no silent truncation, no silent mixing of signed and unsigned.

import type { Diagnostic } from '../hdl/errors.ts';
import type { Expr, ModuleIR } from '../hdl/ir.ts';
import { stmtExprs, walkExpr, walkStmts } from '../hdl/ir.ts';

const mixable = new Set(['shl', 'shr', 'land', 'lor']);

export function checkWidths(m: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  const checkExpr = (root: Expr): void => walkExpr(root, e => {
    if (e.kind === 'binary' && !mixable.has(e.op) && e.a.signed !== e.b.signed) {
      out.push({ pass: 'widths', message: `'${e.op}' mixes a signed and an unsigned operand (${describe(e.a)} and ${describe(e.b)})`, hint: 'convert one side explicitly: .asSigned(), .sext(w) or .asUnsigned()', loc: e.loc });
    }
    if (e.kind === 'mux' && e.onTrue.signed !== e.onFalse.signed) {
      out.push({ pass: 'widths', message: `mux mixes a signed and an unsigned value (${describe(e.onTrue)} and ${describe(e.onFalse)})`, hint: 'convert one side explicitly: .asSigned() or .asUnsigned()', loc: e.loc });
    }
  });
  walkStmts(m.body, s => {
    for (const e of stmtExprs(s)) checkExpr(e);
    if (s.kind !== 'assign') return;
    const target = s.lo === 0 && s.width === s.target.shape.width ? s.target.name : `${s.target.name}[${s.lo + s.width - 1}:${s.lo}]`;
    if (s.value.width > s.width) {
      out.push({ pass: 'widths', message: `assigning a ${s.value.width}-bit value to ${s.width}-bit ${target} would drop ${s.value.width - s.width} bit(s)`, hint: `truncate explicitly with .trunc(${s.width}) (or use the wrapping .addw/.subw), or widen ${s.target.name}`, loc: s.loc });
    }
    if (s.value.signed !== s.signed) {
      out.push({ pass: 'widths', message: `assigning a ${s.value.signed ? 'signed' : 'unsigned'} value to ${s.signed ? 'signed' : 'unsigned'} ${target}`, hint: s.signed ? 'convert with .asSigned() or .sext(w)' : 'convert with .asUnsigned()', loc: s.loc });
    }
  });
  for (const s of m.signals) {
    if (!s.enable) continue;
    checkExpr(s.enable);
    if (s.enable.width !== 1) out.push({ pass: 'widths', message: `enable of register ${s.name} is ${s.enable.width} bits`, hint: 'an enable is one bit: compare or reduce it first', loc: s.loc });
  }
  for (const mem of m.memories) for (const p of mem.readPorts) {
    checkExpr(p.addr);
    if (p.enable && p.enable.width !== 1) out.push({ pass: 'widths', message: `read enable of memory ${mem.name} is ${p.enable.width} bits`, hint: 'an enable is one bit', loc: p.loc });
  }
  return out;
}

function describe(e: Expr): string {
  const name = e.kind === 'ref' ? `${e.signal.name}: ` : '';
  return `${name}${e.signed ? 'SInt' : 'UInt'}(${e.width})`;
}
