// Splitting one statement tree into Verilog processes.
//
// The user writes combinational and clocked assignments side by side under the same
// conditions. The emitter projects the tree once per kind of process (keeping only the
// leaves of that kind, with their conditions), then groups top-level statements that share
// a target into one process, so no signal is ever driven from two always blocks.

import { stmtTargets } from '../hdl/analysis.ts';
import type { Stmt } from '../hdl/ir.ts';

type Leaf = Exclude<Stmt, { kind: 'if' | 'switch' }>;

/** The tree with only the leaves `keep` accepts; empty conditionals disappear. */
export function projectStmts(stmts: readonly Stmt[], keep: (s: Leaf) => boolean): Stmt[] {
  const out: Stmt[] = [];
  for (const s of stmts) {
    if (s.kind === 'if') {
      const branches = s.branches.map(b => ({ ...b, body: projectStmts(b.body, keep) }));
      // Trailing empty branches change nothing; earlier ones still matter for priority.
      while (branches.length && branches[branches.length - 1]!.body.length === 0) branches.pop();
      if (branches.length) out.push({ ...s, branches });
    } else if (s.kind === 'switch') {
      const cases = s.cases.map(c => ({ ...c, body: projectStmts(c.body, keep) }));
      if (cases.some(c => c.body.length)) out.push({ ...s, cases });
    } else if (keep(s)) {
      out.push(s);
    }
  }
  return out;
}

/** Top-level statements grouped so that statements sharing any target end up together
 *  (in their original order). Each group becomes one always block or one assign. */
export function groupByTargets(stmts: readonly Stmt[]): Stmt[][] {
  const parent = stmts.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const owner = new Map<object, number>();
  stmts.forEach((s, i) => {
    for (const t of stmtTargets(s)) {
      const j = owner.get(t);
      if (j === undefined) owner.set(t, i);
      else parent[find(i)] = find(j);
    }
  });
  const groups = new Map<number, Stmt[]>();
  stmts.forEach((s, i) => {
    const root = find(i);
    let g = groups.get(root);
    if (!g) groups.set(root, g = []);
    g.push(s);
  });
  // Order groups by their first statement, so the output follows the source.
  return [...groups.values()].sort((a, b) => stmts.indexOf(a[0]!) - stmts.indexOf(b[0]!));
}
