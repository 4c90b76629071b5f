// Running one flow on one wrapped module: Yosys (and nextpnr for the iCE40) in a scratch
// folder, the raw outputs cached under .cache/synth/ by a hash of everything that decides
// them (flow version and script, tool versions, every Verilog file), so a repeated run is
// instant and a changed design, flow or tool is measured again. Raw text is cached, not
// parsed figures, so improving a reader never needs a new synthesis.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTool } from '../cli/tools.ts';
import { FLOW_VERSION, ICE40_DEVICE, nextpnrArgs, OUT, yosysScript, type FlowName } from './flows.ts';
import { parseStat } from './parse.ts';
import { WRAPPER_FILE, wrapperFlopCount, wrapperVerilog, type WrapPort } from './wrapper.ts';

/** A module to measure: its Verilog (compile order, submodules first) and its ports. */
export interface Subject {
  readonly module: string;
  readonly files: ReadonlyMap<string, string>;
  readonly ports: readonly WrapPort[];
  /** Parameters set on the instance (foreign Verilog such as the anchors); none for ours. */
  readonly params?: Readonly<Record<string, number>>;
}

/** What a flow printed, by output file name, plus nextpnr's log when it ran. */
export interface FlowOutput {
  readonly flow: FlowName;
  readonly outputs: Readonly<Record<string, string>>;
  /** Why a part of the flow did not run (e.g. too big for the iCE40). */
  readonly note: string | null;
  readonly seconds: number;
  readonly cached: boolean;
}

export class ToolFailure extends Error {}

let versions: Promise<Record<string, string>> | null = null;

/** Tool versions (part of every cache key and of the JSON report). */
export function toolVersions(): Promise<Record<string, string>> {
  versions ??= (async () => {
    const y = await runTool('yosys', ['-V']);
    const n = await runTool('nextpnr-ice40', ['--version']);
    if (!y.ok) throw new ToolFailure(`yosys not found or not working (${y.output.trim()}); run scripts/setup`);
    return { yosys: y.output.trim(), nextpnr: n.ok ? n.output.trim().split('\n')[0]! : 'missing' };
  })();
  return versions;
}

export function cacheKey(flow: FlowName, subject: Subject, tools: Record<string, string>): string {
  const h = createHash('sha256');
  h.update(JSON.stringify({ FLOW_VERSION, flow, script: yosysScript(flow, fileOrder(subject), subject.module), tools }));
  for (const [name, text] of subject.files) h.update(`\0${name}\0${text}`);
  h.update(`\0${wrapperVerilog(subject.module, subject.ports, subject.params)}`);
  return h.digest('hex').slice(0, 32);
}

const fileOrder = (s: Subject): string[] => [...s.files.keys(), WRAPPER_FILE];

export async function runFlow(flow: FlowName, subject: Subject, cacheDir: string): Promise<FlowOutput> {
  const tools = await toolVersions();
  const key = cacheKey(flow, subject, tools);
  const cached = path.join(cacheDir, `${subject.module}.${flow}.${key}.json`);
  if (fs.existsSync(cached)) return { ...(JSON.parse(fs.readFileSync(cached, 'utf8')) as FlowOutput), seconds: 0, cached: true };
  if (flow === 'ice40' && tools.nextpnr === 'missing') throw new ToolFailure('nextpnr-ice40 not found: run scripts/setup (Debian nextpnr-ice40, fpga-icestorm)');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `nicgen-synth-${flow}-`));
  try {
    for (const [name, text] of subject.files) fs.writeFileSync(path.join(dir, name), text);
    fs.writeFileSync(path.join(dir, WRAPPER_FILE), wrapperVerilog(subject.module, subject.ports, subject.params));
    const script = yosysScript(flow, fileOrder(subject), subject.module);
    fs.writeFileSync(path.join(dir, 'flow.ys'), script + '\n');
    const y = await runTool('yosys', ['-q', '-s', 'flow.ys'], { cwd: dir });
    if (!y.ok) {
      const lines = y.output.trim().split('\n');
      const errors = lines.filter(l => /ERROR/.test(l));
      throw new ToolFailure(`yosys (${flow}) failed on ${subject.module}:\n${(errors.length ? errors : lines.slice(-15)).join('\n')}`);
    }
    let seconds = y.seconds;
    const outputs: Record<string, string> = {};
    for (const f of Object.values(OUT)) {
      if (f !== OUT.json && fs.existsSync(path.join(dir, f))) outputs[f] = fs.readFileSync(path.join(dir, f), 'utf8');
    }
    let note: string | null = null;
    if (flow === 'ice40') {
      const r = await placeAndRoute(dir, outputs, wrapperFlopCount(subject.ports));
      seconds += r.seconds;
      note = r.note;
      if (r.log !== null) outputs['nextpnr.log'] = r.log;
    }
    const result: FlowOutput = { flow, outputs, note, seconds, cached: false };
    fs.mkdirSync(cacheDir, { recursive: true });
    // Written whole, then renamed: a run stopped half way never leaves a torn cache entry.
    fs.writeFileSync(`${cached}.tmp`, JSON.stringify(result));
    fs.renameSync(`${cached}.tmp`, cached);
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** nextpnr on the wrapper's netlist, unless the design needs more logic cells than the device has. */
async function placeAndRoute(dir: string, outputs: Record<string, string>, wrapperFlops: number): Promise<{ log: string | null; note: string | null; seconds: number }> {
  const cells = parseStat(outputs[OUT.stat] ?? '');
  const luts = cells.get('SB_LUT4') ?? 0;
  const ffs = [...cells].filter(([t]) => t.startsWith('SB_DFF')).reduce((n, [, c]) => n + c, 0) + wrapperFlops;
  if (Math.max(luts, ffs) > ICE40_DEVICE.lcs) {
    return { log: null, note: `ice40: not placed: ${luts} LUT4 and ${ffs} flip-flops (with the wrapper's) do not fit the ${ICE40_DEVICE.name}'s ${ICE40_DEVICE.lcs} logic cells`, seconds: 0 };
  }
  const r = await runTool('nextpnr-ice40', nextpnrArgs(OUT.json), { cwd: dir });
  if (!r.ok) {
    const why = /ERROR: (.*)/.exec(r.output)?.[1] ?? r.output.trim().split('\n').pop() ?? 'failed';
    return { log: null, note: `ice40: nextpnr-ice40 failed: ${why}`, seconds: r.seconds };
  }
  return { log: r.output, note: null, seconds: r.seconds };
}
