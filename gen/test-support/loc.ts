// Source-line helpers for tests that check diagnostics point at the user's code.
//
// Expected lines are never hard-coded: the offending line carries a marker comment
// `// @here:<name>` and the test looks the marker up in its own source text.

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourceLoc } from '../hdl/errors.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Marks {
  /** Absolute path of the test file. */
  readonly file: string;
  /** Path relative to the project root, as `formatLoc` prints it. */
  readonly rel: string;
  /** 1-based line of the line that carries `// @here:<name>` (exactly one must). */
  line(name: string): number;
  /** `rel:line` of a marker, the prefix of a formatted location. */
  at(name: string): string;
  /** Whether a SourceLoc points at the marked line of this file. */
  is(loc: SourceLoc, name: string): boolean;
}

/** Markers of the test file whose `import.meta.url` is given. */
export function marks(importMetaUrl: string): Marks {
  const file = fileURLToPath(importMetaUrl);
  const lines = readFileSync(file, 'utf8').split('\n');
  const rel = path.relative(projectRoot, file);
  const line = (name: string): number => {
    const tag = `// @here:${name}`;
    const hits = lines.flatMap((l, i) => {
      const at = l.indexOf(tag);
      if (at < 0) return [];
      const next = l[at + tag.length];
      return next === undefined || /\s/.test(next) ? [i + 1] : [];
    });
    if (hits.length !== 1) throw new Error(`marker ${tag} appears ${hits.length} times in ${rel}`);
    return hits[0]!;
  };
  return {
    file, rel, line,
    at: name => `${rel}:${line(name)}`,
    is: (loc, name) => loc.file === file && loc.line === line(name),
  };
}

/** `file:line` of a SourceLoc (the column dropped), for readable assertion failures. */
export function fileLine(loc: SourceLoc): string {
  const rel = loc.file.startsWith(projectRoot + path.sep) ? loc.file.slice(projectRoot.length + 1) : loc.file;
  return `${rel}:${loc.line}`;
}
