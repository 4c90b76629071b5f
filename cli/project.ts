// The emitted project as the commands see it: tops filtered by name, files per top.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { emitProject, type EmittedProject, type TopEntry } from '../gen/emit/index.ts';
import { currentProject } from './config.ts';
import { UsageError } from './usage-error.ts';

/** The tops to emit: the project's (nicgen.config.ts), or another module exporting `tops` (`--tops FILE`). */
export async function loadTops(file?: string): Promise<readonly TopEntry[]> {
  if (file === undefined) return (await currentProject()).tops;
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new UsageError(`--tops ${file}: no such file`);
  const mod = (await import(pathToFileURL(abs).href)) as { tops?: readonly TopEntry[] };
  if (!Array.isArray(mod.tops)) throw new UsageError(`--tops ${file} does not export 'tops' (a list made with top(...) from gen/emit)`);
  return mod.tops;
}

export async function emitAll(topsFile?: string): Promise<EmittedProject> {
  return emitProject(await loadTops(topsFile));
}

/** The tops whose name (or one of whose modules' names) is in `names`; all when empty. */
export function selectTops(project: EmittedProject, names: readonly string[]): EmittedProject['tops'] {
  if (!names.length) return project.tops;
  const known = project.tops.map(t => t.top);
  for (const n of names) {
    if (!project.tops.some(t => t.top === n || t.modules.some(m => m.name === n))) {
      throw new UsageError(`unknown module '${n}' (known tops: ${known.join(', ')})`);
    }
  }
  return project.tops.filter(t => names.includes(t.top) || t.modules.some(m => names.includes(m.name)));
}
