// Values: the user-facing wrapper around IR expressions. Operators are methods.
//
// Width rules (strict, never silent truncation):
// - `add`/`sub`/`mul` grow (max+1, max+1, sum of widths); `addw`/`subw` wrap to the wider operand.
// - bitwise and comparison operators extend the narrower operand (lossless).
// - mixing signed and unsigned operands is recorded as-is and reported by the widths pass.
// - plain numbers take the width of the other operand; one that does not fit is an error.

import { callerLoc, DslError, type SourceLoc } from './errors.ts';
import { constExpr, type BinaryOp, type Expr, type UnaryOp } from './ir.ts';
import { Bool, bitsOf, type EnumShape, type Shape, type SIntShape, type StructShape, type UIntShape, type VecShape, SInt, UInt } from './shape.ts';

export type Operand = Value | number | bigint | boolean;

export class Value<S extends Shape = Shape> {
  readonly expr: Expr;
  readonly shape: S;
  constructor(expr: Expr, shape: S) {
    this.expr = expr;
    this.shape = shape;
  }

  get width(): number { return this.expr.width; }
  get signed(): boolean { return this.expr.signed; }

  // ---- arithmetic -------------------------------------------------------------------
  /** Growing addition: width max(a,b)+1, never overflows. */
  add(b: Operand): Value<UIntShape | SIntShape> { return arith(this, 'add', b, 'grow'); }
  /** Wrapping addition: width of the wider operand. */
  addw(b: Operand): Value<UIntShape | SIntShape> { return arith(this, 'add', b, 'wrap'); }
  sub(b: Operand): Value<UIntShape | SIntShape> { return arith(this, 'sub', b, 'grow'); }
  subw(b: Operand): Value<UIntShape | SIntShape> { return arith(this, 'sub', b, 'wrap'); }
  /** Full-width product: width a+b. */
  mul(b: Operand): Value<UIntShape | SIntShape> { return arith(this, 'mul', b, 'product'); }
  neg(): Value<SIntShape> {
    const loc = callerLoc();
    // Unsigned operands zero-extend first, so -x of 200 (8 bits) is -200, not 56.
    const widened = extendTo(this.expr, this.width + 1, loc);
    const a = this.signed ? widened : reinterpret(widened, true, loc);
    return wrap({ kind: 'unary', op: 'neg', arg: a, width: a.width, signed: true, loc }) as Value<SIntShape>;
  }

  // ---- bitwise ------------------------------------------------------------------------
  and(b: Operand): Value<UIntShape | SIntShape> { return bitwise(this, 'and', b); }
  or(b: Operand): Value<UIntShape | SIntShape> { return bitwise(this, 'or', b); }
  xor(b: Operand): Value<UIntShape | SIntShape> { return bitwise(this, 'xor', b); }
  not(): Value<UIntShape | SIntShape> { return unary(this, 'not', this.width, this.signed); }
  /** Reductions give one bit. */
  andr(): Value<UIntShape<1>> { return unary(this, 'andr', 1, false); }
  orr(): Value<UIntShape<1>> { return unary(this, 'orr', 1, false); }
  xorr(): Value<UIntShape<1>> { return unary(this, 'xorr', 1, false); }
  /** Boolean operators need one-bit operands. */
  land(b: Operand): Value<UIntShape<1>> { return logic(this, 'land', b); }
  lor(b: Operand): Value<UIntShape<1>> { return logic(this, 'lor', b); }
  lnot(): Value<UIntShape<1>> {
    requireBool(this, 'lnot');
    return unary(this, 'lnot', 1, false);
  }

  // ---- comparison ---------------------------------------------------------------------
  eq(b: Operand | string): Value<UIntShape<1>> { return compare(this, 'eq', b); }
  ne(b: Operand | string): Value<UIntShape<1>> { return compare(this, 'ne', b); }
  lt(b: Operand): Value<UIntShape<1>> { return compare(this, 'lt', b); }
  le(b: Operand): Value<UIntShape<1>> { return compare(this, 'le', b); }
  gt(b: Operand): Value<UIntShape<1>> { return compare(this, 'gt', b); }
  ge(b: Operand): Value<UIntShape<1>> { return compare(this, 'ge', b); }

  // ---- shifts -------------------------------------------------------------------------
  /** Shift left keeping the width (bits fall off the top). Constant or variable amount. */
  shl(n: number | Value): Value<UIntShape | SIntShape> { return shift(this, 'shl', n); }
  /** Shift right keeping the width; arithmetic for signed values. */
  shr(n: number | Value): Value<UIntShape | SIntShape> { return shift(this, 'shr', n); }

  // ---- width changes ------------------------------------------------------------------
  /** Keep the low `w` bits (explicit truncation). */
  trunc(w: number): Value<UIntShape | SIntShape> {
    const loc = callerLoc();
    if (w > this.width) throw new DslError(`trunc(${w}) of a ${this.width}-bit value would widen it`, `use .zext(${w}) or .sext(${w}) to widen`, loc);
    if (w === this.width) return wrap({ ...this.expr, loc } as Expr) as Value<UIntShape | SIntShape>;
    return wrap({ kind: 'slice', arg: this.expr, lo: 0, width: w, signed: this.signed, loc });
  }
  /** Zero-extend to `w` bits (result unsigned). */
  zext(w: number): Value<UIntShape> {
    const loc = callerLoc();
    if (w < this.width) throw new DslError(`zext(${w}) of a ${this.width}-bit value would narrow it`, `use .trunc(${w}) to drop high bits`, loc);
    const arg = this.signed ? reinterpret(this.expr, false, loc) : this.expr;
    return wrap(extendTo(arg, w, loc)) as Value<UIntShape>;
  }
  /** Sign-extend to `w` bits (result signed). */
  sext(w: number): Value<SIntShape> {
    const loc = callerLoc();
    if (w < this.width) throw new DslError(`sext(${w}) of a ${this.width}-bit value would narrow it`, `use .trunc(${w}) to drop high bits`, loc);
    const arg = this.signed ? this.expr : reinterpret(this.expr, true, loc);
    return wrap(extendTo(arg, w, loc)) as Value<SIntShape>;
  }
  asSigned(): Value<SIntShape> { return wrap(reinterpret(this.expr, true, callerLoc())) as Value<SIntShape>; }
  asUnsigned(): Value<UIntShape> { return wrap(reinterpret(this.expr, false, callerLoc())) as Value<UIntShape>; }

  // ---- bit selection ------------------------------------------------------------------
  /** Bits hi..lo inclusive, like Verilog `x[hi:lo]`. */
  bits(hi: number, lo: number): Value<UIntShape> {
    const loc = callerLoc();
    if (!(Number.isInteger(hi) && Number.isInteger(lo) && lo >= 0 && hi >= lo && hi < this.width)) {
      throw new DslError(`bits(${hi}, ${lo}) is outside this ${this.width}-bit value`, `pick bits within 0..${this.width - 1}, hi >= lo`, loc);
    }
    return new Value({ kind: 'slice', arg: this.expr, lo, width: hi - lo + 1, signed: false, loc }, UInt(hi - lo + 1));
  }
  /** One bit; `i` may be a run-time value. */
  bit(i: number | Value): Value<UIntShape<1>> {
    if (typeof i === 'number') return this.bits(i, i) as Value<UIntShape<1>>;
    return dynamicPart(this, i, 1, callerLoc()) as Value<UIntShape<1>>;
  }
  /** Field of a struct value. */
  field<F extends Record<string, Shape>, K extends keyof F & string>(this: Value<StructShape<F>>, name: K): Value<F[K]> {
    const loc = callerLoc();
    const f = this.shape.fields.find(x => x.name === name);
    if (!f) throw new DslError(`struct ${this.shape.name} has no field '${name}'`, `fields are: ${this.shape.fields.map(x => x.name).join(', ')}`, loc);
    return new Value({ kind: 'slice', arg: this.expr, lo: f.offset, width: f.shape.width, signed: f.shape.kind === 'sint', loc }, f.shape as F[K]);
  }
  /** Element of a vector; `i` may be a run-time value. */
  at<E extends Shape>(this: Value<VecShape<E>>, i: number | Value): Value<E> {
    const loc = callerLoc();
    const ew = this.shape.element.width;
    if (typeof i === 'number') {
      if (!Number.isInteger(i) || i < 0 || i >= this.shape.count) throw new DslError(`index ${i} is outside Vec of ${this.shape.count}`, `use 0..${this.shape.count - 1}`, loc);
      return new Value({ kind: 'slice', arg: this.expr, lo: i * ew, width: ew, signed: this.shape.element.kind === 'sint', loc }, this.shape.element);
    }
    return new Value(dynamicPart(this, i, ew, loc).expr, this.shape.element);
  }
  /** True when this enum value holds `member`. */
  is<M extends string>(this: Value<EnumShape<M>>, member: M): Value<UIntShape<1>> { return compare(this, 'eq', member); }

  // ---- traps: JavaScript operators on hardware values ----------------------------------
  // `a < b`, `a + b`, `a == 1`, `${a}` and String(a) make JavaScript ask the object for a
  // plain number or string. A hardware value has neither (it is a circuit, known only in
  // simulation), so each of these is a design error at the user's line, never a silent
  // "[object Object]" or NaN baked into the Verilog. Operators that never call user code
  // (`&&`, `!`, `?:`, `===`, `if (v)`) are caught before elaboration by gen/tscheck.
  [Symbol.toPrimitive](hint: 'number' | 'string' | 'default'): never {
    throw new DslError(`a hardware value (${describeValue(this)}) was used as a plain JavaScript ${hint === 'string' ? 'string' : 'value'}`, primitiveHint[hint], callerLoc());
  }
  /** Always an error: a hardware value has no text (see Symbol.toPrimitive). */
  toString(): never {
    throw new DslError(`toString() of a hardware value (${describeValue(this)})`, primitiveHint.string, callerLoc());
  }
  /** Always an error: a hardware value has no JavaScript number (see Symbol.toPrimitive). */
  valueOf(): never {
    throw new DslError(`valueOf() of a hardware value (${describeValue(this)})`, primitiveHint.number, callerLoc());
  }

  /** Reinterpret the bits as another shape of the same width (struct from a vector, ...). */
  as<T extends Shape>(shape: T): Value<T> {
    const loc = callerLoc();
    if (shape.width !== this.width) throw new DslError(`cannot view ${this.width} bits as a ${shape.width}-bit shape`, 'use .trunc/.zext first', loc);
    return new Value(reinterpret(this.expr, shape.kind === 'sint', loc), shape);
  }
}

const primitiveHint = {
  number: 'JavaScript arithmetic and comparisons do not build hardware: use a.lt(b), a.gt(b), a.le(b), a.ge(b), a.add(b) (or a.addw(b)), a.sub(b), a.mul(b), a.and(b), a.or(b), a.xor(b), a.not(), a.shl(n), a.shr(n)',
  string: 'a hardware value has no text: build names from your own strings (m.wire(`${prefix}_q`, ...)), and print widths or shapes with v.width / describeShape(v.shape)',
  default: '`+` and `==` do not build hardware: use a.add(b) (or a.addw(b)) and a.eq(b) / a.ne(b)',
} as const;

/** `8-bit UInt count`, `1-bit Bool expression`: what a trap message names. */
function describeValue(v: Value): string {
  const e = v.expr;
  const what = e.kind === 'ref' ? e.signal.name : e.kind === 'const' ? `constant ${e.value}` : 'expression';
  return `${e.width}-bit ${e.signed ? 'signed' : 'unsigned'} ${what}`;
}

function wrap(e: Expr): Value<UIntShape | SIntShape> {
  return new Value(e, e.signed ? SInt(e.width) : UInt(e.width));
}

/** Turn an operand into a Value; plain numbers take `width`/`signed` and must fit. */
export function toValue(x: Operand, width: number, signed: boolean, loc: SourceLoc): Value {
  if (x instanceof Value) return x;
  return new Value(constOf(x, width, signed, loc), signed ? SInt(width) : UInt(width));
}

export function constOf(x: number | bigint | boolean, width: number, signed: boolean, loc: SourceLoc): Expr {
  const v = typeof x === 'boolean' ? (x ? 1n : 0n) : BigInt(x);
  if (typeof x === 'number' && !Number.isInteger(x)) throw new DslError(`constant ${x} is not an integer`, 'hardware constants are whole numbers', loc);
  const min = signed ? -(1n << BigInt(width - 1)) : 0n;
  const max = signed ? (1n << BigInt(width - 1)) - 1n : (1n << BigInt(width)) - 1n;
  if (v < min || v > max) {
    throw new DslError(`constant ${v} does not fit in ${signed ? 'SInt' : 'UInt'}(${width})`,
      `use a wider operand, or mask the constant to ${width} bits`, loc);
  }
  return constExpr(v, width, signed, loc);
}

/** A constant with an explicit width: `lit(5, 8)` is 8'd5. */
export function lit(value: number | bigint, width: number, signed = false): Value<UIntShape | SIntShape> {
  return wrap(constOf(value, width, signed, callerLoc()));
}

export function extendTo(e: Expr, width: number, loc: SourceLoc): Expr {
  if (e.width === width) return e;
  if (e.kind === 'const') return constExpr(e.value, width, e.signed, e.loc);
  return { kind: 'ext', arg: e, width, signed: e.signed, loc };
}

function reinterpret(e: Expr, signed: boolean, loc: SourceLoc): Expr {
  if (e.signed === signed) return e;
  return { kind: 'ext', arg: e, width: e.width, signed, loc };
}

/** Two operands brought to a common width; a plain number adopts the value's shape. */
function pair(a: Value, b: Operand, loc: SourceLoc): [Expr, Expr] {
  const bv = toValue(b, a.width, a.signed, loc);
  const w = Math.max(a.width, bv.width);
  if (a.signed !== bv.signed) return [a.expr, bv.expr]; // reported by the widths pass
  return [extendTo(a.expr, w, loc), extendTo(bv.expr, w, loc)];
}

function arith(a: Value, op: BinaryOp, b: Operand, mode: 'grow' | 'wrap' | 'product'): Value<UIntShape | SIntShape> {
  const loc = callerLoc();
  const bv = toValue(b, a.width, a.signed, loc);
  const base = Math.max(a.width, bv.width);
  const w = mode === 'grow' ? base + 1 : mode === 'wrap' ? base : a.width + bv.width;
  const signed = a.signed || bv.signed;
  if (a.signed !== bv.signed) return wrap({ kind: 'binary', op, a: a.expr, b: bv.expr, width: w, signed, loc });
  return wrap({ kind: 'binary', op, a: extendTo(a.expr, w, loc), b: extendTo(bv.expr, w, loc), width: w, signed, loc });
}

function bitwise(a: Value, op: BinaryOp, b: Operand): Value<UIntShape | SIntShape> {
  const loc = callerLoc();
  const [x, y] = pair(a, b, loc);
  return wrap({ kind: 'binary', op, a: x, b: y, width: Math.max(x.width, y.width), signed: x.signed && y.signed, loc });
}

function requireBool(v: Value, op: string): void {
  if (v.width !== 1) throw new DslError(`${op} needs a one-bit operand, got ${v.width} bits`, 'compare to get a Bool (e.g. x.ne(0)) or use .orr()');
}

function logic(a: Value, op: BinaryOp, b: Operand): Value<UIntShape<1>> {
  const loc = callerLoc();
  const bv = toValue(b, 1, false, loc);
  requireBool(a, op);
  requireBool(bv, op);
  return new Value({ kind: 'binary', op, a: a.expr, b: bv.expr, width: 1, signed: false, loc }, Bool);
}

function unary<S extends Shape>(a: Value, op: UnaryOp, width: number, signed: boolean): Value<S> {
  const loc = callerLoc();
  const e: Expr = { kind: 'unary', op, arg: a.expr, width, signed, loc };
  return new Value(e, (signed ? SInt(width) : UInt(width)) as unknown as S);
}

function compare(a: Value, op: BinaryOp, b: Operand | string): Value<UIntShape<1>> {
  const loc = callerLoc();
  let bb: Operand;
  if (typeof b === 'string') bb = enumMember(a.shape, b, loc);
  else bb = b;
  const [x, y] = pair(a, bb, loc);
  return new Value({ kind: 'binary', op, a: x, b: y, width: 1, signed: false, loc }, Bool);
}

/** An enum member as a labelled constant (emitted as its localparam). */
export function enumMember(shape: Shape, member: string, loc: SourceLoc): Value {
  if (shape.kind !== 'enum') throw new DslError(`'${member}' is a name but this value is ${shape.kind}, not an enum`, 'compare against a number', loc);
  const v = (shape.members as Record<string, number>)[member];
  if (v === undefined) throw new DslError(`enum ${shape.name} has no member '${member}'`, `members are: ${Object.keys(shape.members).join(', ')}`, loc);
  return new Value(constExpr(BigInt(v), shape.width, false, loc, enumLabel(shape, member)), shape);
}

export function enumLabel(shape: EnumShape, member: string): string {
  return `${shape.name.toUpperCase()}_${member.toUpperCase()}`;
}

function shift(a: Value, op: BinaryOp, n: number | Value): Value<UIntShape | SIntShape> {
  const loc = callerLoc();
  if (typeof n === 'number') {
    if (!Number.isInteger(n) || n < 0) throw new DslError(`shift by ${n}`, 'shift amounts are non-negative integers', loc);
    if (n === 0) return wrap(a.expr);
    if (n >= a.width) {
      if (op === 'shr' && a.signed) return wrap({ kind: 'repl', arg: { kind: 'slice', arg: a.expr, lo: a.width - 1, width: 1, signed: false, loc }, count: a.width, width: a.width, signed: true, loc });
      return wrap(constExpr(0n, a.width, a.signed, loc));
    }
    // Constant shifts become concatenations: no width warnings, obvious in the Verilog.
    if (op === 'shl') {
      return wrap(reinterpret({ kind: 'concat', parts: [{ kind: 'slice', arg: a.expr, lo: 0, width: a.width - n, signed: false, loc }, constExpr(0n, n, false, loc)], width: a.width, signed: false, loc }, a.signed, loc));
    }
    const top: Expr = a.signed
      ? { kind: 'repl', arg: { kind: 'slice', arg: a.expr, lo: a.width - 1, width: 1, signed: false, loc }, count: n, width: n, signed: false, loc }
      : constExpr(0n, n, false, loc);
    return wrap(reinterpret({ kind: 'concat', parts: [top, { kind: 'slice', arg: a.expr, lo: n, width: a.width - n, signed: false, loc }], width: a.width, signed: false, loc }, a.signed, loc));
  }
  if (n.signed) throw new DslError('shift amount is signed', 'use an unsigned shift amount (.asUnsigned())', loc);
  return wrap({ kind: 'binary', op, a: a.expr, b: n.expr, width: a.width, signed: a.signed, loc });
}

function dynamicPart(v: Value, index: Value, width: number, loc: SourceLoc): Value {
  if (index.signed) throw new DslError('index is signed', 'use an unsigned index', loc);
  return new Value({ kind: 'part', arg: v.expr, index: index.expr, stride: width, width, signed: false, loc }, UInt(width));
}

// ---- free functions ---------------------------------------------------------------------

/** `sel ? a : b`. Operands extend to the wider one; sel must be one bit. */
export function mux(sel: Value, a: Operand, b: Operand): Value<UIntShape | SIntShape> {
  const loc = callerLoc();
  if (sel.width !== 1) throw new DslError(`mux select is ${sel.width} bits`, 'select with a Bool (e.g. x.ne(0))', loc);
  let av: Value, bv: Value;
  if (a instanceof Value) { av = a; bv = toValue(b, a.width, a.signed, loc); }
  else if (b instanceof Value) { bv = b; av = toValue(a, b.width, b.signed, loc); }
  else throw new DslError('mux of two plain numbers has no width', 'wrap one in lit(value, width)', loc);
  const w = Math.max(av.width, bv.width);
  const signed = av.signed && bv.signed;
  const x = av.signed === bv.signed ? extendTo(av.expr, w, loc) : av.expr;
  const y = av.signed === bv.signed ? extendTo(bv.expr, w, loc) : bv.expr;
  return wrap({ kind: 'mux', sel: sel.expr, onTrue: x, onFalse: y, width: w, signed, loc });
}

/** Concatenate, most significant first (like Verilog `{a, b}`). */
export function cat(...parts: Value[]): Value<UIntShape> {
  const loc = callerLoc();
  if (parts.length === 0) throw new DslError('cat() of nothing', 'pass at least one value', loc);
  const width = parts.reduce((s, p) => s + p.width, 0);
  return new Value({ kind: 'concat', parts: parts.map(p => p.expr), width, signed: false, loc }, UInt(width));
}

/** `n` copies of `v`, like Verilog `{n{v}}`. */
export function repeat(v: Value, n: number): Value<UIntShape> {
  const loc = callerLoc();
  if (!Number.isInteger(n) || n < 1) throw new DslError(`repeat count ${n}`, 'repeat at least once', loc);
  return new Value({ kind: 'repl', arg: v.expr, count: n, width: v.width * n, signed: false, loc }, UInt(v.width * n));
}

/** Pack struct fields (given as values) into one struct value. */
export function pack<F extends Record<string, Shape>>(shape: StructShape<F>, fields: { [K in keyof F]: Value | number | bigint }): Value<StructShape<F>> {
  const loc = callerLoc();
  const parts: Expr[] = [];
  for (const f of [...shape.fields].reverse()) {
    const given = (fields as Record<string, Value | number | bigint | undefined>)[f.name];
    if (given === undefined) throw new DslError(`pack(${shape.name}): field '${f.name}' missing`, 'give every field a value', loc);
    const v = toValue(given, f.shape.width, f.shape.kind === 'sint', loc);
    if (v.width > f.shape.width) throw new DslError(`pack(${shape.name}): field '${f.name}' is ${f.shape.width} bits, value is ${v.width}`, 'truncate explicitly with .trunc()', loc);
    parts.push(extendTo(v.expr, f.shape.width, loc));
  }
  return new Value({ kind: 'concat', parts, width: shape.width, signed: false, loc }, shape);
}

/** Reduce a list of one-bit values with OR / AND. */
export function anyOf(...vs: Value[]): Value<UIntShape<1>> {
  return vs.reduce((acc, v) => acc.lor(v)) as Value<UIntShape<1>>;
}
export function allOf(...vs: Value[]): Value<UIntShape<1>> {
  return vs.reduce((acc, v) => acc.land(v)) as Value<UIntShape<1>>;
}

export { bitsOf };
