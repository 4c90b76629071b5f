// The line report: Verilator points as an lcov tracefile, rendered by genhtml (lcov, Debian).
//
// Written from the points rather than with `verilator_coverage --write-info`, which in
// Verilator 5.006 sums every point of a line into one DA count (a line whose `else` never ran
// shows as covered) and has no branch records. Here: DA per source line = the count of the
// line or branch point that stands for it (its S span), user cover points on their own line;
// BRDA per if/else arm. Toggle points have no lcov form; they are in the per-module table and
// the uncovered list (code-report.ts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { run } from '../sim/exec.ts';
import type { CoverPoint } from './verilator-data.ts';
import { pointTop } from './verilator-data.ts';

/** Where the sources of a top's files are: `<sources>/<top>/<file>`. */
export function sourcePath(sourcesDir: string, top: string, file: string): string {
  return path.join(sourcesDir, top, file);
}

interface FileRecord {
  readonly sf: string;
  readonly lines: Map<number, number>;
  /** Per source line, its branch arms' counts in the order Verilator lists them. */
  readonly branches: Map<number, number[]>;
}

/** lcov tracefile text for every point with a source file under `sourcesDir`. */
export function lcovInfo(points: readonly CoverPoint[], sourcesDir: string, testName = 'nicgen'): string {
  const files = new Map<string, FileRecord>();
  const fileOf = (p: CoverPoint): FileRecord => {
    const sf = sourcePath(sourcesDir, pointTop(p), p.file);
    let r = files.get(sf);
    if (!r) files.set(sf, r = { sf, lines: new Map(), branches: new Map() });
    return r;
  };
  // Instances of a module within one top share the file: sum them per point first.
  const summed = new Map<string, CoverPoint>();
  for (const p of points) {
    if (p.kind === 'toggle') continue;
    const key = `${pointTop(p)}\x00${p.kind}\x00${p.file}\x00${p.line}\x00${p.column}\x00${p.comment}`;
    const have = summed.get(key);
    summed.set(key, have ? { ...have, count: have.count + p.count } : p);
  }
  for (const p of summed.values()) {
    const r = fileOf(p);
    for (const l of p.kind === 'branch' && p.lines.length === 1 && p.lines[0] === p.line ? [] : p.lines) {
      r.lines.set(l, Math.max(r.lines.get(l) ?? 0, p.count));
    }
    if (p.kind === 'user') r.lines.set(p.line, Math.max(r.lines.get(p.line) ?? 0, p.count));
    if (p.kind === 'branch') {
      const arms = r.branches.get(p.line) ?? [];
      arms.push(p.count);
      r.branches.set(p.line, arms);
      if (!r.lines.has(p.line)) r.lines.set(p.line, 0);
    }
  }
  const out: string[] = [];
  for (const r of [...files.values()].sort((a, b) => a.sf.localeCompare(b.sf))) {
    if (!fs.existsSync(r.sf)) continue;
    // A branch line is executed whenever one of its arms is.
    for (const [l, arms] of r.branches) r.lines.set(l, Math.max(r.lines.get(l) ?? 0, arms.reduce((a, b) => a + b, 0)));
    out.push(`TN:${testName}`, `SF:${r.sf}`);
    const lines = [...r.lines.entries()].sort((a, b) => a[0] - b[0]);
    let block = 0, brf = 0, brh = 0;
    for (const [l, arms] of [...r.branches.entries()].sort((a, b) => a[0] - b[0])) {
      arms.forEach((c, i) => out.push(`BRDA:${l},${block},${i},${c}`));
      brf += arms.length;
      brh += arms.filter(c => c > 0).length;
      block++;
    }
    out.push(`BRF:${brf}`, `BRH:${brh}`);
    for (const [l, c] of lines) out.push(`DA:${l},${c}`);
    out.push(`LF:${lines.length}`, `LH:${lines.filter(([, c]) => c > 0).length}`, 'end_of_record');
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

/** genhtml over `info` into `htmlDir` (replaced). Returns the report's index.html. */
export async function genhtml(info: string, htmlDir: string, title: string): Promise<string> {
  fs.rmSync(htmlDir, { recursive: true, force: true });
  fs.mkdirSync(htmlDir, { recursive: true });
  await run('genhtml', ['--quiet', '--branch-coverage', '--legend', '--title', title, '--output-directory', htmlDir, info], { cwd: path.dirname(info) });
  return path.join(htmlDir, 'index.html');
}
