// Measuring several modules: every (module, flow) pair is one task, run a few at a time,
// with a line on stderr as each finishes and, while long ones run, which are still going.

import { pool } from '../cli/tools.ts';
import type { EmittedTop } from '../gen/emit/design.ts';
import type { ModuleIR } from '../gen/hdl/ir.ts';
import { assemble } from './assemble.ts';
import { flowsOf, type FlowName, type Target } from './flows.ts';
import { NameMap } from './names.ts';
import type { ModuleResult } from './result.ts';
import { runFlow, type FlowOutput, type Subject } from './run.ts';
import type { WrapPort } from './wrapper.ts';

export interface Measured {
  readonly subject: Subject;
  readonly names: NameMap;
}

/** The module `name` of an emitted top, with the files it needs and its designer names. */
export function subjectOf(top: EmittedTop, name: string): Measured {
  const mod = top.modules.find(m => m.name === name);
  if (!mod) throw new Error(`module ${name} is not part of ${top.top}`);
  const order = [...top.files.keys()];
  const files = new Map(order.slice(0, order.indexOf(mod.file) + 1).map(f => [f, top.files.get(f)!]));
  const ports = portsOf(mod.ir);
  return { subject: { module: name, files, ports }, names: new NameMap(mod.ir, ports) };
}

export function portsOf(ir: ModuleIR): WrapPort[] {
  return ir.ports.map(p => ({ name: p.signal.name, dir: p.signal.kind === 'input' ? 'input' : 'output', width: p.signal.shape.width }));
}

export interface SessionOptions {
  readonly target: Target;
  readonly jobs: number;
  readonly cacheDir: string;
  /** Progress lines (stderr in the CLI); silent when absent. */
  readonly log?: (line: string) => void;
  /** Seconds between "still running" lines. */
  readonly tickSeconds?: number;
}

export async function measureAll(list: readonly Measured[], opts: SessionOptions): Promise<ModuleResult[]> {
  const tasks = list.flatMap(m => flowsOf[opts.target].map(flow => ({ m, flow })));
  const outputs = new Map<Measured, Map<FlowName, FlowOutput>>(list.map(m => [m, new Map()]));
  const running = new Map<string, number>();
  const log = opts.log ?? ((): void => {});
  const t0 = performance.now();
  const tick = setInterval(() => {
    if (!running.size) return;
    const now = performance.now();
    const names = [...running].map(([n, t]) => `${n} ${((now - t) / 1000).toFixed(0)} s`).join(', ');
    log(`synth: running ${names} (${done}/${tasks.length} done, ${((now - t0) / 1000).toFixed(0)} s)`);
  }, (opts.tickSeconds ?? 30) * 1000);
  let done = 0;
  try {
    await pool(tasks, opts.jobs, async ({ m, flow }) => {
      const label = `${m.subject.module} ${flow}`;
      running.set(label, performance.now());
      const r = await runFlow(flow, m.subject, opts.cacheDir);
      running.delete(label);
      done++;
      outputs.get(m)!.set(flow, r);
      log(`synth: [${done}/${tasks.length}] ${label} ${r.cached ? 'cached' : `${r.seconds.toFixed(1)} s`}${r.note ? ` (${r.note})` : ''}`);
    });
  } finally {
    clearInterval(tick);
  }
  return list.map(m => assemble(m.subject.module, opts.target, outputs.get(m)!, m.names));
}
