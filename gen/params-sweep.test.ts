// Every top of gen/tops.ts with a bad value for each of its numeric parameters (0, -1, 2.5),
// as `nicgen gen <top> --set k=v` would ask: it either elaborates (the value is allowed) or
// is refused with one line, `[params]`, naming the module, the parameter and what is
// allowed, at the asking line. Never a DSL error inside the library, a stack trace or a
// second line.

import { describe, expect, it } from 'vitest';
import { reconfigure, topName } from './emit/index.ts';
import { ParamError } from './hdl/index.ts';
import { tops } from './tops.ts';

const at = { file: 'nicgen gen --set', line: 0, col: 0 };
const badValues = [0, -1, 2.5];

function cases(): { top: string; module: string; param: string; value: number; entry: (typeof tops)[number] }[] {
  const seen = new Set<string>();
  return tops.flatMap(entry => {
    const def = entry.def;
    if (!def || seen.has(def.name)) return [];
    seen.add(def.name);
    const numeric = Object.entries(def.defaults as Record<string, unknown>).filter(([, v]) => typeof v === 'number').map(([k]) => k);
    return numeric.flatMap(param => badValues.map(value => ({ top: topName(entry) ?? def.name, module: def.name, param, value, entry })));
  });
}

describe('every top refuses a bad parameter on one line', () => {
  const all = cases();
  it('has cases', () => expect(all.length).toBeGreaterThan(30));
  for (const c of all) {
    it(`${c.module} ${c.param}=${c.value}`, () => {
      let err: unknown;
      try { reconfigure(c.entry, { [c.param]: c.value }, at).emit(); } catch (e) { err = e; }
      if (err === undefined) return; // allowed
      expect(err, String(err)).toBeInstanceOf(ParamError);
      const msg = (err as Error).message;
      expect(msg.split('\n'), msg).toHaveLength(1);
      expect(msg).toContain('error [params]');
      expect(msg).toContain(c.module);
      expect(msg).toContain(c.param);
    });
  }
});
