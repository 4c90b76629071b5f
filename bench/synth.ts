// nic_top under the synthesis proxies, beside the anchors (synth/anchors.json): resources
// at {64, 512} bits x {4, 256} QPs and each proxy's worst path as a ratio to the worst
// anchor's. Whole-top flows take many minutes each, so this part runs only when asked:
// `node --import tsx scripts/bench.ts --only synth` (or this file alone). Results are cached
// (.cache/synth), so a second run with unchanged RTL prints at once. Before the tops, the
// NIC datapath stages at 512 bits (each alone, in the register wrapper), against the issue's
// goal of <= 6 LUT+MUXF levels and proxy (a) no worse than the worst anchor's
// (NICGEN_SYNTH_STAGES=name,name... picks some of them, `none` skips them;
// NICGEN_SYNTH_TOPS=none skips the whole tops).

import * as path from 'node:path';
import { nicTop } from '../gen/nic/nic-top.ts';
import { nicCompletion } from '../gen/nic/completion.ts';
import { icrcCheck } from '../gen/nic/icrc-check.ts';
import { icrcInsert } from '../gen/nic/icrc-insert.ts';
import { packetizer } from '../gen/nic/packetizer.ts';
import { rxParser } from '../gen/nic/rx-parser.ts';
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

// The datapath stages at 512 bits, worst first.
const stageTops = [
  top(rxParser, { dataWidth: 512 }, 'RX parser'), top(packetizer, { dataWidth: 512 }, 'packetizer'),
  top(icrcInsert, { dataWidth: 512 }, 'ICRC insert'), top(icrcCheck, { dataWidth: 512 }, 'ICRC check'),
  top(nicCompletion, { dataWidth: 512 }, 'completion'),
];
const pickStages = (process.env.NICGEN_SYNTH_STAGES ?? '').split(',').filter(Boolean);
const stageList = stageTops.map(t => t.emit()).filter(e => !pickStages.length || pickStages.some(n => n !== 'none' && e.top.startsWith(n)));
if (stageList.length) {
  const results = await measureAll(stageList.map(e => subjectOf(e, e.top)), { target: 'xcup', jobs, cacheDir: synthCache, log: l => console.error(l) });
  const stageRows = results.map(r => ({ r, a: r.paths.find(p => p.proxy === 'a')! })).sort((x, y) => y.a.delayNs! - x.a.delayNs!);
  for (const { r, a } of stageRows) {
    const levels = a.lut! + a.muxf!;
    const ok = levels <= 6 && a.delayNs! <= anchorA.value;
    rows.push(`stage ${r.module}: (a) ${a.delayNs!.toFixed(2)} ns = ${(a.delayNs! / anchorA.value).toFixed(2)}x anchor (${a.lut} LUT + ${a.muxf} MUXF + ${a.carryChains} carry chains, `
      + `${a.start?.signal} -> ${a.end?.signal}); goal <= 6 LUT+MUXF and <= ${anchorA.value.toFixed(2)} ns: ${ok ? 'met' : 'not met'}`);
    console.log(rows[rows.length - 1]);
  }
  const w = stageRows[0]!;
  rows.push(`worst stage ${w.r.module}: ${w.a.delayNs!.toFixed(2)} ns beside ${anchorA.name} ${anchorA.value.toFixed(2)} ns (${(w.a.delayNs! / anchorA.value).toFixed(2)}x)`);
  console.log(rows[rows.length - 1]);
}

for (const c of process.env.NICGEN_SYNTH_TOPS === 'none' ? [] : configs) {
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
