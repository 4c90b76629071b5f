import { describe, expect, it } from 'vitest';
import { Bool, Clock, UInt, defineModule } from '../hdl/index.ts';
import { fileLine, marks } from '../test-support/loc.ts';
import { diagnose, ofPass } from '../test-support/diag.ts';

const here = marks(import.meta.url);

const NoClock = defineModule('dm_noclk', {}, m => {
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  const r = m.reg('r', UInt(4)); // @here:noclk
  r.set(a);
  y.set(r);
  return { a, y };
});

const NoReset = defineModule('dm_norst', {}, m => {
  const clk = m.input('clk', Clock);
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  const r = m.reg('r', UInt(4), { reset: 3 }); // @here:norst
  r.set(a);
  y.set(r);
  return { clk, a, y };
});

const Crossing = defineModule('dm_cross', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const clk2 = m.input('clk2', Clock);
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  const other = m.domain('other', { clock: clk2 });
  const ra = m.reg('ra', UInt(4));
  const rb = m.reg('rb', UInt(4), { reset: null, domain: other });
  ra.set(a);
  rb.set(ra); // @here:cross
  y.set(rb);
  return { clk, rst, clk2, a, y };
});

const CrossingViaWire = defineModule('dm_cross_wire', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const clk2 = m.input('clk2', Clock);
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  const other = m.domain('other', { clock: clk2 });
  const ra = m.reg('ra', UInt(4));
  const rb = m.reg('rb', UInt(4), { reset: null, domain: other });
  const w = m.wire('w', UInt(4));
  ra.set(a);
  w.set(ra.addw(1));
  rb.set(w); // @here:cross-wire
  y.set(rb);
  return { clk, rst, clk2, a, y };
});

const CrossingViaCondition = defineModule('dm_cross_cond', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const clk2 = m.input('clk2', Clock);
  const a = m.input('a', Bool);
  const y = m.output('y', Bool);
  const other = m.domain('other', { clock: clk2 });
  const ra = m.reg('ra', Bool);
  const rb = m.reg('rb', Bool, { reset: null, domain: other });
  ra.set(a);
  m.if(ra, () => rb.set(1)); // @here:cross-cond
  y.set(rb);
  return { clk, rst, clk2, a, y };
});

const Good = defineModule('dm_good', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const clk2 = m.input('clk2', Clock);
  const arst = m.input('arst', Bool);
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  const z = m.output('z', UInt(4));
  const io = m.domain('io', { clock: clk2, reset: arst, resetKind: 'async' });
  const r1 = m.reg('r1', UInt(4));
  const r2 = m.reg('r2', UInt(4), { domain: io });
  r1.set(a);
  r2.set(a.not());
  y.set(r1);
  z.set(r2);
  return { clk, rst, clk2, arst, a, y, z };
});

const NoClockNeeded = defineModule('dm_comb_only', {}, m => {
  const a = m.input('a', UInt(4));
  const y = m.output('y', UInt(4));
  y.set(a);
  return { a, y };
});

describe('domains pass', () => {
  it('reports clocked logic without a clk input', () => {
    const ds = ofPass(diagnose(NoClock), 'domains');
    expect(ds[0]!.message).toBe("module dm_noclk has clocked logic but no input named 'clk'");
    expect(ds[0]!.hint).toMatch(/m\.clockAndReset\(\)/);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('noclk'));
  });


  it('reports registers with reset values but no rst input', () => {
    const ds = ofPass(diagnose(NoReset), 'domains');
    expect(ds.map(d => d.message)).toEqual(["module dm_norst has registers with reset values but no input named 'rst'"]);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('norst'));
  });


  it('reports a register of one domain used by a register of another', () => {
    const ds = ofPass(diagnose(Crossing), 'domains');
    expect(ds.map(d => d.message)).toEqual(['register ra (clock clk) is used by register rb (domain other, clock clk2)']);
    expect(ds[0]!.hint).toMatch(/synchronizer/);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('cross'));
  });


  it('reports a crossing through a combinational wire', () => {
    const ds = ofPass(diagnose(CrossingViaWire), 'domains');
    expect(ds.map(d => d.message)).toEqual([expect.stringMatching(/register ra \(clock clk\) is used by register rb \(domain other, clock clk2\)/)]);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('cross-wire'));
  });


  it('reports a crossing through the condition that guards an assignment', () => {
    const ds = ofPass(diagnose(CrossingViaCondition), 'domains');
    expect(ds.map(d => d.message)).toEqual([expect.stringMatching(/register ra \(clock clk\) is used by register rb \(domain other, clock clk2\)/)]);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('cross-cond'));
  });

  it('does not fire on registers kept inside their own domains, or without clocked logic', () => {
    expect(diagnose(Good)).toEqual([]);
    expect(diagnose(NoClockNeeded)).toEqual([]);
  });
});
