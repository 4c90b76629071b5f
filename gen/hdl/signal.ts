// Named signals as the user sees them: inputs (read only), outputs, wires and registers
// (assignable with `.set`). Whether an assignment is combinational or synchronous follows
// from what is assigned: registers update on their domain's clock, everything else is
// combinational and falls back to its default on paths that do not assign it.

import { callerLoc, DslError, type SourceLoc } from './errors.ts';
import type { AssignStmt, Signal } from './ir.ts';
import type { Shape, StructShape } from './shape.ts';
import { Value, type Operand, toValue, enumMember } from './value.ts';

/** Where `.set` calls are recorded: the module builder that owns the signal. */
export interface AssignSink {
  record(stmt: AssignStmt): void;
  readonly name: string;
}

function refExpr(signal: Signal) {
  return { kind: 'ref' as const, signal, width: signal.shape.width, signed: signal.shape.kind === 'sint', loc: signal.loc };
}

/** A readable named signal. */
export class SignalValue<S extends Shape = Shape> extends Value<S> {
  readonly signal: Signal;
  constructor(signal: Signal) {
    super(refExpr(signal), signal.shape as S);
    this.signal = signal;
  }
  get name(): string { return this.signal.name; }
}

/** An assignable signal: output, wire or register. */
export class Sig<S extends Shape = Shape> extends SignalValue<S> {
  readonly #sink: AssignSink;
  constructor(signal: Signal, sink: AssignSink) {
    super(signal);
    this.#sink = sink;
  }

  /** Assign the whole signal. Registers take the value at the next clock edge. */
  set(value: Operand | string): void {
    this.#assign(0, this.width, this.shape, value, callerLoc());
  }
  /** Assign bits hi..lo. */
  setBits(hi: number, lo: number, value: Operand): void {
    const loc = callerLoc();
    if (!(lo >= 0 && hi >= lo && hi < this.width)) throw new DslError(`setBits(${hi}, ${lo}) is outside ${this.name} (${this.width} bits)`, `use bits within 0..${this.width - 1}`, loc);
    this.#assign(lo, hi - lo + 1, null, value, loc);
  }
  /** Assign one field of a struct signal. */
  setField<F extends Record<string, Shape>>(this: Sig<StructShape<F>>, name: keyof F & string, value: Operand | string): void {
    const loc = callerLoc();
    const f = this.shape.fields.find(x => x.name === name);
    if (!f) throw new DslError(`struct ${this.shape.name} has no field '${name}'`, `fields are: ${this.shape.fields.map(x => x.name).join(', ')}`, loc);
    this.#assign(f.offset, f.shape.width, f.shape, value, loc);
  }

  #assign(lo: number, width: number, shape: Shape | null, value: Operand | string, loc: SourceLoc): void {
    const signed = (shape ?? (lo === 0 && width === this.width ? this.shape : null))?.kind === 'sint';
    const v = typeof value === 'string' ? enumMember(shape ?? this.shape, value, loc) : toValue(value, width, signed, loc);
    this.#sink.record({ kind: 'assign', target: this.signal, lo, width, signed, value: v.expr, loc });
  }
}

/** Input port: readable, never assignable inside its module. */
export class Input<S extends Shape = Shape> extends SignalValue<S> {
  readonly portDir = 'in' as const;
}

/** Output port: assignable inside its module. */
export class Output<S extends Shape = Shape> extends Sig<S> {
  readonly portDir = 'out' as const;
}

/** A register's extra handle: its value at the next edge is what `.set` assigns. */
export class Reg<S extends Shape = Shape> extends Sig<S> {
  readonly isReg = true as const;
}
