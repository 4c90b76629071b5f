// Where nic_top's state grows with numQp (docs/synth.md, "State per QP"): elaborates nic_top at
// several QP counts and prints, per instance, the register bits the design declares (flip-flops
// before synthesis; a memory's synchronous read port counts as its width) and the memory bits
// (block RAM or LUTRAM candidates), with the growth per added QP between the last two counts.
// No synthesis: it reads the elaborated IR, so it runs in seconds at any numQp that elaborates.
//   node --import tsx scripts/qp-growth.ts [--qps 1,4,16,64] [--set k=v ...]

import type { ModuleIR } from '../gen/hdl/ir.ts';
import { nicTop } from '../gen/nic/index.ts';

interface Count { readonly regs: number; readonly mem: number }

function ownCount(ir: ModuleIR): Count {
  const regs = ir.signals.filter(s => s.kind === 'reg').reduce((n, s) => n + s.shape.width, 0);
  const readRegs = ir.memories.reduce((n, m) => n + m.readPorts.filter(p => !p.async).length * m.shape.width, 0);
  return { regs: regs + readRegs, mem: ir.memories.reduce((n, m) => n + m.depth * m.shape.width, 0) };
}

/** A module and everything instanced below it. */
function deepCount(ir: ModuleIR): Count {
  return ir.instances.reduce((c, i) => { const d = deepCount(i.module); return { regs: c.regs + d.regs, mem: c.mem + d.mem }; }, ownCount(ir));
}

function parseArgs(argv: readonly string[]): { qps: number[]; set: Record<string, unknown> } {
  let qps = [1, 4, 16, 64];
  const set: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!, v = argv[i + 1];
    if (a === '--qps' && v) { qps = v.split(',').map(Number); i++; }
    else if (a === '--set' && v && v.includes('=')) { const [k, x] = v.split('=') as [string, string]; set[k] = /^\d+$/.test(x) ? Number(x) : x; i++; }
    else throw new Error(`qp-growth: unknown argument '${a}' (usage: --qps 1,4,16,64 --set k=v)`);
  }
  if (qps.length < 2 || qps.some(q => !Number.isInteger(q) || q < 1)) throw new Error(`qp-growth: --qps needs at least two positive integers, got '${qps.join(',')}'`);
  return { qps, set };
}

function main(): void {
  const { qps, set } = parseArgs(process.argv.slice(2));
  const rows = new Map<string, Count[]>();
  qps.forEach((n, k) => {
    const params = { ...set, numQp: n };
    const top = nicTop.elaborate(params as never) as unknown as ModuleIR;
    const counts: [string, Count][] = [['(nic_top itself)', ownCount(top)], ...top.instances.map(i => [i.name, deepCount(i.module)] as [string, Count])];
    for (const [name, c] of counts) (rows.get(name) ?? rows.set(name, []).get(name)!)[k] = c;
  });
  const a = qps.length - 2, b = qps.length - 1, span = qps[b]! - qps[a]!;
  const slope = (cs: Count[], f: keyof Count): number => ((cs[b]?.[f] ?? 0) - (cs[a]?.[f] ?? 0)) / span;
  const head = ['instance', ...qps.map(q => `${q} QP`), `FF/QP`, `mem b/QP`];
  const table = [...rows.entries()].sort((x, y) => slope(y[1], 'regs') - slope(x[1], 'regs') || x[0].localeCompare(y[0]))
    .map(([name, cs]) => [name, ...cs.map(c => String(c.regs)), slope(cs, 'regs').toFixed(1), slope(cs, 'mem').toFixed(1)]);
  const total = (k: number, f: keyof Count): number => [...rows.values()].reduce((n, cs) => n + (cs[k]?.[f] ?? 0), 0);
  table.push(['total', ...qps.map((_, k) => String(total(k, 'regs'))), ((total(b, 'regs') - total(a, 'regs')) / span).toFixed(1), ((total(b, 'mem') - total(a, 'mem')) / span).toFixed(1)]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map(r => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`nic_top register bits (flip-flops as declared) per instance; growth between ${qps[a]} and ${qps[b]} QPs${Object.keys(set).length ? `; --set ${JSON.stringify(set)}` : ''}`);
  console.log(line(head));
  console.log(widths.map(w => '-'.repeat(w)).join('  '));
  for (const r of table) console.log(line(r));
}

try { main(); } catch (e) { console.error((e as Error).message); process.exitCode = 2; }
