// What a failed test gets besides its message: the wave window that covers the cause, the
// ports its check watched, a GTKWave savefile for every dump, and — from a re-run with the
// same seed that traces only that window — a picture of the signals that matter.
//
// The window: from where the cause began (a wait's start, a scoreboard record's cycle;
// HasCauseCycle in tb/core/errors.ts) or 200 cycles before the failure when the error does
// not say, to 10 cycles after it; at most MAX_WINDOW cycles, ending at the failure.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from '../../gen/emit/manifest.ts';
import type { ClockTime } from '../../sim/clock.ts';
import type { FailureFiles } from '../core/errors.ts';
import { dumpHeader, DumpToolError } from './dump.ts';
import { pictureColumns, renderPicture } from './picture.ts';
import { savefileFor, writeSavefile, type Marker } from './savefile.ts';
import { svgToPng } from './wavedrom.ts';

/** Longest window a failure re-run traces (a hang can wait for a long time). */
export const MAX_WINDOW = 100_000;
const BEFORE_DEFAULT = 200;
const BEFORE_CAUSE = 20;
const AFTER = 10;

export function failureWindow(cycle: number, causeCycle: number | undefined): { from: number; to: number } {
  const start = causeCycle === undefined || causeCycle > cycle ? cycle - BEFORE_DEFAULT : causeCycle - BEFORE_CAUSE;
  const to = cycle + AFTER;
  return { from: Math.max(0, start, to - MAX_WINDOW), to };
}

/** Errors that name the ports they watched (bus checkers may). */
interface NamesSignals { readonly signals?: readonly string[]; readonly bus?: string }

/**
 * The top's ports a failed check watched: those the error names (`signals`, or `bus` as a
 * port-name prefix), and every port or IO path (`m.data`) its message mentions, each widened
 * to its whole interface (`m_data` brings m_valid and m_ready).
 */
export function watchedSignals(manifest: Manifest, message: string, err: unknown): string[] {
  const e = (typeof err === 'object' && err !== null ? err : {}) as NamesSignals;
  const hit = new Set<string>(e.signals ?? []);
  const words = new Set(message.split(/[^A-Za-z0-9_.]+/).flatMap(w => [w, ...w.split('.')]));
  const bus = e.bus?.split(/\s/)[0];
  for (const p of manifest.ports) {
    if (p.shape.kind === 'clock') continue;
    if (words.has(p.name) || (p.path.length > 1 && words.has(p.path.join('.'))) || (bus && p.name.startsWith(`${bus}_`))) hit.add(p.name);
  }
  const top = manifest.modules?.find(m => m.name === manifest.top);
  const out = new Set<string>();
  for (const name of hit) {
    const itf = top?.interfaces.find(i => i.ports.includes(name));
    for (const p of itf?.ports ?? [name]) out.add(p);
  }
  return manifest.ports.map(p => p.name).filter(n => out.has(n));
}

export interface DumpSavefileRequest {
  readonly manifest: Manifest;
  readonly clock: ClockTime;
  readonly dump: string;
  readonly marker?: Marker;
  readonly cause?: Marker;
  readonly highlight?: readonly string[];
  /** The cycles the dump holds: from its first to its last time (a failed run's hold included). */
  readonly dumped: { readonly from: number; readonly to: number };
}

/** Periods after a failure the dump holds (tb/core/scheduler.ts HOLD_AFTER_FAILURE). */
const HOLD = 8;

/** The view a savefile opens on: around the marker (from the cause), else the dump's start. */
function viewOf(r: DumpSavefileRequest): { from: number; to: number } {
  const { from, to } = r.dumped;
  if (!r.marker) return { from, to: Math.min(to, from + 400) };
  const end = Math.min(to, r.marker.cycle + HOLD);
  const start = Math.min(r.cause?.cycle ?? r.marker.cycle, r.marker.cycle - 16) - 4;
  return { from: Math.max(from, start), to: end };
}

/**
 * Writes the GTKWave savefile beside a dump; returns its path, or undefined when the dump
 * cannot be read (e.g. no GTKWave to read FST with: said once on stderr, the test goes on).
 */
export async function writeDumpSavefile(r: DumpSavefileRequest): Promise<string | undefined> {
  if (!fs.existsSync(r.dump)) return undefined;
  const savefile = savefileFor(r.dump);
  try {
    const header = await dumpHeader(r.dump);
    writeSavefile({
      manifest: r.manifest, header, dump: r.dump, savefile, clock: r.clock, view: viewOf(r),
      ...(r.marker ? { marker: r.marker } : {}), ...(r.cause ? { cause: r.cause } : {}),
      ...(r.highlight ? { highlight: r.highlight } : {}), title: `nicgen waves of ${r.manifest.top}, clock period ${r.clock.periodNs} ns`,
    });
    return savefile;
  } catch (err) {
    // A savefile is a help: it never turns a test's own outcome into another error.
    warnOnce(`nicgen: no GTKWave savefile for ${r.dump}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

let warned = false;
function warnOnce(text: string): void {
  if (warned) return;
  warned = true;
  process.stderr.write(`${text}\n`);
}

export interface RerunOutcome {
  readonly failed: boolean;
  readonly cycle: number;
  readonly message: string;
}

export interface FailureFilesRequest {
  readonly manifest: Manifest;
  readonly clock: ClockTime;
  /** Folder for this failure's files (created). */
  readonly dir: string;
  /** What failed, for the picture's title (`selftest/fail`, a vitest test name). */
  readonly name: string;
  readonly seed: number;
  readonly cycle: number;
  readonly message: string;
  readonly window: { readonly from: number; readonly to: number };
  readonly marker: Marker;
  readonly cause?: Marker;
  readonly watched: readonly string[];
  /** Runs the test again with the same seed, dumping waves of the window into `file`. */
  readonly rerun: (wave: { file: string; from: number; to: number }) => Promise<RerunOutcome>;
  /** Dump format the model writes (default fst). */
  readonly format?: 'fst' | 'vcd';
}

/** Re-runs the failure with tracing on its window and draws it; never throws for a drawing problem. */
export async function failureFiles(r: FailureFilesRequest): Promise<{ files?: FailureFiles; note?: string }> {
  fs.mkdirSync(r.dir, { recursive: true });
  const dump = path.join(r.dir, `waves.${r.format ?? 'fst'}`);
  fs.rmSync(dump, { force: true });
  let again: RerunOutcome;
  try {
    again = await r.rerun({ file: dump, from: r.window.from, to: r.window.to });
  } catch (err) {
    // The failure being reported matters more than its picture.
    return { note: `the re-run could not be made: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
  }
  if (!again.failed) return { note: `the re-run with seed ${r.seed} passed: the test depends on more than its seed (Math.random, time, files?)` };
  const diverged = again.cycle !== r.cycle || again.message !== r.message;
  try {
    const dumped = { from: r.window.from, to: again.cycle + HOLD };
    const savefile = await writeDumpSavefile({ manifest: r.manifest, clock: r.clock, dump, dumped, marker: r.marker, ...(r.cause ? { cause: r.cause } : {}), highlight: r.watched });
    const firstLine = r.clock.annotate(r.message.split('\n')[0]!);
    const title = `${r.name}, seed ${r.seed}: ${firstLine.length > 110 ? `${firstLine.slice(0, 107)}...` : firstLine}`;
    const columns = pictureColumns(again.cycle, r.cause?.cycle, r.window.from);
    const pic = await renderPicture({ manifest: r.manifest, clock: r.clock, dump, cycle: again.cycle, ...(r.cause ? { causeCycle: r.cause.cycle } : {}), watched: r.watched, title, columns });
    const svg = path.join(r.dir, 'failure.svg');
    fs.writeFileSync(svg, pic.svg);
    const png = path.join(r.dir, 'failure.png');
    fs.writeFileSync(png, svgToPng(pic.svg));
    const files: FailureFiles = { svg, png, dump, savefile };
    return diverged ? { files, note: `the re-run failed at cycle ${again.cycle}, not ${r.cycle}: the picture shows the re-run` } : { files };
  } catch (err) {
    if (err instanceof DumpToolError) return { note: err.message };
    return { note: `drawing the failure failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
