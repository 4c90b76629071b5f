// Emitted designs kept on disk between processes, for the large tops every regression run
// of a bench emits again: nic_pair takes ~2 s of CPU to elaborate, check and emit (3.5-5 s
// wall on a loaded machine), about half of a short nic_pair run, paid by every one of a
// regression's processes. `nicgen sim` then only hashes the generator sources (~10 ms).
//
// Keyed by everything emission depends on: the text of every generator file (gen/, tests
// and test support excluded), the module name, its parameters and the Node version. Only
// for modules defined under gen/ (whose whole input is that text); the entry is written
// atomically and read whole, so concurrent runs share it safely. NICGEN_DESIGN_CACHE=0
// turns it off.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from '../gen/emit/manifest.ts';
import { cacheRoot, projectRoot, sha256 } from '../sim/cache.ts';
import type { DesignSources } from '../sim/build.ts';

let genHash: string | undefined;

/** Hash of every generator source file's path and text. */
function generatorsHash(): string {
  if (genHash !== undefined) return genHash;
  const parts: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { if (e.name !== 'test-support') walk(p); continue; }
      if (!e.name.endsWith('.ts') || e.name.endsWith('.test.ts')) continue;
      parts.push(path.relative(projectRoot, p), fs.readFileSync(p, 'utf8'));
    }
  };
  walk(path.join(projectRoot, 'gen'));
  genHash = sha256(parts);
  return genHash;
}

interface Entry { readonly manifest: Manifest; readonly files: readonly [string, string][] }

export function designCacheEnabled(): boolean {
  return process.env['NICGEN_DESIGN_CACHE'] !== '0';
}

/** The cached emission of (module, params), or what `emit()` returns (then stored). */
export function cachedEmit(name: string, paramsKey: string, emit: () => DesignSources): DesignSources {
  if (!designCacheEnabled()) return emit();
  const key = sha256([generatorsHash(), name, paramsKey, process.version]);
  const file = path.join(cacheRoot(), 'designs', `${name}-${key.slice(0, 24)}.json`);
  if (fs.existsSync(file)) {
    try {
      const e = JSON.parse(fs.readFileSync(file, 'utf8')) as Entry;
      return { manifest: e.manifest, files: new Map(e.files) };
    } catch {
      // A damaged entry is rebuilt below.
    }
  }
  const d = emit();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ manifest: d.manifest, files: [...d.files] } satisfies Entry));
  fs.renameSync(tmp, file);
  return d;
}
