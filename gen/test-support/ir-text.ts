// The IR as text, so tests check built trees the way Amaranth's tests do: one readable
// string per expression or statement tree instead of deep object matching.
//
// Expressions print as S-expressions with the result type: `(add u9 (ext u9 a) (ext u9 b))`.
// Statements print one per line, nested by two spaces:
//   if en
//     cnt <= (add u8 cnt 8'd1)
//   else
//     cnt <= 8'd0
// `=` marks combinational assignments, `<=` register ones.

import type { Expr, ModuleIR, Stmt } from '../hdl/ir.ts';

function ty(e: Expr): string { return `${e.signed ? 's' : 'u'}${e.width}`; }

export function exprText(e: Expr): string {
  switch (e.kind) {
    case 'const':
      if (e.label !== undefined) return e.label;
      return `${e.width}'${e.signed ? 's' : ''}d${e.value}`;
    case 'ref': return e.signal.name;
    case 'slice': return `(slice ${ty(e)} ${exprText(e.arg)} ${e.lo})`;
    case 'part': return `(part ${ty(e)} ${exprText(e.arg)} ${exprText(e.index)} *${e.stride})`;
    case 'unary': return `(${e.op} ${ty(e)} ${exprText(e.arg)})`;
    case 'binary': return `(${e.op} ${ty(e)} ${exprText(e.a)} ${exprText(e.b)})`;
    case 'mux': return `(mux ${ty(e)} ${exprText(e.sel)} ${exprText(e.onTrue)} ${exprText(e.onFalse)})`;
    case 'concat': return `(cat ${ty(e)} ${e.parts.map(exprText).join(' ')})`;
    case 'repl': return `(repl ${ty(e)} ${exprText(e.arg)} ${e.count})`;
    case 'ext': return `(ext ${ty(e)} ${exprText(e.arg)})`;
    case 'memread': return `(memread ${ty(e)} ${e.mem.name} ${e.port})`;
  }
}

export function stmtLines(stmts: readonly Stmt[], depth = 0): string[] {
  const pad = '  '.repeat(depth);
  const out: string[] = [];
  for (const s of stmts) {
    switch (s.kind) {
      case 'assign': {
        const t = s.target;
        const whole = s.lo === 0 && s.width === t.shape.width;
        const target = whole ? t.name : `${t.name}[${s.lo + s.width - 1}:${s.lo}]`;
        out.push(`${pad}${target} ${t.kind === 'reg' ? '<=' : '='} ${exprText(s.value)}`);
        break;
      }
      case 'if':
        s.branches.forEach((b, i) => {
          out.push(`${pad}${b.cond === null ? 'else' : `${i === 0 ? 'if' : 'elif'} ${exprText(b.cond)}`}`);
          out.push(...stmtLines(b.body, depth + 1));
        });
        break;
      case 'switch':
        out.push(`${pad}switch ${exprText(s.subject)}`);
        for (const c of s.cases) {
          out.push(`${pad}  ${c.values === null ? 'default' : `case ${c.values.map(exprText).join(', ')}`}`);
          out.push(...stmtLines(c.body, depth + 2));
        }
        break;
      case 'memwrite':
        out.push(`${pad}${s.mem.name}[${exprText(s.addr)}] <= ${exprText(s.data)}${s.mask ? ` mask ${exprText(s.mask)}` : ''} (port ${s.port})`);
        break;
      case 'assert':
        out.push(`${pad}assert ${exprText(s.cond)} ${JSON.stringify(s.message)} @${s.domain.name}`);
        break;
    }
  }
  return out;
}

/** A statement tree as one string (lines joined with \n). */
export function stmtText(stmts: readonly Stmt[]): string {
  return stmtLines(stmts).join('\n');
}

/** A module's declarations, one per line: `input clk u1`, `reg cnt u8 reset=0 @sync`. */
export function declText(ir: ModuleIR): string {
  return ir.signals.map(s => {
    const t = `${s.shape.kind === 'sint' ? 's' : 'u'}${s.shape.width}`;
    const extra = s.kind === 'reg'
      ? ` reset=${s.reset === null ? 'none' : s.reset} @${s.domain?.name ?? '?'}${s.enable ? ` en=${exprText(s.enable)}` : ''}`
      : s.kind === 'wire' && s.init !== 0n ? ` default=${s.init}` : '';
    return `${s.kind} ${s.name} ${t}${extra}`;
  }).join('\n');
}
