// A check of the JSON report's shape (SYNTH_JSON_FORMAT), for tools that read it and for
// the tests: every problem is listed with its path in the document.

import { SYNTH_JSON_FORMAT } from './result.ts';

type Check = (v: unknown, at: string, out: string[]) => void;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num: Check = (v, at, out) => { if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) out.push(`${at}: expected a non-negative number, got ${JSON.stringify(v)}`); };
const numOrNull: Check = (v, at, out) => { if (v !== null) num(v, at, out); };
const str: Check = (v, at, out) => { if (typeof v !== 'string' || v === '') out.push(`${at}: expected a string, got ${JSON.stringify(v)}`); };
const strOrNull: Check = (v, at, out) => { if (v !== null) str(v, at, out); };
const bool: Check = (v, at, out) => { if (typeof v !== 'boolean') out.push(`${at}: expected true/false, got ${JSON.stringify(v)}`); };
const oneOf = (...xs: string[]): Check => (v, at, out) => { if (!xs.includes(v as string)) out.push(`${at}: expected one of ${xs.join(', ')}, got ${JSON.stringify(v)}`); };
const list = (item: Check): Check => (v, at, out) => { if (!Array.isArray(v)) out.push(`${at}: expected a list`); else v.forEach((x, i) => item(x, `${at}[${i}]`, out)); };
const orNull = (c: Check): Check => (v, at, out) => { if (v !== null) c(v, at, out); };
const record = (value: Check): Check => (v, at, out) => { if (!isObj(v)) out.push(`${at}: expected an object`); else for (const [k, x] of Object.entries(v)) value(x, `${at}.${k}`, out); };
const shape = (fields: Record<string, Check>): Check => (v, at, out) => {
  if (!isObj(v)) { out.push(`${at}: expected an object`); return; }
  for (const [k, c] of Object.entries(fields)) {
    if (!(k in v)) out.push(`${at}.${k}: missing`);
    else c(v[k], `${at}.${k}`, out);
  }
  for (const k of Object.keys(v)) if (!(k in fields)) out.push(`${at}.${k}: unexpected field`);
};

const signalRef = shape({ signal: str, loc: strOrNull });
const resources = shape({
  luts: num, ffs: num, carry: num, muxf: num, ramb36: num, ramb18: num, ram40: num, lutram: num, dsp: num, cells: record(num),
});
const pathReport = shape({
  proxy: oneOf('a', 'b_prime', 'b', 'c'), delayNs: numOrNull, fmaxMhz: numOrNull, levels: numOrNull,
  lut: numOrNull, muxf: numOrNull, carryChains: numOrNull, start: orNull(signalRef), end: orNull(signalRef), through: list(signalRef),
});
const moduleResult = shape({
  module: str, target: oneOf('xcup', 'ice40', 'generic'), resources: orNull(resources), genericLuts: numOrNull,
  paths: list(pathReport), notes: list(str), seconds: num, cached: bool,
});
const report = shape({
  format: oneOf(SYNTH_JSON_FORMAT), top: str, target: oneOf('xcup', 'ice40', 'generic'), params: record(() => {}),
  flowVersion: num, tools: record(str), modules: list(moduleResult),
});

/** Problems with `doc` as a `nicgen synth --json` report; empty when it is one. */
export function checkSynthReport(doc: unknown): string[] {
  const out: string[] = [];
  report(doc, '$', out);
  return out;
}
