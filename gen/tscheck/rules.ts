// The rules: every JavaScript construct that takes a hardware value as a plain JavaScript
// value. None of them builds hardware; each silently decides something at elaboration time
// (an object is always truthy, `===` compares identities, `a < b` compares NaNs), so the
// circuit comes out wrong without a word from tsc, the passes or Verilator.
//
// Truth tests (`&&`, `||`, `!`, `?:`, `??`, if/while/for/do) are reported when the tested
// type is always a hardware value; a `Value | undefined` is a presence test (`p.tkeep ?`) and
// stays allowed. Operators (comparisons, arithmetic, `+` with strings, template literals,
// switch/case) are reported when any part of an operand's type is a hardware value.

import ts from 'typescript5';
import type { HardwareTypes } from './hardware-type.ts';

export interface Finding {
  readonly node: ts.Node;
  /** The construct, as the user wrote it: `&&`, `if`, `template literal`, ... */
  readonly construct: string;
  readonly message: string;
  readonly hint: string;
}

const methodOf: Readonly<Record<string, string>> = {
  '<': 'a.lt(b)', '>': 'a.gt(b)', '<=': 'a.le(b)', '>=': 'a.ge(b)',
  '+': 'a.add(b) (grows one bit) or a.addw(b) (wraps)', '-': 'a.sub(b) or a.subw(b)', '*': 'a.mul(b)',
  '&': 'a.and(b)', '|': 'a.or(b)', '^': 'a.xor(b)', '<<': 'a.shl(n)', '>>': 'a.shr(n)', '>>>': 'a.shr(n) on an unsigned value',
  '/': 'a.shr(n) for a power of two (there is no divide operator)', '%': 'a.bits(n - 1, 0) for a power of two (there is no modulo operator)',
  '**': 'a constant computed in JavaScript from plain numbers',
};
const truthHint: Readonly<Record<string, string>> = {
  '&&': 'use a.land(b) (one-bit operands) or allOf(a, b, ...)',
  '||': 'use a.lor(b) (one-bit operands) or anyOf(a, b, ...)',
  '!': 'use v.lnot() (one bit) or v.not() (bitwise)',
  '??': 'a hardware value is never null: use mux(sel, a, b) to choose between values',
  '?:': 'use mux(cond, a, b) to choose between hardware values, or m.if(cond, ...).else(...) for statements',
  'if': 'use m.if(cond, () => { ... }).elif(...).else(...)',
  'while': 'hardware has no run-time loops: use a register and m.if (or an FSM, m.fsm); loop in JavaScript only over plain numbers',
  'for': 'hardware has no run-time loops: use a register and m.if (or an FSM, m.fsm); loop in JavaScript only over plain numbers',
  'do': 'hardware has no run-time loops: use a register and m.if (or an FSM, m.fsm); loop in JavaScript only over plain numbers',
};

const equality = new Set([ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken]);
const truthOps = new Map([[ts.SyntaxKind.AmpersandAmpersandToken, '&&'], [ts.SyntaxKind.BarBarToken, '||'], [ts.SyntaxKind.QuestionQuestionToken, '??'],
  [ts.SyntaxKind.AmpersandAmpersandEqualsToken, '&&'], [ts.SyntaxKind.BarBarEqualsToken, '||'], [ts.SyntaxKind.QuestionQuestionEqualsToken, '??']]);
const compound = new Map([[ts.SyntaxKind.PlusEqualsToken, '+'], [ts.SyntaxKind.MinusEqualsToken, '-'], [ts.SyntaxKind.AsteriskEqualsToken, '*'],
  [ts.SyntaxKind.SlashEqualsToken, '/'], [ts.SyntaxKind.PercentEqualsToken, '%'], [ts.SyntaxKind.AsteriskAsteriskEqualsToken, '**'],
  [ts.SyntaxKind.AmpersandEqualsToken, '&'], [ts.SyntaxKind.BarEqualsToken, '|'], [ts.SyntaxKind.CaretEqualsToken, '^'],
  [ts.SyntaxKind.LessThanLessThanEqualsToken, '<<'], [ts.SyntaxKind.GreaterThanGreaterThanEqualsToken, '>>'], [ts.SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken, '>>>']]);

export class HardwareValueRules {
  readonly #checker: ts.TypeChecker;
  readonly #hw: HardwareTypes;
  readonly #found: Finding[] = [];
  readonly #reported = new Set<ts.Node>();
  constructor(checker: ts.TypeChecker, hw: HardwareTypes) { this.#checker = checker; this.#hw = hw; }

  check(file: ts.SourceFile): Finding[] {
    this.#found.length = 0;
    this.#reported.clear();
    const visit = (node: ts.Node): void => { this.#visit(node); ts.forEachChild(node, visit); };
    visit(file);
    return [...this.#found];
  }

  #type(node: ts.Node): ts.Type { return this.#checker.getTypeAtLocation(node); }
  #always(node: ts.Node): boolean { return this.#hw.always(this.#type(node)); }
  #maybe(node: ts.Node): boolean { return this.#hw.maybe(this.#type(node)); }

  #report(node: ts.Node, construct: string, message: string, hint: string): void {
    if (this.#reported.has(node)) return;
    this.#reported.add(node);
    this.#found.push({ node, construct, message, hint });
  }

  /** `node` is tested for truth by `construct`. Inside a truth test, both sides of `&&`/`||`
   *  and the operand of `!` are truth-tested too (`if (enabled && s.tvalid)`). */
  #truth(node: ts.Expression, construct: string): void {
    if (ts.isParenthesizedExpression(node)) { this.#truth(node.expression, construct); return; }
    if (ts.isBinaryExpression(node) && (node.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken || node.operatorToken.kind === ts.SyntaxKind.BarBarToken)) {
      const op = node.operatorToken.getText();
      this.#truth(node.left, op);
      this.#truth(node.right, op);
      return;
    }
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken) { this.#truth(node.operand, '!'); return; }
    if (!this.#always(node) || this.#indexLookup(node)) return;
    const what = construct === 'do' ? '`do ... while`' : `\`${construct}\``;
    this.#report(node, construct, `${what} tests a hardware value as a JavaScript truth value, which is always true`, truthHint[construct]!);
  }

  #visit(node: ts.Node): void {
    if (ts.isBinaryExpression(node)) this.#binary(node);
    else if (ts.isPrefixUnaryExpression(node)) this.#prefix(node);
    else if (ts.isPostfixUnaryExpression(node) && this.#maybe(node.operand)) {
      this.#report(node, ts.tokenToString(node.operator)!, `${ts.tokenToString(node.operator)} on a hardware value does not build hardware`, 'use r.set(r.addw(1)) (or r.subw(1)) on a register');
    } else if (ts.isConditionalExpression(node)) this.#truth(node.condition, '?:');
    else if (ts.isIfStatement(node)) this.#truth(node.expression, 'if');
    else if (ts.isWhileStatement(node)) this.#truth(node.expression, 'while');
    else if (ts.isDoStatement(node)) this.#truth(node.expression, 'do');
    else if (ts.isForStatement(node) && node.condition) this.#truth(node.condition, 'for');
    else if (ts.isTemplateExpression(node)) this.#template(node);
    else if (ts.isSwitchStatement(node)) this.#switch(node);
  }

  #binary(node: ts.BinaryExpression): void {
    const op = node.operatorToken.kind;
    const text = node.operatorToken.getText();
    const truth = truthOps.get(op);
    if (truth === '??') {
      if (this.#always(node.left)) this.#report(node.left, '??', '`??` on a hardware value always gives the left side (it is never null or undefined)', truthHint['??']!);
      return;
    }
    if (truth) { this.#truth(node.left, truth); return; }
    if (equality.has(op)) { this.#equality(node, text); return; }
    const arith = compound.get(op) ?? (methodOf[text] !== undefined ? text : undefined);
    if (arith === undefined) return;
    const l = this.#maybe(node.left), r = this.#maybe(node.right);
    if (!l && !r) return;
    if (arith === '+' && (this.#stringy(node.left) || this.#stringy(node.right))) {
      this.#report(node, 'string +', 'string concatenation with a hardware value', 'a hardware value has no text: build names from your own strings, print v.width or describeShape(v.shape)');
      return;
    }
    this.#report(node, text, `\`${text}\` on a hardware value does not build hardware (JavaScript computes it at elaboration)`, `use ${methodOf[arith]}`);
  }

  #equality(node: ts.BinaryExpression, text: string): void {
    const lt = this.#type(node.left), rt = this.#type(node.right);
    const l = this.#hw.maybe(lt), r = this.#hw.maybe(rt);
    // `v === undefined` asks whether an optional field exists: fine.
    if ((!l && !r) || this.#hw.nullish(lt) || this.#hw.nullish(rt)) return;
    const neg = text.startsWith('!');
    this.#report(node, text, `\`${text}\` compares JavaScript objects, not hardware values: it is decided once, at elaboration`, `use ${neg ? 'a.ne(b)' : 'a.eq(b)'} (or v.is('STATE') for an enum or FSM state)`);
  }

  #prefix(node: ts.PrefixUnaryExpression): void {
    const op = node.operator;
    if (op === ts.SyntaxKind.ExclamationToken) { this.#truth(node.operand, '!'); return; }
    if (!this.#maybe(node.operand)) return;
    const hints: Partial<Record<ts.SyntaxKind, string>> = {
      [ts.SyntaxKind.MinusToken]: 'use v.neg()', [ts.SyntaxKind.TildeToken]: 'use v.not()', [ts.SyntaxKind.PlusToken]: 'a hardware value has no JavaScript number; use it as it is',
      [ts.SyntaxKind.PlusPlusToken]: 'use r.set(r.addw(1)) on a register', [ts.SyntaxKind.MinusMinusToken]: 'use r.set(r.subw(1)) on a register',
    };
    const t = ts.tokenToString(op)!;
    this.#report(node, t, `unary \`${t}\` on a hardware value does not build hardware`, hints[op] ?? 'use the value\'s methods');
  }

  #template(node: ts.TemplateExpression): void {
    for (const span of node.templateSpans) {
      if (this.#maybe(span.expression)) {
        this.#report(span.expression, 'template literal', 'a hardware value inside a template literal', 'a hardware value has no text: build names from your own strings (`${prefix}_q`), print v.width or describeShape(v.shape)');
      }
    }
  }

  #switch(node: ts.SwitchStatement): void {
    if (this.#maybe(node.expression)) {
      this.#report(node.expression, 'switch', '`switch` on a hardware value compares JavaScript objects with ===, at elaboration', 'use m.switch(v).case(1, () => ...).default(() => ...)');
      return;
    }
    for (const clause of node.caseBlock.clauses) {
      if (ts.isCaseClause(clause) && this.#maybe(clause.expression)) {
        this.#report(clause.expression, 'case', '`case` with a hardware value compares JavaScript objects with ===, at elaboration', 'use m.switch(v).case(...) and compare with a.eq(b)');
      }
    }
  }

  /** `ports[key]` through an index signature may be missing whatever its declared type says
   *  (without noUncheckedIndexedAccess): testing it is a presence test. */
  #indexLookup(node: ts.Expression): boolean {
    if (!ts.isElementAccessExpression(node)) return false;
    const obj = this.#checker.getTypeAtLocation(node.expression);
    return this.#checker.getIndexInfosOfType(obj).length > 0 && this.#checker.getSymbolAtLocation(node) === undefined;
  }

  #stringy(node: ts.Node): boolean {
    const t = this.#type(node);
    const parts = t.isUnion() ? t.types : [t];
    return parts.some(p => (p.flags & ts.TypeFlags.StringLike) !== 0);
  }
}
