// Headless Chromium (Debian's `chromium`, installed by scripts/setup) for tests that look at a
// page as a browser renders it: the DOM after scripts ran, or a screenshot. Each call gets a
// fresh profile folder and no network access beyond the file it opens.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const flags = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  // Lets the page's load handlers and image decoding finish before the dump.
  '--virtual-time-budget=5000',
];

function chromium(args: readonly string[]): string {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-chromium-'));
  try {
    const r = spawnSync('chromium', [...flags, `--user-data-dir=${profile}`, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
    if (r.error) throw new Error(`could not run chromium (scripts/setup installs it): ${r.error.message}`);
    if (r.status !== 0) throw new Error(`chromium exited ${r.status}: ${r.stderr.slice(-2000)}`);
    return r.stdout;
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/** The page's DOM after it loaded and its scripts ran, serialized. */
export function renderedDom(file: string): string {
  return chromium(['--dump-dom', pathToFileURL(file).href]);
}

/** A PNG screenshot of the page at `width` x `height`; returns its path. */
export function screenshot(file: string, png: string, width = 1300, height = 2400): string {
  chromium([`--screenshot=${png}`, `--window-size=${width},${height}`, pathToFileURL(file).href]);
  if (!fs.existsSync(png)) throw new Error(`chromium wrote no screenshot ${png}`);
  return png;
}
