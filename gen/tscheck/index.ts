// The type-aware check of the user's design files: every JavaScript construct that takes a
// hardware value as a plain JavaScript value (rules.ts) is a design error at its file:line:col,
// reported before anything is elaborated or written.
//
// Why TypeScript 5 here while the project's tsc is TypeScript 7: the check needs a type
// checker it can ask "is this expression a hardware value?", and TypeScript 7 (native) has no
// JavaScript compiler API. typescript-eslint needs that API under the package name
// `typescript` (TypeScript 7 here); oxlint's type-aware rules (tsgolint) run on TypeScript 7
// but none of them knows what a hardware value is (strict-boolean-expressions only covers
// truth tests, nothing covers `===` or `??` between objects), and they take no custom rules.
// So TypeScript 5.9, pinned and installed under the alias `typescript5`, is used for this
// check only, with our own rules (rules.ts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript5';
import type { Diagnostic } from '../hdl/errors.ts';
import { HardwareTypes } from './hardware-type.ts';
import { HardwareValueRules } from './rules.ts';

export const TSCHECK_PASS = 'js-on-hardware';

const fallbackOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true, allowImportingTsExtensions: true,
};

/** Only the rules' answers matter, not type errors (tsc 7 reports those): no emit, and no
 *  ambient @types packages, which are most of the parse time (@types/node alone is ~1 s). */
const speed: ts.CompilerOptions = { noEmit: true, types: [], skipLibCheck: true };

/** Compiler options of the tsconfig.json nearest to `file` (or strict defaults without one). */
function optionsFor(file: string): ts.CompilerOptions {
  const config = ts.findConfigFile(path.dirname(file), f => fs.existsSync(f));
  if (!config) return fallbackOptions;
  const read = ts.readConfigFile(config, f => fs.readFileSync(f, 'utf8'));
  if (read.error) return { ...fallbackOptions, ...speed };
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(config));
  return { ...parsed.options, ...speed };
}

/** The files the check covers: the program's own sources, not libraries or declarations. */
export function userSources(program: ts.Program): ts.SourceFile[] {
  return program.getSourceFiles().filter(f => !f.isDeclarationFile && !f.fileName.includes('/node_modules/'));
}

export interface TsCheckResult {
  readonly diagnostics: readonly Diagnostic[];
  /** Source files checked (the roots and everything they import outside node_modules). */
  readonly files: readonly string[];
}

/** Check `roots` and every file they import (outside node_modules). */
export function checkHardwareJs(roots: readonly string[]): TsCheckResult {
  const abs = roots.map(r => path.resolve(r));
  const program = ts.createProgram(abs, optionsFor(abs[0]!));
  const checker = program.getTypeChecker();
  const rules = new HardwareValueRules(checker, new HardwareTypes(checker));
  const diagnostics: Diagnostic[] = [];
  const files = userSources(program);
  for (const sf of files) {
    for (const f of rules.check(sf)) {
      const { line, character } = sf.getLineAndCharacterOfPosition(f.node.getStart(sf));
      diagnostics.push({ pass: TSCHECK_PASS, message: f.message, hint: f.hint, loc: { file: sf.fileName, line: line + 1, col: character + 1 } });
    }
  }
  return { diagnostics, files: files.map(f => f.fileName) };
}
