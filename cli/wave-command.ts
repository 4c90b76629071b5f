// `nicgen wave FILE.fst`: opens a dump in GTKWave with the savefile nicgen wrote beside it
// (groups, field aliases, FSM names, the failure marker). Without a display it prints the
// command to run where there is one; --screenshot PNG renders the view headless (Xvfb).
// Exit codes: 0 opened / printed / saved, 1 GTKWave missing or failed, 2 misuse.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { shellQuote } from '../tb/core/where.ts';
import { gtkwaveHeadless, onPath } from '../tb/waves/gtkwave.ts';
import { savefileFor } from '../tb/waves/savefile.ts';
import { UsageError } from './usage-error.ts';

export interface WaveArgs {
  readonly file: string | undefined;
  readonly savefile?: string | undefined;
  readonly screenshot?: string | undefined;
}

export interface WaveIO {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
}

const defaultIO: WaveIO = { out: l => console.log(l), err: l => console.error(l), env: process.env };

export async function waveCommand(a: WaveArgs, io: WaveIO = defaultIO): Promise<number> {
  if (a.file === undefined) throw new UsageError('name a wave dump: nicgen wave FILE.fst');
  if (!fs.existsSync(a.file)) throw new UsageError(`no wave dump at ${a.file}`);
  const given = a.savefile !== undefined;
  const savefile = a.savefile ?? savefileFor(a.file);
  if (given && !fs.existsSync(savefile)) throw new UsageError(`no savefile at ${savefile}`);
  const withSavefile = fs.existsSync(savefile);
  if (!withSavefile) io.err(`nicgen: no savefile beside ${a.file} (nicgen writes one with every --wave / NICGEN_WAVE dump): opening the dump alone`);
  const args = withSavefile ? [a.file, savefile] : [a.file];
  const command = `gtkwave ${args.map(shellQuote).join(' ')}`;
  if (!onPath('gtkwave')) {
    io.err('nicgen: gtkwave is not installed (Debian package gtkwave; scripts/setup installs it)');
    io.out(command);
    return 1;
  }
  if (a.screenshot !== undefined) {
    if (!withSavefile) throw new UsageError('--screenshot needs the savefile beside the dump');
    if (!onPath('xvfb-run')) { io.err('nicgen: xvfb-run is not installed (Debian package xvfb; scripts/setup installs it)'); return 1; }
    const v = await gtkwaveHeadless(a.file, savefile, a.screenshot, false);
    io.out(`wrote ${a.screenshot}: GTKWave's view of ${a.file} (${v.traces.length} rows)`);
    return 0;
  }
  if (!io.env['DISPLAY'] && !io.env['WAYLAND_DISPLAY']) {
    io.out(command);
    io.err('nicgen: no display here (DISPLAY is not set): run the command above where there is one (ssh -X, or copy the dump,'
      + ` ${withSavefile ? 'the .gtkw and its .filters folder' : 'and open it'}); nicgen wave FILE --screenshot out.png renders it headless`);
    return 0;
  }
  const child = spawn('gtkwave', args, { detached: true, stdio: 'ignore' });
  child.on('error', () => {});
  child.unref();
  io.out(`opened in GTKWave: ${command}`);
  return 0;
}
