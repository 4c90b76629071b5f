// Type-check the whole project with tsc (TypeScript 7) before tests run, remembering a pass
// by the hash of every file (cli/source-check.ts), so an unchanged tree is not checked twice.
// Two uses:
// - vitest's globalSetup (vitest.config.ts): a type error stops the run before any test, as
//   `nicgen gen` and `nicgen sim` do for the files they run;
// - `node --import tsx scripts/typecheck.ts [tsconfig.json]` (make test's first step).
// NICGEN_TYPECHECK=0 skips it.

import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DesignErrors } from '../gen/hdl/errors.ts';
import { checkProject, describeCheck } from '../cli/source-check.ts';

export default async function setup(): Promise<void> {
  const r = await checkProject(path.resolve('tsconfig.json'));
  if (!r.cached) console.log(`typecheck: ${describeCheck(r)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  checkProject(path.resolve(process.argv[2] ?? 'tsconfig.json')).then(r => console.log(`typecheck: ${describeCheck(r)}`), (e: unknown) => {
    console.error(e instanceof DesignErrors ? e.message : e);
    process.exitCode = 1;
  });
}
