// Shapes: how many bits a value has and how to read them.
//
// Every shape flattens to a plain bit vector (packed, LSB first). The kinds beyond
// uint/sint only add names on top of the bits: struct fields, enum members, vector
// elements. Keeping the set closed keeps the passes and the emitter small.

import { DslError } from './errors.ts';

export interface UIntShape<W extends number = number> {
  readonly kind: 'uint';
  readonly width: W;
}
export interface SIntShape<W extends number = number> {
  readonly kind: 'sint';
  readonly width: W;
}
/** A clock input. One bit; only usable as a register domain's clock. */
export interface ClockShape {
  readonly kind: 'clock';
  readonly width: 1;
}
export interface StructField {
  readonly name: string;
  readonly shape: Shape;
  /** Bit offset of the field's LSB inside the struct. */
  readonly offset: number;
}
export interface StructShape<F extends Record<string, Shape> = Record<string, Shape>> {
  readonly kind: 'struct';
  readonly name: string;
  readonly width: number;
  readonly fields: readonly StructField[];
  /** Type-level only: the field shapes by name. */
  readonly __fields?: F;
}
export interface EnumShape<M extends string = string> {
  readonly kind: 'enum';
  readonly name: string;
  readonly width: number;
  readonly members: Readonly<Record<M, number>>;
}
export interface VecShape<E extends Shape = Shape> {
  readonly kind: 'vec';
  readonly width: number;
  readonly count: number;
  readonly element: E;
}

export type Shape = UIntShape | SIntShape | ClockShape | StructShape | EnumShape | VecShape;

function checkWidth(width: number, what: string): void {
  if (!Number.isInteger(width) || width < 1 || width > 65536) {
    throw new DslError(`${what}: width must be an integer from 1 to 65536, got ${width}`,
      'pass a positive whole number of bits');
  }
}

export function UInt<W extends number>(width: W): UIntShape<W> {
  checkWidth(width, 'UInt');
  return { kind: 'uint', width };
}

export function SInt<W extends number>(width: W): SIntShape<W> {
  checkWidth(width, 'SInt');
  return { kind: 'sint', width };
}

export const Bool: UIntShape<1> = { kind: 'uint', width: 1 };
export const Clock: ClockShape = { kind: 'clock', width: 1 };

/** A packed struct; the first field sits at the least significant bits. */
export function Struct<F extends Record<string, Shape>>(name: string, fields: F): StructShape<F> {
  const list: StructField[] = [];
  let offset = 0;
  for (const [fname, shape] of Object.entries(fields)) {
    list.push({ name: fname, shape, offset });
    offset += shape.width;
  }
  if (offset === 0) throw new DslError(`Struct ${name} has no fields`, 'give the struct at least one field');
  return { kind: 'struct', name, width: offset, fields: list };
}

/** An enumeration; width is the fewest bits that hold the largest member unless given. */
export function Enum<M extends string>(name: string, members: readonly M[] | Record<M, number>, width?: number): EnumShape<M> {
  const values: Record<string, number> = {};
  if (Array.isArray(members)) members.forEach((m, i) => { values[m] = i; });
  else Object.assign(values, members);
  for (const [m, v] of Object.entries(values)) {
    if (!Number.isInteger(v) || v < 0) throw new DslError(`Enum ${name}: member ${m} = ${v}`, 'enum values are non-negative integers');
  }
  const max = Math.max(0, ...Object.values(values));
  const need = Math.max(1, Math.ceil(Math.log2(max + 1)));
  const w = width ?? need;
  if (w < need) throw new DslError(`Enum ${name}: width ${w} cannot hold value ${max}`, `use width ${need} or more`);
  return { kind: 'enum', name, width: w, members: values as Record<M, number> };
}

export function Vec<E extends Shape>(element: E, count: number): VecShape<E> {
  if (!Number.isInteger(count) || count < 1) throw new DslError(`Vec: count must be a positive integer, got ${count}`, 'pass the number of elements');
  return { kind: 'vec', width: element.width * count, count, element };
}

export function isSigned(shape: Shape): boolean {
  return shape.kind === 'sint';
}

/** The shape a plain bit vector of this shape has when used in arithmetic. */
export function bitsOf(shape: Shape): UIntShape | SIntShape {
  return shape.kind === 'sint' ? shape : UInt(shape.width);
}

/** A short readable description for error messages: `UInt(8)`, `Struct Hdr (40 bits)`. */
export function describeShape(shape: Shape): string {
  switch (shape.kind) {
    case 'uint': return shape.width === 1 ? 'Bool' : `UInt(${shape.width})`;
    case 'sint': return `SInt(${shape.width})`;
    case 'clock': return 'Clock';
    case 'struct': return `Struct ${shape.name} (${shape.width} bits)`;
    case 'enum': return `Enum ${shape.name} (${shape.width} bits)`;
    case 'vec': return `Vec(${describeShape(shape.element)}, ${shape.count})`;
  }
}

/** JSON form for the port manifest: what the testbench needs to present a port. */
export type ShapeJson =
  | { kind: 'uint' | 'sint' | 'clock'; width: number }
  | { kind: 'struct'; name: string; width: number; fields: { name: string; offset: number; shape: ShapeJson }[] }
  | { kind: 'enum'; name: string; width: number; members: Record<string, number> }
  | { kind: 'vec'; width: number; count: number; element: ShapeJson };

export function shapeToJson(shape: Shape): ShapeJson {
  switch (shape.kind) {
    case 'uint': case 'sint': case 'clock': return { kind: shape.kind, width: shape.width };
    case 'struct': return { kind: 'struct', name: shape.name, width: shape.width,
      fields: shape.fields.map(f => ({ name: f.name, offset: f.offset, shape: shapeToJson(f.shape) })) };
    case 'enum': return { kind: 'enum', name: shape.name, width: shape.width, members: { ...shape.members } };
    case 'vec': return { kind: 'vec', width: shape.width, count: shape.count, element: shapeToJson(shape.element) };
  }
}

// ---- Type-level view for the testbench -------------------------------------------------

type Small = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 20
  | 21 | 22 | 23 | 24 | 25 | 26 | 27 | 28 | 29 | 30 | 31 | 32;

/** The JS value of a bit vector of width W: number up to 32 bits, bigint above,
 *  either when the width is only known at elaboration time. */
export type BitsValue<W extends number> = number extends W ? number | bigint : W extends Small ? number : bigint;

/** The JS value a testbench reads from or writes to a port of shape S. */
export type ValueOf<S extends Shape> =
  S extends UIntShape<infer W> ? BitsValue<W> :
  S extends SIntShape<infer W> ? BitsValue<W> :
  S extends ClockShape ? number :
  S extends EnumShape ? number :
  S extends StructShape<infer F> ? { [K in keyof F]: ValueOf<F[K]> } :
  S extends VecShape<infer E> ? ValueOf<E>[] :
  never;
