import { describe, expect, it } from 'vitest';
import { Bool, DslError, UInt, callerLoc, defineModule, formatLoc } from './index.ts';
import { fileLine, marks } from '../test-support/loc.ts';

const here = marks(import.meta.url);

function thrown(f: () => unknown): DslError {
  try { f(); } catch (e) {
    if (e instanceof DslError) return e;
    throw e;
  }
  throw new Error('expected a DslError');
}

describe('DslError quality', () => {
  it('starts with the user\'s file:line:col, then the problem, then a hint', () => {
    const e = thrown(() => UInt(0)); // @here:uint0
    expect(e.message).toMatch(new RegExp(`^${here.at('uint0').replace(/\./g, '\\.')}:\\d+: error: UInt: width must be an integer`));
    expect(e.message).toMatch(/\n  hint: pass a positive whole number of bits$/);
    expect(e.hint).toBe('pass a positive whole number of bits');
    expect(e.name).toBe('DslError');
  });


  it('never points into the DSL\'s own folders', () => {
    const e = thrown(() => defineModule('t_err_deep', {}, m => {
      const a = m.input('a', UInt(4));
      m.if(a, () => undefined); // @here:wide-cond
      return { a };
    }).elaborate());
    expect(e.message).not.toMatch(/^gen\/(hdl|passes|emit)\/[a-z-]+\.ts:/);
    expect(fileLine(e.loc)).toBe(here.at('wide-cond'));
    expect(e.hint).toMatch(/one bit/);
  });


  it('points at the .set() whose constant does not fit', () => {
    const e = thrown(() => defineModule('t_err_set', {}, m => {
      const y = m.output('y', UInt(4));
      y.set(16); // @here:set16
      return { y };
    }).elaborate());
    expect(fileLine(e.loc)).toBe(here.at('set16'));
    expect(e.message).toContain('constant 16 does not fit in UInt(4)');
    expect(e.hint.length).toBeGreaterThan(0);
  });


  it('points at the misused width change', () => {
    const e = thrown(() => defineModule('t_err_trunc', {}, m => {
      const a = m.input('a', UInt(4));
      const y = m.output('y', UInt(8));
      y.set(a.trunc(8)); // @here:trunc
      return { a, y };
    }).elaborate());
    expect(fileLine(e.loc)).toBe(here.at('trunc'));
    expect(e.hint).toBe('use .zext(8) or .sext(8) to widen');
  });


  it('a condition that is not one bit carries the location of m.if, lnot of the operator', () => {
    const e = thrown(() => defineModule('t_err_lnot', {}, m => {
      const a = m.input('a', UInt(2));
      const y = m.output('y', Bool);
      y.set(a.lnot()); // @here:lnot
      return { a, y };
    }).elaborate());
    expect(fileLine(e.loc)).toBe(here.at('lnot'));
  });


  it('callerLoc is the test line; outside any user frame it is <unknown>, never a node: internal', async () => {
    expect(fileLine(callerLoc())).toBe(here.at('caller')); // @here:caller
    // Called from the microtask queue with no user frame on the stack.
    const loc = await Promise.resolve().then(callerLoc);
    expect(formatLoc(loc)).not.toMatch(/^\/process\//);
  });
});
