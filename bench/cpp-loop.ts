// The benchmark's baseline: a plain C++ main loop driving the same Verilated model through
// the same step code as the addon (coreSource), linked against the same objects.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BuiltModel } from '../sim/build.ts';
import { sha256 } from '../sim/cache.ts';
import { run } from '../sim/exec.ts';
import { computeLayout } from '../sim/layout.ts';
import { linkLibs } from '../sim/toolchain.ts';
import { coreSource, hooksSource } from '../sim/wrapper.ts';
import { crc512Manifest } from './crc512.ts';

export interface CppResult {
  readonly cycles: number;
  readonly seconds: number;
  readonly crc: number;
  readonly checksum: bigint;
}

function mainSource(): string {
  const l = computeLayout(crc512Manifest);
  const off = (n: string): number => l.byName.get(n)!.offset;
  return `${hooksSource()}
${coreSource(crc512Manifest, 'fst')}
#include <chrono>
#include <cstdlib>

int main(int argc, char** argv) {
    uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    static uint32_t buf[NICGEN_TOTAL_WORDS];
    NicgenModel* m = nicgen_create(buf);
    buf[${off('rst')}] = 1;
    nicgen_step(m, 2);
    buf[${off('rst')}] = 0;
    buf[${off('in_valid')}] = 1;
    uint32_t s = 1;
    uint32_t acc = 0;  // wraps at 32 bits like the JS side
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < n; i++) {
        for (int w = 0; w < 16; w++) {
            s ^= s << 13; s ^= s >> 17; s ^= s << 5;
            buf[${off('in_data')} + w] = s;
        }
        if (nicgen_step(m, 1)) return 2;
        acc += buf[${off('crc')}];
    }
    auto t1 = std::chrono::steady_clock::now();
    double secs = std::chrono::duration<double>(t1 - t0).count();
    std::printf("%llu %.9f %u %llu\\n", (unsigned long long)n, secs, buf[${off('crc')}], (unsigned long long)acc);
    return 0;
}
`;
}

/** Compiles the loop next to the model (once per model build). */
export async function buildCppLoop(built: BuiltModel): Promise<string> {
  const source = mainSource();
  // Keyed by its source so an edited loop never reuses a stale binary.
  const exe = path.join(built.dir, `bench-loop-${sha256([source]).slice(0, 12)}`);
  if (fs.existsSync(exe)) return exe;
  const tmp = `${exe}.${process.pid}.cpp`;
  fs.writeFileSync(tmp, source);
  try {
    await run('g++', [...built.runtimeCxxFlags, '-O2', `-I${built.objDir}`, '-o', `${exe}.${process.pid}`, tmp,
      path.join(built.objDir, `V${crc512Manifest.top}__ALL.a`), built.runtimeLib, ...linkLibs], { cwd: built.dir });
    fs.renameSync(`${exe}.${process.pid}`, exe);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return exe;
}

export async function runCppLoop(exe: string, cycles: number): Promise<CppResult> {
  const out = (await run(exe, [String(cycles)], { cwd: path.dirname(exe) })).trim().split('\n').pop()!.split(' ');
  return { cycles: Number(out[0]), seconds: Number(out[1]), crc: Number(out[2]), checksum: BigInt(out[3]!) };
}
