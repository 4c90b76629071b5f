// The typed view of a design's ports for tests: `DutOf<IO>` maps a module's IO record
// (as declared with the DSL) to handles, so a misspelt port or a write to an output is a
// compile error.

import type { ClockShape, Shape, ValueOf } from '../../gen/hdl/shape.ts';

/** What the testbench needs from a DSL port object (gen/hdl's Input/Output satisfy it). */
export interface PortLike<S extends Shape = Shape> {
  readonly portDir: 'in' | 'out';
  readonly shape: S;
}

/** Type-only stand-ins for DSL ports, for designs described by hand (fixtures). */
export interface InPort<S extends Shape> extends PortLike<S> { readonly portDir: 'in' }
export interface OutPort<S extends Shape> extends PortLike<S> { readonly portDir: 'out' }

export interface InputHandle<T> {
  /** Takes effect at the next clock edge (or `tb.settle()`); reads back what was written. */
  value: T;
  readonly name: string;
  /**
   * The same bits as raw 32-bit words in the model's buffer, LSB word first, for bus models
   * that move wide data without bigints. Writing them is writing `value` (no range check:
   * bits above the port's width must stay zero).
   */
  readonly words: Uint32Array;
  /** Direction brand: an output handle group is not accepted where inputs are driven. */
  readonly dir: 'in';
}

export interface OutputHandle<T> {
  /** The value after the last edge / settle. */
  readonly value: T;
  readonly name: string;
  /** The value's raw words in the model's buffer, LSB word first (read only in spirit). */
  readonly words: Uint32Array;
  readonly dir: 'out';
}

/** The waitable clock; edges are counted by the testbench. */
export interface ClockHandle {
  readonly name: string;
  /** Resolves after the next rising edge. */
  rising(): Promise<void>;
  /** Resolves after the next falling edge. */
  falling(): Promise<void>;
  /** Resolves after `n` rising edges (0: now). Runs them in one native call when possible. */
  cycles(n: number): Promise<void>;
}

type HandleOf<P> =
  P extends PortLike<infer S>
    ? P['portDir'] extends 'in'
      ? S extends ClockShape ? ClockHandle : InputHandle<ValueOf<S>>
      : OutputHandle<ValueOf<S>>
    : P extends Record<string, unknown> ? DutOf<P> : never;

/** Handles for every port of a (possibly nested) IO record. */
export type DutOf<IO> = { readonly [K in keyof IO]: HandleOf<IO[K]> };
