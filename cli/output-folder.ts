// The output folder of `nicgen gen`: what may be written and removed there, so that a user's
// work in it is never lost.
//
// Rules (docs/cli.md):
// - The folder keeps a manifest, `.nicgen-files.json`, of every file nicgen wrote there and
//   the SHA-256 of what it wrote.
// - A file nicgen wrote and nobody changed since (its hash matches the manifest) is nicgen's:
//   it is rewritten when the generators change, and removed when no top emits it any more.
// - Any other file is the user's: a hand-written file, a file from before the manifest, or a
//   generated file edited since. It is never removed. If a top now wants to write a file of
//   that name, nothing is written and the command stops, naming the files (move them away,
//   or delete them, and run again). An edited file that is no longer generated is kept and
//   dropped from the manifest (it is the user's from then on).
// - A file whose content already equals what nicgen would write is taken over as is.
// - Inside a git work tree, a file that git has committed unchanged can always be rewritten or
//   removed: git holds its content (this is what keeps merged branches of rtl/ flowing).

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const MANIFEST_FILE = '.nicgen-files.json';
const MANIFEST_FORMAT = 'nicgen-files/1';

interface FolderManifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly comment: string;
  /** File name → SHA-256 of the content nicgen wrote. */
  readonly files: Readonly<Record<string, string>>;
}

export interface WritePlan {
  readonly out: string;
  /** Files to create or rewrite, with their new content. */
  readonly write: ReadonlyMap<string, string>;
  /** nicgen's own files no top emits any more. */
  readonly remove: readonly string[];
  /** Files no longer generated that the user edited: kept, dropped from the manifest. */
  readonly keptEdited: readonly string[];
  /** Files a top wants to write that are the user's: nothing may be written. */
  readonly conflicts: readonly string[];
  /** Files of the folder that are not nicgen's (left alone). */
  readonly userFiles: readonly string[];
  /** The manifest after the write. */
  readonly manifest: string;
  /** Whether the folder differs from the plan at all (for --check). */
  readonly upToDate: boolean;
}

const sha = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

function readManifest(out: string): Record<string, string> {
  const file = path.join(out, MANIFEST_FILE);
  if (!fs.existsSync(file)) return {};
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<FolderManifest>;
    return j.format === MANIFEST_FORMAT && j.files ? { ...j.files } : {};
  } catch { return {}; }
}

/** Files of `out` (relative names) that git has committed and that are unchanged in the work
 *  tree; empty outside a git work tree. */
function gitCleanFiles(out: string): Set<string> {
  const git = (args: string[]): string | null => {
    const r = spawnSync('git', ['-C', out, ...args], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout : null;
  };
  const tracked = git(['ls-files', '-z', '--', '.']);
  if (tracked === null) return new Set();
  const dirty = new Set((git(['ls-files', '-z', '--modified', '--', '.']) ?? '').split('\0').filter(Boolean));
  return new Set(tracked.split('\0').filter(f => f && !f.includes('/') && !dirty.has(f)));
}

/** What writing `files` into `out` would do, under the rules above. Reads only. */
export function planWrite(out: string, files: ReadonlyMap<string, string>): WritePlan {
  const exists = fs.existsSync(out);
  const onDisk = exists ? fs.readdirSync(out).filter(f => f !== MANIFEST_FILE && fs.statSync(path.join(out, f)).isFile()) : [];
  const old = exists ? readManifest(out) : {};
  const clean = exists ? gitCleanFiles(out) : new Set<string>();
  const hashOf = (f: string): string => sha(fs.readFileSync(path.join(out, f)));
  const ours = (f: string): boolean => old[f] === hashOf(f) || clean.has(f);

  const write = new Map<string, string>();
  const conflicts: string[] = [];
  const next: Record<string, string> = {};
  for (const [f, text] of files) {
    next[f] = sha(text);
    if (!onDisk.includes(f)) { write.set(f, text); continue; }
    if (fs.readFileSync(path.join(out, f), 'utf8') === text) continue; // identical: taken over
    if (ours(f)) write.set(f, text);
    else conflicts.push(f);
  }
  const remove: string[] = [];
  const keptEdited: string[] = [];
  for (const f of Object.keys(old)) {
    if (files.has(f) || !onDisk.includes(f)) continue;
    if (ours(f)) remove.push(f);
    else keptEdited.push(f);
  }
  const sorted = Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const manifest = JSON.stringify({
    format: MANIFEST_FORMAT,
    comment: 'Files nicgen gen wrote in this folder and their SHA-256. nicgen rewrites or removes only these, and only while unchanged; every other file here is yours.',
    files: sorted,
  } satisfies FolderManifest, null, 2) + '\n';
  const manifestPath = path.join(out, MANIFEST_FILE);
  const manifestSame = fs.existsSync(manifestPath) && fs.readFileSync(manifestPath, 'utf8') === manifest;
  const userFiles = onDisk.filter(f => !files.has(f) && !(f in old));
  return {
    out, write, remove: remove.sort(), keptEdited: keptEdited.sort(), conflicts: conflicts.sort(), userFiles: userFiles.sort(), manifest,
    upToDate: !write.size && !remove.length && !keptEdited.length && !conflicts.length && manifestSame,
  };
}

/** Carries out a plan without conflicts: writes, removes, then the manifest. */
export function applyPlan(plan: WritePlan): void {
  if (plan.conflicts.length) throw new Error('applyPlan: a plan with conflicts must not be applied');
  for (const [f, text] of plan.write) fs.writeFileSync(path.join(plan.out, f), text);
  for (const f of plan.remove) fs.unlinkSync(path.join(plan.out, f));
  fs.writeFileSync(path.join(plan.out, MANIFEST_FILE), plan.manifest);
}
