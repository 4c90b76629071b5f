// A precompiled header for the model's C++ files: the printf hook header, verilated.h and
// the trace header. Parsing those is ~0.5 s of every model file's compile, which after a
// one-line change (one ~200 KB file recompiled) is about half the rebuild.
//
// GCC only uses a .gch built with the same options, and silently accepts a .gch built at
// another -O level (same __OPTIMIZE__) — gcc 12 then crashed in our tests. So there is one
// header folder per (trace format, optimisation level), and make passes the matching one
// with its OPT_* level. If the .gch is rejected anyway, GCC falls back to the header text
// (same meaning, just slower) and -Winvalid-pch puts the reason in build.log.
//
// ccache hashes the .gch and needs CCACHE_SLOPPINESS=pch_defines,time_macros to cache
// compiles that use it, and its inode cache so a hit does not re-hash the ~70 MB .gch (pchEnv).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildOnce, cacheRoot, publish, sha256, tempDirFor } from './cache.ts';
import { run } from './exec.ts';
import type { Runtime } from './runtime.ts';
import type { Toolchain } from './toolchain.ts';
import type { TraceFormat } from './wrapper.ts';

export const pchName = 'nicgen_pch.h';

/** The -D flags Verilator's makefile adds for a model built with this trace format. */
export function traceDefines(trace: TraceFormat): string[] {
  return ['-DVM_TRACE=1', `-DVM_TRACE_FST=${trace === 'fst' ? 1 : 0}`, `-DVM_TRACE_VCD=${trace === 'vcd' ? 1 : 0}`];
}

/** Compile flags of a model file (as Verilator's makefile puts them) minus -I. and -MMD. */
function pchFlags(runtime: Runtime, trace: TraceFormat, opt: string): string[] {
  const common = runtime.cxxFlags.filter((f, i, all) => f !== '-include' && all[i - 1] !== '-include' && !f.startsWith('-DVM_TRACE'));
  return [...common, ...traceDefines(trace), opt];
}

function headerText(runtime: Runtime, trace: TraceFormat): string {
  return `// nicgen: precompiled for the model files (see sim/pch.ts).
#include "${runtime.printfHeader}"
#include "verilated.h"
#include "${trace === 'fst' ? 'verilated_fst_c.h' : 'verilated_vcd_c.h'}"
`;
}

/** Where the header for these options lives: `<cache>/pch/<key>/nicgen_pch.h` (content-addressed). */
export function pchPath(tc: Toolchain, runtime: Runtime, trace: TraceFormat, opt: string): string {
  const key = sha256([tc.verilatorVersion, tc.cxxVersion, headerText(runtime, trace), ...pchFlags(runtime, trace, opt)]).slice(0, 16);
  return path.join(cacheRoot(), 'pch', key, pchName);
}

/** Builds the header and its .gch at `pchPath(...)` unless they exist; returns the header. */
export async function ensurePch(tc: Toolchain, runtime: Runtime, trace: TraceFormat, opt: string): Promise<string> {
  const header = pchPath(tc, runtime, trace, opt);
  const dir = path.dirname(header);
  await buildOnce(`${dir}.lock`, () => fs.existsSync(`${header}.gch`), async () => {
    const tmp = tempDirFor(dir);
    try {
      fs.writeFileSync(path.join(tmp, pchName), headerText(runtime, trace));
      await run('g++', [...pchFlags(runtime, trace, opt), '-x', 'c++-header', '-o', `${pchName}.gch`, pchName], { cwd: tmp });
      publish(tmp, dir);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
  return header;
}

/** Environment for ccache to cache compiles that use a precompiled header. */
export function pchEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const have = (env['CCACHE_SLOPPINESS'] ?? '').split(',').filter(Boolean);
  const need = ['pch_defines', 'time_macros'].filter(s => !have.includes(s));
  // Without the inode cache every hit re-hashes the ~70 MB .gch (~0.1 s each).
  return { CCACHE_INODECACHE: 'true', ...env, CCACHE_SLOPPINESS: [...have, ...need].join(',') };
}
