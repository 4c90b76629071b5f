// Verilator's coverage data (`coverage.dat`, "SystemC::Coverage-3"): one line per point,
//   C '<key>' <count>
// where the key is fields `\x01name\x02value`: f file, l line, n column, page
// `v_line|v_branch|v_toggle|v_user/<module>`, o comment (block/if/else/case, the toggled
// signal bit, the cover label), S the source lines the point stands for, h hierarchy.
// (Verilator 5.006; v_branch are the if/else arms, v_line the blocks and case items.)
//
// Merging is verilator_coverage's job (`--write`, summing counts per key); this file reads the
// result for the tables and the line report.

import * as fs from 'node:fs';
import { run } from '../sim/exec.ts';

export type PointKind = 'line' | 'branch' | 'toggle' | 'user';
export const POINT_KINDS: readonly PointKind[] = ['line', 'branch', 'toggle', 'user'];

export interface CoverPoint {
  readonly kind: PointKind;
  /** Module name (from the page), e.g. `nic_top`. */
  readonly module: string;
  /** Verilog file as given to Verilator (a plain name: `nic_top.v`). */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** block / if / else / case / elsif, the signal bit (`q[3]`), or the cover label. */
  readonly comment: string;
  /** Source lines the point stands for (S field; the point's own line when absent). */
  readonly lines: readonly number[];
  /** Hierarchy, `TOP.<top>.<instance>...`. */
  readonly hier: string;
  readonly count: number;
}

function fields(key: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of key.split('\x01')) {
    if (!part) continue;
    const i = part.indexOf('\x02');
    if (i > 0) out.set(part.slice(0, i), part.slice(i + 1));
  }
  return out;
}

/** `10,16` or `11-12` or `17` → line numbers. */
function spanLines(s: string | undefined, own: number): number[] {
  if (!s) return [own];
  const out: number[] = [];
  for (const piece of s.split(',')) {
    const [a, b] = piece.split('-').map(Number);
    if (!Number.isInteger(a)) continue;
    for (let l = a!; l <= (Number.isInteger(b) ? b! : a!); l++) out.push(l);
  }
  return out.length ? out : [own];
}

const kinds: Readonly<Record<string, PointKind>> = { v_line: 'line', v_branch: 'branch', v_toggle: 'toggle', v_user: 'user' };

/** Points of a coverage.dat text. Unknown pages (other Verilator versions) are skipped. */
export function parseCoverage(text: string): CoverPoint[] {
  const out: CoverPoint[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith("C '")) continue;
    const end = line.lastIndexOf("' ");
    if (end < 3) continue;
    const f = fields(line.slice(3, end));
    const page = f.get('page') ?? '';
    const slash = page.indexOf('/');
    const kind = kinds[slash > 0 ? page.slice(0, slash) : page];
    if (!kind) continue;
    const own = Number(f.get('l') ?? 0);
    out.push({
      kind, module: page.slice(slash + 1), file: f.get('f') ?? '', line: own, column: Number(f.get('n') ?? 0), comment: f.get('o') ?? '',
      lines: spanLines(f.get('S'), own), hier: f.get('h') ?? '', count: Number(line.slice(end + 2)),
    });
  }
  return out;
}

export function readCoverage(file: string): CoverPoint[] {
  return parseCoverage(fs.readFileSync(file, 'latin1'));
}

/** The top a point belongs to: `TOP.<top>...` → `<top>`. */
export function pointTop(p: CoverPoint): string {
  const parts = p.hier.split('.');
  return parts[0] === 'TOP' ? parts[1] ?? '' : parts[0] ?? '';
}

/** `verilator_coverage --write out in...`: counts summed per point. One input is copied. */
export async function mergeCoverageFiles(inputs: readonly string[], out: string): Promise<void> {
  if (inputs.length === 0) throw new Error('mergeCoverageFiles: no inputs');
  const tmp = `${out}.${process.pid}.tmp`;
  await run('verilator_coverage', ['--write', tmp, ...inputs], { cwd: process.cwd() });
  fs.renameSync(tmp, out);
}
