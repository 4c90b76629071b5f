// The emitted project as the commands see it: tops filtered by name, files per top.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { emitProject, type EmittedProject, type TopEntry } from '../gen/emit/index.ts';
import { currentProject, findConfig } from './config.ts';
import { checkSources, type SourceCheckResult } from './source-check.ts';
import { UsageError } from './usage-error.ts';

/** tsc and the hardware-value check over the tops' sources before anything is elaborated
 *  (cli/source-check.ts): the `--tops` file, else the project's nicgen.config.ts, each with
 *  everything it imports. Runs before the config is imported, so nothing of it has run yet. */
export async function checkTopsSources(file?: string): Promise<SourceCheckResult> {
  if (file !== undefined && !fs.existsSync(path.resolve(file))) throw new UsageError(`--tops ${file}: no such file`);
  // Without a config, loading the project throws its one-line error (with what to do).
  const root = file ?? findConfig(process.cwd()) ?? (await currentProject()).configFile;
  return checkSources([root]);
}

/** The tops to emit: the project's (nicgen.config.ts), or another module exporting `tops` (`--tops FILE`). */
export async function loadTops(file?: string): Promise<readonly TopEntry[]> {
  if (file === undefined) return (await currentProject()).tops;
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new UsageError(`--tops ${file}: no such file`);
  const mod = (await import(pathToFileURL(abs).href)) as { tops?: readonly TopEntry[] };
  if (!Array.isArray(mod.tops)) throw new UsageError(`--tops ${file} does not export 'tops' (a list made with top(...) from gen/emit)`);
  return mod.tops;
}

/** Checks the sources, then elaborates and emits every top. */
export async function emitAll(topsFile?: string): Promise<EmittedProject> {
  await checkTopsSources(topsFile);
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
