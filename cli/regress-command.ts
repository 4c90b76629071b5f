// `nicgen regress merge DIR... [--out DIR]`: the shards of one regression (make regress
// REGRESS_ARGS='--seed-base S --shard K/N', each in its own folder) merged into one folder
// with the same junit.xml, results.json, coverage and index.html an unsharded run writes
// (scripts/regress/merge.ts). Exit 0 when every run passed, 1 otherwise, 2 for misuse.

import * as path from 'node:path';
import { UsageError as RegressUsage } from '../scripts/regress/args.ts';
import { consoleReport } from '../scripts/regress/finish.ts';
import { mergeRegressions } from '../scripts/regress/merge.ts';
import { shown } from '../scripts/regress/report.ts';
import { currentProject } from './config.ts';
import { UsageError } from './usage-error.ts';

/** `out/regress/merged-2025-01-31T12-34-56` in the project. */
function defaultOut(root: string, now: Date): string {
  const stamp = now.toISOString().replace(/\..*$/, '').replace(/:/g, '-');
  return path.join(root, 'out', 'regress', `merged-${stamp}`);
}

export async function regressMergeCommand(dirs: readonly string[], out: string | undefined, print: (line: string) => void = l => console.log(l)): Promise<number> {
  const { root: projectRoot, command } = await currentProject();
  const target = path.resolve(out ?? defaultOut(projectRoot, new Date()));
  let merged;
  try {
    merged = await mergeRegressions({ root: projectRoot, dirs: dirs.map(d => path.resolve(d)), out: target, command });
  } catch (err) {
    if (err instanceof RegressUsage) throw new UsageError(err.message);
    throw err;
  }
  const { file, results, finished, replay } = merged;
  const notes = [`regress: merged ${dirs.length} shards, ${results.length} runs, into ${shown(projectRoot, target)}; junit ${shown(projectRoot, path.join(target, 'junit.xml'))}; report ${shown(projectRoot, finished.index)}`];
  for (const l of consoleReport({ root: projectRoot, out: target, benches: file.benches, results, finished, replay, notes, command })) print(l);
  return results.every(r => r.status === 'passed') ? 0 : 1;
}
