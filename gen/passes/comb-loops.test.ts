import { describe, expect, it } from 'vitest';
import { Bool, UInt, defineModule } from '../hdl/index.ts';
import { fileLine, marks } from '../test-support/loc.ts';
import { diagnose, ofPass } from '../test-support/diag.ts';

const here = marks(import.meta.url);

const Loop = defineModule('c_loop', {}, m => {
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  const p = m.wire('p', UInt(4));
  const q = m.wire('q', UInt(4));
  p.set(q.xor(a)); // @here:p
  q.set(p.not()); // @here:q
  y.set(q);
  return { a, y };
});

const GuardLoop = defineModule('c_guard_loop', {}, m => {
  const a = m.input('a', Bool);
  const y = m.output('y', Bool);
  const g = m.wire('g', Bool);
  m.if(g, () => g.set(a)); // @here:guard
  y.set(g);
  return { a, y };
});

const Through = defineModule('c_through', {}, m => {
  const i = m.input('i', UInt(4));
  const o = m.output('o', UInt(4));
  o.set(i.addw(1));
  return { i, o };
});

const InstLoop = defineModule('c_inst_loop', {}, m => {
  const y = m.output('y', UInt(4));
  const u = m.instance('u_thru', Through);
  u.i.set(u.o); // @here:inst
  y.set(u.o);
  return { y };
});

const Registered = defineModule('c_registered', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const i = m.input('i', UInt(4));
  const o = m.output('o', UInt(4));
  const r = m.reg('r', UInt(4));
  r.set(i);
  o.set(r);
  return { clk, rst, i, o };
});

const Good = defineModule('c_good', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  const z = m.output('z', UInt(4));
  const r = m.reg('r', UInt(4));
  r.set(r.addw(a)); // a loop through a register is fine
  const u = m.instance('u_reg', Registered);
  u.i.set(u.o.addw(1)); // through a child whose output is registered: fine
  const v = m.instance('u_thru', Through);
  v.i.set(a);
  y.set(r);
  z.set(v.o.xor(u.o));
  return { clk, rst, a, y, z };
});

describe('comb-loops pass', () => {
  it('reports a loop between two wires and prints it with locations', () => {
    const ds = ofPass(diagnose(Loop), 'comb-loops');
    expect(ds).toHaveLength(1);
    const msg = ds[0]!.message;
    expect(msg).toMatch(/^combinational loop in c_loop: (p|q) \(.+\) <- (p|q) \(.+\) <- (p|q)$/);
    expect(msg).toContain(`p (${here.at('p')}:`);
    expect(msg).toContain(`q (${here.at('q')}:`);
    expect(ds[0]!.hint).toMatch(/register/);
  });

  it('counts a condition as a dependency (a wire assigned under itself)', () => {
    const ds = ofPass(diagnose(GuardLoop), 'comb-loops');
    expect(ds.map(d => d.message)).toEqual([expect.stringMatching(/^combinational loop in c_guard_loop: g \(.*\) <- g$/)]);
  });

  it('reports a loop through an instance\'s combinational path', () => {
    const ds = ofPass(diagnose(InstLoop), 'comb-loops');
    expect(ds).toHaveLength(1);
    expect(ds[0]!.message).toMatch(/^combinational loop in c_inst_loop: /);
    expect(ds[0]!.message).toContain('u_thru_i');
    expect(ds[0]!.message).toContain('u_thru_o');
  });


  it('points loop diagnostics at an assignment in the loop', () => {
    const loop = ofPass(diagnose(Loop), 'comb-loops')[0]!;
    expect([here.at('p'), here.at('q')]).toContain(fileLine(loop.loc));
    expect(ofPass(diagnose(GuardLoop), 'comb-loops').map(d => fileLine(d.loc))).toEqual([here.at('guard')]);
    // The instance loop closes at the u_thru_i assignment or at the instance; either is in this file.
    expect(ofPass(diagnose(InstLoop), 'comb-loops').map(d => d.loc.file)).toEqual([here.file]);
  });

  it('does not fire through registers or registered child outputs', () => {
    expect(diagnose(Good)).toEqual([]);
  });
});
