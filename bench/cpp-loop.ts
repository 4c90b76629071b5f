// The benchmark's baseline: a plain C++ main loop driving the same Verilated model through
// the same step code as the addon (coreSource), linked against the same objects, with the
// same stimulus generator as the TS drivers (bench/crc512.ts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from '../gen/emit/manifest.ts';
import type { BuiltModel } from '../sim/build.ts';
import { sha256 } from '../sim/cache.ts';
import { run } from '../sim/exec.ts';
import { computeLayout } from '../sim/layout.ts';
import { linkLibs } from '../sim/toolchain.ts';
import { coreSource, hooksSource } from '../sim/wrapper.ts';
import { beatCpp, type BeatSlots } from './crc512.ts';

export interface CppResult {
  readonly cycles: number;
  readonly seconds: number;
  /** CPU time of the loop (robust to other jobs on the machine taking the core). */
  readonly cpuSeconds: number;
  readonly crc: number;
  readonly checksum: bigint;
}

/** Buffer offsets of the CRC design's ports. */
export function crcSlots(manifest: Manifest): BeatSlots & { readonly rst: number; readonly crc: number; readonly crcValid: number } {
  const l = computeLayout(manifest);
  const off = (n: string): number => {
    const slot = l.byName.get(n);
    if (!slot) throw new Error(`${manifest.top} has no port ${n}`);
    return slot.offset;
  };
  return {
    data: off('data'), keep: off('keep'), valid: off('valid'), start: off('start'), last: off('last'),
    rst: off('rst'), crc: off('crc'), crcValid: off('crc_valid'),
  };
}

function mainSource(manifest: Manifest): string {
  const at = crcSlots(manifest);
  return `${hooksSource()}
${coreSource(manifest, 'fst')}
#include <chrono>
#include <cstdlib>
#include <ctime>

static double nicgen_cpu_seconds() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
    uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    static uint32_t buf[NICGEN_TOTAL_WORDS];
    NicgenModel* m = nicgen_create(buf);
    buf[${at.rst}] = 1;
    buf[${at.valid}] = 0;
    nicgen_step(m, 2);
    buf[${at.rst}] = 0;
    uint32_t s = 1, left = 0;
    uint32_t acc = 0;  // wraps at 32 bits like the JS side
    auto t0 = std::chrono::steady_clock::now();
    double c0 = nicgen_cpu_seconds();
    for (uint64_t i = 0; i < n; i++) {
        ${beatCpp(at)}
        if (nicgen_step(m, 1)) return 2;
        if (buf[${at.crcValid}]) acc += buf[${at.crc}];
    }
    double cpu = nicgen_cpu_seconds() - c0;
    auto t1 = std::chrono::steady_clock::now();
    double secs = std::chrono::duration<double>(t1 - t0).count();
    std::printf("%llu %.9f %u %llu %.9f\\n", (unsigned long long)n, secs, buf[${at.crc}], (unsigned long long)acc, cpu);
    return 0;
}
`;
}

/** Compiles the loop next to the model (once per model build). */
export async function buildCppLoop(built: BuiltModel, manifest: Manifest): Promise<string> {
  const source = mainSource(manifest);
  // Keyed by its source so an edited loop never reuses a stale binary.
  const exe = path.join(built.dir, `bench-loop-${sha256([source]).slice(0, 12)}`);
  if (fs.existsSync(exe)) return exe;
  const tmp = `${exe}.${process.pid}.cpp`;
  fs.writeFileSync(tmp, source);
  try {
    await run('g++', [...built.runtimeCxxFlags, '-O2', `-I${built.objDir}`, '-o', `${exe}.${process.pid}`, tmp,
      ...built.modelObjects, built.runtimeLib, ...linkLibs], { cwd: built.dir });
    fs.renameSync(`${exe}.${process.pid}`, exe);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return exe;
}

export async function runCppLoop(exe: string, cycles: number): Promise<CppResult> {
  const out = (await run(exe, [String(cycles)], { cwd: path.dirname(exe) })).trim().split('\n').pop()!.split(' ');
  return { cycles: Number(out[0]), seconds: Number(out[1]), crc: Number(out[2]), checksum: BigInt(out[3]!), cpuSeconds: Number(out[4]) };
}
