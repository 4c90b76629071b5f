// Verilator's runtime library (verilated.cpp, tracing, threads) is the same for every
// design and is most of a cold build's time, so it is compiled once per Verilator version
// and flag set into `<cache>/runtime/<key>/` and linked into every model. Coverage models
// (BuildOptions.coverage) link a second runtime: VM_COVERAGE=1 changes the runtime's headers'
// meaning and adds verilated_cov.cpp, the counters' writer.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildOnce, cacheRoot, publish, sha256, tempDirFor } from './cache.ts';
import { parallel, run } from './exec.ts';
import { commonCxxFlags, toolchain } from './toolchain.ts';
import { printfHeader } from './wrapper.ts';

const sources = ['verilated.cpp', 'verilated_threads.cpp', 'verilated_fst_c.cpp', 'verilated_vcd_c.cpp'];
const coverageSources = [...sources, 'verilated_cov.cpp'];
const optFlags = ['-O2'];

export interface Runtime {
  readonly lib: string;
  /** Header that must be force-included (`-include`) when compiling anything linked with it. */
  readonly printfHeader: string;
  /** Flags for compiling code that links with this runtime (without optimisation level). */
  readonly cxxFlags: readonly string[];
  /** Built with Verilator's coverage counters (VM_COVERAGE=1). */
  readonly coverage: boolean;
}

/** Writes the printf header at a content-addressed path, stable across builds (good for ccache). */
function ensureHeader(): string {
  const text = printfHeader();
  const file = path.join(cacheRoot(), 'include', `nicgen_printf-${sha256([text]).slice(0, 12)}.h`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  }
  return file;
}

export async function ensureRuntime(coverage = false): Promise<Runtime> {
  const tc = toolchain();
  const header = ensureHeader();
  const cxxFlags = commonCxxFlags(tc, header, coverage);
  const files = coverage ? coverageSources : sources;
  const key = sha256([tc.verilatorVersion, tc.cxxVersion, ...cxxFlags, ...optFlags, ...files]).slice(0, 16);
  const dir = path.join(cacheRoot(), 'runtime', key);
  const lib = path.join(dir, 'libnicgen_verilated.a');
  await buildOnce(`${dir}.lock`, () => fs.existsSync(lib), async () => {
    const tmp = tempDirFor(dir);
    try {
      const env = { ...process.env, CCACHE_BASEDIR: tmp, CCACHE_NOHASHDIR: '1' };
      await parallel(files, 2, async src => {
        const args = [...cxxFlags, ...optFlags, '-c', '-o', src.replace(/\.cpp$/, '.o'), `${tc.verilatorRoot}/include/${src}`];
        if (tc.ccache) await run(tc.ccache, ['g++', ...args], { cwd: tmp, env });
        else await run('g++', args, { cwd: tmp, env });
      });
      await run('ar', ['rcs', 'libnicgen_verilated.a', ...files.map(s => s.replace(/\.cpp$/, '.o'))], { cwd: tmp });
      publish(tmp, dir);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
  return { lib, printfHeader: header, cxxFlags, coverage };
}
