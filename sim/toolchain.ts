// Facts about the installed tools that go into cache keys and compiler command lines.

import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Toolchain {
  readonly verilatorVersion: string;
  readonly verilatorRoot: string;
  readonly cxxVersion: string;
  readonly napiInclude: string;
  /** `ccache` when on PATH, else empty. */
  readonly ccache: string;
}

let cached: Toolchain | undefined;

function onPath(cmd: string): boolean {
  return (process.env['PATH'] ?? '').split(path.delimiter).some(d => d && fs.existsSync(path.join(d, cmd)));
}

export function toolchain(): Toolchain {
  if (cached) return cached;
  const verilatorVersion = execFileSync('verilator', ['--version'], { encoding: 'utf8' }).trim();
  const verilatorRoot = execFileSync('verilator', ['--getenv', 'VERILATOR_ROOT'], { encoding: 'utf8' }).trim();
  const cxxVersion = execFileSync('g++', ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  const require = createRequire(import.meta.url);
  const napiInclude = (require('node-api-headers') as { include_dir: string }).include_dir;
  const ccache = process.env['NICGEN_NO_CCACHE'] ? '' : onPath('ccache') ? 'ccache' : '';
  cached = { verilatorVersion, verilatorRoot, cxxVersion, napiInclude, ccache };
  return cached;
}

/** Flags every object linked into a model is compiled with (runtime, model, wrapper).
 *  `coverage`: Verilator's coverage counters are compiled in (VM_COVERAGE=1, as Verilator's
 *  makefile sets for a model verilated with --coverage); a different runtime then. */
export function commonCxxFlags(tc: Toolchain, printfHeader: string, coverage = false): string[] {
  return [
    '-std=gnu++17', '-fPIC', '-faligned-new', '-fcf-protection=none',
    '-Wno-bool-operation', '-Wno-sign-compare', '-Wno-uninitialized', '-Wno-unused-but-set-variable',
    '-Wno-unused-parameter', '-Wno-unused-variable', '-Wno-shadow',
    `-DVM_COVERAGE=${coverage ? 1 : 0}`, '-DVM_SC=0', '-DVM_TRACE=1',
    '-DVL_USER_STOP', '-DVL_USER_FATAL', '-DVL_USER_FINISH',
    '-include', printfHeader,
    `-I${tc.verilatorRoot}/include`, `-I${tc.verilatorRoot}/include/vltstd`,
  ];
}

export const linkLibs = ['-pthread', '-lpthread', '-latomic', '-lz'];
