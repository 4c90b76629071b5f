// Printing IR expressions as Verilog-2005 that Verilator -Wall accepts without warnings.
//
// The IR already makes every width explicit, so printing is mostly direct. Two Verilog
// limits need care: a part-select only applies to a named signal (so slices of
// expressions are first narrowed, or go through a named intermediate), and slices and
// concatenations are always unsigned in Verilog (so signed results get `$signed(...)`).

import type { Expr } from '../hdl/ir.ts';
import { constExpr } from '../hdl/ir.ts';
import { lowBitOps } from '../hdl/analysis.ts';

/** What the printer needs from the module being emitted. */
export interface TempSink {
  /** Declare `wire [w-1:0] name = text;` and return the name. `usedBits` explains partial use. */
  temp(hint: string, e: Expr, text: string, usedBits: [number, number] | null): string;
  /** Declare `base` cut into `count` rows of `rowWidth` bits, as an array of `size` rows (the
   *  rows past `count` read 0), once per (base, rowWidth); return the array's name. */
  rows(base: string, rowWidth: number, count: number, size: number, e: Expr): string;
  /** The Verilog name of a signal / memory read port. */
  nameOf(e: Expr & { kind: 'ref' | 'memread' }): string;
  /** Labels (enum localparams) that were printed, so only used ones are declared. */
  useLabel(label: string, e: Expr & { kind: 'const' }): void;
}

interface Printed {
  readonly text: string;
  /** Whether Verilog treats the printed text as signed. */
  readonly signed: boolean;
  /** True for a plain identifier (can be part-selected). */
  readonly simple: boolean;
}

/** The widest literal printed as one number. */
const MAX_LITERAL_BITS = 65536;

function wideConst(value: bigint, width: number): string {
  const parts: string[] = [];
  for (let lo = 0; lo < width; lo += MAX_LITERAL_BITS) {
    const w = Math.min(MAX_LITERAL_BITS, width - lo);
    parts.unshift(printConst((value >> BigInt(lo)) & ((1n << BigInt(w)) - 1n), w, false));
  }
  return `{${parts.join(', ')}}`;
}

export function printConst(value: bigint, width: number, signed: boolean): string {
  // Short zero pads read best as bits: {2'b00, x}.
  if (!signed && value === 0n && width <= 4) return `${width}'b${'0'.repeat(width)}`;
  // Tools may cap a literal's width at 65,536 bits (IEEE 1800 6.9.1; Verilator does): a wider
  // constant (a Vec register's reset at 256 QPs) is a concatenation of pieces (not a
  // replication: Verilator -Wall warns on one over 8k bits, WIDTHCONCAT).
  if (!signed && width > MAX_LITERAL_BITS) return wideConst(value, width);
  if (!signed) return value < 1024n || width < 16 ? `${width}'d${value}` : `${width}'h${value.toString(16)}`;
  // The most negative value has no positive literal of the same width: print its bits.
  if (value === -(1n << BigInt(width - 1))) return `${width}'sh${(-value).toString(16)}`;
  if (value < 0n) return `-${width}'sd${-value}`;
  return `${width}'sd${value}`;
}

export function rangeDecl(width: number): string {
  return width === 1 ? '' : `[${width - 1}:0]`;
}

const binaryText: Record<string, string> = {
  add: '+', sub: '-', mul: '*', and: '&', or: '|', xor: '^',
  eq: '==', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=', shl: '<<', land: '&&', lor: '||',
};
const unaryText: Record<string, string> = { not: '~', neg: '-', andr: '&', orr: '|', xorr: '^', lnot: '!' };


export class ExprPrinter {
  readonly #sink: TempSink;
  constructor(sink: TempSink) { this.#sink = sink; }

  /** The expression as Verilog text, with the IR's signedness. */
  print(e: Expr): string {
    return this.#fixSign(this.#print(e), e.signed);
  }

  /** Like print, without the outer parentheses (for `assign x = ...;` and `if (...)`). */
  printTop(e: Expr): string {
    return stripParens(this.print(e));
  }

  #fixSign(p: Printed, signed: boolean): string {
    if (p.signed === signed) return p.text;
    return signed ? `$signed(${p.text})` : `$unsigned(${p.text})`;
  }

  #print(e: Expr): Printed {
    switch (e.kind) {
      case 'const':
        if (e.label) { this.#sink.useLabel(e.label, e); return { text: e.label, signed: false, simple: true }; }
        return { text: printConst(e.value, e.width, e.signed), signed: e.signed, simple: false };
      case 'ref': case 'memread':
        return { text: this.#sink.nameOf(e), signed: e.kind === 'ref' ? e.signal.shape.kind === 'sint' : e.signed, simple: true };
      case 'slice': return this.#slice(e.arg, e.lo, e.width);
      case 'part': return this.#part(e);
      case 'unary': {
        const a = this.print(e.arg);
        return { text: `${unaryText[e.op]}${wrapParens(a)}`, signed: e.signed && (e.op === 'not' || e.op === 'neg'), simple: false };
      }
      case 'binary': {
        const op = e.op === 'shr' ? (e.a.signed ? '>>>' : '>>') : binaryText[e.op]!;
        const b = e.op === 'shl' || e.op === 'shr' ? this.#fixSign(this.#print(e.b), false) : this.print(e.b);
        const resultSigned = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'land', 'lor'].includes(e.op) ? false : e.signed;
        return { text: `(${this.print(e.a)} ${op} ${b})`, signed: resultSigned, simple: false };
      }
      case 'mux':
        return { text: `(${this.print(e.sel)} ? ${this.print(e.onTrue)} : ${this.print(e.onFalse)})`, signed: e.signed, simple: false };
      case 'concat':
        return { text: `{${e.parts.map(p => this.#fixSign(this.#print(p), false)).join(', ')}}`, signed: false, simple: false };
      case 'repl':
        return { text: `{${e.count}{${this.#fixSign(this.#print(e.arg), false)}}}`, signed: false, simple: false };
      case 'ext': return this.#ext(e);
    }
  }

  #ext(e: Expr & { kind: 'ext' }): Printed {
    const arg = e.arg;
    if (arg.width === e.width) { // reinterpretation only
      const p = this.#print(arg);
      return { text: this.#fixSign(p, e.signed), signed: e.signed, simple: false };
    }
    const pad = e.width - arg.width;
    if (!arg.signed) {
      const zeros = printConst(0n, pad, false);
      return { text: `{${zeros}, ${this.#fixSign(this.#print(arg), false)}}`, signed: false, simple: false };
    }
    const inner = this.#print(arg);
    const msb = this.#slice(arg, arg.width - 1, 1).text;
    const fill = pad === 1 ? msb : `{${pad}{${msb}}}`;
    return { text: `{${fill}, ${this.#fixSign(inner, false)}}`, signed: false, simple: false };
  }

  /** Bits [lo +: width] of `arg`, narrowed structurally where possible. */
  #slice(arg: Expr, lo: number, width: number): Printed {
    if (lo === 0 && width === arg.width) return this.#print(arg);
    switch (arg.kind) {
      case 'const': return this.#print(constExpr((arg.value >> BigInt(lo)) & ((1n << BigInt(width)) - 1n), width, false, arg.loc));
      case 'ref': case 'memread': {
        const name = this.#sink.nameOf(arg);
        return { text: width === 1 ? `${name}[${lo}]` : `${name}[${lo + width - 1}:${lo}]`, signed: false, simple: false };
      }
      case 'slice': return this.#slice(arg.arg, arg.lo + lo, width);
      case 'concat': return this.#sliceConcat(arg, lo, width);
      case 'ext':
        if (lo + width <= arg.arg.width) return this.#slice(arg.arg, lo, width);
        if (!arg.arg.signed && lo >= arg.arg.width) return this.#print(constExpr(0n, width, false, arg.loc));
        if (!arg.arg.signed) {
          const low = arg.arg.width - lo;
          return this.#print({ kind: 'concat', parts: [constExpr(0n, width - low, false, arg.loc), sliced(arg.arg, lo, low)], width, signed: false, loc: arg.loc });
        }
        break;
      case 'binary': case 'unary':
        if (lo === 0 && ((arg.kind === 'binary' && lowBitOps.has(arg.op)) || (arg.kind === 'unary' && (arg.op === 'not' || arg.op === 'neg')))) {
          return this.#print(narrowed(arg, width));
        }
        break;
      case 'mux':
        return this.#print({ ...arg, width, signed: false, onTrue: sliced(arg.onTrue, lo, width), onFalse: sliced(arg.onFalse, lo, width) });
      default: break;
    }
    const name = this.#sink.temp(arg.kind, arg, this.print(arg), [lo + width - 1, lo]);
    return { text: width === 1 ? `${name}[${lo}]` : `${name}[${lo + width - 1}:${lo}]`, signed: false, simple: false };
  }

  #sliceConcat(arg: Expr & { kind: 'concat' }, lo: number, width: number): Printed {
    // Parts are MSB first; walk from the LSB end collecting the overlapped pieces.
    const pieces: Expr[] = [];
    let base = 0;
    for (const part of [...arg.parts].reverse()) {
      const pLo = Math.max(lo, base), pHi = Math.min(lo + width, base + part.width);
      if (pLo < pHi) pieces.unshift(sliced(part, pLo - base, pHi - pLo));
      base += part.width;
    }
    if (pieces.length === 1) return this.#print(pieces[0]!);
    return this.#print({ kind: 'concat', parts: pieces, width, signed: false, loc: arg.loc });
  }

  #part(e: Expr & { kind: 'part' }): Printed {
    // Selecting the only element there is: the index does not matter (and a 1-bit
    // signal has no range to select from).
    if (e.arg.width === e.width) return this.#print(e.arg);
    // Print the argument once: printing it again would declare its intermediates twice.
    const p = this.#print(e.arg);
    const base = p.simple ? p.text : this.#sink.temp('part', e.arg, this.#fixSign(p, e.arg.signed), null);
    const idx = this.#fixSign(this.#print(e.index), false);
    const need = Math.max(1, Math.ceil(Math.log2(e.arg.width)));
    if (e.stride === 1 && e.width === 1 && e.index.width === need && (1 << need) === e.arg.width) {
      return { text: `${base}[${idx}]`, signed: false, simple: false };
    }
    const rows = this.#rowsOf(e, base);
    if (rows) return rows;
    // `idx * S` is a 32-bit expression, which Verilator accepts as an index of any range.
    return { text: `${base}[${wrapParens(idx)} * ${e.stride} +: ${e.width}]`, signed: false, simple: false };
  }

  /** A select of whole rows whose width is not a power of two, as an array read: Yosys 0.23
   *  maps `v[i * 268 +: 268]` to a shifter (16 rows of 268 bits: 16,500 LUTs and 4,600 MUXF
   *  under synth_xilinx) where `rows[i]` is a 16:1 mux per bit (1,450 LUTs). A power-of-two
   *  stride is a plain shift by index bits there, so it keeps the `+:` form; so does an index
   *  more than two bits wider than the rows need (its array would be mostly padding). */
  #rowsOf(e: Expr & { kind: 'part' }, base: string): Printed | null {
    const count = Math.floor(e.arg.width / e.stride);
    if (e.stride !== e.width || (e.stride & (e.stride - 1)) === 0 || count < 2 || count * e.stride !== e.arg.width) return null;
    const need = Math.ceil(Math.log2(count));
    const bits = Math.max(need, e.index.width);
    if (bits > need + 2 || bits > 16) return null;
    const name = this.#sink.rows(base, e.width, count, 2 ** bits, e);
    const idx = this.#fixSign(this.#print(e.index), false);
    const pad = bits - e.index.width;
    const at = pad > 0 ? `{${pad}'d0, ${idx}}` : idx;
    return { text: `${name}[${at}]`, signed: false, simple: false };
  }
}

/** `(a + b)` → `a + b`, but `(a) + (b)` stays as it is. */
export function stripParens(text: string): string {
  if (!text.startsWith('(') || !text.endsWith(')')) return text;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    if (depth === 0 && i < text.length - 1) return text;
  }
  return text.slice(1, -1);
}

function wrapParens(text: string): string {
  return /^[A-Za-z_][A-Za-z0-9_$]*(\[[^\]]*\])?$/.test(text) || /^\(.*\)$/.test(text) || /^\d+'s?[dhb][0-9a-f]+$/.test(text) ? text : `(${text})`;
}

function sliced(e: Expr, lo: number, width: number): Expr {
  if (lo === 0 && width === e.width) return e;
  return { kind: 'slice', arg: e, lo, width, signed: false, loc: e.loc };
}

/** The low `width` bits of a low-bit-preserving operation, computed at that width. */
function narrowed(e: Expr & { kind: 'binary' | 'unary' }, width: number): Expr {
  if (e.kind === 'unary') return { ...e, width, signed: false, arg: sliced(e.arg, 0, width) };
  return { ...e, width, signed: false, a: sliced(e.a, 0, width), b: sliced(e.b, 0, width) };
}
