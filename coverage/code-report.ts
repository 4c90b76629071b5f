// Code coverage per module, from merged Verilator points: covered / total points of each kind
// (line, branch, toggle, user cover points), and the points never hit, listed by file and line.
//
// A point is covered when its count is at least 1 (lcov's convention; verilator_coverage's
// own annotation marks points under 10 as well, which a short regression would flood). A
// module instantiated twice has each point once per instance in the data; the table counts
// the module's points once, summing the instances (a line is covered when any instance ran it).

import type { CoverPoint, PointKind } from './verilator-data.ts';
import { POINT_KINDS, pointTop } from './verilator-data.ts';

export interface KindCount { readonly hit: number; readonly total: number }

export interface ModuleCoverage {
  readonly module: string;
  readonly kinds: Readonly<Record<PointKind, KindCount>>;
}

export interface Uncovered {
  readonly kind: PointKind;
  readonly module: string;
  readonly file: string;
  readonly line: number;
  /** What is not covered: `if`, `else`, `block`, `case`, a cover label, or toggles
   *  `signal bits 3,5` (bits of one signal never seen changing). */
  readonly what: string;
}

export interface CodeSummary {
  readonly modules: readonly ModuleCoverage[];
  readonly total: Readonly<Record<PointKind, KindCount>>;
  readonly uncovered: readonly Uncovered[];
  /** Counts of the user cover points (`m.cover`), by `module.label`. */
  readonly covers: readonly { readonly module: string; readonly label: string; readonly count: number; readonly file: string; readonly line: number }[];
}

/** One point per module and place: instances summed. */
export function foldInstances(points: readonly CoverPoint[]): CoverPoint[] {
  const byKey = new Map<string, CoverPoint>();
  for (const p of points) {
    const key = `${p.kind}\x00${p.module}\x00${p.file}\x00${p.line}\x00${p.column}\x00${p.comment}`;
    const have = byKey.get(key);
    byKey.set(key, have ? { ...have, count: have.count + p.count } : p);
  }
  return [...byKey.values()];
}

const zero = (): Record<PointKind, { hit: number; total: number }> => ({ line: { hit: 0, total: 0 }, branch: { hit: 0, total: 0 }, toggle: { hit: 0, total: 0 }, user: { hit: 0, total: 0 } });

/** `q[3]` → ['q', 3]; a one-bit signal → ['q', -1]. */
function toggleBit(comment: string): [string, number] {
  const m = /^(.*)\[(\d+)\]$/.exec(comment);
  return m ? [m[1]!, Number(m[2])] : [comment, -1];
}

function uncoveredToggles(points: readonly CoverPoint[]): Uncovered[] {
  const bySignal = new Map<string, { p: CoverPoint; name: string; bits: number[] }>();
  for (const p of points) {
    const [name, bit] = toggleBit(p.comment);
    const key = `${p.module}\x00${p.file}\x00${name}`;
    let e = bySignal.get(key);
    if (!e) bySignal.set(key, e = { p, name, bits: [] });
    if (bit >= 0) e.bits.push(bit);
  }
  return [...bySignal.values()].map(({ p, name, bits }) => ({
    kind: 'toggle', module: p.module, file: p.file, line: p.line,
    what: bits.length ? `${name} bit${bits.length > 1 ? 's' : ''} ${bits.sort((a, b) => a - b).join(',')} never toggled` : `${name} never toggled`,
  }));
}

export function summarizeCode(points: readonly CoverPoint[]): CodeSummary {
  const folded = foldInstances(points);
  const modules = new Map<string, Record<PointKind, { hit: number; total: number }>>();
  const total = zero();
  for (const p of folded) {
    let m = modules.get(p.module);
    if (!m) modules.set(p.module, m = zero());
    for (const acc of [m[p.kind], total[p.kind]]) {
      acc.total++;
      if (p.count > 0) acc.hit++;
    }
  }
  const missed = folded.filter(p => p.count === 0);
  const byPlace = (a: Uncovered, b: Uncovered): number =>
    a.module.localeCompare(b.module) || a.file.localeCompare(b.file) || a.line - b.line || POINT_KINDS.indexOf(a.kind) - POINT_KINDS.indexOf(b.kind) || a.what.localeCompare(b.what);
  const uncovered = [
    ...missed.filter(p => p.kind !== 'toggle').map((p): Uncovered => ({ kind: p.kind, module: p.module, file: p.file, line: p.line, what: p.kind === 'user' ? `cover ${p.comment} never hit` : p.comment })),
    ...uncoveredToggles(missed.filter(p => p.kind === 'toggle')),
  ].sort(byPlace);
  const covers = folded.filter(p => p.kind === 'user')
    .map(p => ({ module: p.module, label: p.comment, count: p.count, file: p.file, line: p.line }))
    .sort((a, b) => a.module.localeCompare(b.module) || a.line - b.line);
  return {
    modules: [...modules.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([module, kinds]) => ({ module, kinds })),
    total, uncovered, covers,
  };
}

export const percent = (k: KindCount): string => (k.total === 0 ? '-' : `${(100 * k.hit / k.total).toFixed(1)} %`);

/** The per-module table as text lines: `module  line  branch  toggle  user` with hit/total (%). */
export function codeTable(s: Pick<CodeSummary, 'modules' | 'total'>): string[] {
  const cell = (k: KindCount): string => (k.total === 0 ? '-' : `${k.hit}/${k.total} (${percent(k)})`);
  const rows = [...s.modules.map(m => [m.module, ...POINT_KINDS.map(k => cell(m.kinds[k]))]), ['total', ...POINT_KINDS.map(k => cell(s.total[k]))]];
  const head = ['module', 'line', 'branch', 'toggle', 'cover points'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map(r => r[i]!.length)));
  const line = (r: readonly string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)];
}

/** Uncovered points as `module file:line kind what` lines (at most `limit`, then a count). */
export function uncoveredLines(s: CodeSummary, limit = Infinity): string[] {
  const out = s.uncovered.slice(0, limit).map(u => `${u.module} ${u.file}:${u.line} ${u.kind} ${u.what}`);
  if (s.uncovered.length > limit) out.push(`... and ${s.uncovered.length - limit} more (see the line report)`);
  return out;
}

/** Distinct tops in the data (for the sources each needs). */
export function topsOf(points: readonly CoverPoint[]): string[] {
  return [...new Set(points.map(pointTop))].filter(Boolean).sort();
}
