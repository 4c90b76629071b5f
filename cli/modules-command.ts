// `nicgen modules`: a table of every emitted module (lines, ports, registers, memories).

import { emitAll } from './project.ts';

export async function modulesCommand(topsFile?: string): Promise<number> {
  const t0 = performance.now();
  const project = await emitAll(topsFile);
  const rows = project.stats.map(s => [s.module, String(s.lines), `${s.ports} (${s.portBits} b)`, `${s.registers} (${s.registerBits} b)`, s.memories ? `${s.memories} (${s.memoryBits} b)` : '-', String(s.instances)]);
  const head = ['module', 'lines', 'ports (bits)', 'registers (bits)', 'memories (bits)', 'instances'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map(r => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(head));
  console.log(widths.map(w => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  const total = project.stats.reduce((n, s) => n + s.lines, 0);
  console.log(`${project.stats.length} modules, ${total} lines of Verilog from ${project.tops.length} tops, elaborated and emitted in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  return 0;
}
