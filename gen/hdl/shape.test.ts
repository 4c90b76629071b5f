import { describe, expect, it } from 'vitest';
import { Bool, Clock, DslError, Enum, SInt, Struct, UInt, Vec, describeShape, shapeToJson } from './index.ts';

describe('shapes', () => {
  it('UInt, SInt, Bool and Clock have the given widths', () => {
    expect(UInt(8)).toEqual({ kind: 'uint', width: 8 });
    expect(SInt(12)).toEqual({ kind: 'sint', width: 12 });
    expect(Bool).toEqual({ kind: 'uint', width: 1 });
    expect(Clock).toEqual({ kind: 'clock', width: 1 });
    expect(UInt(65536).width).toBe(65536);
  });

  it.each([0, -1, 1.5, 65537, Number.NaN])('rejects width %s', w => {
    expect(() => UInt(w)).toThrow(DslError);
    expect(() => SInt(w)).toThrow(/width must be an integer from 1 to 65536/);
  });

  it('Struct packs fields LSB first with running offsets', () => {
    const Hdr = Struct('hdr', { op: UInt(4), len: UInt(12), neg: SInt(3), ok: Bool });
    expect(Hdr.width).toBe(20);
    expect(Hdr.fields.map(f => `${f.name}@${f.offset}:${f.shape.width}`)).toEqual(['op@0:4', 'len@4:12', 'neg@16:3', 'ok@19:1']);
  });

  it('Struct nests structs and vectors by their full width', () => {
    const Inner = Struct('inner', { a: UInt(3), b: UInt(5) });
    const Outer = Struct('outer', { flag: Bool, inner: Inner, lanes: Vec(UInt(4), 3) });
    expect(Outer.width).toBe(1 + 8 + 12);
    expect(Outer.fields.map(f => f.offset)).toEqual([0, 1, 9]);
  });

  it('Struct with no fields is an error', () => {
    expect(() => Struct('empty', {})).toThrow(/Struct empty has no fields/);
  });

  it('Enum width is the fewest bits that hold the largest member', () => {
    expect(Enum('one', ['A']).width).toBe(1);
    expect(Enum('two', ['A', 'B']).width).toBe(1);
    expect(Enum('three', ['A', 'B', 'C']).width).toBe(2);
    expect(Enum('four', ['A', 'B', 'C', 'D']).width).toBe(2);
    expect(Enum('five', ['A', 'B', 'C', 'D', 'E']).width).toBe(3);
    expect(Enum('sparse', { A: 0, B: 8 }).width).toBe(4);
    expect(Enum('seven', { A: 7 }).width).toBe(3);
    expect(Enum('three', ['A', 'B', 'C']).members).toEqual({ A: 0, B: 1, C: 2 });
  });

  it('Enum takes an explicit width, and rejects one too narrow', () => {
    expect(Enum('wide', ['A', 'B'], 4).width).toBe(4);
    expect(() => Enum('narrow', { A: 0, B: 4 }, 2)).toThrow(/width 2 cannot hold value 4.*\n  hint: use width 3 or more/);
  });


  it('Enum rejects negative or fractional member values', () => {
    // A member of -1 would print as `1'd-1`; no unsigned enum can hold it.
    expect(() => Enum('neg', { A: -1, B: 0 })).toThrow(DslError);
    expect(() => Enum('frac', { A: 0.5 })).toThrow(DslError);
  });

  it('Vec width is element width times count', () => {
    const v = Vec(UInt(8), 4);
    expect(v.width).toBe(32);
    expect(v.count).toBe(4);
    expect(Vec(Struct('p', { a: UInt(3), b: Bool }), 3).width).toBe(12);
    expect(() => Vec(UInt(8), 0)).toThrow(/count must be a positive integer/);
  });

  it('describes shapes readably', () => {
    expect(describeShape(Bool)).toBe('Bool');
    expect(describeShape(UInt(8))).toBe('UInt(8)');
    expect(describeShape(SInt(4))).toBe('SInt(4)');
    expect(describeShape(Struct('hdr', { a: UInt(8) }))).toBe('Struct hdr (8 bits)');
    expect(describeShape(Enum('st', ['A', 'B', 'C']))).toBe('Enum st (2 bits)');
    expect(describeShape(Vec(UInt(2), 3))).toBe('Vec(UInt(2), 3)');
  });

  it('shapeToJson keeps struct layout and enum members for the manifest', () => {
    const S = Struct('s', { st: Enum('st', ['IDLE', 'RUN']), v: Vec(SInt(2), 2) });
    expect(shapeToJson(S)).toEqual({
      kind: 'struct', name: 's', width: 5, fields: [
        { name: 'st', offset: 0, shape: { kind: 'enum', name: 'st', width: 1, members: { IDLE: 0, RUN: 1 } } },
        { name: 'v', offset: 1, shape: { kind: 'vec', width: 4, count: 2, element: { kind: 'sint', width: 2 } } },
      ],
    });
  });
});
