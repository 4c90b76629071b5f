import { describe, expect, it } from 'vitest';
import { Bool, DslError, Enum, SInt, Struct, UInt, Vec, cat, lit, mux, pack, repeat, anyOf } from './index.ts';
import type { Value } from './index.ts';
import { exprText } from '../test-support/ir-text.ts';
import { scratch } from '../test-support/scratch.ts';
import { fileLine, marks } from '../test-support/loc.ts';

const here = marks(import.meta.url);
const t = (v: Value): string => exprText(v.expr);

function ports() {
  const m = scratch();
  return {
    m,
    a: m.input('a', UInt(8)),
    b: m.input('b', UInt(4)),
    s: m.input('s', SInt(8)),
    t: m.input('t', SInt(4)),
    c: m.input('c', Bool),
  };
}

describe('width rules', () => {
  it('add and sub grow by one bit over the wider operand', () => {
    const { a, b } = ports();
    expect(t(a.add(b))).toBe('(add u9 (ext u9 a) (ext u9 b))');
    expect(t(a.sub(b))).toBe('(sub u9 (ext u9 a) (ext u9 b))');
    expect(a.add(a).width).toBe(9);
  });

  it('addw and subw wrap to the wider operand', () => {
    const { a, b } = ports();
    expect(t(a.addw(b))).toBe('(add u8 a (ext u8 b))');
    expect(t(a.subw(1))).toBe("(sub u8 a 8'd1)");
  });

  it('mul gives the sum of the widths', () => {
    const { a, b, s, t: t4 } = ports();
    expect(a.mul(b).width).toBe(12);
    expect(t(a.mul(b))).toBe('(mul u12 (ext u12 a) (ext u12 b))');
    expect(t(s.mul(t4))).toBe('(mul s12 (ext s12 s) (ext s12 t))');
  });

  it('comparisons give one unsigned bit, the narrower side extended', () => {
    const { a, b, s, t: t4 } = ports();
    for (const v of [a.eq(b), a.ne(b), a.lt(b), a.le(b), a.gt(b), a.ge(b)]) expect(v.width).toBe(1);
    expect(t(a.lt(b))).toBe('(lt u1 a (ext u8 b))');
    // Signed operands are sign-extended (an `ext` of a signed argument) and stay signed.
    expect(t(s.lt(t4))).toBe('(lt u1 s (ext s8 t))');
    expect(a.eq(3).signed).toBe(false);
  });

  it('bitwise operators extend the narrower operand; reductions give one bit', () => {
    const { a, b } = ports();
    expect(t(a.and(b))).toBe('(and u8 a (ext u8 b))');
    expect(t(a.xor(0x0f))).toBe("(xor u8 a 8'd15)");
    expect(t(a.not())).toBe('(not u8 a)');
    expect(t(a.orr())).toBe('(orr u1 a)');
    expect(t(a.andr())).toBe('(andr u1 a)');
    expect(t(a.xorr())).toBe('(xorr u1 a)');
  });

  it('plain numbers take the width and signedness of the other operand', () => {
    const { a, s } = ports();
    expect(t(a.add(255))).toBe("(add u9 (ext u9 a) 9'd255)");
    expect(t(s.lt(-128))).toBe("(lt u1 s 8'sd-128)");
    expect(t(a.eq(true))).toBe("(eq u1 a 8'd1)");
  });

  it('constants that do not fit throw DslError', () => {
    const { a, s, c } = ports();
    expect(() => a.add(256)).toThrow(DslError);
    expect(() => a.eq(-1)).toThrow(/constant -1 does not fit in UInt\(8\)/);
    expect(() => s.lt(128)).toThrow(/constant 128 does not fit in SInt\(8\)/);
    expect(() => c.land(2)).toThrow(DslError);
    expect(() => lit(16, 4)).toThrow(/does not fit in UInt\(4\)/);
    expect(() => lit(-9, 4, true)).toThrow(/does not fit in SInt\(4\)/);
    expect(() => a.eq(1.5)).toThrow(/not an integer/);
  });


  it('a constant that does not fit points at the caller', () => {
    const { a } = ports();
    let err: unknown;
    try {
      a.add(1000); // @here:const-too-wide
    } catch (e) { err = e; }
    expect(err).toBeInstanceOf(DslError);
    const e = err as DslError;
    expect(fileLine(e.loc)).toBe(here.at('const-too-wide'));
    expect(e.message.startsWith(`${here.at('const-too-wide')}:`)).toBe(true);
    expect(e.hint).toMatch(/wider operand|mask/);
  });

  it('neg widens by one bit and is signed; unsigned operands zero-extend first', () => {
    const { a, s } = ports();
    expect(t(a.neg())).toBe('(neg s9 (ext s9 (ext u9 a)))');
    expect(t(s.neg())).toBe('(neg s9 (ext s9 s))');
  });

  it('trunc, zext and sext change widths and refuse the wrong direction', () => {
    const { a, s } = ports();
    expect(t(a.trunc(3))).toBe('(slice u3 a 0)');
    expect(t(s.trunc(3))).toBe('(slice s3 s 0)');
    expect(t(a.zext(12))).toBe('(ext u12 a)');
    expect(t(s.zext(12))).toBe('(ext u12 (ext u8 s))');
    expect(t(s.sext(12))).toBe('(ext s12 s)');
    expect(t(a.sext(12))).toBe('(ext s12 (ext s8 a))');
    expect(a.trunc(8).width).toBe(8);
    expect(() => a.trunc(9)).toThrow(/trunc\(9\) of a 8-bit value would widen it[^]*hint: use .zext\(9\) or .sext\(9\)/);
    expect(() => a.zext(7)).toThrow(/zext\(7\) of a 8-bit value would narrow it[^]*hint: use .trunc\(7\)/);
    expect(() => s.sext(4)).toThrow(/sext\(4\) of a 8-bit value would narrow it/);
  });

  it('asSigned / asUnsigned reinterpret without changing width', () => {
    const { a, s } = ports();
    expect(t(a.asSigned())).toBe('(ext s8 a)');
    expect(t(s.asUnsigned())).toBe('(ext u8 s)');
    expect(a.asUnsigned()).toBeDefined();
    expect(t(a.asUnsigned())).toBe('a');
  });

  it('land / lor / lnot need one-bit operands', () => {
    const { a, c } = ports();
    expect(t(c.land(a.eq(1)))).toBe("(land u1 c (eq u1 a 8'd1))");
    expect(() => a.land(c)).toThrow(/land needs a one-bit operand, got 8 bits/);
    expect(() => a.lnot()).toThrow(/lnot needs a one-bit operand/);
    expect(t(anyOf(c, c, c))).toBe('(lor u1 (lor u1 c c) c)');
  });
});

describe('bit selection, shifts and aggregates', () => {
  it('bits(hi, lo) is an unsigned slice; out of range is an error', () => {
    const { a, s } = ports();
    expect(t(a.bits(7, 4))).toBe('(slice u4 a 4)');
    expect(t(s.bits(3, 0))).toBe('(slice u4 s 0)');
    expect(() => a.bits(8, 0)).toThrow(/bits\(8, 0\) is outside this 8-bit value/);
    expect(() => a.bits(2, 3)).toThrow(DslError);
  });

  it('bit(i) takes a constant or a run-time index', () => {
    const { m, a } = ports();
    const i = m.input('i', UInt(3));
    expect(t(a.bit(2))).toBe('(slice u1 a 2)');
    expect(t(a.bit(i))).toBe('(part u1 a i *1)');
    expect(() => a.bit(i.asSigned())).toThrow(/index is signed/);
  });

  it('struct fields are slices at their offsets, signed fields signed', () => {
    const m = scratch();
    const H = Struct('hdr', { op: UInt(4), len: UInt(12), delta: SInt(4) });
    const h = m.input('h', H);
    expect(t(h.field('op'))).toBe('(slice u4 h 0)');
    expect(t(h.field('len'))).toBe('(slice u12 h 4)');
    expect(t(h.field('delta'))).toBe('(slice s4 h 16)');
    expect(() => (h as unknown as { field(n: string): Value }).field('nope')).toThrow(/struct hdr has no field 'nope'[^]*fields are: op, len, delta/);
  });

  it('Vec elements: constant index is a slice, run-time index a strided part select', () => {
    const m = scratch();
    const v = m.input('v', Vec(UInt(8), 4));
    const i = m.input('i', UInt(2));
    expect(t(v.at(3))).toBe('(slice u8 v 24)');
    expect(t(v.at(i))).toBe('(part u8 v i *8)');
    expect(() => v.at(4)).toThrow(/index 4 is outside Vec of 4/);
  });

  it('constant shifts become concatenations, arithmetic for signed', () => {
    const { a, s } = ports();
    expect(t(a.shl(3))).toBe("(cat u8 (slice u5 a 0) 3'd0)");
    expect(t(a.shr(3))).toBe("(cat u8 3'd0 (slice u5 a 3))");
    expect(t(s.shr(2))).toBe('(ext s8 (cat u8 (repl u2 (slice u1 s 7) 2) (slice u6 s 2)))');
    expect(t(a.shl(0))).toBe('a');
    expect(t(a.shl(8))).toBe("8'd0");
    expect(t(s.shr(9))).toBe('(repl s8 (slice u1 s 7) 8)');
    expect(() => a.shl(-1)).toThrow(/shift by -1/);
  });

  it('variable shifts keep the width; the amount must be unsigned', () => {
    const { a, b, t: t4 } = ports();
    expect(t(a.shl(b))).toBe('(shl u8 a b)');
    expect(t(a.shr(b))).toBe('(shr u8 a b)');
    expect(() => a.shr(t4)).toThrow(/shift amount is signed/);
  });

  it('mux extends to the wider side and needs a one-bit select', () => {
    const { a, b, c } = ports();
    expect(t(mux(c, a, b))).toBe('(mux u8 c a (ext u8 b))');
    expect(t(mux(c, 3, b))).toBe("(mux u4 c 4'd3 b)");
    expect(() => mux(a, a, b)).toThrow(/mux select is 8 bits/);
    expect(() => mux(c, 1, 2)).toThrow(/mux of two plain numbers has no width/);
  });

  it('cat is MSB first; repeat replicates; lit has an explicit width', () => {
    const { a, b } = ports();
    expect(t(cat(b, a))).toBe('(cat u12 b a)');
    expect(t(repeat(b, 3))).toBe('(repl u12 b 3)');
    expect(t(lit(5, 8))).toBe("8'd5");
    expect(t(lit(-2, 4, true))).toBe("4'sd-2");
    expect(() => cat()).toThrow(/cat\(\) of nothing/);
  });

  it('pack builds a struct value MSB field first, and checks every field', () => {
    const { a, b } = ports();
    const H = Struct('hdr', { op: UInt(4), len: UInt(12) });
    const v = pack(H, { op: b, len: a });
    expect(v.width).toBe(16);
    expect(t(v)).toBe('(cat u16 (ext u12 a) b)');
    expect(() => pack(H, { op: a, len: a })).toThrow(/field 'op' is 4 bits, value is 8/);
    expect(() => pack(H, { op: b } as unknown as { op: Value; len: Value })).toThrow(/field 'len' missing/);
  });

  it('enum comparisons use labelled constants', () => {
    const m = scratch();
    const St = Enum('st', ['IDLE', 'RUN', 'DONE']);
    const s = m.input('state', St);
    expect(t(s.is('RUN'))).toBe('(eq u1 state ST_RUN)');
    expect(t(s.eq('DONE'))).toBe('(eq u1 state ST_DONE)');
    expect(() => s.eq('NOPE')).toThrow(/enum st has no member 'NOPE'[^]*members are: IDLE, RUN, DONE/);
    const { a } = ports();
    expect(() => a.eq('IDLE')).toThrow(/not an enum/);
  });

  it('as() reinterprets bits as another shape of the same width', () => {
    const { a } = ports();
    const H = Struct('h8', { lo: UInt(4), hi: UInt(4) });
    expect(a.as(H).field('hi').width).toBe(4);
    expect(() => a.as(UInt(9))).toThrow(/cannot view 8 bits as a 9-bit shape/);
  });
});

describe('JavaScript operators on hardware values are errors at the line that used them', () => {
  // The casts stand for code tsc cannot see through (plain JS, `any`): at run time JavaScript
  // asks the object for a primitive, and the trap answers with a design error.
  const trapped = (marker: string, run: () => unknown, message: RegExp, hint: RegExp): void => {
    let err: unknown;
    try { run(); } catch (e) { err = e; }
    expect(err, marker).toBeInstanceOf(DslError);
    const e = err as DslError;
    expect(fileLine(e.loc), marker).toBe(here.at(marker));
    expect(e.message, marker).toMatch(message);
    expect(e.hint, marker).toMatch(hint);
  };

  it('comparisons, arithmetic, ==, string concatenation, template literals, String(), toString(), valueOf()', () => {
    const { a, b } = ports();
    const n = (v: Value): number => v as unknown as number;
    const s = (v: Value): string => v as unknown as string;
    trapped('lt', () => n(a) < n(b), /hardware value \(8-bit unsigned a\) was used as a plain JavaScript value/, /a\.lt\(b\)/); // @here:lt
    trapped('ge', () => n(a) >= 3, /plain JavaScript value/, /a\.ge\(b\)/); // @here:ge
    trapped('add', () => n(a) + 1, /plain JavaScript value/, /a\.add\(b\)[^]*a\.eq\(b\)/); // @here:add
    trapped('mul', () => n(a) * 2, /plain JavaScript value/, /a\.mul\(b\)/); // @here:mul
    trapped('neg', () => -n(a), /plain JavaScript value/, /a\.sub\(b\)/); // @here:neg
    trapped('looseEq', () => n(a) == 1, /plain JavaScript value/, /a\.eq\(b\)/); // @here:looseEq
    trapped('concat', () => 'x_' + s(a), /plain JavaScript value/, /a\.add\(b\)/); // @here:concat
    trapped('template', () => `w_${s(a)}`, /plain JavaScript string/, /has no text/); // @here:template
    trapped('String', () => String(a), /plain JavaScript string/, /has no text/); // @here:String
    trapped('toString', () => a.toString(), /toString\(\) of a hardware value/, /has no text/); // @here:toString
    trapped('valueOf', () => a.valueOf(), /valueOf\(\) of a hardware value/, /a\.lt\(b\)/); // @here:valueOf
    trapped('expr', () => n(a.add(b)) > 0, /9-bit unsigned expression/, /a\.gt\(b\)/); // @here:expr
  });
});
