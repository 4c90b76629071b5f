// Verilator's runtime library (verilated.cpp, tracing, threads) is the same for every
// design and is most of a cold build's time, so it is compiled once per Verilator version
// and flag set into `<cache>/runtime/<key>/` and linked into every model.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildOnce, cacheRoot, publish, sha256, tempDirFor } from './cache.ts';
import { parallel, run } from './exec.ts';
import { commonCxxFlags, toolchain } from './toolchain.ts';
import { printfHeader } from './wrapper.ts';

const sources = ['verilated.cpp', 'verilated_threads.cpp', 'verilated_fst_c.cpp', 'verilated_vcd_c.cpp'];
const optFlags = ['-O2'];

export interface Runtime {
  readonly lib: string;
  /** Header that must be force-included (`-include`) when compiling anything linked with it. */
  readonly printfHeader: string;
  /** Flags for compiling code that links with this runtime (without optimisation level). */
  readonly cxxFlags: readonly string[];
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

export async function ensureRuntime(): Promise<Runtime> {
  const tc = toolchain();
  const header = ensureHeader();
  const cxxFlags = commonCxxFlags(tc, header);
  const key = sha256([tc.verilatorVersion, tc.cxxVersion, ...cxxFlags, ...optFlags, ...sources]).slice(0, 16);
  const dir = path.join(cacheRoot(), 'runtime', key);
  const lib = path.join(dir, 'libnicgen_verilated.a');
  await buildOnce(`${dir}.lock`, () => fs.existsSync(lib), async () => {
    const tmp = tempDirFor(dir);
    try {
      const env = { ...process.env, CCACHE_BASEDIR: tmp, CCACHE_NOHASHDIR: '1' };
      await parallel(sources, 2, async src => {
        const args = [...cxxFlags, ...optFlags, '-c', '-o', src.replace(/\.cpp$/, '.o'), `${tc.verilatorRoot}/include/${src}`];
        if (tc.ccache) await run(tc.ccache, ['g++', ...args], { cwd: tmp, env });
        else await run('g++', args, { cwd: tmp, env });
      });
      await run('ar', ['rcs', 'libnicgen_verilated.a', ...sources.map(s => s.replace(/\.cpp$/, '.o'))], { cwd: tmp });
      publish(tmp, dir);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
  return { lib, printfHeader: header, cxxFlags };
}
