// Generator parameters: the ranges a definition accepts, checked before it elaborates.
//
// A parameter out of range would otherwise surface somewhere deep inside the generator (a
// stack trace from a sub-module, or worse, hardware that elaborates but is wrong). A
// definition declares its rules once (`defineModule(name, defaults, build, { params })`);
// every elaboration checks them at the line that asked for it (an `m.instance`, a `top(...)`,
// a `--set` on the command line), and the error names the module, the parameter, the value,
// and what is allowed, on one line.

import { DslError, formatLoc, type SourceLoc } from './errors.ts';

export type ParamRule =
  | { readonly kind: 'int'; readonly min: number; readonly max: number; readonly powerOfTwo: boolean }
  | { readonly kind: 'oneOf'; readonly values: readonly (number | string | boolean)[] }
  | { readonly kind: 'bool' };

/** A whole number in min..max (inclusive). */
export function intIn(min: number, max: number): ParamRule { return { kind: 'int', min, max, powerOfTwo: false }; }
/** A power of two in min..max. */
export function powerOfTwoIn(min: number, max: number): ParamRule { return { kind: 'int', min, max, powerOfTwo: true }; }
/** One of the listed values. */
export function oneOf(...values: readonly (number | string | boolean)[]): ParamRule { return { kind: 'oneOf', values }; }
export const bool: ParamRule = { kind: 'bool' };

/** A combination of parameters that is not allowed, found by a definition's `check`. */
export interface ParamProblem {
  /** The parameter to change. */
  readonly param: string;
  /** What is allowed given the other parameters: `1..2 with numQp 4`. */
  readonly allowed: string;
  /** Why, in a few words. */
  readonly why?: string;
}

export interface ParamSpec<P> {
  /** Per-parameter rules; parameters without one are not checked. */
  readonly rules?: { readonly [K in keyof P]?: ParamRule };
  /** Defaults that follow from other parameters: called with the merged parameters and the
   *  names the user gave, it may change parameters the user left at their defaults (nic_top
   *  lowers readsPerQp for many QPs). Runs before the rules. */
  derive?(p: P, given: ReadonlySet<string>): P;
  /** Rules between parameters (run after every single rule passed). */
  // A method, not a function property, so ModuleDef<P> stays assignable to ModuleDef<object>.
  check?(p: P): ParamProblem | null;
}

/** `1..8`, `a power of two in 64..512`, `64, 128, 256 or 512`, `true or false`. */
export function describeRule(r: ParamRule): string {
  if (r.kind === 'bool') return 'true or false';
  if (r.kind === 'oneOf') return r.values.length === 1 ? String(r.values[0]) : `${r.values.slice(0, -1).join(', ')} or ${r.values[r.values.length - 1]}`;
  return r.powerOfTwo ? `a power of two in ${r.min}..${r.max}` : `${r.min}..${r.max}`;
}

function ruleHolds(r: ParamRule, v: unknown): boolean {
  if (r.kind === 'bool') return typeof v === 'boolean';
  if (r.kind === 'oneOf') return r.values.includes(v as number | string | boolean);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < r.min || v > r.max) return false;
  return !r.powerOfTwo || (v & (v - 1)) === 0;
}

/** Where an elaboration was asked for, outermost first: `nic_top` at tops.ts:3:5, ... */
export interface ElabFrame { readonly module: string; readonly loc: SourceLoc }

/** A parameter problem: one line, at the user's line that asked for the module. */
export class ParamError extends DslError {
  constructor(module: string, problem: string, loc: SourceLoc, outer: readonly ElabFrame[] = []) {
    super(`${module}: ${problem}`, '', loc);
    this.name = 'ParamError';
    const inside = outer.length ? ` (inside ${[...outer].reverse().map(f => `${f.module} at ${formatLoc(f.loc)}`).join(', inside ')})` : '';
    this.message = `${formatLoc(loc)}: error [params]: ${module}: ${problem}${inside}`;
  }
}

/** Throws ParamError for the first parameter of `params` that breaks `spec`. */
export function checkParams<P extends object>(module: string, spec: ParamSpec<P>, params: P, loc: SourceLoc, outer: readonly ElabFrame[]): void {
  const values = params as Record<string, unknown>;
  for (const [name, rule] of Object.entries(spec.rules ?? {}) as [string, ParamRule | undefined][]) {
    if (!rule || ruleHolds(rule, values[name])) continue;
    throw new ParamError(module, `${name} = ${show(values[name])} is out of range (allowed: ${describeRule(rule)})`, loc, outer);
  }
  const p = spec.check?.(params);
  if (p) {
    const why = p.why ? `: ${p.why}` : '';
    throw new ParamError(module, `${p.param} = ${show(values[p.param])} is not allowed with these parameters (allowed: ${p.allowed})${why}`, loc, outer);
  }
}

export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  return String(v);
}
