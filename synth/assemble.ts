// One module's report from the outputs of its flows.

import { OUT, type FlowName, type Target } from './flows.ts';
import { classify, ltpReport, nextpnrReport, staReport } from './measure.ts';
import type { NameMap } from './names.ts';
import { parseLtp, parseNextpnr, parseSta, parseStat } from './parse.ts';
import type { ModuleResult, PathReport, Resources } from './result.ts';
import type { FlowOutput } from './run.ts';

export function assemble(module: string, target: Target, flows: ReadonlyMap<FlowName, FlowOutput>, names: NameMap): ModuleResult {
  const paths: PathReport[] = [];
  const notes: string[] = [];
  let resources: Resources | null = null;
  let genericLuts: number | null = null;
  const out = (f: FlowName, file: string): string => {
    const text = flows.get(f)?.outputs[file];
    if (text === undefined) throw new Error(`flow ${f} of ${module} wrote no ${file}`);
    return text;
  };
  const cellsOf = (f: FlowName): Record<string, number> => Object.fromEntries([...parseStat(out(f, OUT.stat))].sort(([a], [b]) => a.localeCompare(b)));

  if (flows.has('xcup-res')) resources = classify(cellsOf('xcup-res'));
  if (flows.has('xcup-timing')) {
    paths.push(staReport(parseSta(out('xcup-timing', OUT.sta)), names));
    paths.push(ltpReport('b_prime', parseLtp(out('xcup-timing', OUT.ltp)), names));
  }
  if (flows.has('generic')) {
    const generic = classify(cellsOf('generic'));
    if (target === 'generic') resources = generic;
    else genericLuts = generic.luts;
    paths.push(ltpReport('b', parseLtp(out('generic', OUT.ltp)), names));
  }
  const ice = flows.get('ice40');
  if (ice) {
    resources = classify(cellsOf('ice40'));
    const log = ice.outputs['nextpnr.log'];
    if (log !== undefined) paths.push(nextpnrReport(parseNextpnr(log), names));
  }
  for (const f of flows.values()) if (f.note) notes.push(f.note);
  const all = [...flows.values()];
  return {
    module, target, resources, genericLuts, paths, notes,
    seconds: all.reduce((n, f) => n + f.seconds, 0),
    cached: all.every(f => f.cached),
  };
}
