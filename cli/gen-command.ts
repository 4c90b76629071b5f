// `nicgen gen`: write every top's modules, filelists and manifests into a folder, or with
// --check report whether the folder (normally rtl/) is out of date.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { emitAll } from './project.ts';
import { UsageError } from './usage-error.ts';

const generated = /\.(v|f)$|\.ports\.json$/;

export interface GenOptions {
  readonly out: string;
  readonly check: boolean;
}

/** Returns the process exit code. */
export function genCommand(opts: GenOptions): number {
  const t0 = performance.now();
  const project = emitAll();
  const out = path.resolve(opts.out);
  const existing = fs.existsSync(out) ? fs.readdirSync(out).filter(f => generated.test(f)) : [];
  const stale = existing.filter(f => !project.files.has(f));
  const changed = [...project.files].filter(([f, text]) => !fs.existsSync(path.join(out, f)) || fs.readFileSync(path.join(out, f), 'utf8') !== text).map(([f]) => f);

  if (opts.check) {
    if (!changed.length && !stale.length) {
      console.log(`${path.relative(process.cwd(), out) || out}/ is up to date (${project.files.size} files)`);
      return 0;
    }
    for (const f of changed) console.error(`  would change: ${f}`);
    for (const f of stale) console.error(`  would delete: ${f}`);
    console.error(`${opts.out} is out of date with the generators: run 'nicgen gen' and commit the result`);
    return 1;
  }

  try {
    fs.mkdirSync(out, { recursive: true });
    fs.accessSync(out, fs.constants.W_OK);
  } catch (e) {
    throw new UsageError(`cannot write to --out ${opts.out}: ${(e as Error).message}`);
  }
  for (const f of changed) fs.writeFileSync(path.join(out, f), project.files.get(f)!);
  for (const f of stale) fs.unlinkSync(path.join(out, f));
  const secs = ((performance.now() - t0) / 1000).toFixed(2);
  console.log(`wrote ${project.tops.length} tops, ${project.files.size} files to ${opts.out} (${changed.length} changed, ${stale.length} removed) in ${secs} s`);
  return 0;
}
