// Builds a Verilated model plus its Node-API wrapper into a loadable `.node` file,
// cached under `<cache>/models/<sha256>/` keyed by everything that affects the binary.
//
// Pipeline: verilator --cc --build (model objects only, OPT_FAST=-O3 via -MAKEFLAGS,
// because -CFLAGS -O3 lands before Verilator's own OPT_FAST on the command line and is
// overridden), g++ the generated wrapper against node-api-headers, link with the shared
// runtime library (see runtime.ts). ccache is used when on PATH.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from '../gen/emit/manifest.ts';
import { buildOnce, cacheRoot, projectRoot, publish, sha256, tempDirFor } from './cache.ts';
import { BuildError } from './errors.ts';
import { run } from './exec.ts';
import { ensureRuntime } from './runtime.ts';
import { linkLibs, toolchain } from './toolchain.ts';
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
}

export interface BuiltModel {
  readonly key: string;
  readonly dir: string;
  readonly addonPath: string;
  /** Verilator's output folder (headers, V<top>__ALL.a) for linking other programs. */
  readonly objDir: string;
  readonly runtimeLib: string;
  readonly runtimeCxxFlags: readonly string[];
  readonly trace: TraceFormat;
  /** False on a cache hit. */
  readonly built: boolean;
  /** Wall time of this call's build (0 on a hit). */
  readonly seconds: number;
}

/** Builds performed by this process; tests use it to prove a cache hit. */
export let buildCount = 0;

const modelOpt = ['OPT_FAST=-O3', 'OPT_SLOW=-O1', 'OPT_GLOBAL=-O2'];

function verilatorArgs(sources: DesignSources, trace: TraceFormat, extra: readonly string[], printfHeader: string, ccache: string): string[] {
  const args = [
    '--cc', trace === 'fst' ? '--trace-fst' : '--trace', '--top-module', sources.manifest.top,
    '-Mdir', '../obj', '-Wno-fatal', '--build', '-j', '2',
  ];
  for (const m of modelOpt) args.push('-MAKEFLAGS', m);
  if (ccache) args.push('-MAKEFLAGS', `OBJCACHE=${ccache}`);
  // Same trap hooks and printf routing as the shared runtime (see runtime.ts).
  for (const f of ['-fPIC', '-DVL_USER_STOP', '-DVL_USER_FATAL', '-DVL_USER_FINISH', `-include ${printfHeader}`]) args.push('-CFLAGS', f);
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
  const tc = toolchain();
  const runtime = await ensureRuntime();
  const wrapper = addonSource(sources.manifest, trace);
  const top = sources.manifest.top;
  const fileParts: string[] = [];
  for (const [name, text] of sources.files) { checkFileName(name); fileParts.push(name, text); }
  const vArgs = verilatorArgs(sources, trace, extra, runtime.printfHeader, '');
  const key = sha256([tc.verilatorVersion, tc.cxxVersion, tc.napiInclude, wrapper, ...vArgs, ...runtime.cxxFlags,
    runtime.lib, ...fileParts]);
  const dir = path.join(cacheRoot(), 'models', key);
  const addonPath = path.join(dir, `${top}.node`);
  const result = (built: boolean, seconds: number): BuiltModel => ({
    key, dir, addonPath, objDir: path.join(dir, 'obj'), runtimeLib: runtime.lib, runtimeCxxFlags: runtime.cxxFlags,
    trace, built, seconds,
  });
  if (fs.existsSync(addonPath)) return result(false, 0);

  let seconds = 0;
  let built = false;
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
      const env = { ...process.env, CCACHE_BASEDIR: tmp, CCACHE_NOHASHDIR: '1' };
      let log = await run('verilator', verilatorArgs(sources, trace, extra, runtime.printfHeader, tc.ccache), { cwd: src, env });
      const cxx = [...runtime.cxxFlags, '-O2', '-Iobj', `-I${tc.napiInclude}`, '-c', '-o', 'wrapper.o', 'wrapper.cpp'];
      log += await run(tc.ccache || 'g++', tc.ccache ? ['g++', ...cxx] : cxx, { cwd: tmp, env });
      log += await run('g++', ['-shared', '-o', `${top}.node`, 'wrapper.o', `obj/V${top}__ALL.a`, runtime.lib,
        '-Wl,--exclude-libs,ALL', '-Wl,-Bsymbolic', ...linkLibs], { cwd: tmp, env });
      fs.writeFileSync(path.join(tmp, 'build.log'), log);
      seconds = (performance.now() - t0) / 1000;
      fs.writeFileSync(path.join(tmp, 'build.json'), JSON.stringify({ top, key, seconds, trace, verilator: tc.verilatorVersion }, null, 2));
      built = publish(tmp, dir);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
  if (built) {
    buildCount++;
    if (!options.quiet) process.stderr.write(`[sim] built ${top} in ${seconds.toFixed(1)} s (cache ${shortDir(dir)})\n`);
  }
  return result(built, built ? seconds : 0);
}
