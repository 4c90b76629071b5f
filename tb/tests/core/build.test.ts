// sim/build.ts after a one-line design change: the rebuilt model must reflect the change
// (no stale object from ccache or the wrapper object cache), the steps are timed, the
// wrapper object is reused, and every model file compiles with the precompiled header.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildModel, type BuiltModel } from '../../../sim/build.ts';
import { Model } from '../../../sim/model.ts';
import { seededRandom } from '../seed.ts';
import { counterSources } from './fixtures/counter.ts';

const countLine = "if (en) count <= count + 8'd1;";

/** The counter with its increment changed to `inc`: one line of Verilog differs. */
function counterWithIncrement(inc: number) {
  const src = counterSources();
  const text = src.files.get('counter.v')!;
  if (!text.includes(countLine)) throw new Error(`counter.v no longer contains ${JSON.stringify(countLine)}`);
  return { manifest: src.manifest, files: new Map([['counter.v', text.replace(countLine, `if (en) count <= count + 8'd${inc};`)]]) };
}

function countAfter(built: BuiltModel, cycles: number): number {
  const m = new Model(built, counterSources().manifest);
  m.set('rst', 1);
  m.step(2);
  m.set('rst', 0);
  m.set('en', 1);
  m.step(cycles);
  const count = m.get('count') as number;
  m.dispose();
  return count;
}

describe('incremental model build', () => {
  it('rebuilds a one-line change correctly, reusing the wrapper object, with the precompiled header', async () => {
    const { rng, seed } = seededRandom();
    // Increments nobody has built yet (the cache persists across runs), 2..255.
    const incs = [rng.int(2, 255), 0];
    do incs[1] = rng.int(2, 255); while (incs[1] === incs[0]);
    const replay = `replay: NICGEN_SEED=${seed}`;
    const built: BuiltModel[] = [];
    for (const inc of incs) {
      const b = await buildModel(counterWithIncrement(inc), { quiet: true });
      built.push(b);
      const log = fs.readFileSync(path.join(b.dir, 'build.log'), 'utf8');
      expect(log, `increment ${inc}: a precompiled header was rejected (${replay})`).not.toMatch(/\[-Winvalid-pch\]|were invalid/);
      if (b.built) expect(b.phases.map(p => p.name).sort(), `increment ${inc}: timed steps`).toEqual(['link', 'make', 'pch', 'verilate', 'wrapper']);
      expect(countAfter(b, 5), `increment ${inc}: count after 5 enabled cycles (${replay})`).toBe((5 * inc) % 256);
    }
    const second = built[1]!;
    if (second.built) {
      // The ports did not change, so the first build's wrapper object is reused.
      expect(fs.readFileSync(path.join(second.dir, 'build.log'), 'utf8'), `second build compiled its wrapper (${replay})`).toMatch(/^wrapper\.o from /m);
    }
    expect(second.key).not.toBe(built[0]!.key);
    for (const b of built) fs.rmSync(b.dir, { recursive: true, force: true });
  });
});
