// The report for people: one row of figures per module, then each module's worst paths with
// their ends in designer names and TS lines.

import type { Target } from './flows.ts';
import type { SignalRef } from './names.ts';
import type { ModuleResult, PathReport, Proxy } from './result.ts';

interface Column { readonly head: string; readonly cell: (r: ModuleResult) => string }

const num = (n: number | null | undefined): string => (n === null || n === undefined ? '-' : n.toLocaleString('en-US'));
const pathOf = (r: ModuleResult, p: Proxy): PathReport | undefined => r.paths.find(x => x.proxy === p);

const columns: Record<Target, readonly Column[]> = {
  xcup: [
    { head: 'LUT', cell: r => num(r.resources?.luts) },
    { head: 'FF', cell: r => num(r.resources?.ffs) },
    { head: 'CARRY', cell: r => num(r.resources?.carry) },
    { head: 'MUXF', cell: r => num(r.resources?.muxf) },
    { head: 'RAMB36+18', cell: r => (r.resources ? `${r.resources.ramb36}+${r.resources.ramb18}` : '-') },
    { head: 'LUTRAM', cell: r => num(r.resources?.lutram) },
    { head: 'DSP', cell: r => num(r.resources?.dsp) },
    { head: 'LUT6(b)', cell: r => num(r.genericLuts) },
    { head: '(a) ns', cell: r => pathOf(r, 'a')?.delayNs?.toFixed(2) ?? '-' },
    { head: "(a) LUT+MUXF/+carry", cell: r => { const a = pathOf(r, 'a'); return a ? `${(a.lut ?? 0) + (a.muxf ?? 0)} / ${(a.lut ?? 0) + (a.muxf ?? 0) + (a.carryChains ?? 0)}` : '-'; } },
    { head: "(b') cells", cell: r => num(pathOf(r, 'b_prime')?.levels) },
    { head: '(b) LUT6', cell: r => num(pathOf(r, 'b')?.levels) },
  ],
  ice40: [
    { head: 'LUT4', cell: r => num(r.resources?.luts) },
    { head: 'FF', cell: r => num(r.resources?.ffs) },
    { head: 'CARRY', cell: r => num(r.resources?.carry) },
    { head: 'RAM40', cell: r => num(r.resources?.ram40) },
    { head: 'cells', cell: r => num(r.resources ? Object.values(r.resources.cells).reduce((a, b) => a + b, 0) : null) },
    { head: '(c) MHz', cell: r => pathOf(r, 'c')?.fmaxMhz?.toFixed(1) ?? '-' },
  ],
  generic: [
    { head: 'LUT6', cell: r => num(r.resources?.luts) },
    { head: 'FF', cell: r => num(r.resources?.ffs) },
    { head: 'mem cells', cell: r => num(r.resources?.cells['$mem_v2']) },
    { head: '(b) LUT6', cell: r => num(pathOf(r, 'b')?.levels) },
  ],
};

export function formatTable(results: readonly ModuleResult[], target: Target): string {
  const cols = columns[target];
  const head = ['module', ...cols.map(c => c.head)];
  const rows = results.map(r => [r.module, ...cols.map(c => c.cell(r))]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map(r => r[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map(w => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const proxyName: Record<Proxy, string> = { a: '(a) cell delay', b_prime: "(b') levels", b: '(b) generic', c: '(c) iCE40' };

const ref = (r: SignalRef | null): string => (r ? `${r.signal}${r.loc ? ` (${r.loc})` : ''}` : '(no named net)');

/** `module (a) 4.52 ns: start (file:line) -> via, via -> end (file:line)` lines. */
export function formatPaths(results: readonly ModuleResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(`${r.module}:`);
    for (const p of r.paths) {
      const figure = p.delayNs !== null ? `${p.delayNs.toFixed(2)} ns, ${p.lut} LUT + ${p.muxf} MUXF + ${p.carryChains} carry chains`
        : p.fmaxMhz !== null ? `${p.fmaxMhz.toFixed(1)} MHz` : `${p.levels} cells`;
      const via = p.through.length ? ` -> ${p.through.slice(0, 6).map(t => t.signal).join(' -> ')}${p.through.length > 6 ? ` -> ... (${p.through.length - 6} more)` : ''}` : '';
      out.push(`  ${proxyName[p.proxy]}: ${figure}: ${ref(p.start)}${via} -> ${ref(p.end)}`);
    }
    for (const n of r.notes) out.push(`  note: ${n}`);
  }
  return out.join('\n');
}
