// `make regress`: this repository's benches (nicgen.config.ts), many seeds each; the same as
// `./bin/nicgen regress`. Usage: docs/regress.md, or --help.

import { loadProject, nicgenBin, packageRoot } from '../cli/config.ts';
import { UsageError } from './regress/args.ts';
import { regressMain } from './regress/main.ts';

async function main(argv: readonly string[]): Promise<number> {
  const project = await loadProject(packageRoot);
  return regressMain(argv, { root: project.root, benches: project.benches, configFile: project.configFile, bin: nicgenBin, command: project.command });
}

main(process.argv.slice(2)).then(code => { process.exitCode = code; }, (err: unknown) => {
  if (err instanceof UsageError) {
    console.error(`regress: ${err.message}`);
    process.exitCode = 2;
    return;
  }
  console.error(err);
  process.exitCode = 1;
});
