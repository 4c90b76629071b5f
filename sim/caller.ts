// Where the user's code is in a stack trace: the first frame outside nicgen's own simulation
// layers (sim/, tb/core/), so an error about a port names the testbench line that caused it.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Frames in these folders are nicgen's plumbing, never the caller. */
const internal = [here, path.join(path.dirname(here), 'tb', 'core')].map(d => d + path.sep);

export interface CallSite {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** The file:line:col locations of a stack trace, top first. */
export function stackFrames(stack: string | undefined): CallSite[] {
  const out: CallSite[] = [];
  for (const line of (stack ?? '').split('\n')) {
    const m = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (!m) continue;
    let file = m[1]!;
    if (file.startsWith('file://')) { try { file = fileURLToPath(file); } catch { continue; } }
    out.push({ file, line: Number(m[2]), column: Number(m[3]) });
  }
  return out;
}

/** The first frame of `stack` in the user's code (not node internals, not sim/ or tb/core/). */
export function userFrame(stack: string | undefined): CallSite | undefined {
  return stackFrames(stack).find(f => !f.file.startsWith('node:') && path.isAbsolute(f.file) && !internal.some(d => f.file.startsWith(d))
    && !f.file.includes(`${path.sep}node_modules${path.sep}`));
}

/** `tb/tests/foo.test.ts:12:5`, relative to the working folder when inside it. */
export function formatSite(s: CallSite): string {
  const rel = path.relative(process.cwd(), s.file);
  return `${rel.startsWith('..') ? s.file : rel}:${s.line}:${s.column}`;
}


/**
 * Puts `site` (a file:line:col, absolute or relative to `root`) on top of an error's stack, so
 * test runners show that line as the error's code frame: the user's design line of a DSL
 * assertion, the testbench line of a misspelt port.
 */
export function stackAt(err: Error, site: string, root: string = process.cwd()): void {
  const m = /^(.*):(\d+):(\d+)$/.exec(site);
  if (!m) return;
  const file = path.isAbsolute(m[1]!) ? m[1]! : path.join(root, m[1]!);
  const rest = (err.stack ?? '').split('\n').filter(l => /^\s+at /.test(l));
  err.stack = [`${err.name}: ${err.message}`, `    at ${file}:${m[2]}:${m[3]}`, ...rest].join('\n');
}
