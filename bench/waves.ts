// What waves and failure pictures cost, as ratios against the same run without them, wall
// and CPU time side by side (CPU time includes the child processes, e.g. fst2vcd):
//  - tracing a window: a NIC stage (nic_wqe_fetch, 4 QPs, AXI memory model) streaming WQEs
//    for a fixed number of cycles, untraced / a 1000-cycle window traced / every cycle traced;
//  - the failure re-run: the same run failing in its last cycle, pictures off / on (the
//    re-run runs it all again, tracing the window of the cause; then the savefile and the
//    picture are written);
//  - the passing run with pictures on against off: it pays nothing.
// Run: node --import tsx bench/waves.ts [rounds=5]. Best of interleaved rounds.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WQE_BYTES } from '../gen/nic/regmap.ts';
import { runTest, TestFailure, type TestOptions } from '../tb/core/index.ts';
import { encodeWqe, randomWqe } from '../tb/model/wqe-fetch.ts';
import { fetchDesign, fetchRig } from '../tb/tests/waves/fetch-failure.ts';

const rounds = Number(process.argv[2] ?? 5);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`bench/waves.ts: rounds must be a whole number >= 1, not '${process.argv[2]}'`);
  process.exit(2);
}
const CYCLES = 100_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-bench-waves-'));

/** CPU seconds of this process and its waited-for children (/proc/self/stat, clock ticks). */
function cpuSeconds(): number {
  const f = fs.readFileSync('/proc/self/stat', 'utf8').slice(fs.readFileSync('/proc/self/stat', 'utf8').lastIndexOf(')') + 2).split(' ');
  // Fields 14-17 of stat (utime stime cutime cstime) are 11-14 after the name.
  return [11, 12, 13, 14].reduce((s, i) => s + Number(f[i]), 0) / 100;
}

interface Sample { wall: number; cpu: number }

async function timed(fn: () => Promise<unknown>): Promise<Sample> {
  const c0 = cpuSeconds(), t0 = performance.now();
  await fn();
  return { wall: (performance.now() - t0) / 1000, cpu: cpuSeconds() - c0 };
}

/** nic_wqe_fetch fetching WQEs round the rings on two QPs for CYCLES cycles (then failing). */
async function fetchRun(o: TestOptions, fail = false): Promise<void> {
  await runTest(fetchDesign(), async (dut, tb) => {
    const { mem, base, pi, publish } = await fetchRig(dut, tb, 0.2);
    for (let q = 0; q < 2; q++) for (let s = 0; s < 16; s++) mem.write(base(q) + BigInt(s * WQE_BYTES), encodeWqe(randomWqe(tb.rng)));
    while (tb.cycle < CYCLES) {
      // Keep both rings non-empty: the PI runs ahead of what was fetched by a few WQEs.
      for (let q = 0; q < 2; q++) pi[q] = pi[q]! + 2;
      await tb.rising();
      publish();
      await tb.clockCycles(24);
    }
    if (fail) throw new Error(`m_wqe: failing on purpose at cycle ${tb.cycle}`);
  }, { seed: 1, pictures: false, ...o }).catch((e: unknown) => { if (!(fail && e instanceof TestFailure)) throw e; });
}

const pictures = (): TestOptions => ({ pictures: path.join(tmp, 'failures') });

const cases: Record<string, () => Promise<void>> = {
  'fetch untraced': () => fetchRun({}),
  'fetch, 1000-cycle window traced': () => fetchRun({ wave: { file: path.join(tmp, 'win.fst'), from: CYCLES / 2, to: CYCLES / 2 + 1000 } }),
  'fetch, every cycle traced': () => fetchRun({ wave: path.join(tmp, 'all.fst') }),
  'fetch, pictures on (passes)': () => fetchRun(pictures()),
  'fetch failing, pictures off': () => fetchRun({}, true),
  'fetch failing, pictures on': () => fetchRun(pictures(), true),
};

// Warm up: models built, JIT warm, fst2vcd in the page cache.
for (const fn of Object.values(cases)) await fn();
const best = new Map<string, Sample>();
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of Object.entries(cases)) {
    const s = await timed(fn);
    const b = best.get(name);
    best.set(name, { wall: Math.min(b?.wall ?? Infinity, s.wall), cpu: Math.min(b?.cpu ?? Infinity, s.cpu) });
  }
}
const get = (n: string): Sample => best.get(n)!;
const ratio = (a: string, b: string): string => `${(get(a).wall / get(b).wall).toFixed(2)} wall, ${(get(a).cpu / get(b).cpu).toFixed(2)} CPU`;
console.log(`best of ${rounds} interleaved rounds (nproc ${os.cpus().length}, load ${os.loadavg()[0]!.toFixed(1)}):`);
for (const [name, s] of best) console.log(`  ${name.padEnd(36)} ${s.wall.toFixed(3)} s wall, ${s.cpu.toFixed(2)} s CPU`);
console.log(`  tracing a 1000-cycle window of ${CYCLES}: ${ratio('fetch, 1000-cycle window traced', 'fetch untraced')} (every cycle: ${ratio('fetch, every cycle traced', 'fetch untraced')})`);
console.log(`  a failure with its re-run, savefile and picture: ${ratio('fetch failing, pictures on', 'fetch failing, pictures off')} of the failing run alone`);
console.log(`  a passing run with pictures on: ${ratio('fetch, pictures on (passes)', 'fetch untraced')} (pays nothing)`);
console.log(`waves ratio: window/untraced=${(get('fetch, 1000-cycle window traced').wall / get('fetch untraced').wall).toFixed(2)}`
  + ` (cpu ${(get('fetch, 1000-cycle window traced').cpu / get('fetch untraced').cpu).toFixed(2)})`
  + ` rerun/fail=${(get('fetch failing, pictures on').wall / get('fetch failing, pictures off').wall).toFixed(2)}`
  + ` (cpu ${(get('fetch failing, pictures on').cpu / get('fetch failing, pictures off').cpu).toFixed(2)})`
  + ` pictures-on/off-passing=${(get('fetch, pictures on (passes)').wall / get('fetch untraced').wall).toFixed(2)}`
  + ` (cpu ${(get('fetch, pictures on (passes)').cpu / get('fetch untraced').cpu).toFixed(2)})`);
fs.rmSync(tmp, { recursive: true, force: true });
