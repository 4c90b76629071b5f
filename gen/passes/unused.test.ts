import { describe, expect, it } from 'vitest';
import { Bool, Struct, UInt, cat, defineModule } from '../hdl/index.ts';
import { fileLine, marks } from '../test-support/loc.ts';
import { diagnose, ofPass } from '../test-support/diag.ts';

const here = marks(import.meta.url);

const UnusedInput = defineModule('u_input', {}, m => {
  const a = m.input('a', Bool);
  const b = m.input('b', UInt(4)); // @here:input
  const y = m.output('y', Bool);
  y.set(a);
  return { a, b, y };
});

const UnusedBits = defineModule('u_bits', {}, m => {
  const a = m.input('a', UInt(8)); // @here:bits
  const y = m.output('y', UInt(3));
  y.set(a.bits(6, 4));
  return { a, y };
});

const UnusedReg = defineModule('u_reg', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const a = m.input('a', Bool);
  const y = m.output('y', Bool);
  const r = m.reg('r', Bool); // @here:reg
  r.set(a);
  y.set(a);
  return { clk, rst, a, y };
});

const H = Struct('hdr', { op: UInt(4), len: UInt(12) });
const Silenced = defineModule('u_silenced', {}, m => {
  const a = m.input('a', Bool);
  const h = m.input('h', H);
  const y = m.output('y', UInt(4));
  m.unused(a, 'reserved for a later revision');
  m.unused(h, 'only op is used');
  y.set(h.field('op'));
  return { a, h, y };
});

const Leaf = defineModule('u_leaf', {}, m => {
  const d = m.input('d', UInt(4));
  const q = m.output('q', UInt(4));
  const extra = m.output('extra', UInt(4));
  q.set(d);
  extra.set(d.not());
  return { d, q, extra };
});

const Good = defineModule('u_good', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const a = m.input('a', UInt(8));
  const y = m.output('y', UInt(8));
  const z = m.output('z', UInt(4));
  const r = m.reg('r', UInt(8));
  r.set(cat(a.bits(3, 0), a.bits(7, 4))); // every bit read, through slices and a concatenation
  y.set(r);
  const u = m.instance('u', Leaf); // u.extra is left unread: waived in the Verilog
  u.d.set(a.trunc(4));
  z.set(u.q);
  return { clk, rst, a, y, z };
});

describe('unused pass', () => {
  it('reports an input nothing reads', () => {
    const ds = ofPass(diagnose(UnusedInput), 'unused');
    expect(ds.map(d => d.message)).toEqual(['input b of module u_input is never read']);
    expect(ds[0]!.hint).toBe("use it, or mark it with m.unused(b, 'why')");
    expect(fileLine(ds[0]!.loc)).toBe(here.at('input'));
  });


  it('reports the bits of a signal nothing reads', () => {
    const ds = ofPass(diagnose(UnusedBits), 'unused');
    expect(ds.map(d => d.message)).toEqual(['input a (bits 7, 3:0) of module u_bits is never read']);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('bits'));
  });


  it('reports a register nothing reads', () => {
    const ds = ofPass(diagnose(UnusedReg), 'unused');
    expect(ds.map(d => d.message)).toEqual(['register r of module u_reg is never read']);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('reg'));
  });

  it('reports bits a constant shift drops', () => {
    const Shifted = defineModule('u_shift', {}, m => {
      const a = m.input('a', UInt(8));
      const y = m.output('y', UInt(8));
      y.set(a.shl(1));
      return { a, y };
    });
    expect(ofPass(diagnose(Shifted), 'unused').map(d => d.message)).toEqual(['input a (bits 7) of module u_shift is never read']);
  });

  it('is silenced by m.unused', () => {
    expect(diagnose(Silenced)).toEqual([]);
  });

  it('does not fire when every bit is read, or on unread instance outputs', () => {
    expect(diagnose(Good)).toEqual([]);
  });
});
