// `nicgen gen`: write tops' modules, filelists, port manifests and FuseSoC cores into a
// folder (cli/output-folder.ts: what may be written or removed there), or with --check report
// whether the folder (normally rtl/) is out of date.
//
//   nicgen gen                                    the project's tops (nicgen.config.ts) into its rtl/
//   nicgen gen --tops my-tops.ts --out build/x    your tops; --out is required
//   nicgen gen nic_top --set numQp=8 --out DIR    one top, some parameters changed

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitProject, reconfigure, topName, type TopEntry } from '../gen/emit/index.ts';
import { currentProject } from './config.ts';
import { MANIFEST_FILE, applyPlan, planWrite, type WritePlan } from './output-folder.ts';
import { checkTopsSources, loadTops } from './project.ts';
import { commandLineLoc, parseSets } from './gen-set.ts';
import { describeCheck } from './source-check.ts';
import { UsageError } from './usage-error.ts';

export interface GenOptions {
  /** Output folder; default the project's (nicgen.config.ts `out`, normally rtl/), and only
   *  for the project's own tops as they are listed there. */
  readonly out?: string | undefined;
  readonly check: boolean;
  readonly tops?: string | undefined;
  /** Emit only this top: its Verilog name (`sync_fifo_width64_depth16`, with that entry's
   *  parameters) or its definition's name (`nic_top`, from the definition's defaults). */
  readonly top?: string | undefined;
  /** `name=value` parameter changes for `top`. */
  readonly set?: readonly string[];
  /** The command line as typed (where --set errors are reported). */
  readonly argv?: readonly string[];
}

const nicgenRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function nicgenVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(nicgenRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

/** `--out` as given (relative to the current folder), or the project's folder (nicgen.config.ts
 *  `out`) as seen from the project root, which is how its filelists name their files
 *  (`rtl/x.v`). That folder is for the project's own tops as its config lists them (in this
 *  repository rtl/ is committed and checked): other tops and configured ones need --out. */
async function outFolder(o: GenOptions): Promise<{ abs: string; shown: string }> {
  if (o.out !== undefined) return { abs: path.resolve(o.out), shown: o.out };
  if (o.tops !== undefined) throw new UsageError(`--tops ${o.tops} emits other tops than nicgen.config.ts lists: name their folder with --out DIR (the project's own folder, rtl/ unless the config says otherwise, holds its generated files)`);
  const p = await currentProject();
  const shown = path.relative(p.root, p.out) || '.';
  if (o.top !== undefined || o.set?.length) throw new UsageError(`name the folder for ${o.top ?? 'the top'} with --out DIR, e.g. --out build/${o.top ?? 'top'} (${shown}/ holds this project's generated files)`);
  return { abs: p.out, shown };
}

function selectTop(entries: readonly TopEntry[], o: GenOptions): readonly TopEntry[] {
  const sets = o.set ?? [];
  if (o.top === undefined) {
    if (sets.length) throw new UsageError(`--set changes one top's parameters: name the top (nicgen gen <top> --set ${sets[0]} --out DIR)`);
    return entries;
  }
  const byName = entries.find(e => topName(e) === o.top);
  const byDef = entries.find(e => e.def?.name === o.top);
  const base = byName ?? (byDef ? { ...byDef, given: {} } : undefined);
  if (!base?.def) {
    const names = [...new Set(entries.flatMap(e => [e.def?.name, topName(e)]).filter((n): n is string => typeof n === 'string'))];
    throw new UsageError(`unknown top '${o.top}' (known: ${names.join(', ')})`);
  }
  if (!sets.length) return [byName ?? reconfigure(base, {}, base.at ?? commandLineLoc(o.argv ?? []))];
  const at = commandLineLoc(o.argv ?? ['gen', o.top, ...sets.flatMap(s => ['--set', s])]);
  return [reconfigure(base, parseSets(base.def, sets, at), at)];
}

/** Returns the process exit code. */
export async function genCommand(opts: GenOptions): Promise<number> {
  const t0 = performance.now();
  const target = await outFolder(opts);
  const out = target.abs;
  if (fs.existsSync(out) && !fs.statSync(out).isDirectory()) throw new UsageError(`--out ${target.shown} is a file, not a folder`);
  const checked = await checkTopsSources(opts.tops);
  const entries = selectTop(await loadTops(opts.tops), opts);
  const project = emitProject(entries, { coreVersion: nicgenVersion() });
  const plan = planWrite(out, filelistsUnder(project.files, target.shown));

  if (opts.check) return reportCheck(plan, target.shown, project.files.size);
  if (plan.conflicts.length) {
    for (const f of plan.conflicts) console.error(`  not nicgen's: ${path.join(target.shown, f)}`);
    console.error(`nicgen gen: nothing written: ${plan.conflicts.length} file(s) in ${target.shown} that a top generates were not written by nicgen, or were changed since `
      + `(${MANIFEST_FILE} lists what nicgen wrote): move them out of ${target.shown} (or delete them) and run again`);
    return 1;
  }
  try {
    makeFolder(out);
    fs.accessSync(out, fs.constants.W_OK);
  } catch (e) {
    throw new UsageError(`cannot write to --out ${target.shown}: ${(e as Error).message}`);
  }
  applyPlan(plan);
  for (const f of plan.keptEdited) console.error(`nicgen gen: kept ${path.join(target.shown, f)}: no top generates it any more, but it was changed since nicgen wrote it (it is yours now)`);
  const secs = ((performance.now() - t0) / 1000).toFixed(2);
  const kept = plan.userFiles.length ? `; ${plan.userFiles.length} other file(s) left alone` : '';
  console.log(`wrote ${project.tops.length} tops, ${project.files.size} files to ${target.shown} (${plan.write.size} changed, ${plan.remove.length} removed${kept}) in ${secs} s; ${describeCheck(checked)}`);
  return 0;
}

/** `out`, and inside the current folder any missing folders above it (`--out build/nic512`
 *  in a fresh project); elsewhere only the last level (a typo such as `/nonexistent/deep/x`
 *  is refused rather than made). One level at a time, not `recursive: true`: on pseudo file
 *  systems such as /proc, Node 20's recursive mkdir can spin forever instead of failing. */
function makeFolder(out: string): void {
  const rel = path.relative(process.cwd(), out);
  const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  const missing: string[] = [];
  for (let d = out; !fs.existsSync(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (!inside || path.dirname(d) === d) break;
  }
  for (const d of missing) fs.mkdirSync(d);
}

function reportCheck(plan: WritePlan, shown: string, count: number): number {
  if (plan.upToDate) {
    console.log(`${path.relative(process.cwd(), plan.out) || plan.out}/ is up to date (${count} files)`);
    return 0;
  }
  for (const f of plan.write.keys()) console.error(`  would change: ${f}`);
  for (const f of plan.remove) console.error(`  would delete: ${f}`);
  for (const f of plan.conflicts) console.error(`  differs, and is not nicgen's to overwrite: ${f}`);
  for (const f of plan.keptEdited) console.error(`  no longer generated, changed since, would be kept: ${f}`);
  if (!plan.write.size && !plan.remove.length && !plan.conflicts.length && !plan.keptEdited.length) console.error(`  would change: ${MANIFEST_FILE}`);
  console.error(`${shown} is out of date with the generators: run 'nicgen gen' and commit the result`);
  return 1;
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
