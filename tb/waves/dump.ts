// Opening a wave dump as VCD text lines: a `.vcd` file is read as it is, an FST file through
// GTKWave's `fst2vcd` (Debian package gtkwave, installed by scripts/setup), streamed so
// only the header needs to be read when that is all the caller wants.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as readline from 'node:readline';
import { readChanges, readHeader, VcdError, type VcdHeader, type VcdTrace } from './vcd.ts';

export class DumpToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DumpToolError';
  }
}

interface LineSource {
  readonly lines: AsyncIterator<string>;
  close(): Promise<void>;
}

function openLines(file: string): LineSource {
  if (!fs.existsSync(file)) throw new DumpToolError(`no wave dump at ${file}`);
  if (file.endsWith('.vcd')) {
    const stream = fs.createReadStream(file, { encoding: 'utf8' });
    const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
    return { lines: rl[Symbol.asyncIterator](), close: async () => { rl.close(); stream.destroy(); } };
  }
  const child = spawn('fst2vcd', ['-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const failed = new Promise<never>((_, reject) => child.on('error', (e: NodeJS.ErrnoException) => {
    reject(new DumpToolError(e.code === 'ENOENT' ? 'fst2vcd not found: install GTKWave (Debian package gtkwave; scripts/setup does)' : `fst2vcd: ${e.message}`));
  }));
  failed.catch(() => {});
  const rl = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
  const it = rl[Symbol.asyncIterator]();
  const lines: AsyncIterator<string> = {
    next: async () => {
      const r = await Promise.race([it.next(), failed]);
      if (r.done && child.exitCode !== null && child.exitCode !== 0) throw new DumpToolError(`fst2vcd ${file} failed: ${stderr.trim()}`);
      return r;
    },
  };
  const ended = new Promise<void>(resolve => child.on('close', () => resolve()));
  return {
    lines,
    close: async () => {
      rl.close();
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await ended;
    },
  };
}

/** The scope tree of a dump (FST or VCD). */
export async function dumpHeader(file: string): Promise<VcdHeader> {
  const src = openLines(file);
  try {
    return await readHeader(src.lines);
  } catch (err) {
    if (err instanceof VcdError) throw new VcdError(`${file}: ${err.message}`);
    throw err;
  } finally {
    await src.close();
  }
}

/** The header and the value changes of the variables with the given ids. */
export async function dumpChanges(file: string, ids: ReadonlySet<string>): Promise<{ header: VcdHeader; traces: Map<string, VcdTrace> }> {
  const src = openLines(file);
  try {
    const header = await readHeader(src.lines);
    const traces = await readChanges(src.lines, ids);
    return { header, traces };
  } finally {
    await src.close();
  }
}
