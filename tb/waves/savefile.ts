// GTKWave savefiles (.gtkw) for our dumps: signals grouped by module (the top open, each
// instance a closed group) and by interface (AXI split into its AW/W/B/AR/R channels,
// AXI-Stream, ready/valid streams), struct-typed signals split into named fields (bit-range
// aliases of the one vector), FSM states and enums shown by name (translate-filter files,
// filters.ts), the clock first, a marker at the failing cycle, and the view zoomed to the
// window that matters. Format: GTKWave 3.3's savefile.c (the flags are its TR_* bits).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from '../../gen/emit/manifest.ts';
import type { ShapeJson } from '../../gen/hdl/shape.ts';
import type { ClockTime } from '../../sim/clock.ts';
import { FilterFiles } from './filters.ts';
import { moduleScopes, scopeContents, typedShape, type InterfaceGroup, type ModuleScope } from './scopes.ts';
import type { VcdHeader, VcdVar } from './vcd.ts';

// GTKWave trace flags (analyzer.h).
const TR_HIGHLIGHT = 0x1, TR_HEX = 0x2, TR_BIN = 0x8, TR_RJUSTIFY = 0x20, TR_BLANK = 0x200;
const TR_COLLAPSED = 0x1000, TR_FTRANSLATED = 0x2000, TR_CLOSED = 0x400000, TR_GRP_BEGIN = 0x800000, TR_GRP_END = 0x1000000;

/** The window size a savefile asks for, and the wave area's width the zoom is computed for:
 *  a little more than GTKWave gives it (about 960 px), so the view's page fits in the dump
 *  (GTKWave ignores [timestart] when the page would run past the dump's end). */
const WINDOW = { width: 1600, height: 900, sst: 240, signals: 340, waves: 1000 };

export interface TraceItem {
  readonly kind: 'trace';
  /** GTKWave facility name: `TOP.nic_top.state[2:0]`. */
  readonly facility: string;
  readonly width: number;
  /** Shown name instead of the facility's (struct fields). */
  readonly alias?: string;
  /** A bit range of the facility (struct field), in the vector's own bit numbers. */
  readonly bits?: { readonly hi: number; readonly lo: number };
  readonly filter?: string;
  readonly highlight?: boolean;
}

export interface GroupItem {
  readonly kind: 'group';
  readonly name: string;
  readonly closed: boolean;
  readonly items: SaveItem[];
}

export type SaveItem = TraceItem | GroupItem;

export interface Marker {
  readonly cycle: number;
  readonly label: string;
}

export interface SavefileOptions {
  readonly manifest: Manifest;
  readonly header: VcdHeader;
  readonly dump: string;
  readonly savefile: string;
  readonly clock: ClockTime;
  /** Cycles the view opens on (default: the whole dump from its first cycle). */
  readonly view?: { readonly from: number; readonly to: number };
  /** The primary marker and named marker A (the failing cycle). */
  readonly marker?: Marker;
  /** Named marker B (where the cause began, e.g. a wait's start). */
  readonly cause?: Marker;
  /** Ports of the top to highlight: the bus a failed check watched. */
  readonly highlight?: readonly string[];
  readonly title?: string;
}

export interface Savefile {
  readonly text: string;
  readonly traces: number;
  readonly filters: readonly string[];
}

const facility = (ms: { path: string }, v: VcdVar): string => `${ms.path}.${v.name}${v.range}`;

/** A field's path as a trace name: GTKWave shows only what follows the last '.' of a name,
 *  so `sges[0].addr` is written `sges[0]/addr` (the group above names the signal). */
export function fieldAlias(path: string): string {
  return path.replace(/\./g, '/');
}

/** `[15:0]` → msb 15, lsb 0. */
function rangeOf(v: VcdVar): { msb: number; lsb: number } {
  const m = /^\[(-?\d+):(-?\d+)\]$/.exec(v.range);
  return m ? { msb: Number(m[1]), lsb: Number(m[2]) } : { msb: 0, lsb: 0 };
}

class Builder {
  readonly filters: FilterFiles;
  readonly #o: SavefileOptions;
  readonly #highlight: ReadonlySet<string>;

  constructor(o: SavefileOptions) {
    this.#o = o;
    this.filters = new FilterFiles(`${o.savefile.replace(/\.gtkw$/, '')}.filters`);
    this.#highlight = new Set(o.highlight ?? []);
  }

  /** A variable, split into fields when it is a struct or vector, named when an enum. */
  variable(ms: ModuleScope, v: VcdVar, shape: ShapeJson | undefined): SaveItem {
    // Highlighted: the top's ports a failed check watched.
    const watched = ms.rel === '' && this.#highlight.has(v.name);
    const base: TraceItem = { kind: 'trace', facility: facility(ms, v), width: v.width, ...(watched ? { highlight: true } : {}) };
    if (!shape || shape.width !== v.width) return base;
    if (shape.kind === 'enum') return { ...base, ...this.#filter(shape.name, shape.members, v.width) };
    if (shape.kind !== 'struct' && shape.kind !== 'vec') return base;
    const { lsb } = rangeOf(v);
    const fields: TraceItem[] = [];
    this.#fields(shape, '', 0, (name, s, offset) => {
      fields.push({
        kind: 'trace', facility: base.facility, width: s.width, alias: fieldAlias(name), bits: { hi: lsb + offset + s.width - 1, lo: lsb + offset },
        ...(s.kind === 'enum' ? this.#filter(s.name, s.members, s.width) : {}),
      });
    });
    const what = shape.kind === 'struct' ? `struct ${shape.name}` : `${shape.count} x ${shape.element.width} bits`;
    return { kind: 'group', name: `${v.name} (${what})`, closed: false, items: [base, ...fields] };
  }

  fsm(ms: ModuleScope, v: VcdVar, states: Readonly<Record<string, number>>, module: string): TraceItem {
    return { kind: 'trace', facility: facility(ms, v), width: v.width, ...this.#filter(`${module}.${v.name}`, states, v.width) };
  }

  #filter(name: string, names: Readonly<Record<string, number>>, width: number): { filter?: string } {
    const f = this.filters.file(name, names, width);
    return f ? { filter: f } : {};
  }

  /** Leaf fields of a struct/vector, flattened: `hdr.psn`, `lanes[3]`. */
  #fields(shape: ShapeJson, name: string, offset: number, leaf: (name: string, s: ShapeJson, offset: number) => void): void {
    if (shape.kind === 'struct') {
      for (const f of shape.fields) this.#fields(f.shape, name ? `${name}.${f.name}` : f.name, offset + f.offset, leaf);
    } else if (shape.kind === 'vec') {
      for (let i = 0; i < shape.count; i++) this.#fields(shape.element, `${name}[${i}]`, offset + i * shape.element.width, leaf);
    } else {
      leaf(name, shape, offset);
    }
  }

  interfaceGroup(ms: ModuleScope, itf: InterfaceGroup): GroupItem {
    const label = { axi: 'AXI4', 'axi-lite': 'AXI4-Lite', 'axi-stream': 'AXI-Stream', stream: 'stream', bundle: 'bundle' }[itf.kind];
    const item = (v: VcdVar): SaveItem => this.variable(ms, v, typedShape(this.#o.manifest, ms, v.name));
    if (itf.channels.length === 1 && itf.channels[0]!.name === '') {
      return { kind: 'group', name: `${itf.name} (${label})`, closed: false, items: itf.channels[0]!.vars.map(item) };
    }
    return {
      kind: 'group', name: `${itf.name} (${label})`, closed: false,
      items: itf.channels.map(ch => ({ kind: 'group', name: `${itf.name} ${ch.name ? ch.name.toUpperCase() : 'other'}`, closed: false, items: ch.vars.map(item) })),
    };
  }

  moduleGroup(ms: ModuleScope): GroupItem {
    const c = scopeContents(this.#o.manifest, ms);
    const items: SaveItem[] = [];
    for (const f of c.fsms) items.push(this.fsm(ms, f.v, f.fsm.states, f.fsm.module));
    for (const itf of c.interfaces) items.push(this.interfaceGroup(ms, itf));
    for (const t of c.typed) items.push(this.variable(ms, t.v, t.shape));
    if (c.other.length) {
      items.push({ kind: 'group', name: `${ms.rel || ms.moduleName || ms.scope.name}: other signals`, closed: true, items: c.other.map(v => this.variable(ms, v, undefined)) });
    }
    const name = ms.rel === '' ? `${ms.moduleName ?? ms.scope.name} (top)` : `${ms.rel} (${ms.moduleName ?? 'module'})`;
    return { kind: 'group', name, closed: ms.depth > 0, items };
  }
}

/** The traces and groups of a savefile for a dump of `manifest`'s top. */
export function savefileItems(o: SavefileOptions): { items: SaveItem[]; filters: FilterFiles } {
  const b = new Builder(o);
  const items: SaveItem[] = [];
  const top = o.header.root.scopes.get('TOP');
  const clock = top?.vars.find(v => v.name === 'clk') ?? top?.vars.find(v => v.width === 1);
  if (top && clock) items.push({ kind: 'trace', facility: `TOP.${clock.name}${clock.range}`, width: clock.width });
  const scopes = moduleScopes(o.manifest, o.header);
  if (scopes.length === 0 && top) {
    // Not a design we know the hierarchy of: the top's ports as they are.
    items.push({ kind: 'group', name: 'TOP', closed: false, items: top.vars.filter(v => v !== clock).map(v => b.variable({ path: 'TOP', rel: '', scope: top, module: undefined, moduleName: undefined, depth: 0 }, v, undefined)) });
  }
  for (const ms of scopes) items.push(b.moduleGroup(ms));
  return { items, filters: b.filters };
}

function countTraces(items: readonly SaveItem[]): number {
  return items.reduce((n, i) => n + (i.kind === 'trace' ? 1 : countTraces(i.items)), 0);
}

class Writer {
  readonly lines: string[] = [];
  #flags = -1;
  readonly #filterIds = new Map<string, number>();

  flags(f: number): void {
    if (f !== this.#flags) this.lines.push(`@${f.toString(16)}`);
    this.#flags = f;
  }

  item(i: SaveItem): void {
    if (i.kind === 'group') {
      this.flags(TR_GRP_BEGIN | TR_BLANK | (i.closed ? TR_CLOSED : 0));
      this.lines.push(`-${i.name}`);
      for (const x of i.items) this.item(x);
      this.flags(TR_GRP_END | TR_BLANK | (i.closed ? TR_CLOSED | TR_COLLAPSED : 0));
      this.lines.push(`-${i.name}`);
      return;
    }
    const width = i.bits ? i.bits.hi - i.bits.lo + 1 : i.width;
    let f = (width > 1 ? TR_HEX : TR_BIN) | TR_RJUSTIFY | (i.highlight ? TR_HIGHLIGHT : 0);
    if (i.filter) f |= TR_FTRANSLATED;
    this.flags(f);
    if (i.filter) {
      let id = this.#filterIds.get(i.filter);
      if (id === undefined) this.#filterIds.set(i.filter, id = this.#filterIds.size + 1);
      this.lines.push(`^${id} ${i.filter}`);
    }
    this.lines.push(this.traceLine(i));
  }

  /** A whole facility, or a bit range of it as GTKWave writes an extracted vector. */
  traceLine(i: TraceItem): string {
    const alias = i.alias ? `+{${i.alias}} ` : '';
    if (!i.bits) return `${alias}${i.facility}`;
    const m = /\[(-?\d+):(-?\d+)\]$/.exec(i.facility);
    const msb = m ? Number(m[1]) : 0;
    // GTKWave numbers the bits of a vector from its left end: (0) is the msb.
    const bit = (b: number): string => `(${msb - b})${i.facility}`;
    if (i.bits.hi === i.bits.lo) return `${alias}${bit(i.bits.hi)}`;
    const parts: string[] = [];
    for (let b = i.bits.hi; b >= i.bits.lo; b--) parts.push(bit(b));
    const base = i.facility.replace(/\[[^\]]*\]$/, '');
    return `${alias}#{${base}.${i.alias ?? 'bits'}[${i.bits.hi - i.bits.lo}:0]} ${parts.join(' ')}`;
  }
}

/** Time units of the dump per picosecond (the dump's $timescale is usually 1 ps). */
function unitsOf(o: SavefileOptions, cycle: number): number {
  return Math.round(o.clock.ps(cycle) * 10 ** (-12 - o.header.timescale));
}

export function renderSavefile(o: SavefileOptions): Savefile {
  const { items } = savefileItems(o);
  const w = new Writer();
  const t = (c: number): number => unitsOf(o, c);
  const markers = Array.from({ length: 26 }, () => -1);
  if (o.marker) markers[0] = t(o.marker.cycle);
  if (o.cause) markers[1] = t(o.cause.cycle);
  const view = o.view;
  const span = view ? Math.max(1, t(view.to) - t(view.from)) : 0;
  // GTKWave shows 2^-zoom time units per 200 pixels (wavewindow.c calczoom).
  const zoom = view ? -Math.log2((200 * span) / WINDOW.waves) : 0;
  w.lines.push(
    `[*] ${o.title ?? `nicgen: ${o.manifest.top}`}`,
    '[*] written by nicgen (tb/waves/savefile.ts); open with: nicgen wave <dump>',
    `[dumpfile] "${path.resolve(o.dump)}"`,
    `[savefile] "${path.resolve(o.savefile)}"`,
    `[timestart] ${view ? t(view.from) : 0}`,
    `[size] ${WINDOW.width} ${WINDOW.height}`,
    '[pos] -1 -1',
    `*${zoom.toFixed(6)} ${o.marker ? t(o.marker.cycle) : -1} ${markers.join(' ')}`,
  );
  if (o.marker) w.lines.push(`[markername] A${o.marker.label}`);
  if (o.cause) w.lines.push(`[markername] B${o.cause.label}`);
  w.lines.push('[treeopen] TOP.', `[treeopen] TOP.${o.manifest.top}.`,
    `[sst_width] ${WINDOW.sst}`, `[signals_width] ${WINDOW.signals}`, '[sst_expanded] 1', '[sst_vpaned_height] 200');
  for (const i of items) w.item(i);
  w.lines.push('[pattern_trace] 1', '[pattern_trace] 0');
  return { text: `${w.lines.join('\n')}\n`, traces: countTraces(items), filters: [...new Set(collectFilters(items))] };
}

function collectFilters(items: readonly SaveItem[]): string[] {
  return items.flatMap(i => (i.kind === 'group' ? collectFilters(i.items) : i.filter ? [i.filter] : []));
}

/** Writes `<dump without extension>.gtkw` (and its filter folder) beside the dump. */
export function writeSavefile(o: SavefileOptions): Savefile {
  const s = renderSavefile(o);
  fs.writeFileSync(o.savefile, s.text);
  return s;
}

/** The savefile that belongs to a dump: `x.fst` → `x.gtkw`. */
export function savefileFor(dump: string): string {
  return dump.replace(/\.(fst|vcd)$/, '') + '.gtkw';
}
