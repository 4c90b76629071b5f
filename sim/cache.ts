// The on-disk cache: where it lives, content keys, and publishing a finished build
// atomically so concurrent test workers never see (or corrupt) a half-built entry.
//
// A build happens in a private temp folder and is renamed into place; a rename onto an
// existing entry fails, and the loser just uses the winner's copy. A lock file is only an
// optimisation so a second worker waits instead of compiling the same thing twice.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project whose .cache holds the models: this repository, or, when nicgen is installed
 *  as a dependency (`<project>/node_modules/nicgen`), the project that installed it, so that
 *  nothing is ever written inside node_modules. */
export const projectRoot = owningProject(path.dirname(path.dirname(fileURLToPath(import.meta.url))));

function owningProject(packageDir: string): string {
  const parts = packageDir.split(path.sep);
  const nm = parts.lastIndexOf('node_modules');
  return nm > 0 ? parts.slice(0, nm).join(path.sep) : packageDir;
}

/** `NICGEN_CACHE` or `<project>/.cache`. */
export function cacheRoot(): string {
  return path.resolve(process.env['NICGEN_CACHE'] ?? path.join(projectRoot, '.cache'));
}

export function sha256(parts: readonly string[]): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(String(p.length));
    h.update(':');
    h.update(p);
  }
  return h.digest('hex');
}

/** A private folder next to `final` to build into. */
export function tempDirFor(final: string): string {
  fs.mkdirSync(path.dirname(final), { recursive: true });
  return fs.mkdtempSync(`${final}.tmp-${process.pid}-`);
}

/** Moves a finished build into place; returns false when another process got there first. */
export function publish(temp: string, final: string): boolean {
  try {
    fs.renameSync(temp, final);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && fs.existsSync(final)) {
      fs.rmSync(temp, { recursive: true, force: true });
      return false;
    }
    throw err;
  }
}

const staleLockMs = 10 * 60 * 1000;

/** A lock is abandoned when its owner process is gone (killed test worker) or it is old. */
function lockIsStale(lockFile: string): boolean {
  try {
    const st = fs.statSync(lockFile);
    if (Date.now() - st.mtimeMs > staleLockMs) return true;
    const pid = Number(fs.readFileSync(lockFile, 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - st.mtimeMs > 5000; // being written
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  } catch {
    return false; // removed meanwhile
  }
}
const sleep = (ms: number): Promise<void> => new Promise(r => setTimeout(r, ms));

/**
 * Runs `build` unless `ready()` already holds, making other processes that want the same
 * entry wait for it. A lock whose owner died, or older than ten minutes, is taken over.
 */
export async function buildOnce(lockFile: string, ready: () => boolean, build: () => Promise<void>): Promise<void> {
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  for (;;) {
    if (ready()) return;
    let fd: number;
    try {
      fd = fs.openSync(lockFile, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (lockIsStale(lockFile)) fs.rmSync(lockFile, { force: true });
      else await sleep(200);
      continue;
    }
    try {
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      if (!ready()) await build();
    } finally {
      fs.rmSync(lockFile, { force: true });
    }
    return;
  }
}
