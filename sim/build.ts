// Builds a Verilated model plus its Node-API wrapper into a loadable `.node` file,
// cached under `<cache>/models/<sha256>/` keyed by everything that affects the binary.
//
// Pipeline (build-steps.ts, each step timed into build.json): verilator --cc with small
// output files → make of the model archive (OPT_FAST=-O3 for per-cycle code, -O0 for
// run-once code, each from a precompiled header, pch.ts) while the wrapper object is taken
// from the object cache or compiled → link with the shared runtime library (runtime.ts).
// ccache is used when on PATH. Why each step looks as it does: build-steps.ts.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from '../gen/emit/manifest.ts';
import { buildOnce, cacheRoot, projectRoot, publish, sha256, tempDirFor } from './cache.ts';
import { BuildError } from './errors.ts';
import { run } from './exec.ts';
import { ensureRuntime } from './runtime.ts';
import { toolchain } from './toolchain.ts';
import { coverageCounterRewrite, fastOpt, linkAddon, makeModel, makeVars, plainCoverageCounters, slowOpt, splitArgs, timed, wrapperObject, type Phase } from './build-steps.ts';
import { ensurePch, pchEnv, pchPath } from './pch.ts';
import { addonSource, type TraceFormat } from './wrapper.ts';

/** Everything needed to build a model: Verilog by file name (compile order) and the manifest. */
export interface DesignSources {
  readonly manifest: Manifest;
  readonly files: ReadonlyMap<string, string>;
}

export interface BuildOptions {
  /** Wave format compiled in (default 'fst'). Verilator supports one per build. */
  readonly trace?: TraceFormat;
  /** Extra Verilator arguments (part of the cache key). */
  readonly verilatorArgs?: readonly string[];
  /** Suppress the one-line build notice. */
  readonly quiet?: boolean;
  /** Verilator coverage compiled in: a separate cached variant (its own key and runtime),
   *  written with Model.writeCoverage. */
  readonly coverage?: CoverageKinds;
}

/** What a coverage model counts: always line points (blocks, case items), branches (if/else
 *  arms) and user cover points (`m.cover`); `toggle` adds every bit of every signal, which
 *  costs far more per cycle (docs/coverage.md, measured on nic_pair). */
export interface CoverageKinds {
  readonly toggle: boolean;
}

export interface BuiltModel {
  readonly key: string;
  readonly dir: string;
  readonly addonPath: string;
  /** Verilator's output folder (headers, V<top>__ALL.a) for linking other programs. */
  readonly objDir: string;
  /** The model's own compiled code (archive or objects) to link into another program. */
  readonly modelObjects: readonly string[];
  readonly runtimeLib: string;
  readonly runtimeCxxFlags: readonly string[];
  readonly trace: TraceFormat;
  /** Built with coverage counters (BuildOptions.coverage), and which. */
  readonly coverage: CoverageKinds | undefined;
  /** The Verilog the model was built from (coverage reports annotate these files). */
  readonly sourceDir: string;
  /** False on a cache hit. */
  readonly built: boolean;
  /** Wall time of this call's build (0 on a hit). */
  readonly seconds: number;
  /** Wall time of each build step (empty on a hit). */
  readonly phases: readonly Phase[];
}

/** Builds performed by this process; tests use it to prove a cache hit. */
export let buildCount = 0;

/** Line (with its branches) and user cover points, plus toggles when asked. */
export function coverageArgs(kinds: CoverageKinds | undefined): string[] {
  if (!kinds) return [];
  return kinds.toggle ? ['--coverage-line', '--coverage-toggle', '--coverage-user'] : ['--coverage-line', '--coverage-user'];
}

function verilatorArgs(sources: DesignSources, trace: TraceFormat, coverage: CoverageKinds | undefined, extra: readonly string[]): string[] {
  const args = [
    '--cc', trace === 'fst' ? '--trace-fst' : '--trace', '--top-module', sources.manifest.top,
    '-Mdir', '../obj', '-Wno-fatal', ...splitArgs, ...coverageArgs(coverage),
  ];
  // Same trap hooks as the shared runtime (see runtime.ts); the printf routing header comes
  // first through the precompiled header that make force-includes (pch.ts).
  for (const f of ['-fPIC', '-DVL_USER_STOP', '-DVL_USER_FATAL', '-DVL_USER_FINISH']) args.push('-CFLAGS', f);
  return [...args, ...extra, ...sources.files.keys()];
}

function checkFileName(name: string): void {
  if (name.includes('/') || name.includes('\\') || name.startsWith('.')) {
    throw new BuildError(`Verilog file name ${JSON.stringify(name)} must be a plain file name`, '');
  }
}

/** `.cache/models/ab12cd34…` (relative to the project when inside it). */
function shortDir(dir: string): string {
  const parent = path.dirname(dir);
  const rel = path.relative(projectRoot, parent);
  return path.join(rel.startsWith('..') ? parent : rel, path.basename(dir).slice(0, 8)) + '…';
}

export async function buildModel(sources: DesignSources, options: BuildOptions = {}): Promise<BuiltModel> {
  const trace = options.trace ?? 'fst';
  const extra = options.verilatorArgs ?? [];
  const coverage = options.coverage;
  const tc = toolchain();
  const runtime = await ensureRuntime(coverage !== undefined);
  const wrapper = addonSource(sources.manifest, trace);
  const top = sources.manifest.top;
  const fileParts: string[] = [];
  for (const [name, text] of sources.files) { checkFileName(name); fileParts.push(name, text); }
  const vArgs = verilatorArgs(sources, trace, coverage, extra);
  // The header paths are content-addressed: same paths, same precompiled contents.
  const vars = makeVars(pchPath(tc, runtime, trace, fastOpt), pchPath(tc, runtime, trace, slowOpt));
  const key = sha256([tc.verilatorVersion, tc.cxxVersion, tc.napiInclude, wrapper, ...vArgs, ...vars, ...runtime.cxxFlags,
    runtime.lib, ...(coverage ? [coverageCounterRewrite] : []), ...fileParts]);
  const dir = path.join(cacheRoot(), 'models', key);
  const addonPath = path.join(dir, `${top}.node`);
  const result = (built: boolean, seconds: number, phases: readonly Phase[] = []): BuiltModel => ({
    key, dir, addonPath, objDir: path.join(dir, 'obj'), modelObjects: [path.join(dir, 'obj', `V${top}__ALL.a`)],
    runtimeLib: runtime.lib, runtimeCxxFlags: runtime.cxxFlags, trace, coverage, sourceDir: path.join(dir, 'src'), built, seconds, phases,
  });
  if (fs.existsSync(addonPath)) return result(false, 0);

  let seconds = 0;
  let built = false;
  const phases: Phase[] = [];
  await buildOnce(`${dir}.lock`, () => fs.existsSync(addonPath), async () => {
    const t0 = performance.now();
    const tmp = tempDirFor(dir);
    try {
      const src = path.join(tmp, 'src');
      fs.mkdirSync(src);
      for (const [name, text] of sources.files) fs.writeFileSync(path.join(src, name), text);
      fs.writeFileSync(path.join(tmp, 'manifest.json'), JSON.stringify(sources.manifest, null, 2));
      fs.writeFileSync(path.join(tmp, 'wrapper.cpp'), wrapper);
      // Paths under the temp folder are rewritten to relative ones so ccache hits across builds.
      const env = pchEnv({ ...process.env, CCACHE_BASEDIR: tmp, CCACHE_NOHASHDIR: '1' });
      // The precompiled headers are built once per toolchain and trace format, meanwhile.
      const [verilated] = await Promise.all([
        timed(phases, 'verilate', () => run('verilator', vArgs, { cwd: src, env })),
        timed(phases, 'pch', () => Promise.all([fastOpt, slowOpt].map(o => ensurePch(tc, runtime, trace, o)))),
      ]);
      let log = verilated;
      if (coverage) log += `coverage counters made non-atomic: ${plainCoverageCounters(path.join(tmp, 'obj'))}\n`;
      // The wrapper needs only obj/V<top>.h, so it compiles (or is fetched) during make.
      const [made, wrapped] = await Promise.all([
        timed(phases, 'make', () => makeModel(path.join(tmp, 'obj'), top, vars, tc, env)),
        timed(phases, 'wrapper', () => wrapperObject(tmp, top, wrapper, runtime, tc, env)),
      ]);
      log += made + wrapped;
      log += await timed(phases, 'link', () => linkAddon(tmp, top, runtime, env));
      fs.writeFileSync(path.join(tmp, 'build.log'), log);
      seconds = (performance.now() - t0) / 1000;
      fs.writeFileSync(path.join(tmp, 'build.json'), JSON.stringify({ top, key, seconds, phases, trace, coverage, verilator: tc.verilatorVersion }, null, 2));
      built = publish(tmp, dir);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
  if (built) {
    buildCount++;
    const variant = coverage ? ` with coverage${coverage.toggle ? ' (toggles too)' : ''}` : '';
    if (!options.quiet) process.stderr.write(`[sim] built ${top}${variant} in ${seconds.toFixed(1)} s (cache ${shortDir(dir)})\n`);
  }
  return built ? result(true, seconds, phases) : result(false, 0);
}
