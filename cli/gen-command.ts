// `nicgen gen`: write every top's modules, filelists and manifests into a folder, or with
// --check report whether the folder (normally rtl/) is out of date.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { currentProject } from './config.ts';
import { emitAll } from './project.ts';
import { UsageError } from './usage-error.ts';

const generated = /\.(v|f)$|\.ports\.json$/;

export interface GenOptions {
  /** Output folder; default the project's (nicgen.config.ts `out`, normally rtl/). */
  readonly out?: string | undefined;
  readonly check: boolean;
  readonly tops?: string;
}

/** Returns the process exit code. */
export async function genCommand(opts: GenOptions): Promise<number> {
  const t0 = performance.now();
  const project = await emitAll(opts.tops);
  const target = await outFolder(opts.out);
  const files = filelistsUnder(project.files, target.shown);
  const out = target.abs;
  if (fs.existsSync(out) && !fs.statSync(out).isDirectory()) throw new UsageError(`--out ${target.shown} is a file, not a folder`);
  const existing = fs.existsSync(out) ? fs.readdirSync(out).filter(f => generated.test(f)) : [];
  const stale = existing.filter(f => !files.has(f));
  const changed = [...files].filter(([f, text]) => !fs.existsSync(path.join(out, f)) || fs.readFileSync(path.join(out, f), 'utf8') !== text).map(([f]) => f);

  if (opts.check) {
    if (!changed.length && !stale.length) {
      console.log(`${path.relative(process.cwd(), out) || out}/ is up to date (${files.size} files)`);
      return 0;
    }
    for (const f of changed) console.error(`  would change: ${f}`);
    for (const f of stale) console.error(`  would delete: ${f}`);
    console.error(`${target.shown} is out of date with the generators: run 'nicgen gen' and commit the result`);
    return 1;
  }

  try {
    // Not `recursive: true`: on pseudo file systems such as /proc, Node 20's recursive
    // mkdir can spin forever instead of failing. One level is all a user expects.
    if (!fs.existsSync(out)) fs.mkdirSync(out);
    fs.accessSync(out, fs.constants.W_OK);
  } catch (e) {
    throw new UsageError(`cannot write to --out ${target.shown}: ${(e as Error).message}`);
  }
  for (const f of changed) fs.writeFileSync(path.join(out, f), files.get(f)!);
  for (const f of stale) fs.unlinkSync(path.join(out, f));
  const secs = ((performance.now() - t0) / 1000).toFixed(2);
  console.log(`wrote ${project.tops.length} tops, ${files.size} files to ${target.shown} (${changed.length} changed, ${stale.length} removed) in ${secs} s`);
  return 0;
}

/** `--out` as given (relative to the current folder), or the project's folder as seen from the
 *  project root, which is how its filelists name their files (`rtl/x.v`). */
async function outFolder(out: string | undefined): Promise<{ abs: string; shown: string }> {
  if (out !== undefined) return { abs: path.resolve(out), shown: out };
  const p = await currentProject();
  return { abs: p.out, shown: path.relative(p.root, p.out) || '.' };
}

/** Filelists name their files as seen from where nicgen runs (`rtl/x.v`), so
 *  `verilator -f rtl/top.f` and `iverilog -c rtl/top.f` work from the project root. */
function filelistsUnder(files: ReadonlyMap<string, string>, outDir: string): Map<string, string> {
  const prefix = path.normalize(outDir);
  const result = new Map<string, string>();
  for (const [name, text] of files) {
    if (!name.endsWith('.f')) { result.set(name, text); continue; }
    const lines = text.split('\n').filter(l => l !== '').map(l => path.join(prefix, l));
    result.set(name, lines.join('\n') + '\n');
  }
  return result;
}
