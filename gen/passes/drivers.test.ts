import { describe, expect, it } from 'vitest';
import { Bool, UInt, defineModule } from '../hdl/index.ts';
import { fileLine, marks } from '../test-support/loc.ts';
import { diagnose, ofPass } from '../test-support/diag.ts';

const here = marks(import.meta.url);

const Leaf = defineModule('d_leaf', {}, m => {
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  y.set(a.not());
  return { a, y };
});

const UndrivenOutput = defineModule('d_undriven_out', {}, m => {
  const a = m.input('a', Bool);
  const y = m.output('y', Bool);
  const z = m.output('z', Bool); // @here:undriven-out
  y.set(a);
  return { a, y, z };
});

const UndrivenWire = defineModule('d_undriven_wire', {}, m => {
  const a = m.input('a', Bool);
  const w = m.wire('w', Bool); // @here:undriven-wire
  const y = m.output('y', Bool);
  y.set(a.land(w));
  return { a, y };
});

const Unconnected = defineModule('d_unconnected', {}, m => {
  const y = m.output('y', UInt(4));
  const u = m.instance('u_leaf', Leaf); // @here:unconnected
  y.set(u.y);
  return { y };
});

const MultiDriver = defineModule('d_multi', {}, m => {
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  const u = m.instance('u_leaf', Leaf);
  u.a.set(a);
  m.assign(u.y, a); // @here:multi
  y.set(u.y);
  return { a, y };
});

const InputAssigned = defineModule('d_input', {}, m => {
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  m.assign(a, 3); // @here:input
  y.set(a);
  return { a, y };
});

const Good = defineModule('d_good', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const a = m.input('a', UInt(4));
  const c = m.input('c', Bool);
  const y = m.output('y', UInt(4));
  const z = m.output('z', UInt(4));
  const w = m.wire('w', UInt(4));
  const r = m.reg('r', UInt(4));
  const u = m.instance('u_leaf', Leaf);
  u.a.set(a);
  m.if(c, () => w.set(a)); // conditional comb assignment: default covers the rest
  m.if(c, () => y.set(u.y)).else(() => y.set(w)); // two assignments, one kind
  r.set(w);
  z.set(r);
  return { clk, rst, a, c, y, z };
});

describe('drivers pass', () => {
  it('reports an output that is never assigned', () => {
    const ds = ofPass(diagnose(UndrivenOutput), 'drivers');
    expect(ds.map(d => d.message)).toEqual(['output z of module d_undriven_out is never assigned']);
    expect(ds[0]!.hint).toBe('assign it with z.set(...) or remove it');
  });

  it('reports a wire that is never assigned', () => {
    const ds = ofPass(diagnose(UndrivenWire), 'drivers');
    expect(ds.map(d => d.message)).toEqual(['wire w of module d_undriven_wire is never assigned']);
  });

  it('reports an instance input left unconnected, at the instance', () => {
    const ds = ofPass(diagnose(Unconnected), 'drivers');
    expect(ds.map(d => d.message)).toEqual(['input a of instance u_leaf (u_leaf_a) is not connected']);
    expect(ds[0]!.hint).toBe('assign it: u_leaf.a.set(...)');
  });


  it('reports a signal driven both by an instance output and by an assignment', () => {
    const ds = ofPass(diagnose(MultiDriver), 'drivers');
    expect(ds).toHaveLength(1);
    expect(ds[0]!.message).toMatch(/^u_leaf_y has several drivers \(comb and instance; assigned at gen\/passes\/drivers\.test\.ts:\d+:\d+\)$/);
    expect(ds[0]!.message).toContain(here.at('multi'));
  });

  it('reports an assignment to an input made with m.assign', () => {
    const ds = ofPass(diagnose(InputAssigned), 'drivers');
    expect(ds.map(d => d.message)).toEqual(['input a is assigned inside module d_input']);
    expect(ds[0]!.hint).toMatch(/inputs are driven from outside/);
  });


  it.each([
    ['undriven-out', UndrivenOutput], ['undriven-wire', UndrivenWire], ['unconnected', Unconnected], ['multi', MultiDriver], ['input', InputAssigned],
  ] as const)('points the %s diagnostic at the offending line of this file', (marker, def) => {
    const ds = ofPass(diagnose(def), 'drivers');
    expect(ds.map(d => fileLine(d.loc))).toEqual([here.at(marker)]);
  });

  it('does not fire on one driver per signal, conditional comb assignments included', () => {
    expect(diagnose(Good)).toEqual([]);
  });
});
