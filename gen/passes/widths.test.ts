import { describe, expect, it } from 'vitest';
import { Bool, SInt, UInt, defineModule, mux } from '../hdl/index.ts';
import { fileLine, marks } from '../test-support/loc.ts';
import { diagnose, ofPass } from '../test-support/diag.ts';

const here = marks(import.meta.url);

const Narrowing = defineModule('w_narrow', {}, m => {
  const a = m.input('a', UInt(8));
  const b = m.input('b', UInt(8));
  const y = m.output('y', UInt(8));
  y.set(a.add(b)); // @here:narrow
  return { a, b, y };
});

const PartNarrowing = defineModule('w_part', {}, m => {
  const a = m.input('a', UInt(8));
  const y = m.output('y', UInt(8));
  y.setBits(3, 0, a); // @here:part
  y.setBits(7, 4, 0);
  return { a, y };
});

const Mixing = defineModule('w_mix', {}, m => {
  const a = m.input('a', UInt(8));
  const s = m.input('s', SInt(8));
  const y = m.output('y', SInt(9));
  y.set(s.add(a)); // @here:mix
  return { a, s, y };
});

const MixAssign = defineModule('w_mix_assign', {}, m => {
  const a = m.input('a', UInt(8));
  const y = m.output('y', SInt(8));
  y.set(a); // @here:mix-assign
  return { a, y };
});

const MixMux = defineModule('w_mix_mux', {}, m => {
  const c = m.input('c', Bool);
  const a = m.input('a', UInt(8));
  const s = m.input('s', SInt(8));
  const y = m.output('y', UInt(8));
  y.set(mux(c, a, s).asUnsigned()); // @here:mix-mux
  return { c, a, s, y };
});

const MixCompare = defineModule('w_mix_cmp', {}, m => {
  const a = m.input('a', UInt(8));
  const s = m.input('s', SInt(8));
  const y = m.output('y', Bool);
  y.set(s.lt(a)); // @here:mix-cmp
  return { a, s, y };
});

const Good = defineModule('w_good', {}, m => {
  const a = m.input('a', UInt(8));
  const b = m.input('b', UInt(4));
  const s = m.input('s', SInt(8));
  const c = m.input('c', Bool);
  const sum = m.output('sum', UInt(9));
  const wrapped = m.output('wrapped', UInt(8));
  const low = m.output('low', UInt(4));
  const wide = m.output('wide', UInt(16));
  const sd = m.output('sd', SInt(9));
  const lt = m.output('lt', Bool);
  sum.set(a.add(b));
  wrapped.set(a.addw(b));
  low.set(a.add(b).trunc(4));
  wide.set(a); // narrower into wider zero-extends: allowed
  sd.set(s.sub(a.asSigned()));
  lt.set(mux(c, s, s.neg().trunc(8)).lt(0));
  return { a, b, s, c, sum, wrapped, low, wide, sd, lt };
});

describe('widths pass', () => {
  it('reports a wider value assigned to a narrower signal', () => {
    const [d, ...rest] = ofPass(diagnose(Narrowing), 'widths');
    expect(rest).toEqual([]);
    expect(d!.message).toBe('assigning a 9-bit value to 8-bit y would drop 1 bit(s)');
    expect(d!.hint).toMatch(/\.trunc\(8\).*addw/);
  });

  it('reports a too-wide value for a bit range', () => {
    const ds = ofPass(diagnose(PartNarrowing), 'widths');
    expect(ds.map(d => d.message)).toEqual(['assigning a 8-bit value to 4-bit y[3:0] would drop 4 bit(s)']);
  });

  it('reports signed/unsigned mixing in arithmetic, naming both operands', () => {
    const ds = ofPass(diagnose(Mixing), 'widths');
    expect(ds.map(d => d.message)).toEqual(["'add' mixes a signed and an unsigned operand (s: SInt(8) and a: UInt(8))"]);
    expect(ds[0]!.hint).toMatch(/asSigned|sext|asUnsigned/);
  });

  it('reports an unsigned value assigned to a signed signal', () => {
    const ds = ofPass(diagnose(MixAssign), 'widths');
    expect(ds.map(d => d.message)).toEqual(['assigning a unsigned value to signed y']);
  });

  it('reports a mux of a signed and an unsigned value', () => {
    const ds = ofPass(diagnose(MixMux), 'widths');
    expect(ds.map(d => d.message)).toEqual(['mux mixes a signed and an unsigned value (a: UInt(8) and s: SInt(8))']);
  });

  it('reports a comparison of signed with unsigned', () => {
    const ds = ofPass(diagnose(MixCompare), 'widths');
    expect(ds.map(d => d.message)).toEqual(["'lt' mixes a signed and an unsigned operand (s: SInt(8) and a: UInt(8))"]);
  });


  it.each([
    ['narrow', Narrowing], ['part', PartNarrowing], ['mix', Mixing], ['mix-assign', MixAssign], ['mix-mux', MixMux], ['mix-cmp', MixCompare],
  ] as const)('points the %s diagnostic at the offending line of this file', (marker, def) => {
    const ds = ofPass(diagnose(def), 'widths');
    expect(ds.map(d => fileLine(d.loc))).toEqual([here.at(marker)]);
  });

  it('does not fire on explicit growth, wrapping, truncation and conversions', () => {
    expect(diagnose(Good)).toEqual([]);
  });
});
