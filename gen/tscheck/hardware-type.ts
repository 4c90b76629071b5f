// Which TypeScript types are hardware values: instances of the DSL's `Value` class (declared in
// gen/hdl/value.ts) or of a class derived from it (SignalValue, Sig, Input, Output, Reg).
// Recognised by declaration file, so the check works whether nicgen is this repository or an
// installed package (node_modules/nicgen/gen/hdl/value.ts).

import ts from 'typescript5';

const valueFile = /[\\/]gen[\\/]hdl[\\/]value\.(d\.)?ts$/;

function isFalse(t: ts.Type): boolean {
  return (t.flags & ts.TypeFlags.BooleanLiteral) !== 0 && (t as ts.Type & { intrinsicName?: string }).intrinsicName === 'false';
}

export class HardwareTypes {
  readonly #checker: ts.TypeChecker;
  readonly #memo = new Map<ts.Type, boolean>();
  constructor(checker: ts.TypeChecker) { this.#checker = checker; }

  /** Every non-nullish part of `t` is a hardware value, and `t` is never null or undefined:
   *  testing it for truth is always true (a presence test `v?: Value` is left alone). */
  always(t: ts.Type): boolean {
    // `false | Value` (from `flag && v`) is truthy whenever it is the value: flagged too.
    const parts = (t.isUnion() ? t.types : [t]).filter(p => !isFalse(p));
    return parts.length > 0 && parts.every(p => this.#isValue(p));
  }

  /** Some part of `t` is a hardware value (`Value | undefined` included). */
  maybe(t: ts.Type): boolean {
    const parts = t.isUnion() ? t.types : t.isIntersection() ? t.types : [t];
    return parts.some(p => this.#isValue(p));
  }

  /** `t` is only null and/or undefined. */
  nullish(t: ts.Type): boolean {
    const parts = t.isUnion() ? t.types : [t];
    return parts.every(p => (p.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void)) !== 0);
  }

  #isValue(t: ts.Type): boolean {
    const known = this.#memo.get(t);
    if (known !== undefined) return known;
    this.#memo.set(t, false); // cycles through base types end here
    const result = this.#classIsValue(t);
    this.#memo.set(t, result);
    return result;
  }

  #classIsValue(t: ts.Type): boolean {
    if (t.isIntersection()) return t.types.some(p => this.#isValue(p));
    const sym = t.getSymbol();
    if (sym?.getName() === 'Value' && sym.declarations?.some(d => valueFile.test(d.getSourceFile().fileName))) return true;
    const target = (t as ts.TypeReference).target ?? t;
    if (!target.isClassOrInterface()) return false;
    return (this.#checker.getBaseTypes(target) ?? []).some(b => this.#isValue(b));
  }
}
