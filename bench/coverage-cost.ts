// What code coverage costs: the same bench and seed run on the plain model, on the coverage
// model (lines, branches, cover points) and, unless --no-toggle, on the one that counts
// toggles too, interleaved over rounds; each keeps its best cycles/s, on CPU time and wall
// time. The rate is over the simulation (bench start to end; model load excluded); writing
// the counters at the end is printed apart. Goal: coverage on costs at most 2x cycles/s.
// Run: node --import tsx bench/coverage-cost.ts [--rounds 3] [--bench nic_pair/throughput_mtu4096] [--no-toggle]
// The first run of a variant builds its model (nic_pair with toggles: ~20 min on a loaded
// 2-core machine); make bench runs this as part 'coverage'.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benches } from '../tb/benches/index.ts';
import type { CoverageOptions } from '../tb/core/index.ts';

export const COVERAGE_COST_GOAL = 2;

interface Rate { readonly cpu: number; readonly wall: number; readonly cycles: number; readonly write: number }

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] ?? fallback : fallback;
};

/** One run of `bench` at `seed`: cycles per second of simulation (CPU and wall). */
async function rate(top: string, test: string, seed: number, coverage: CoverageOptions | undefined): Promise<Rate> {
  const bench = benches[top]?.[test];
  if (!bench) throw new Error(`no bench ${top}/${test}`);
  let t0 = 0, c0 = process.cpuUsage();
  const r = await bench.run({ seed, ...(coverage ? { coverage } : {}), build: { quiet: false }, onStart: () => { t0 = performance.now(); c0 = process.cpuUsage(); } });
  const wall = (performance.now() - t0) / 1000 - r.coverageWriteSeconds;
  const u = process.cpuUsage(c0);
  const cpu = (u.user + u.system) / 1e6 - r.coverageWriteSeconds;
  return { cpu: r.cycles / cpu, wall: r.cycles / wall, cycles: r.cycles, write: r.coverageWriteSeconds };
}

const best = (a: Rate | undefined, b: Rate): Rate => (!a ? b : { cpu: Math.max(a.cpu, b.cpu), wall: Math.max(a.wall, b.wall), cycles: b.cycles, write: Math.min(a.write, b.write) });
const k = (r: Rate): string => `${(r.cpu / 1e3).toFixed(1)}k cpu ${(r.wall / 1e3).toFixed(1)}k wall`;

async function main(): Promise<void> {
  const [top, test] = arg('--bench', 'nic_pair/throughput_mtu4096').split('/') as [string, string];
  const rounds = Number(arg('--rounds', process.argv.includes('--quick') ? '1' : '3'));
  const seed = Number(process.env['NICGEN_SEED'] ?? 1);
  const variants: { name: string; coverage: (dir: string) => CoverageOptions | undefined }[] = [
    { name: 'plain', coverage: () => undefined },
    { name: 'coverage', coverage: dir => ({ dir, code: true }) },
    ...(process.argv.includes('--no-toggle') ? [] : [{ name: 'coverage+toggles', coverage: (dir: string) => ({ dir, code: true, toggle: true }) }]),
  ];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-covcost-'));
  const bestOf = new Map<string, Rate>();
  try {
    // Warm-up (and builds): one run of each variant, not counted.
    for (const v of variants) await rate(top, test, seed, v.coverage(path.join(tmp, `warm-${v.name}`)));
    for (let r = 0; r < rounds; r++) {
      const line: string[] = [];
      for (const v of variants) {
        const x = await rate(top, test, seed, v.coverage(path.join(tmp, `${r}-${v.name}`)));
        bestOf.set(v.name, best(bestOf.get(v.name), x));
        line.push(`${v.name} ${k(x)}${x.write ? ` (+${x.write.toFixed(2)} s writing counters)` : ''}`);
      }
      console.log(`${top}/${test} round ${r + 1} (load ${os.loadavg().map(x => x.toFixed(1)).join(' ')}, ${bestOf.get('plain')!.cycles} cycles): ${line.join('; ')}`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const plain = bestOf.get('plain')!;
  const parts = variants.slice(1).map(v => {
    const c = bestOf.get(v.name)!;
    const cpu = plain.cpu / c.cpu, wall = plain.wall / c.wall;
    return { name: v.name, text: `${v.name} ${cpu.toFixed(2)}x cpu ${wall.toFixed(2)}x wall`, met: cpu <= COVERAGE_COST_GOAL };
  });
  const main = parts[0]!;
  console.log(`nic coverage cost (cycles/s plain / with coverage, best of ${rounds}): ${parts.map(p => p.text).join(', ')} goal<=${COVERAGE_COST_GOAL}x (lines, branches, cover points): ${main.met ? 'goal met' : 'GOAL MISSED'}`);
}

await main();
