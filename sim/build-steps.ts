// The steps of one model build, each timed (build.json `phases`), so a slow rebuild shows
// where its time went: verilate ‖ pch (first build only) → make (model objects) ‖ wrapper
// object → link. (bench/harness.ts adds the addon load.)
//
// What a one-line design change costs, and why the steps look like this:
// - Verilator itself is fast (~0.2 s for the 512-bit CRC); the C++ compile is the cost.
//   Verilator rewrites only the files whose functions changed (same names, same bytes
//   otherwise), so ccache turns every other model file into a hit.
// - Small output files (`--output-split 3000 --output-split-cfuncs 300`): a one-line change
//   then rewrites one or two ~200 KB files instead of the ~1 MB per-cycle file and the
//   ~1.2 MB settle file (512-bit CRC; measured in bench/harness.ts), and make -j 2 has
//   more than two files to spread over the cores on a cold build.
// - Settle/initial/constructor code (Verilator's `__Slow` files, VL_ATTR_COLD) runs once,
//   so it is compiled at -O0 (its largest file compiles ~35% faster than at -O1).
//   Per-cycle code keeps -O3.
// - Every model file starts from a precompiled header (pch.ts): header parsing was about
//   half of the compile of a ~200 KB file.
// - The wrapper only sees the model's public header, so its object is cached by content
//   next to the models and only recompiled when the ports (or flags) change.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { cacheRoot, sha256 } from './cache.ts';
import { run } from './exec.ts';
import type { Runtime } from './runtime.ts';
import { linkLibs, type Toolchain } from './toolchain.ts';

export interface Phase { readonly name: string; readonly seconds: number }

/** Runs `fn` and appends its wall time to `phases`. */
export async function timed<T>(phases: Phase[], name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    phases.push({ name, seconds: (performance.now() - t0) / 1000 });
  }
}

/** Verilator output splitting (statements per file, per function); see the header. */
export const splitArgs = ['--output-split', '3000', '--output-split-cfuncs', '300'];

/** Optimisation of per-cycle (OPT_FAST) and run-once (OPT_SLOW) model code. */
export const fastOpt = '-O3';
export const slowOpt = '-O0';

/**
 * Make variables for the model objects, each level with its precompiled header (pch.ts).
 * They go on make's command line because Verilator's `-CFLAGS -O3` lands before its own
 * `OPT_FAST=-Os` and loses. OPT_GLOBAL is for Verilator's runtime, which runtime.ts builds.
 */
export function makeVars(pchFast: string, pchSlow: string): string[] {
  return [
    `OPT_FAST=${fastOpt} -Winvalid-pch -include ${pchFast}`,
    `OPT_SLOW=${slowOpt} -Winvalid-pch -include ${pchSlow}`,
    'OPT_GLOBAL=-O2',
  ];
}

/** `make` of the model archive only (Verilator's runtime comes from runtime.ts). */
export function makeModel(objDir: string, top: string, vars: readonly string[], tc: Toolchain, env: NodeJS.ProcessEnv): Promise<string> {
  const args = ['-C', objDir, '-f', `V${top}.mk`, '-j', '2', ...vars];
  if (tc.ccache) args.push(`OBJCACHE=${tc.ccache}`);
  return run('make', [...args, `V${top}__ALL.a`], { cwd: objDir, env });
}

/** Everything the wrapper object depends on besides the tool versions in the model key. */
function wrapperKey(wrapper: string, flags: readonly string[], publicHeader: string, tc: Toolchain): string {
  return sha256([tc.verilatorVersion, tc.cxxVersion, tc.napiInclude, wrapper, ...flags, publicHeader]);
}

/**
 * `wrapper.o` in `dir`: copied from the object cache when the same wrapper was compiled
 * against the same public model header before, else compiled (through ccache if present).
 */
export async function wrapperObject(dir: string, top: string, wrapper: string, runtime: Runtime, tc: Toolchain, env: NodeJS.ProcessEnv): Promise<string> {
  const flags = [...runtime.cxxFlags, '-O2', '-Iobj', `-I${tc.napiInclude}`];
  const header = fs.readFileSync(path.join(dir, 'obj', `V${top}.h`), 'utf8');
  const cached = path.join(cacheRoot(), 'objects', `wrapper-${wrapperKey(wrapper, flags, header, tc)}.o`);
  const out = path.join(dir, 'wrapper.o');
  if (fs.existsSync(cached)) {
    fs.copyFileSync(cached, out);
    return `wrapper.o from ${cached}\n`;
  }
  const args = [...flags, '-c', '-o', 'wrapper.o', 'wrapper.cpp'];
  const log = await run(tc.ccache || 'g++', tc.ccache ? ['g++', ...args] : args, { cwd: dir, env });
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  const tmp = `${cached}.${process.pid}.tmp`;
  fs.copyFileSync(out, tmp);
  fs.renameSync(tmp, cached);
  return log;
}

/**
 * Verilator 5.006 increments every coverage counter with an atomic read-modify-write
 * (`fetch_add(1, std::memory_order_relaxed)`: a locked instruction on x86), in case the model
 * runs on several threads. Ours never does (one model, one thread), so each increment becomes
 * a relaxed load and store of the same std::atomic, which compile to a plain add. Measured on
 * nic_pair (line + branch points, throughput bench): docs/coverage.md. Applied to the
 * generated C++ between verilate and make; part of the model's cache key.
 */
export const coverageCounterRewrite = 'relaxed-load-store-v1';
const atomicIncrement = /(vlSymsp->__Vcoverage\[\d+\])\.fetch_add\(1, std::memory_order_relaxed\);/g;

export function plainCoverageCounters(objDir: string): number {
  let rewritten = 0;
  for (const f of fs.readdirSync(objDir)) {
    if (!f.endsWith('.cpp')) continue;
    const file = path.join(objDir, f);
    const text = fs.readFileSync(file, 'utf8');
    let n = 0;
    const out = text.replace(atomicIncrement, (_m, c: string) => { n++; return `${c}.store(${c}.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);`; });
    if (n > 0) { fs.writeFileSync(file, out); rewritten += n; }
  }
  return rewritten;
}

export function linkAddon(dir: string, top: string, runtime: Runtime, env: NodeJS.ProcessEnv): Promise<string> {
  return run('g++', ['-shared', '-o', `${top}.node`, 'wrapper.o', `obj/V${top}__ALL.a`, runtime.lib,
    '-Wl,--exclude-libs,ALL', '-Wl,-Bsymbolic', ...linkLibs], { cwd: dir, env });
}
