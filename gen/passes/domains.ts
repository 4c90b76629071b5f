// Clock domains: each used domain has a clock (and a reset when registers need one), and a
// value is only read by logic of the clock it comes from, inside a module and across
// instances (domain-graph.ts); crossings go through a synchronizer or carry m.crossing().

import { domainHasReset, domainUsed } from '../hdl/analysis.ts';
import type { Diagnostic, SourceLoc } from '../hdl/errors.ts';
import type { Domain, ModuleIR, Signal } from '../hdl/ir.ts';
import { walkStmts } from '../hdl/ir.ts';
import { CombDeps, childInputClocks, domainText, sinksOf, sourcesOf, sourcesOfSignal } from './domain-graph.ts';

export function checkDomains(m: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const d of m.domains.values()) {
    if (!domainUsed(m, d.name)) continue;
    const names = d.portNames ?? { clock: 'clk', reset: 'rst' };
    if (!d.clock) out.push({ pass: 'domains', message: `module ${m.name} has clocked logic but no input named '${names.clock}'`, hint: 'add the ports with m.clockAndReset() (or create a domain with m.domain)', loc: firstUser(m, d) });
    else if (d.clock.shape.kind !== 'clock') out.push({ pass: 'domains', message: `${d.clock.name}, the clock of domain ${d.name} in ${m.name}, is ${d.clock.shape.kind === 'uint' ? `UInt(${d.clock.shape.width})` : d.clock.shape.kind}, not a Clock`, hint: `declare it with m.input('${d.clock.name}', Clock) (m.clockAndReset() does)`, loc: d.clock.loc });
    if (d.resetKind !== 'none' && !d.reset && domainHasReset(m, d.name)) out.push({ pass: 'domains', message: `module ${m.name} has registers with reset values but no input named '${names.reset}'`, hint: "add the ports with m.clockAndReset(), or give the registers { reset: null }", loc: firstUser(m, d) });
  }
  out.push(...crossings(m));
  return out;
}

const crossHint = "cross through a synchronizer from nicgen/lib (syncBits for single bits, syncHandshake for a slow bus, asyncFifo for a stream), or declare a deliberate crossing with m.crossing(signal, 'why it is safe')";

/**
 * Values read by logic of another clock than the one they come from: a register (directly,
 * through combinational wires, or through the conditions and enables guarding the assignment),
 * a memory read port, or an output of an instance, into a register, a memory port or an
 * instance input that logic of another clock reads. Signals marked with m.crossing() are
 * where the walk stops: the synchronizers in nicgen/lib mark their first flop's input.
 */
function crossings(m: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  const deps = new CombDeps(m);
  const reported = new Set<string>();
  const report = (key: string, d: Diagnostic): void => {
    if (reported.has(key)) return;
    reported.add(key);
    out.push(d);
  };
  for (const sink of sinksOf(m)) {
    for (const src of sourcesOf(deps, sink.roots).clocked) {
      if (src.clock === deps.root(sink.clock)) continue;
      report(`${src.what}->${sink.what}`, { pass: 'domains', message: `${src.what} is used by ${sink.what}`, hint: crossHint, loc: sink.stmt?.loc ?? m.loc });
    }
  }
  const assignedAt = new Map<Signal, SourceLoc>();
  walkStmts(m.body, s => { if (s.kind === 'assign' && !assignedAt.has(s.target)) assignedAt.set(s.target, s.loc); });
  for (const inst of m.instances) {
    for (const p of inst.module.ports) {
      if (p.signal.kind !== 'input') continue;
      const readers = childInputClocks(deps, inst, p.signal.name);
      const sig = inst.connections.get(p.signal.name);
      if (!readers.length || !sig) continue;
      for (const src of sourcesOfSignal(deps, sig).clocked) {
        if (readers.includes(src.clock)) continue;
        report(`${src.what}->${inst.name}.${p.signal.name}`, {
          pass: 'domains',
          message: `${src.what} drives input ${p.signal.name} of ${inst.name}, which logic clocked by ${readers.map(r => r.name).join(', ')} reads`,
          hint: crossHint, loc: assignedAt.get(sig) ?? inst.loc,
        });
      }
    }
  }
  for (const mem of m.memories) {
    if (mem.crossing) continue;
    const writes = new Set(mem.writePorts.flatMap(p => (p.domain.clock ? [deps.root(p.domain.clock)] : [])));
    for (const rp of mem.readPorts) {
      if (rp.async) continue; // combinational: its readers' clocks are checked against the write clocks
      if (rp.domain.clock && [...writes].some(w => w !== deps.root(rp.domain.clock!))) {
        report(`mem ${mem.name}`, { pass: 'domains', message: `memory ${mem.name} is written and read in different clock domains (read in ${domainText(rp.domain)})`, hint: `a dual-clock RAM is safe only when its reader knows a word was written (as asyncFifoRam does): say why with m.crossing(mem, 'why'), or use asyncFifoRam`, loc: mem.loc });
      }
    }
  }
  return out;
}

function firstUser(m: ModuleIR, d: Domain) {
  return m.signals.find(s => s.kind === 'reg' && s.domain === d)?.loc ?? d.loc;
}
