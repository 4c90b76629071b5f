// `--set name=value` on the command line: a generator parameter, parsed as the type of its
// default (number, boolean, string, bigint) and then checked like any other elaboration by the
// definition's own rules (gen/hdl/params.ts), so `--set numQp=16` gets the same one-line error
// as `numQp: 16` in a tops file.

import type { ModuleDef } from '../gen/hdl/define.ts';
import { ParamError } from '../gen/hdl/params.ts';
import type { SourceLoc } from '../gen/hdl/errors.ts';
import { UsageError } from './usage-error.ts';

/** Where a --set error is reported: the command line itself. */
export function commandLineLoc(argv: readonly string[]): SourceLoc {
  return { file: ['nicgen', ...argv].join(' '), line: 0, col: 0 };
}

function parseValue(def: ModuleDef, name: string, text: string, at: SourceLoc): unknown {
  const d = (def.defaults as Record<string, unknown>)[name];
  const bad = (what: string): never => { throw new ParamError(def.name, `--set ${name}=${text}: ${what}`, at); };
  switch (typeof d) {
    case 'number': {
      const n = /^[-+]?(0x[0-9a-f]+|\d+(\.\d+)?)$/i.test(text) ? Number(text) : NaN;
      return Number.isNaN(n) ? bad(`${name} is a number (default ${d})`) : n;
    }
    case 'bigint':
      try { return BigInt(text); } catch { return bad(`${name} is a whole number (default ${d})`); }
    case 'boolean':
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      return bad(`${name} is true or false (default ${d})`);
    case 'string':
      return text;
    default:
      return bad(`${name} is ${d === undefined ? 'not set by default' : 'a structured value'}; it cannot be given on the command line (write a tops file: nicgen gen --tops FILE --out DIR)`);
  }
}

/** `['dataWidth=512', 'numQp=8']` → `{ dataWidth: 512, numQp: 8 }` for `def`. */
export function parseSets(def: ModuleDef, sets: readonly string[], at: SourceLoc): Record<string, unknown> {
  const known = Object.keys(def.defaults);
  const result: Record<string, unknown> = {};
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set ${s}: write --set name=value (parameters of ${def.name}: ${known.join(', ')})`);
    const name = s.slice(0, eq), text = s.slice(eq + 1);
    if (!known.includes(name)) throw new ParamError(def.name, `no parameter '${name}' (parameters: ${known.join(', ') || 'none'})`, at);
    if (name in result) throw new UsageError(`--set ${name} is given twice`);
    result[name] = parseValue(def, name, text, at);
  }
  return result;
}
