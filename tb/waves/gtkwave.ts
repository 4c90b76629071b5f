// Running the real GTKWave: `nicgen wave` opens a dump with its savefile, and the savefile
// test loads each generated savefile in a headless GTKWave (Xvfb) that reports what it shows
// (Tcl) and grabs a screenshot, so a savefile GTKWave cannot read fails the test.

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** True when a program is on PATH. */
export function onPath(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

/** One trace as GTKWave lists it: its shown name, the value at the primary marker, its flags. */
export interface ShownTrace {
  readonly name: string;
  readonly value: string;
  readonly flags: number;
}

export interface GtkwaveView {
  readonly traces: readonly ShownTrace[];
  /** The primary marker's time, -1 when none. */
  readonly marker: number;
  /** The left edge of the wave window (dump time units). */
  readonly windowStart: number;
  readonly screenshot: string;
  /** GTKWave's own output, for a failing test to show. */
  readonly log: string;
}

const TCL = (png: string, values: boolean): string => `
puts "nicgen-marker [gtkwave::getMarker]"
puts "nicgen-start [gtkwave::getWindowStartTime]"
set n [gtkwave::getTotalNumTraces]
for {set i 0} {$i < $n} {incr i} {
  puts "nicgen-trace [gtkwave::getTraceFlagsFromIndex $i]\\t[gtkwave::getTraceNameFromIndex $i]\\t${values ? '[gtkwave::getTraceValueAtMarkerFromIndex $i]' : ''}"
}
gtkwave::/File/Grab_To_File ${png}
gtkwave::/File/Quit
`;

/**
 * Opens `dump` with `savefile` in GTKWave under Xvfb, lists the traces (with their values at
 * the primary marker unless `values` is false: that costs seconds for 10 000 traces) and
 * saves a screenshot.
 */
export async function gtkwaveHeadless(dump: string, savefile: string, screenshot: string, values = true): Promise<GtkwaveView> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-gtkwave-'));
  const script = path.join(tmp, 'view.tcl');
  fs.writeFileSync(script, TCL(path.resolve(screenshot), values));
  try {
    const log = await new Promise<string>((resolve, reject) => {
      const p = spawn('xvfb-run', ['-a', '-s', '-screen 0 1600x1000x24', 'gtkwave', '-S', script, dump, savefile], {
        stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: tmp },
      });
      let out = '';
      p.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      p.stderr.on('data', (d: Buffer) => { out += d.toString(); });
      const timer = setTimeout(() => { p.kill('SIGKILL'); }, 120_000);
      p.on('error', reject);
      p.on('close', code => { clearTimeout(timer); if (code === 0) resolve(out); else reject(new Error(`gtkwave under xvfb-run exited with ${code}:\n${out}`)); });
    });
    const traces: ShownTrace[] = [];
    let marker = -1, windowStart = -1;
    for (const line of log.split('\n')) {
      const t = /^nicgen-trace (\d+)\t([^\t]*)\t(.*)$/.exec(line);
      if (t) traces.push({ flags: Number(t[1]), name: t[2]!, value: t[3]! });
      const m = /^nicgen-marker (-?\d+)/.exec(line);
      if (m) marker = Number(m[1]);
      const s = /^nicgen-start (-?\d+)/.exec(line);
      if (s) windowStart = Number(s[1]);
    }
    return { traces, marker, windowStart, screenshot, log };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
