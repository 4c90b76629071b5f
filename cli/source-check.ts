// Checks of the user's TypeScript before anything is elaborated or written:
// 1. tsc (TypeScript 7, the project's compiler) type-checks the design or testbench files, so
//    a misspelt port or a write to an output is an error even for a user who never runs tsc;
// 2. the hardware-value check (gen/tscheck) reports every JavaScript operator applied to a
//    hardware value (`&&`, `?:`, `===`, `if (v)`, ...), which would build the wrong circuit.
// Both run at once (tsc in a child process). A pass is remembered in the cache under a key of
// the roots, keyed on the contents of every file they pulled in, so an unchanged design is
// not checked twice. NICGEN_TYPECHECK=0 skips both (for scripts that just ran them).

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DesignErrors, type Diagnostic } from '../gen/hdl/errors.ts';
import { cacheRoot, sha256 } from '../sim/cache.ts';

const nicgenRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
/** Bump when the rules change, so cached passes of older rules are not trusted. */
const CHECK_VERSION = 'source-check/1';

export interface SourceCheckResult {
  /** Files checked (0 when skipped). */
  readonly files: number;
  readonly seconds: number;
  /** CPU seconds of this process and of tsc together. */
  readonly cpuSeconds: number;
  readonly cached: boolean;
}

const skipped: SourceCheckResult = { files: 0, seconds: 0, cpuSeconds: 0, cached: true };

export function sourceChecksEnabled(): boolean {
  return process.env['NICGEN_TYPECHECK'] !== '0';
}

/** Type-check `roots` with tsc 7 and run the hardware-value check over them and everything
 *  they import (outside node_modules). Throws DesignErrors listing every problem. */
export async function checkSources(roots: readonly string[], what: { hardware: boolean } = { hardware: true }): Promise<SourceCheckResult> {
  if (!sourceChecksEnabled()) return skipped;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const abs = roots.map(r => path.resolve(r)).sort();
  const config = nearestTsconfig(abs[0]!);
  const key = sha256([CHECK_VERSION, String(what.hardware), config ?? '', ...abs]);
  const entry = path.join(cacheRoot(), 'tscheck', `${key.slice(0, 32)}.json`);
  if (cachedPass(entry)) return { files: cachedFiles(entry), seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSince(cpu0, 0), cached: true };

  const temp = tscConfigFor(config, { files: abs });
  const tsc = runTsc(temp.file).finally(() => fs.rmSync(temp.dir, { recursive: true, force: true }));
  let files: string[] = abs;
  const problems: Diagnostic[] = [];
  if (what.hardware) {
    const { checkHardwareJs } = await import('../gen/tscheck/index.ts');
    const r = checkHardwareJs(abs);
    files = [...r.files];
    problems.push(...r.diagnostics);
  }
  const t = await tsc;
  problems.unshift(...t.diagnostics);
  if (problems.length) throw new DesignErrors(problems);
  remember(entry, [...files, ...(config ? [config] : []), ...lockFiles(config)]);
  return { files: files.length, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSince(cpu0, t.cpuSeconds), cached: false };
}

/** Type-check a whole tsconfig project (what vitest and `make test` run first). */
export async function checkProject(tsconfig: string): Promise<SourceCheckResult> {
  if (!sourceChecksEnabled()) return skipped;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const config = path.resolve(tsconfig);
  const files = await projectFiles(config);
  // The file list is part of the key: a new file is a new check even if no old one changed.
  const entry = path.join(cacheRoot(), 'tscheck', `${sha256([CHECK_VERSION, 'project', config, ...files]).slice(0, 32)}.json`);
  if (cachedPass(entry)) return { files: files.length, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSince(cpu0, 0), cached: true };
  const t = await runTsc(config);
  if (t.diagnostics.length) throw new DesignErrors(t.diagnostics);
  remember(entry, [...files, config, ...lockFiles(config)]);
  return { files: files.length, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSince(cpu0, t.cpuSeconds), cached: false };
}

/** `checked 75 files in 4.2 s (7.9 s CPU)` or `checked 75 files (unchanged since the last check)`. */
export function describeCheck(r: SourceCheckResult): string {
  if (!r.files) return 'type-check skipped (NICGEN_TYPECHECK=0)';
  if (r.cached) return `type-checked ${r.files} files (unchanged since the last check)`;
  return `type-checked ${r.files} files in ${r.seconds.toFixed(1)} s (${r.cpuSeconds.toFixed(1)} s CPU)`;
}

// ---- tsc 7 ---------------------------------------------------------------------------------

function nearestTsconfig(file: string): string | null {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const c = path.join(dir, 'tsconfig.json');
    if (fs.existsSync(c)) return c;
    if (path.dirname(dir) === dir) return null;
  }
}

/** A tsconfig (in a temp folder, never the user's) that extends the user's (or nicgen's own
 *  when there is none) and checks exactly `files`. Type roots are spelled out, since they
 *  would otherwise be looked up from the temp folder. */
function tscConfigFor(config: string | null, o: { files: readonly string[] }): { file: string; dir: string } {
  const base = config ?? path.join(nicgenRoot, 'tsconfig.json');
  const typeRoots = [path.dirname(base), nicgenRoot].map(d => path.join(d, 'node_modules', '@types')).filter(d => fs.existsSync(d));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-tsc-'));
  const file = path.join(dir, 'tsconfig.json');
  fs.writeFileSync(file, JSON.stringify({ extends: base, compilerOptions: { noEmit: true, typeRoots }, files: o.files, include: [] }));
  return { file, dir };
}

function tscBin(): string {
  return path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
}

interface TscResult { readonly diagnostics: Diagnostic[]; readonly cpuSeconds: number }

function runTsc(config: string): Promise<TscResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tscBin(), '-p', config, '--pretty', 'false'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('error', reject);
    // Only the caller knows whether `config` is a temp file of ours: a user's project may live
    // under the temp folder too (its tsconfig is checked in place and must never be removed).
    child.on('close', code => {
      const diagnostics = parseTscOutput(out);
      if (code !== 0 && !diagnostics.length) { reject(new Error(`tsc exited with ${code}:\n${out}`)); return; }
      resolve({ diagnostics, cpuSeconds: childCpuSeconds() });
    });
  });
}

/** `gen/x.ts(12,5): error TS2339: Property 'tvalud' does not exist ...` (plus indented
 *  continuation lines) as diagnostics at file:line:col. */
export function parseTscOutput(out: string): Diagnostic[] {
  const result: { pass: string; message: string; hint: string; loc: Diagnostic['loc'] }[] = [];
  for (const line of out.split('\n')) {
    const m = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line);
    if (m) {
      result.push({ pass: 'tsc', message: `${m[4]}: ${m[5]}`, hint: '', loc: { file: path.resolve(m[1]!), line: Number(m[2]), col: Number(m[3]) } });
    } else if (/^error (TS\d+): /.test(line)) {
      result.push({ pass: 'tsc', message: line.slice('error '.length), hint: '', loc: { file: '<tsconfig>', line: 0, col: 0 } });
    } else if (line.startsWith('  ') && result.length) {
      const last = result[result.length - 1]!;
      last.message += `\n    ${line.trim()}`;
    }
  }
  return result;
}

/** The tsconfig's own file list (`tsc --showConfig`, no type checking: ~0.2 s). */
function projectFiles(config: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tscBin(), '-p', config, '--showConfig'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('error', reject);
    child.on('close', () => {
      try {
        const j = JSON.parse(out) as { files?: string[] };
        resolve((j.files ?? []).map(f => path.resolve(path.dirname(config), f)));
      } catch (e) { reject(new Error(`tsc --showConfig of ${config}: ${(e as Error).message}`)); }
    });
  });
}

// ---- the cache -----------------------------------------------------------------------------

/** Installed package versions: a changed lock file can change types. */
function lockFiles(config: string | null): string[] {
  const dirs = [nicgenRoot, ...(config ? [path.dirname(config)] : [])];
  return [...new Set(dirs.map(d => path.join(d, 'package-lock.json')))].filter(f => fs.existsSync(f));
}

function hashFile(file: string): string {
  try { return sha256([fs.readFileSync(file, 'utf8')]); } catch { return 'missing'; }
}

interface CacheEntry { readonly files: Readonly<Record<string, string>> }

function readEntry(entry: string): CacheEntry | null {
  try { return JSON.parse(fs.readFileSync(entry, 'utf8')) as CacheEntry; } catch { return null; }
}

function cachedPass(entry: string): boolean {
  const e = readEntry(entry);
  return e !== null && Object.entries(e.files).every(([f, h]) => hashFile(f) === h);
}

function cachedFiles(entry: string): number {
  return Object.keys(readEntry(entry)?.files ?? {}).length;
}

/** Written to a temp name and renamed, so parallel runs never read half an entry. */
function remember(entry: string, files: readonly string[]): void {
  const record: Record<string, string> = {};
  for (const f of [...new Set(files)].sort()) record[f] = hashFile(f);
  fs.mkdirSync(path.dirname(entry), { recursive: true });
  const tmp = `${entry}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ files: record }, null, 1));
  fs.renameSync(tmp, entry);
}

// ---- CPU time ------------------------------------------------------------------------------

let childCpuBefore = 0;
/** CPU seconds of child processes that ended since the last call: cutime + cstime of
 *  /proc/self/stat (fields 16 and 17, in clock ticks of 1/100 s); 0 where there is no /proc. */
function childCpuSeconds(): number {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    const secs = (Number(fields[13]) + Number(fields[14])) / 100; // fields[0] is field 3
    const d = secs - childCpuBefore;
    childCpuBefore = secs;
    return d;
  } catch { return 0; }
}

function cpuSince(start: NodeJS.CpuUsage, childSeconds: number): number {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1e6 + childSeconds;
}
