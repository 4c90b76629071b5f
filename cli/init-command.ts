// `nicgen init DIR`: scaffolds a project that depends on nicgen (cli/init-files.ts). It never
// overwrites: if any file it would write exists, it writes nothing and names that file.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from './config.ts';
import { initFiles } from './init-files.ts';
import { UsageError } from './usage-error.ts';

export interface InitOptions {
  readonly dir: string;
  readonly name?: string | undefined;
  /** Dependency spec for nicgen in the new package.json. */
  readonly nicgen?: string | undefined;
}

interface OwnPackage {
  readonly version: string;
  readonly devDependencies: Readonly<Record<string, string>>;
}

function ownPackage(): OwnPackage {
  return JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as OwnPackage;
}

/** This nicgen as a dependency: its folder when it is a checkout (npm links it), else its
 *  version from the registry. */
function defaultSpec(version: string): string {
  return packageRoot.split(path.sep).includes('node_modules') ? `^${version}` : `file:${packageRoot}`;
}

/** npm's rules, shortened: lower case, no spaces, at most 214 characters. */
function packageName(dir: string, given: string | undefined): string {
  const name = given ?? path.basename(path.resolve(dir)).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '');
  if (!/^[a-z0-9][a-z0-9._-]{0,213}$/.test(name)) throw new UsageError(`'${name}' is not a usable npm package name: pass --name my-design`);
  return name;
}

export async function initCommand(opts: InitOptions): Promise<number> {
  const own = ownPackage();
  const dev = own.devDependencies;
  const files = initFiles({
    name: packageName(opts.dir, opts.name),
    nicgen: opts.nicgen ?? defaultSpec(own.version),
    typescript: dev['typescript']!, vitest: dev['vitest']!, vite: dev['vite']!, typesNode: dev['@types/node']!,
  });
  const root = path.resolve(opts.dir);
  if (fs.existsSync(root) && !fs.statSync(root).isDirectory()) throw new UsageError(`${opts.dir} is a file, not a folder`);
  const clash = [...files.keys()].find(f => fs.existsSync(path.join(root, f)));
  if (clash !== undefined) throw new UsageError(`${path.join(opts.dir, clash)} already exists: nothing written (nicgen init never overwrites a file)`);
  try {
    for (const [file, text] of files) {
      const abs = path.join(root, file);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      // 'wx': fail rather than replace a file that appeared since the check.
      fs.writeFileSync(abs, text, { flag: 'wx' });
    }
  } catch (e) {
    throw new UsageError(`cannot write the project into ${opts.dir}: ${(e as Error).message}`);
  }
  console.log(`nicgen init: wrote ${files.size} files to ${opts.dir}:`);
  for (const f of files.keys()) console.log(`  ${f}`);
  console.log('next:');
  console.log(`  cd ${opts.dir} && npm install`);
  console.log('  npx nicgen gen                          # Verilog into rtl/');
  console.log('  npx nicgen sim counter --test random    # the bench on a Verilator model');
  return 0;
}
