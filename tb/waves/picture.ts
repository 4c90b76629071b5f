// The failure picture: a WaveDrom timing diagram of the signals that matter around a
// failure — the clock, the bus the failed check watched (its struct fields by name), every
// FSM of the design by state name, and the top's valid/ready handshakes that moved — with
// the failing cycle marked in red and the cause's cycle (a wait's start) in blue.
//
// Each column is one cycle c: the values rising edge c+1 samples (registers as edge c left
// them, inputs as the testbench drove them in cycle c), read from the dump at c·P + P/2.
// The failing cycle's column shows the values just after its edge, what the check read.

import type { Manifest } from '../../gen/emit/manifest.ts';
import type { ShapeJson } from '../../gen/hdl/shape.ts';
import type { ClockTime } from '../../sim/clock.ts';
import { dumpChanges, dumpHeader } from './dump.ts';
import { moduleScopes, scopeContents, typedShape, type ModuleScope } from './scopes.ts';
import { valueAt, type VcdHeader, type VcdTrace, type VcdVar } from './vcd.ts';
import { findById, renderWaveDrom, type Onml, type WaveLane } from './wavedrom.ts';

/** A column: a cycle, or a gap between two runs of cycles. */
export type Column = number | 'gap';

export interface PictureRequest {
  readonly manifest: Manifest;
  readonly clock: ClockTime;
  readonly dump: string;
  readonly cycle: number;
  readonly causeCycle?: number;
  /** Ports of the top the failed check watched. */
  readonly watched: readonly string[];
  readonly title: string;
  readonly columns: readonly Column[];
}

export interface Picture {
  readonly svg: string;
  /** Lanes drawn (the clock included), for tests and the summary line. */
  readonly lanes: readonly string[];
}

/** A lane before it is turned into WaveDrom's characters. */
interface Row {
  readonly name: string;
  readonly v: VcdVar;
  /** Bits [lo, lo+width) of the variable (a struct field), or the whole. */
  readonly lo: number;
  readonly width: number;
  /** Names by value (FSM states, enum members). */
  readonly names?: ReadonlyMap<number, string>;
}

const MAX_HANDSHAKES = 12;
const MAX_FIELDS = 10;
/** Pixels per column at this (whole-number) hscale: WaveDrom draws 40 per unit. */
const HSCALE = 2;
const COLUMN_PX = 40 * HSCALE;

/** The columns to draw: one run up to the failure, or the cause's start and the end with a gap. */
export function pictureColumns(cycle: number, causeCycle: number | undefined, firstDumped: number): Column[] {
  const range = (a: number, b: number): number[] => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
  const lo = Math.max(firstDumped, 0);
  if (causeCycle === undefined || cycle - causeCycle <= 36) {
    return range(Math.max(lo, Math.min(causeCycle ?? cycle, cycle - 28) - 4), cycle);
  }
  return [...range(Math.max(lo, causeCycle - 4), causeCycle + 11), 'gap', ...range(cycle - 19, cycle)];
}

function fieldRows(name: string, v: VcdVar, shape: ShapeJson): Row[] {
  const rows: Row[] = [];
  const walk = (s: ShapeJson, n: string, off: number): void => {
    if (rows.length >= MAX_FIELDS) return;
    if (s.kind === 'struct') for (const f of s.fields) walk(f.shape, `${n}.${f.name}`, off + f.offset);
    else if (s.kind === 'vec') for (let i = 0; i < s.count; i++) walk(s.element, `${n}[${i}]`, off + i * s.element.width);
    else rows.push({ name: n, v, lo: off, width: s.width, ...(s.kind === 'enum' ? { names: namesOf(s.members) } : {}) });
  };
  walk(shape, name, 0);
  return rows;
}

const namesOf = (m: Readonly<Record<string, number>>): Map<number, string> => new Map(Object.entries(m).map(([k, v]) => [v, k]));

/** The rows of the picture, in order, each variable at most once. */
function selectRows(manifest: Manifest, header: VcdHeader, watched: readonly string[]): Row[] {
  const rows: Row[] = [];
  const scopes = moduleScopes(manifest, header);
  const top = scopes[0];
  const topVars = new Map((top?.scope ?? header.root.scopes.get('TOP'))?.vars.map(v => [v.name, v]) ?? []);
  const shown = new Set<string>();
  const add = (ms: ModuleScope | undefined, v: VcdVar, name: string): void => {
    const key = `${ms?.path ?? 'TOP'}.${v.name}`;
    if (shown.has(key)) return;
    shown.add(key);
    const shape = ms ? typedShape(manifest, ms, v.name) : undefined;
    if (shape && (shape.kind === 'struct' || shape.kind === 'vec') && shape.width === v.width) {
      rows.push({ name, v, lo: 0, width: v.width });
      rows.push(...fieldRows(name, v, shape).map(r => ({ ...r, name: `.${r.name.slice(name.length + 1)}` })));
    } else if (shape?.kind === 'enum') {
      rows.push({ name, v, lo: 0, width: v.width, names: namesOf(shape.members) });
    } else {
      rows.push({ name, v, lo: 0, width: v.width });
    }
  };
  for (const w of watched) {
    const v = topVars.get(w);
    if (v) add(top, v, w);
  }
  for (const ms of scopes) {
    for (const f of scopeContents(manifest, ms).fsms) {
      shown.add(`${ms.path}.${f.v.name}`);
      rows.push({ name: `${ms.rel || ms.moduleName || 'top'}.${f.v.name}`, v: f.v, lo: 0, width: f.v.width, names: namesOf(f.fsm.states) });
    }
  }
  let pairs = 0;
  for (const [name, v] of topVars) {
    if (pairs >= MAX_HANDSHAKES) break;
    const m = /^(.*?)(t?)valid$/.exec(name);
    if (!m || v.width !== 1) continue;
    const ready = topVars.get(`${m[1]}${m[2]}ready`);
    if (!ready) continue;
    if (shown.has(`${top?.path ?? 'TOP'}.${name}`)) continue;
    rows.push({ name, v, lo: 0, width: 1 }, { name: ready.name, v: ready, lo: 0, width: 1 });
    shown.add(`${top?.path ?? 'TOP'}.${name}`).add(`${top?.path ?? 'TOP'}.${ready.name}`);
    pairs++;
  }
  return rows;
}

function hex(v: bigint): string {
  return v < 10n ? v.toString() : `0x${v.toString(16)}`;
}

/** A label that fits `columns` columns: long hex numbers keep their low digits. */
function fit(label: string, columns: number): string {
  const max = Math.max(2, Math.floor((columns * COLUMN_PX) / 8.5));
  if (label.length <= max) return label;
  return label.startsWith('0x') ? `…${label.slice(-(max - 1))}` : `${label.slice(0, max - 1)}…`;
}

/** WaveDrom characters for one row's sampled values. */
function lane(row: Row, values: readonly (bigint | null | 'gap')[]): WaveLane {
  if (row.width === 1 && !row.names) {
    let wave = '', prev = '';
    for (const v of values) {
      const c = v === 'gap' ? '|' : v === null ? 'x' : v === 0n ? '0' : '1';
      wave += c === prev && c !== '|' ? '.' : c;
      if (c !== '|') prev = c;
    }
    return { name: row.name, wave };
  }
  let wave = '';
  const data: string[] = [];
  let prev: bigint | null | undefined;
  let runStart = -1;
  const close = (end: number): void => {
    if (runStart >= 0 && data.length) data[data.length - 1] = fit(data[data.length - 1]!, end - runStart);
  };
  values.forEach((v, i) => {
    if (v === 'gap') { wave += '|'; return; }
    if (i > 0 && v === prev) { wave += '.'; return; }
    close(i);
    prev = v;
    runStart = i;
    if (v === null) { wave += 'x'; runStart = -1; return; }
    const name = row.names?.get(Number(v));
    // FSM states and enums get a colour per value, numbers the plain box.
    wave += row.names ? String(3 + (Number(v) % 6)) : '=';
    data.push(name ?? hex(v));
  });
  close(values.length);
  return { name: row.name, wave, data };
}

/** Draws a vertical band over a column of the lanes group (the wave area's own coordinates). */
function band(tree: Onml, col: number, height: number, colour: string): void {
  const lanes = findById(tree, 'lanes_0');
  if (!lanes) return;
  lanes.push(['rect', { x: col * COLUMN_PX, y: -4, width: COLUMN_PX, height: height + 8, style: `fill:${colour};fill-opacity:0.18;stroke:${colour};stroke-width:1.5` }]);
}

export async function renderPicture(r: PictureRequest): Promise<Picture> {
  const header = await dumpHeader(r.dump);
  const rows = selectRows(r.manifest, header, r.watched);
  const ids = new Set(rows.map(x => x.v.id));
  const { traces } = await dumpChanges(r.dump, ids);
  const units = 10 ** (-12 - header.timescale);
  const at = (c: number): number => Math.round((c === r.cycle ? r.clock.ps(c) : r.clock.ps(c) + r.clock.periodPs / 2) * units);
  const sample = (row: Row): (bigint | null | 'gap')[] => r.columns.map(c => {
    if (c === 'gap') return 'gap';
    const tr: VcdTrace | undefined = traces.get(row.v.id);
    const v = tr ? valueAt(tr, at(c)) : null;
    return v === null ? null : BigInt.asUintN(row.width, v >> BigInt(row.lo));
  });
  const lanes: WaveLane[] = [{ name: 'clk', wave: `p${'.'.repeat(Math.max(0, r.columns.length - 1))}`.split('').map((ch, i) => (r.columns[i] === 'gap' ? '|' : ch)).join('') }];
  for (const row of rows) lanes.push(lane(row, sample(row)));
  // One label per column. WaveDrom adds a start offset to the label string (`tock + 0`,
  // parse-config.js), which would glue a 0 to the last label: the trailing space makes it a
  // label of its own, past the last column, so it is not drawn.
  const tick = `${r.columns.map(c => (c === 'gap' ? '…' : String(c))).join(' ')} `;
  const failCol = r.columns.indexOf(r.cycle);
  const causeCol = r.causeCycle === undefined ? -1 : r.columns.indexOf(r.causeCycle);
  const foot = [`red: the failing ${r.clock.at(r.cycle)}`];
  if (r.causeCycle !== undefined) foot.push(`blue: where the cause began, ${r.clock.at(r.causeCycle)}`);
  foot.push(`clock period ${r.clock.periodNs} ns; a column is one cycle`);
  const svg = renderWaveDrom({
    signal: lanes,
    head: { text: escapeText(r.title), tock: tick },
    foot: { text: escapeText(foot.join('; ')) },
    config: { hscale: HSCALE },
  }, tree => {
    const height = lanes.length * 30;
    if (causeCol >= 0) band(tree, causeCol, height, '#2060e0');
    if (failCol >= 0) band(tree, failCol, height, '#e02020');
  });
  return { svg, lanes: lanes.map(l => l.name) };
}

/** WaveDrom reads `<...>` in texts as markup. */
function escapeText(s: string): string {
  return s.replace(/</g, '‹').replace(/>/g, '›');
}
