// vitest's globalSetup for a project that uses nicgen (`nicgen/vitest`, written into the
// vitest.config.ts of `nicgen init`): before any test runs, the checks `nicgen gen` and
// `nicgen sim` run (cli/source-check.ts: tsc, and the check for JavaScript operators on
// hardware values) over the project's nicgen.config.ts, its test files and everything they
// import. A problem stops the run with the same file:line messages as `nicgen gen`; a pass is
// remembered in the same cache, so an unchanged project is not checked again.
// NICGEN_TYPECHECK=0 skips it.

import * as path from 'node:path';
import { configFileName, findConfig } from '../cli/config.ts';
import { checkSources, describeCheck, type SourceCheckResult } from '../cli/source-check.ts';
import { DesignErrors, setLocationRoot } from '../gen/hdl/errors.ts';

/** The part of vitest's TestProject this setup uses (no vitest types in nicgen's API). */
export interface VitestProjectLike {
  readonly config: { readonly root: string };
  globTestFiles(): Promise<{ readonly testFiles: readonly string[] }>;
}

/** The files to check: the project's nicgen.config.ts and the test files vitest will run. */
export async function typecheckRoots(project: VitestProjectLike | undefined): Promise<string[]> {
  const root = project?.config.root ?? process.cwd();
  const config = findConfig(root);
  // Messages name files relative to the project, as `nicgen gen` does.
  if (config !== undefined) setLocationRoot(path.dirname(config));
  const tests = project ? [...(await project.globTestFiles()).testFiles] : [];
  if (config === undefined && !tests.length) {
    throw new Error(`nicgen/vitest: no ${configFileName} in ${path.resolve(root)} or above it, and no test files: nothing to type-check`);
  }
  return [...(config === undefined ? [] : [config]), ...tests];
}

export default async function setup(project?: VitestProjectLike): Promise<void> {
  let r: SourceCheckResult;
  try {
    r = await checkSources(await typecheckRoots(project));
  } catch (e) {
    if (!(e instanceof DesignErrors)) throw e;
    // The messages themselves, as `nicgen gen` prints them, and the end of the run: thrown
    // instead, vitest would add "No test files found" and an "Unhandled Error" block.
    console.error(e.message);
    console.error(`type-check failed: ${e.diagnostics.length} problem(s) above; no test was run`);
    process.exit(1);
  }
  if (!r.cached) console.log(`typecheck: ${describeCheck(r)}`);
}
