// Measure the anchor blocks (synth/anchors.ts) with the flows of `nicgen synth` and record
// their figures in synth/anchors.json. Their Verilog is read from local git mirrors of the
// public repositories at the recorded commits and written only to scratch folders.
//
//   node --import tsx scripts/anchors.ts [--mirror DIR] [--jobs N] [--only NAME] [--check]
//
// DIR holds bare clones as <owner>+<name>/repo, <name>.git or <name> (default: $NICGEN_MIRROR,
// else /work/.mirror). --check measures again and exits 1 if any figure differs from the file.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { anchors, type Anchor } from '../synth/anchors.ts';
import { FLOW_VERSION, type Target } from '../synth/flows.ts';
import { NameMap } from '../synth/names.ts';
import type { ModuleResult } from '../synth/result.ts';
import { toolVersions, ToolFailure } from '../synth/run.ts';
import { cacheRoot } from '../sim/cache.ts';
import { measureAll, type Measured } from '../synth/session.ts';
import type { WrapPort } from '../synth/wrapper.ts';
import { ANCHORS_FILE, type AnchorRecord, type AnchorsFile } from '../synth/anchor-data.ts';

const synthCache = path.join(cacheRoot(), 'synth');

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const mirror = opt('--mirror') ?? process.env.NICGEN_MIRROR ?? '/work/.mirror';
const jobs = Number(opt('--jobs') ?? 2);
const only = opt('--only');
const check = args.includes('--check');

function gitDir(repo: string): string {
  const [owner, name] = repo.split('/') as [string, string];
  for (const d of [path.join(mirror, `${owner}+${name}`, 'repo'), path.join(mirror, `${name}.git`), path.join(mirror, name)]) {
    if (fs.existsSync(d)) return d;
  }
  throw new Error(`no mirror of ${repo} under ${mirror} (clone it there: git clone --bare <url> ${path.join(mirror, `${name}.git`)})`);
}

function readSource(a: Anchor): Map<string, string> {
  const dir = gitDir(a.source.repo);
  const files = new Map<string, string>();
  for (const f of a.files) {
    const r = spawnSync('git', ['--git-dir', dir, 'show', `${a.source.commit}:${f}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`${a.source.repo}@${a.source.commit}: cannot read ${f}: ${r.stderr.trim()}`);
    // Flat names: the wrapper's folder holds every file once.
    files.set(path.basename(f), r.stdout);
  }
  return files;
}

/** The module's ports after its parameters are applied, from Yosys's `portlist`. */
function portsOf(a: Anchor, files: ReadonlyMap<string, string>): WrapPort[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-anchor-'));
  try {
    for (const [n, t] of files) fs.writeFileSync(path.join(dir, n), t);
    const chparam = Object.entries(a.params).map(([k, v]) => `-chparam ${k} ${v}`).join(' ');
    const r = spawnSync('yosys', ['-q', '-p', `read_verilog ${[...files.keys()].join(' ')}; hierarchy -top ${a.module} ${chparam}; tee -q -o ports.txt portlist`], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`yosys could not read ${a.name}: ${r.stdout}${r.stderr}`);
    return fs.readFileSync(path.join(dir, 'ports.txt'), 'utf8').split('\n').flatMap(line => {
      const m = /^(input|output) \[(\d+):(\d+)\] (\S+)/.exec(line.trim());
      return m ? [{ dir: m[1] as 'input' | 'output', width: Math.abs(Number(m[2]) - Number(m[3])) + 1, name: m[4]! }] : [];
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const selected = anchors.filter(a => !only || a.name.includes(only) || a.module === only);
const measured: Measured[] = selected.map(a => {
  const files = readSource(a);
  const ports = portsOf(a, files);
  return { subject: { module: a.module, files, ports, params: a.params }, names: new NameMap(null, ports) };
});
/** One anchor on one target; a tool failure (Yosys 0.23 cannot map every memory) is recorded, not fatal. */
async function measureOne(m: Measured, target: Target): Promise<ModuleResult> {
  try {
    const [r] = await measureAll([m], { target, jobs, cacheDir: synthCache, log: l => console.error(l) });
    return strip(r!);
  } catch (e) {
    if (!(e instanceof ToolFailure)) throw e;
    const why = e.message.split('\n').slice(1).find(l => /ERROR/.test(l))?.replace(/^ERROR: /, '') ?? e.message.split('\n')[0]!;
    console.error(`anchors: ${m.subject.module} ${target}: ${why}`);
    const note = `${target}: Yosys failed: ${why}`;
    // The generic flow keeps memories as cells, so proxy (b) and the LUT6 count still exist.
    if (target === 'xcup') {
      const [g] = await measureAll([m], { target: 'generic', jobs, cacheDir: synthCache, log: l => console.error(l) });
      return { ...strip(g!), target, resources: null, genericLuts: g!.resources!.luts, notes: [note] };
    }
    return { module: m.subject.module, target, resources: null, genericLuts: null, paths: [], notes: [note], seconds: 0, cached: false };
  }
}

const records: AnchorRecord[] = [];
for (const [i, a] of selected.entries()) {
  const [xcup, ice40] = [await measureOne(measured[i]!, 'xcup'), await measureOne(measured[i]!, 'ice40')];
  records.push({ name: a.name, repo: a.source.repo, commit: a.source.commit, module: a.module, params: a.params, peer: a.peer, xcup, ice40 });
}
const data: AnchorsFile = { flowVersion: FLOW_VERSION, tools: await toolVersions(), measured: new Date().toISOString().slice(0, 10), anchors: records };

if (check) {
  const old = JSON.parse(fs.readFileSync(ANCHORS_FILE, 'utf8')) as AnchorsFile;
  const diffs = records.filter(r => JSON.stringify(r) !== JSON.stringify(old.anchors.find(o => o.name === r.name)));
  for (const d of diffs) console.log(`differs: ${d.name}`);
  console.log(diffs.length ? `anchors: ${diffs.length} of ${records.length} differ from ${ANCHORS_FILE}` : `anchors: all ${records.length} as recorded`);
  process.exitCode = diffs.length ? 1 : 0;
} else {
  const kept = only && fs.existsSync(ANCHORS_FILE) ? (JSON.parse(fs.readFileSync(ANCHORS_FILE, 'utf8')) as AnchorsFile).anchors.filter(o => !records.some(r => r.name === o.name)) : [];
  const order = (x: AnchorRecord): number => anchors.findIndex(a => a.name === x.name);
  const merged: AnchorsFile = { ...data, anchors: [...kept, ...records].sort((x, y) => order(x) - order(y)) };
  fs.writeFileSync(ANCHORS_FILE, JSON.stringify(merged, null, 2) + '\n');
  for (const r of records) {
    const a = r.xcup.paths.find(p => p.proxy === 'a');
    const c = r.ice40.paths.find(p => p.proxy === 'c');
    console.log(`${r.name.padEnd(28)} LUT ${r.xcup.resources?.luts} FF ${r.xcup.resources?.ffs} LUTRAM ${r.xcup.resources?.lutram} (a) ${a?.delayNs?.toFixed(2)} ns ${a?.lut}+${a?.muxf}/${a?.carryChains} LUT6(b) ${r.xcup.genericLuts} (b) ${r.xcup.paths.find(p => p.proxy === 'b')?.levels} iCE40 ${c ? `${c.fmaxMhz} MHz` : r.ice40.notes.join('; ')}`);
  }
  console.log(`wrote ${ANCHORS_FILE} (${merged.anchors.length} anchors)`);
}

/** Timing and cache facts are not part of the record. */
function strip(r: ModuleResult): ModuleResult {
  return { ...r, seconds: 0, cached: false };
}
