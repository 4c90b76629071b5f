// `--set k=v` lists: generator parameters from the command line, typed by the generator's
// defaults (a number stays a number, a boolean a boolean). Every misuse is one line (a
// UsageError, exit 2) naming the offending item and what would be accepted.

import { UsageError } from './usage-error.ts';

export type ParamValue = number | boolean | string;

/** `['numQp=16', 'dataWidth=512']` -> `{ numQp: 16, dataWidth: 512 }`, checked against `defaults`. */
export function parseSetParams<P extends object>(items: readonly string[], defaults: P, owner: string): Partial<P> {
  const known = defaults as Record<string, unknown>;
  const settable = Object.keys(known).filter(k => ['number', 'boolean', 'string'].includes(typeof known[k]));
  const out: Record<string, ParamValue> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set ${item}: expected NAME=VALUE (parameters of ${owner}: ${settable.join(', ') || 'none'})`);
    const key = item.slice(0, eq).trim();
    const text = item.slice(eq + 1).trim();
    if (!(key in known)) throw new UsageError(`--set ${item}: ${owner} has no parameter '${key}' (it has: ${settable.join(', ') || 'none'})`);
    if (key in out) throw new UsageError(`--set ${item}: '${key}' is set twice`);
    out[key] = valueFor(item, key, text, known[key]);
  }
  return out as Partial<P>;
}

function valueFor(item: string, key: string, text: string, def: unknown): ParamValue {
  switch (typeof def) {
    case 'number': {
      const n = /^[-+]?(0x[0-9a-f]+|\d+(\.\d+)?(e[-+]?\d+)?)$/i.test(text) ? Number(text) : NaN;
      if (!Number.isFinite(n)) throw new UsageError(`--set ${item}: '${key}' takes a number (default ${String(def)})`);
      return n;
    }
    case 'boolean':
      if (/^(true|1|yes)$/i.test(text)) return true;
      if (/^(false|0|no)$/i.test(text)) return false;
      throw new UsageError(`--set ${item}: '${key}' takes true or false (default ${String(def)})`);
    case 'string':
      return text;
    default:
      throw new UsageError(`--set ${item}: '${key}' is a structured parameter and cannot be set from the command line`);
  }
}
