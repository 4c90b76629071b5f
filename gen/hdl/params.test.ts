import { describe, expect, it } from 'vitest';
import { Bool, UInt, defineModule, intIn, oneOf, powerOfTwoIn, ParamError } from './index.ts';
import { fileLine, marks } from '../test-support/loc.ts';

const here = marks(import.meta.url);

const Leaf = defineModule('t_param_leaf', { width: 8, depth: 4, mode: 'fast' }, (m, p) => {
  const a = m.input('a', UInt(p.width));
  const y = m.output('y', UInt(p.width));
  y.set(a);
  return { a, y };
}, {
  params: {
    rules: { width: intIn(1, 64), depth: powerOfTwoIn(2, 1024), mode: oneOf('fast', 'small') },
    check: p => (p.depth > 64 && p.mode === 'fast' ? { param: 'depth', allowed: '2..64 with mode fast', why: 'fast mode keeps the storage in registers' } : null),
  },
});

function caught(run: () => unknown): ParamError {
  try { run(); } catch (e) { if (e instanceof ParamError) return e; throw e; }
  throw new Error('expected a ParamError');
}

describe('generator parameters', () => {
  it('out of range: one line naming the module, the parameter, the value and the range, at the asking line', () => {
    const e = caught(() => Leaf.elaborate({ width: 65 })); // @here:width
    expect(e.message).toBe(`${here.at('width')}:${e.loc.col}: error [params]: t_param_leaf: width = 65 is out of range (allowed: 1..64)`);
    expect(e.message.split('\n')).toHaveLength(1);
    expect(caught(() => Leaf.elaborate({ depth: 48 })).message).toMatch(/depth = 48 is out of range \(allowed: a power of two in 2\.\.1024\)/);
    expect(caught(() => Leaf.elaborate({ mode: 'slow' })).message).toMatch(/mode = "slow" is out of range \(allowed: fast or small\)/);
    expect(caught(() => Leaf.elaborate({ width: 2.5 })).message).toMatch(/width = 2\.5 is out of range/);
  });

  it('inconsistent parameters name the one to change and why', () => {
    const e = caught(() => Leaf.elaborate({ depth: 128 }));
    expect(e.message).toMatch(/t_param_leaf: depth = 128 is not allowed with these parameters \(allowed: 2\.\.64 with mode fast\): fast mode keeps the storage in registers$/);
    expect(() => Leaf.elaborate({ depth: 128, mode: 'small' })).not.toThrow();
  });

  it('inside another module: at the m.instance line, with the modules around it', () => {
    const Parent = defineModule('t_param_parent', { w: 8 }, (m, p) => {
      const u = m.instance('u_leaf', Leaf, { width: p.w }); // @here:inst
      const a = m.input('a', UInt(p.w));
      const y = m.output('y', UInt(p.w));
      u.a.set(a);
      y.set(u.y);
      return { a, y };
    });
    const e = caught(() => Parent.elaborate({ w: 100 })); // @here:parent
    expect(fileLine(e.loc)).toBe(here.at('inst'));
    expect(e.message).toContain(`t_param_leaf: width = 100 is out of range (allowed: 1..64) (inside t_param_parent at ${here.at('parent')}:`);
  });

  it("a generator's own plain Error becomes a one-line parameter error at the asking line", () => {
    const Picky = defineModule('t_param_picky', { n: 3 }, (m, p) => {
      if (p.n % 2 === 1) throw new Error(`t_param_picky: n ${p.n} must be even`);
      const y = m.output('y', Bool);
      y.set(0);
      return { y };
    });
    const e = caught(() => Picky.elaborate({ n: 5 })); // @here:picky
    expect(e.message).toBe(`${here.at('picky')}:${e.loc.col}: error [params]: t_param_picky: n 5 must be even`);
    expect((e as Error & { cause?: unknown }).cause).toBeInstanceOf(Error);
    // Bugs are not dressed up as parameter errors.
    const Buggy = defineModule('t_param_buggy', {}, () => { throw new TypeError('x is undefined'); });
    expect(() => Buggy.elaborate()).toThrow(TypeError);
  });

  it('derive: a default that follows another parameter, unless the user gave it', () => {
    const D = defineModule('t_param_derive', { lanes: 4, perLane: 2 }, (m, p) => {
      const y = m.output('y', UInt(8));
      y.set(p.lanes * p.perLane);
      return { y };
    }, {
      params: {
        derive: (p, given) => (given.has('perLane') ? p : { ...p, perLane: Math.min(p.perLane, Math.floor(8 / p.lanes)) }),
        check: p => (p.lanes * p.perLane > 8 ? { param: 'perLane', allowed: `1..${Math.floor(8 / p.lanes)} with lanes ${p.lanes}` } : null),
      },
    });
    expect(D.elaborate({ lanes: 8 }).params['perLane']).toBe(1);
    expect(D.elaborate({ lanes: 8 }).name, 'named like the same parameters given by hand').toBe(D.elaborate({ lanes: 8, perLane: 1 }).name);
    expect(caught(() => D.elaborate({ lanes: 8, perLane: 2 })).message).toMatch(/perLane = 2 is not allowed with these parameters \(allowed: 1\.\.1 with lanes 8\)/);
  });
});
