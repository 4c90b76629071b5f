// Source locations and the errors that carry them.
//
// Every IR node remembers where the user's code created it. We read the JS stack
// (already mapped to .ts by tsx / vitest / --enable-source-maps) and keep the first
// frame outside the DSL's own machinery, so messages point at the design, not at us.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SourceLoc {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

const hdlDir = path.dirname(fileURLToPath(import.meta.url));
const genDir = path.dirname(hdlDir);
/** Frames in these folders are DSL internals, never the user's code. */
const internalDirs = [hdlDir, path.join(genDir, 'passes'), path.join(genDir, 'emit')].map(d => d + path.sep);
const projectRoot = path.dirname(genDir) + path.sep;

// `at fn (/abs/file.ts:1:2)` or `at /abs/file.ts:1:2`; never `node:internal/...` frames.
const frameRe = /(?:^at |\()((?:file:\/\/)?\/[^():]+):(\d+):(\d+)\)?$/;

/** Extra folders whose frames are skipped (e.g. gen/lib helpers that wrap the builder). */
const extraInternal: string[] = [];
export function markInternalDir(dir: string): void {
  extraInternal.push(dir.endsWith(path.sep) ? dir : dir + path.sep);
}
/** Files whose frames are skipped: helpers that create ports or statements for their caller
 *  (gen/lib/interfaces.ts makes a bundle's ports at the line that asked for the bundle). */
const internalFiles = new Set<string>();
export function markInternalFile(importMetaUrl: string): void {
  internalFiles.add(importMetaUrl.startsWith('file:') ? fileURLToPath(importMetaUrl) : importMetaUrl);
}

function isInternal(file: string): boolean {
  // Tests of the DSL live beside it but are user code as far as locations go.
  if (/\.test\.[cm]?[jt]s$/.test(file)) return false;
  return file.includes(`${path.sep}node_modules${path.sep}`) || file.startsWith('node:')
    || internalDirs.some(d => file.startsWith(d)) || extraInternal.some(d => file.startsWith(d)) || internalFiles.has(file);
}

/** nicgen's own generators (standard library, NIC): a line there is not one a user of the
 *  library wrote, so errors raised there also name the module and the line that asked for it. */
const libraryDirs = [path.join(genDir, 'lib'), path.join(genDir, 'nic')].map(d => d + path.sep);
export function isLibraryLoc(loc: SourceLoc): boolean {
  return !/\.test\.[cm]?[jt]s$/.test(loc.file) && libraryDirs.some(d => loc.file.startsWith(d));
}

export const unknownLoc: SourceLoc = { file: '<unknown>', line: 0, col: 0 };

/**
 * Location of the innermost caller outside the DSL internals. Lazy: the stack is captured now
 * (cheap, V8 keeps the frames) but formatted, source maps and all, only when the location is
 * first read. Most IR nodes' locations are never read (only messages and a few generated
 * comments print them), and formatting every one cost ~1 s of nic_pair's ~3 s elaboration.
 */
export function callerLoc(): SourceLoc {
  const saved = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder);
  Error.stackTraceLimit = saved;
  let loc: SourceLoc | undefined;
  const get = (): SourceLoc => (loc ??= locOfStack(holder.stack ?? ''));
  // Own enumerable getters, so spreading, JSON and deep equality see file, line and col.
  return { get file() { return get().file; }, get line() { return get().line; }, get col() { return get().col; } };
}

/** The first frame of a formatted stack outside the DSL internals. */
function locOfStack(stack: string): SourceLoc {
  for (const raw of stack.split('\n').slice(1)) {
    const m = frameRe.exec(raw.trim());
    if (!m) continue;
    let file = m[1]!;
    if (file.startsWith('file://')) file = fileURLToPath(file);
    if (isInternal(file)) continue;
    return { file, line: Number(m[2]), col: Number(m[3]) };
  }
  return unknownLoc;
}

/** Where relative file names in messages and generated headers start: the project that runs
 *  nicgen (its nicgen.config.ts folder, set by the CLI). Unset, it is this package's root when
 *  the current folder is inside it, else the current folder (a user's project run by vitest). */
let locationRoot: string | undefined;

export function setLocationRoot(dir: string): void {
  locationRoot = path.resolve(dir) + path.sep;
}

function currentLocationRoot(): string {
  if (locationRoot !== undefined) return locationRoot;
  const cwd = process.cwd() + path.sep;
  return cwd.startsWith(projectRoot) ? projectRoot : cwd;
}

/** `gen/nic/foo.ts:12:5`, relative to the project root when inside it. A location without a
 *  line (0) is not in a file: it is printed as it is (`nicgen gen --set numQp=16`). */
export function formatLoc(loc: SourceLoc): string {
  if (loc.line === 0) return loc.file;
  const root = currentLocationRoot();
  const file = loc.file.startsWith(root) ? loc.file.slice(root.length) : loc.file;
  return `${file}:${loc.line}:${loc.col}`;
}

/** A design error: what is wrong, where the user wrote it, and how to fix it. */
export class DslError extends Error {
  readonly loc: SourceLoc;
  readonly hint: string;
  constructor(message: string, hint: string, loc: SourceLoc = callerLoc()) {
    super(`${formatLoc(loc)}: error: ${message}\n  hint: ${hint}`);
    this.name = 'DslError';
    this.loc = loc;
    this.hint = hint;
  }
}

/** One problem found by a pass; passes collect these and report them together. */
export interface Diagnostic {
  readonly pass: string;
  readonly message: string;
  readonly hint: string;
  readonly loc: SourceLoc;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${formatLoc(d.loc)}: error [${d.pass}]: ${d.message}${d.hint ? `\n  hint: ${d.hint}` : ''}`;
}

/** Thrown when one or more passes found problems; the message lists them all. */
export class DesignErrors extends Error {
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: readonly Diagnostic[]) {
    super(`${diagnostics.length} design error${diagnostics.length === 1 ? '' : 's'}:\n`
      + diagnostics.map(formatDiagnostic).join('\n'));
    this.name = 'DesignErrors';
    this.diagnostics = diagnostics;
  }
}
