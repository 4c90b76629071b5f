import { describe, expect, it } from 'vitest';
import { Bool, Clock, DesignErrors, SInt, UInt, defineModule } from '../hdl/index.ts';
import { emitTop } from '../emit/index.ts';
import { passes } from './index.ts';
import { fileLine, marks } from '../test-support/loc.ts';
import { diagnose } from '../test-support/diag.ts';

const here = marks(import.meta.url);

const Child = defineModule('p_child', {}, m => {
  const d = m.input('d', UInt(4));
  const unused = m.input('spare', Bool); // @here:child-unused
  const q = m.output('q', UInt(4));
  q.set(d);
  return { d, spare: unused, q };
});

const Broken = defineModule('p_broken', {}, m => {
  const a = m.input('a', UInt(8));
  const s = m.input('s', SInt(8));
  const y = m.output('y', UInt(4));
  const z = m.output('z', Bool); // @here:z
  const w = m.wire('wire', Bool); // @here:kw
  y.set(a); // @here:narrow
  w.set(s.lt(a)); // @here:mix
  const u = m.instance('u_child', Child);
  u.d.set(a.trunc(4));
  u.spare.set(w);
  return { a, s, y, z };
});

describe('running the passes', () => {
  it('runs every check in a fixed order', () => {
    expect(passes.map(p => p.name)).toEqual(['names', 'widths', 'drivers', 'domains', 'comb-loops', 'unused']);
  });

  it('collects every problem of every module and reports them together', () => {
    const ds = diagnose(Broken);
    expect(ds.map(d => `${d.pass}: ${d.message}`)).toEqual([
      'unused: input spare of module p_child is never read',
      "names: wire 'wire' is a Verilog/SystemVerilog keyword",
      'widths: assigning a 8-bit value to 4-bit y would drop 4 bit(s)',
      "widths: 'lt' mixes a signed and an unsigned operand (s: SInt(8) and a: UInt(8))",
      'drivers: output z of module p_broken is never assigned',
    ]);
  });


  it('reports each problem at its own line', () => {
    const ds = diagnose(Broken);
    expect(ds.map(d => fileLine(d.loc))).toEqual(['child-unused', 'kw', 'narrow', 'mix', 'z'].map(k => here.at(k)));
  });


  it('emitTop throws DesignErrors listing all of them, formatted with location and hint', () => {
    let err: unknown;
    try { emitTop(Broken); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(DesignErrors);
    const e = err as DesignErrors;
    expect(e.diagnostics).toHaveLength(5);
    expect(e.message.split('\n')[0]).toBe('5 design errors:');
    expect(e.message).toContain(`${here.at('narrow')}:`);
    expect(e.message).toMatch(/: error \[widths\]: assigning a 8-bit value to 4-bit y would drop 4 bit\(s\)\n  hint: /);
  });

  it('a good design with every construct passes every check', () => {
    const Ok = defineModule('p_ok', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const clk2 = m.input('clk2', Clock);
      const a = m.input('a', UInt(4));
      const y = m.output('y', UInt(4));
      const z = m.output('z', UInt(4));
      const other = m.domain('other', { clock: clk2 });
      const r = m.reg('r', UInt(4));
      const q = m.reg('q', UInt(4), { reset: null, domain: other });
      const fsm = m.fsm('st', ['A', 'B'] as const);
      fsm.states({ A: () => fsm.goto('B'), B: () => fsm.goto('A') });
      const ram = m.memory('ram', UInt(4), 4);
      m.if(fsm.is('A'), () => ram.write(a.trunc(2), a));
      const u = m.instance('u_child', Child);
      u.d.set(ram.read(r.trunc(2)));
      u.spare.set(0);
      r.set(u.q);
      q.set(a);
      y.set(r);
      z.set(q);
      m.assert(r.ne(15).lor(fsm.is('B')), 'never 15 in A');
      return { clk, rst, clk2, a, y, z };
    });
    // The only diagnostic is the child's own unused input.
    expect(diagnose(Ok).map(d => d.message)).toEqual(['input spare of module p_child is never read']);
  });
});
