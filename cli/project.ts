// The emitted project as the commands see it: tops filtered by name, files per top.

import { emitProject, type EmittedProject } from '../gen/emit/index.ts';
import { tops } from '../gen/tops.ts';
import { UsageError } from './usage-error.ts';

export function emitAll(): EmittedProject {
  return emitProject(tops);
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
