// Where a scenario's MRs live in physical memory: the pages and page tables it pins must stay
// out of the loader's page pool (which hands out 'auto' pages, page tables and QP rings) and
// out of each other's way, or the loader would silently overwrite one with another.

import { PAGE_BYTES } from '../model/host-memory.ts';
import { pageCount } from '../model/tlb.ts';
import { ScenarioError } from './json-reader.ts';
import type { MemoryConfig, MrConfig } from './scenario.ts';

/** Explicit pages and page tables: outside the loader's pool, no data page listed twice, no
 *  page table on a data page, and no two page tables overlapping (sharing a page is fine). */
export function checkPhysicalLayout(mrs: readonly MrConfig[], memory: MemoryConfig, at: (i: number, field: string) => string): void {
  const poolEnd = memory.poolBase + BigInt(memory.poolPages * PAGE_BYTES);
  const inPool = (a: bigint): boolean => a >= memory.poolBase && a < poolEnd;
  const owner = new Map<bigint, string>();
  mrs.forEach((mr, i) => {
    if (mr.pages === 'auto') return;
    mr.pages.forEach((pa, k) => {
      const where = `${at(i, 'pages')}[${k}]`;
      if (inPool(pa)) throw new ScenarioError(where, `0x${pa.toString(16)} lies in the loader's page pool (memory.poolBase 0x${memory.poolBase.toString(16)}, ${memory.poolPages} pages); move the pool or the page`);
      const prev = owner.get(pa);
      if (prev) throw new ScenarioError(where, `page 0x${pa.toString(16)} is also ${prev}`);
      owner.set(pa, where);
    });
  });
  const tables: { from: bigint; to: bigint; where: string }[] = [];
  mrs.forEach((mr, i) => {
    const pt = mr.pageTable;
    if (pt === 'auto') return;
    const where = at(i, 'pageTable');
    const to = pt + 8n * BigInt(Math.max(1, pageCount({ va: mr.va, len: BigInt(mr.length) })));
    for (let p = pt & ~0xfffn; p < to; p += 0x1000n) {
      if (inPool(p)) throw new ScenarioError(where, `the page table at 0x${pt.toString(16)} overlaps the loader's page pool`);
      const prev = owner.get(p);
      if (prev) throw new ScenarioError(where, `the page table at 0x${pt.toString(16)} shares page 0x${p.toString(16)} with ${prev}`);
    }
    const clash = tables.find(t => pt < t.to && t.from < to);
    if (clash) throw new ScenarioError(where, `the page table at 0x${pt.toString(16)} overlaps the one of ${clash.where}`);
    tables.push({ from: pt, to, where });
  });
}

/** The pool must hold every 'auto' page, every 'auto' page table and two ring pages per QP
 *  (send ring, completion ring): the loader would otherwise stop half way. */
export function checkPoolSize(mrs: readonly MrConfig[], qpCount: number, memory: MemoryConfig): void {
  const need = 2 * qpCount + mrs.reduce((n, mr) => n
    + (mr.pages === 'auto' ? pageCount({ va: mr.va, len: BigInt(mr.length) }) : 0)
    + (mr.pageTable === 'auto' ? 1 : 0), 0);
  if (need > memory.poolPages) throw new ScenarioError('memory.poolPages', `${memory.poolPages} pages, but the 'auto' pages, page tables and QP rings need ${need}`);
}
