// Emitted designs kept on disk between processes, for the large tops every regression run
// of a bench emits again: nic_pair takes ~2 s of CPU to elaborate, check and emit (3.5-5 s
// wall on a loaded machine), about half of a short nic_pair run, paid by every one of a
// regression's processes. `nicgen sim` then only hashes the generator sources (~10 ms).
//
// Keyed by everything emission depends on: the text of every generator file (gen/, tests
// and test support excluded), the module name, its parameters and the Node version. Only
// for modules defined under gen/ (whose whole input is that text); the entry is written
// atomically and read whole, so concurrent runs share it safely. NICGEN_DESIGN_CACHE=0
// turns it off. A run whose generator sources changed after it started stores nothing
// (`mayStore`).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from '../gen/emit/manifest.ts';
import { cacheRoot, projectRoot, sha256 } from '../sim/cache.ts';
import type { DesignSources } from '../sim/build.ts';

/** The generator sources' hash, and the newest modification time among them. */
interface GeneratorSources { readonly hash: string; readonly newestMs: number }
let generators: GeneratorSources | undefined;

/** Hash of every generator source file's path and text under `root`/gen (memoized for this
 *  project's root). */
export function hashGenerators(root: string = projectRoot): GeneratorSources {
  if (root === projectRoot && generators !== undefined) return generators;
  const parts: string[] = [];
  let newestMs = 0;
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { if (e.name !== 'test-support') walk(p); continue; }
      if (!e.name.endsWith('.ts') || e.name.endsWith('.test.ts')) continue;
      parts.push(path.relative(root, p), fs.readFileSync(p, 'utf8'));
      newestMs = Math.max(newestMs, fs.statSync(p).mtimeMs);
    }
  };
  walk(path.join(root, 'gen'));
  const g = { hash: sha256(parts), newestMs };
  if (root === projectRoot) generators = g;
  return g;
}

/** The code this process imported is the text hashed only if no generator source changed
 *  since the process started (imports come after the start, the hash after the imports): an
 *  edit in between would store the old design under the new text's key, served to every later
 *  run. Such an emission is used but not stored. */
export function mayStore(g: GeneratorSources, processStartMs: number = performance.timeOrigin): boolean {
  return g.newestMs < processStartMs;
}

interface Entry { readonly manifest: Manifest; readonly files: readonly [string, string][] }

export function designCacheEnabled(): boolean {
  return process.env['NICGEN_DESIGN_CACHE'] !== '0';
}

/** The cached emission of (module, params), or what `emit()` returns (then stored). */
export function cachedEmit(name: string, paramsKey: string, emit: () => DesignSources): DesignSources {
  if (!designCacheEnabled()) return emit();
  const g = hashGenerators();
  const key = sha256([g.hash, name, paramsKey, process.version]);
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
  if (!mayStore(g)) return d;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ manifest: d.manifest, files: [...d.files] } satisfies Entry));
  fs.renameSync(tmp, file);
  return d;
}
