// nic_top under the synthesis proxies, beside the anchors (synth/anchors.json): resources
// at {64, 512} bits x {4, 256} QPs and each proxy's worst path as a ratio to the worst
// anchor's. Whole-top flows take many minutes each, so this part runs only when asked:
// `node --import tsx scripts/bench.ts --only synth` (or this file alone). Results are cached
// (.cache/synth), so a second run with unchanged RTL prints at once.

import * as path from 'node:path';
import { nicTop } from '../gen/nic/nic-top.ts';
import { top } from '../gen/emit/project.ts';
import { loadAnchors, type AnchorRecord } from '../synth/anchor-data.ts';
import type { ModuleResult, Proxy } from '../synth/result.ts';
import { cacheRoot } from '../sim/cache.ts';
import { measureAll, subjectOf } from '../synth/session.ts';

const synthCache = path.join(cacheRoot(), 'synth');

const configs = [
  { dataWidth: 64, numQp: 4 }, { dataWidth: 512, numQp: 4 }, { dataWidth: 64, numQp: 256 }, { dataWidth: 512, numQp: 256 },
];
const jobs = Number(process.env.NICGEN_SYNTH_JOBS ?? 2);
const anchors = loadAnchors();
const worst = (p: Proxy, pick: (r: AnchorRecord) => ModuleResult): { name: string; value: number } => {
  let best = { name: '-', value: 0 };
  for (const a of anchors.anchors) {
    const x = pick(a).paths.find(q => q.proxy === p);
    const v = p === 'a' ? x?.delayNs ?? 0 : x?.levels ?? 0;
    if (v > best.value) best = { name: a.name, value: v };
  }
  return best;
};
const anchorA = worst('a', r => r.xcup);
const anchorBp = worst('b_prime', r => r.xcup);
const anchorB = worst('b', r => r.xcup);

console.log(`anchors (synth/anchors.json, flow v${anchors.flowVersion}, ${anchors.measured}): worst (a) ${anchorA.value.toFixed(2)} ns (${anchorA.name}), (b') ${anchorBp.value} cells (${anchorBp.name}), (b) ${anchorB.value} LUT6 (${anchorB.name})`);
const rows: string[] = [];
for (const c of configs) {
  const label = `nic_top ${c.dataWidth}b ${c.numQp} QPs`;
  let emitted;
  try {
    emitted = top(nicTop, c, label).emit();
  } catch (e) {
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    rows.push(`${label}: does not elaborate: ${why}`);
    console.log(rows[rows.length - 1]);
    continue;
  }
  const t0 = performance.now();
  const [r] = await measureAll([subjectOf(emitted, emitted.top)], { target: 'xcup', jobs, cacheDir: synthCache, log: l => console.error(l) });
  const res = r!.resources!;
  const a = r!.paths.find(p => p.proxy === 'a')!;
  const bp = r!.paths.find(p => p.proxy === 'b_prime')!;
  const b = r!.paths.find(p => p.proxy === 'b')!;
  rows.push(`${label}: LUT ${res.luts} FF ${res.ffs} RAMB36+18 ${res.ramb36}+${res.ramb18} LUTRAM ${res.lutram} DSP ${res.dsp}; `
    + `(a) ${a.delayNs!.toFixed(2)} ns = ${(a.delayNs! / anchorA.value).toFixed(2)}x anchor (${a.lut} LUT + ${a.muxf} MUXF + ${a.carryChains} carry chains, ${a.start?.signal} -> ${a.end?.signal}); `
    + `(b') ${bp.levels} = ${(bp.levels! / anchorBp.value).toFixed(2)}x; (b) ${b.levels} = ${(b.levels! / anchorB.value).toFixed(2)}x; `
    + `${((performance.now() - t0) / 1000).toFixed(0)} s${r!.cached ? ' (cached)' : ''}`);
  console.log(rows[rows.length - 1]);
}
for (const row of rows) console.log(`nic synth ${row}`);
