// `nicgen synth`: resources and worst paths of emitted modules under the proxies of
// docs/synth.md, as a table (stdout), progress (stderr) and optionally JSON (--json).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EmittedTop, TopEntry } from '../gen/emit/index.ts';
import { FLOW_VERSION, targets, type Target } from '../synth/flows.ts';
import { SYNTH_JSON_FORMAT, type SynthReport } from '../synth/result.ts';
import { toolVersions, ToolFailure } from '../synth/run.ts';
import { measureAll, subjectOf, type Measured } from '../synth/session.ts';
import { formatPaths, formatTable } from '../synth/table.ts';
import { loadTops } from './project.ts';
import { commandLineLoc, parseSets } from './gen-set.ts';
import { UsageError } from './usage-error.ts';

export interface SynthOptions {
  readonly top?: string;
  readonly set: readonly string[];
  readonly target: string;
  readonly json?: string;
  readonly jobs: number;
  /** Only the whole top, no row per module inside it. */
  readonly whole: boolean;
  readonly cacheDir: string;
  readonly topsFile?: string;
}

export async function synthCommand(opts: SynthOptions): Promise<number> {
  const t0 = performance.now();
  if (!targets.includes(opts.target as Target)) throw new UsageError(`--target ${opts.target}: expected one of ${targets.join(', ')}`);
  const target = opts.target as Target;
  if (!Number.isInteger(opts.jobs) || opts.jobs < 1) throw new UsageError(`--jobs ${opts.jobs}: expected a positive whole number`);
  if (opts.json) checkJsonTarget(opts.json);
  const entries = await loadTops(opts.topsFile);
  const { emitted, modules, params } = select(entries, opts);
  const list: Measured[] = modules.map(name => subjectOf(emitted, name));

  let tools: Record<string, string>;
  try {
    tools = await toolVersions();
    const log = (line: string): void => { console.error(line); };
    log(`synth: ${list.length} module${list.length === 1 ? '' : 's'} of ${emitted.top}, target ${target}, ${opts.jobs} at a time (cache ${opts.cacheDir})`);
    const results = await measureAll(list, { target, jobs: opts.jobs, cacheDir: opts.cacheDir, log });
    console.log(formatTable(results, target));
    console.log('');
    console.log(formatPaths(results));
    const report: SynthReport = { format: SYNTH_JSON_FORMAT, top: emitted.top, target, params, flowVersion: FLOW_VERSION, tools, modules: results };
    if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(report, null, 2) + '\n');
    const cached = results.filter(r => r.cached).length;
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    console.log(`synth: ${results.length} modules, target ${target}, flow v${FLOW_VERSION}, ${tools.yosys}; ${secs} s (${cached} from the cache)${opts.json ? `; JSON in ${opts.json}` : ''}`);
    return 0;
  } catch (e) {
    if (e instanceof ToolFailure) { console.error(`nicgen synth: ${e.message}`); return 1; }
    throw e;
  }
}

/** The emitted top and the modules of it to measure (leaves first, the top last). */
function select(entries: readonly TopEntry[], opts: SynthOptions): { emitted: EmittedTop; modules: string[]; params: Record<string, unknown> } {
  const name = opts.top;
  if (name === undefined) {
    if (opts.set.length) throw new UsageError('--set needs --top NAME (the top whose generator takes the parameters)');
    throw new UsageError('name what to measure with --top NAME (a top of gen/tops.ts, or any module in one; see nicgen modules)');
  }
  // Tops are emitted in order until one is or holds the name: a library block is found in
  // a fraction of a second, without elaborating nic_top.
  const emittedAll: { entry: TopEntry; top: EmittedTop }[] = [];
  for (const e of entries) {
    const t = e.emit();
    emittedAll.push({ entry: e, top: t });
    if (t.top === name || t.modules.some(m => m.name === name)) break;
  }
  const asTop = emittedAll.find(t => t.top.top === name);
  if (opts.set.length) {
    if (!asTop) throw new UsageError(`--set needs a top: '${name}' is ${emittedAll.some(t => t.top.modules.some(m => m.name === name)) ? 'a module inside a top' : 'unknown'} (tops: ${emittedAll.map(t => t.top.top).join(', ')})`);
    const entry = asTop.entry;
    if (!entry.emitWith || !entry.params || !entry.def) throw new UsageError(`--set: top '${name}' was not made with top(...) and takes no parameters`);
    // Parsed and range-checked as `nicgen gen TOP --set` does: a bad value is the same
    // one-line [params] error (exit 1), reported at the command line.
    const over = parseSets(entry.def, opts.set, commandLineLoc(['synth', '--top', name, ...opts.set.flatMap(s => ['--set', s])]));
    const emitted = entry.emitWith(over);
    return { emitted, modules: modulesToMeasure(emitted, emitted.top, opts.whole), params: { ...entry.params, ...over } };
  }
  if (asTop) return { emitted: asTop.top, modules: modulesToMeasure(asTop.top, name, opts.whole), params: { ...asTop.entry.params } };
  const holder = emittedAll.find(t => t.top.modules.some(m => m.name === name));
  if (!holder) throw new UsageError(`unknown module '${name}' (tops: ${emittedAll.map(t => t.top.top).join(', ')}; every module: nicgen modules)`);
  const ir = holder.top.modules.find(m => m.name === name)!.ir;
  return { emitted: holder.top, modules: [name], params: { ...ir.params } };
}

function modulesToMeasure(t: EmittedTop, name: string, whole: boolean): string[] {
  if (whole) return [name];
  return t.modules.map(m => m.name);
}

/** --json may replace an earlier report, never any other file. */
function checkJsonTarget(file: string): void {
  const abs = path.resolve(file);
  if (!fs.existsSync(path.dirname(abs))) throw new UsageError(`--json ${file}: folder ${path.dirname(file)} does not exist`);
  if (!fs.existsSync(abs)) return;
  if (fs.statSync(abs).isDirectory()) throw new UsageError(`--json ${file} is a folder`);
  let format: unknown = null;
  try { format = (JSON.parse(fs.readFileSync(abs, 'utf8')) as { format?: unknown }).format; } catch { /* not JSON */ }
  if (format !== SYNTH_JSON_FORMAT) throw new UsageError(`--json ${file} exists and is not a nicgen synth report: not overwriting it (remove it or pick another name)`);
}
