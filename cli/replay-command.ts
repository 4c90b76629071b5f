// `nicgen replay --scenario S.json --in frames.pcap[ng] [--out tx.pcap] [--dump DIR] [--fcs]
// [--burst 1-3]`: loads one nic_top as the scenario says, cleans up the captured frames (SLL,
// FCS, VLAN tags: tb/replay/frame-cleanup.ts), feeds them to its RX port in order (one at a
// time, or back to back in --burst ranges), and prints one row per frame (verdict, what the
// NIC answered, what the clean-up did); see docs/replay.md.
//
// Exit codes: 0 when the replay ran (rejected frames are a result, not an error), 1 for a bad
// scenario, a bad argument value or an unreadable capture (one line on stderr), and 1 with
// --expect-all-accepted when any frame was rejected. Progress on stderr, table on stdout.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { ClockTime, DEFAULT_PERIOD_NS } from '../sim/clock.ts';
import { parseBursts, type FrameRange } from '../tb/replay/burst.ts';
import { CaptureError, readCapture, type CaptureFile } from '../tb/replay/capture-file.ts';
import { cleanCapture, type InputFrame } from '../tb/replay/frame-cleanup.ts';
import { formatInputSummary, formatSummary, formatTable } from '../tb/replay/report.ts';
import { runReplay, type ReplayRow } from '../tb/replay/run.ts';
import { loadScenario, ScenarioError, type Scenario } from '../tb/replay/scenario.ts';
import { savefileFor } from '../tb/waves/savefile.ts';
import type { ProgressStream } from './sim-progress.ts';

export interface ReplayArgs {
  readonly scenario: string | undefined;
  readonly in: string | undefined;
  readonly out: string | undefined;
  readonly dump: string | undefined;
  readonly expectAllAccepted: boolean;
  readonly rejectedOnly: boolean;
  readonly settle: number | undefined;
  readonly frameTimeout: number | undefined;
  readonly wave: string | undefined;
  /** Seconds between progress lines (default: 0.25 redrawn on a terminal, else 5). */
  readonly progress: number | undefined;
  /** Every captured frame ends with a 4-byte FCS. */
  readonly fcs?: boolean;
  /** Frame ranges fed back to back: `1-3,7-9` or `all`. */
  readonly burst?: string | undefined;
}

export interface ReplayIO {
  readonly out: (line: string) => void;
  readonly err: ProgressStream;
}

const defaultIO: ReplayIO = { out: line => console.log(line), err: process.stderr };

/** A bad argument value or input file: one line, exit 1. */
class ReplayInputError extends Error {}

function wholeNumber(name: string, v: number | undefined, min: number): number | undefined {
  if (v !== undefined && (!Number.isInteger(v) || v < min)) throw new ReplayInputError(`--${name} must be a whole number >= ${min}, got ${v}`);
  return v;
}

function folderOf(option: string, file: string | undefined): void {
  if (file !== undefined && !fs.existsSync(path.dirname(path.resolve(file)))) {
    throw new ReplayInputError(`--${option} ${file}: folder ${path.dirname(file)} does not exist`);
  }
}

/** The capture's frames, cleaned up for the RX port (frame-cleanup.ts: each change is a note
 *  on its row); warns about an incomplete last record. */
function readFrames(file: string, s: Scenario, fcs: boolean, io: ReplayIO): { cap: CaptureFile; frames: InputFrame[] } {
  if (!fs.existsSync(file)) throw new ReplayInputError(`--in ${file}: no such file`);
  let cap;
  try { cap = readCapture(file); } catch (e) {
    if (e instanceof CaptureError) throw new ReplayInputError(`--in ${e.message}`);
    throw e;
  }
  if (cap.trailingBytes) io.err.write(`nicgen replay: warning: ${file} ends with ${cap.trailingBytes} bytes of an incomplete record (ignored)\n`);
  const empty = cap.packets.findIndex(r => r.data.length === 0);
  if (empty >= 0) throw new ReplayInputError(`--in ${file}: frame ${empty + 1} is empty`);
  return { cap, frames: cleanCapture(cap, { fcs, nicMac: Number(s.nic.mac) }) };
}

function burstsOf(text: string | undefined, frames: number): FrameRange[] {
  if (text === undefined) return [];
  try { return parseBursts(text, frames); } catch (e) { throw new ReplayInputError((e as Error).message); }
}

/** Frame-count progress: redrawn on a terminal, a plain line every few seconds otherwise. */
interface Progress {
  /** The model is built: the simulation starts now. */
  start(): void;
  onFrame(row: ReplayRow, total: number, cycle: number): void;
  done(): void;
}

/** Replays run at the default clock period (cycle N at N x 4 ns in the dump). */
const clock = new ClockTime(DEFAULT_PERIOD_NS);

function progressReporter(err: ProgressStream, every: number | undefined): Progress {
  const tty = err.isTTY === true;
  const interval = (every ?? (tty ? 0.25 : 5)) * 1000;
  let t0 = performance.now(), last = t0, drawn = false;
  return {
    start: () => { t0 = last = performance.now(); },
    onFrame: (row, total, cycle) => {
      const now = performance.now();
      if (now - last < interval) return;
      last = now;
      const text = `replay: frame ${row.frame}/${total}, cycle ${cycle.toLocaleString('en-US')} (${clock.short(cycle)} simulated), ${((now - t0) / 1000).toFixed(1)} s`;
      if (tty) { err.write(`\r\x1b[K${text}`); drawn = true; } else err.write(`${text}\n`);
    },
    done: () => { if (drawn) err.write('\r\x1b[K'); },
  };
}

function checkArgs(a: ReplayArgs): { scenario: string; input: string } {
  if (a.scenario === undefined) throw new ReplayInputError('name the scenario with --scenario FILE (format: docs/replay.md)');
  if (a.in === undefined) throw new ReplayInputError('name the capture to replay with --in FILE.pcap (pcap or pcapng)');
  wholeNumber('settle', a.settle, 1);
  wholeNumber('frame-timeout', a.frameTimeout, 100);
  if (a.progress !== undefined && !(a.progress >= 0)) throw new ReplayInputError(`--progress must be seconds >= 0, got ${a.progress}`);
  folderOf('out', a.out);
  folderOf('wave', a.wave);
  if (a.dump !== undefined && fs.existsSync(a.dump) && !fs.statSync(a.dump).isDirectory()) throw new ReplayInputError(`--dump ${a.dump} is a file, not a folder`);
  return { scenario: a.scenario, input: a.in };
}

export async function replayCommand(a: ReplayArgs, io: ReplayIO = defaultIO): Promise<number> {
  let scenario: Scenario, input: { cap: CaptureFile; frames: InputFrame[] }, bursts: FrameRange[];
  try {
    const x = checkArgs(a);
    scenario = loadScenario(x.scenario);
    input = readFrames(x.input, scenario, a.fcs ?? false, io);
    bursts = burstsOf(a.burst, input.frames.length);
  } catch (e) {
    if (!(e instanceof ReplayInputError || e instanceof ScenarioError)) throw e;
    io.err.write(`nicgen replay: ${e.message}\n`);
    return 1;
  }
  const t0 = performance.now();
  const progress = progressReporter(io.err, a.progress);
  if (io.err.isTTY) io.err.write(`\r\x1b[Kreplay: building the nic_top model (numQp ${scenario.nic.numQp}, numMr ${scenario.nic.numMr})...`);
  const r = await runReplay({
    scenario, frames: input.frames, bursts,
    ...(a.out !== undefined ? { txPcap: a.out } : {}), ...(a.dump !== undefined ? { dumpDir: a.dump } : {}),
    ...(a.settle !== undefined ? { settle: a.settle } : {}), ...(a.frameTimeout !== undefined ? { frameTimeout: a.frameTimeout } : {}),
    ...(a.wave !== undefined ? { wave: a.wave } : {}),
    onStart: () => progress.start(),
    onFrame: (row, total, cycle) => progress.onFrame(row, total, cycle),
  });
  progress.done();
  for (const line of formatTable(r.rows, { rejectedOnly: a.rejectedOnly })) io.out(line);
  const summary = formatSummary(r, { txPcap: a.out, seconds: (performance.now() - t0) / 1000 });
  for (const line of [summary[0]!, formatInputSummary(a.in!, input.cap, input.frames), ...summary.slice(1)]) io.out(line);
  if (a.wave !== undefined) {
    const savefile = savefileFor(a.wave);
    io.out(`waves: ${a.wave}${fs.existsSync(savefile) ? `, GTKWave savefile ${savefile} (nicgen wave ${a.wave})` : ''}, clock period ${clock.periodNs} ns`);
  }
  const rejected = r.rows.filter(x => !x.verdict.accepted).length;
  if (a.expectAllAccepted && rejected > 0) {
    io.err.write(`nicgen replay: --expect-all-accepted: ${rejected} of ${r.rows.length} frames were rejected\n`);
    return 1;
  }
  return 0;
}
