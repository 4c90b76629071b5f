// sim/: building, caching, and the port buffer (no scheduler involved).

import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../sim/build.ts';
import { BuildError, PortValueError } from '../../../sim/errors.ts';
import { Model } from '../../../sim/model.ts';
import { counterManifest, counterSources } from './fixtures/counter.ts';

describe('build cache', () => {
  it('builds once and then hits the cache', async () => {
    const first = await buildModel(counterSources());
    expect(fs.existsSync(first.addonPath)).toBe(true);
    const second = await buildModel(counterSources());
    expect(second.built).toBe(false);
    expect(second.seconds).toBe(0);
    expect(second.addonPath).toBe(first.addonPath);
  });

  it('keys the cache on the Verilog text', async () => {
    const src = counterSources();
    const changed = new Map([['counter.v', src.files.get('counter.v')! + '\n// changed\n']]);
    const a = await buildModel(src);
    const b = await buildModel({ manifest: src.manifest, files: changed });
    expect(b.key).not.toBe(a.key);
  });

  it('lets concurrent builds of one design share a single build', async () => {
    // A unique comment gives a key nobody has built yet; the runtime library is shared.
    const src = counterSources();
    const unique = { manifest: src.manifest, files: new Map([['counter.v', `${src.files.get('counter.v')!}// ${process.pid} ${Date.now()}\n`]]) };
    const [a, b] = await Promise.all([buildModel(unique, { quiet: true }), buildModel(unique, { quiet: true })]);
    expect(a.addonPath).toBe(b.addonPath);
    expect([a.built, b.built].filter(Boolean)).toHaveLength(1);
    const m = new Model(a, src.manifest);
    m.set('en', 1);
    m.step(3);
    expect(m.get('count')).toBe(3);
    fs.rmSync(a.dir, { recursive: true, force: true });
  });

  it('reports Verilog errors with the tail of the log', async () => {
    const bad = new Map([['counter.v', 'module counter(input wire clk); assign nope = ; endmodule\n']]);
    const err = await buildModel({ manifest: counterManifest, files: bad }, { quiet: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BuildError);
    expect((err as BuildError).message).toMatch(/verilator failed[\s\S]*counter\.v:1/);
  });
});

describe('Model', () => {
  const load = async (): Promise<Model> => (await Model.load(counterSources())).model;

  it('steps the clock and counts', async () => {
    const m = await load();
    m.set('rst', 1);
    m.step(2);
    m.set('rst', 0);
    m.set('en', 1);
    m.step(5);
    expect(m.get('count')).toBe(5);
    expect(m.cycle).toBe(7);
    m.set('en', 0);
    m.step(3);
    expect(m.get('count')).toBe(5);
  });

  it('settles combinational logic with eval() and no edge', async () => {
    const m = await load();
    m.set('bytes', [1, 2, 3, 250]);
    expect(m.get('bytes_sum')).toBe(0);
    m.eval();
    expect(m.get('bytes_sum')).toBe(256);
    expect(m.cycle).toBe(0);
  });

  it('handles ports wider than 32 and 64 bits', async () => {
    const m = await load();
    const a = (1n << 99n) | 0x1234_5678_9abc_def0n;
    const b = (1n << 99n) + 0xffff_ffffn;
    m.set('a', a);
    m.set('b', b);
    m.set('w_in', 0xab_cdef_0123n);
    m.step(1);
    expect(m.get('sum')).toBe(a + b);
    expect(m.get('w_out')).toBe(0xab_cdef_0123n);
    // Numbers are accepted for wide ports when they fit.
    m.set('w_in', 5);
    m.step(1);
    expect(m.get('w_out')).toBe(5n);
  });

  it('handles signed ports', async () => {
    const m = await load();
    m.set('s_in', -32768 + 1);
    m.eval();
    expect(m.get('s_neg')).toBe(32767);
    m.set('s_in', 1234);
    m.eval();
    expect(m.get('s_neg')).toBe(-1234);
  });

  it('packs structs and vectors', async () => {
    const m = await load();
    m.set('hdr', { kind: 1, len: 41 });
    m.step(1);
    expect(m.get('hdr_out')).toEqual({ kind: 1, len: 42 });
  });

  it('rejects values that do not fit', async () => {
    const m = await load();
    expect(() => m.set('count', 1)).toThrow(/count: is an output/);
    expect(() => m.set('w_in', 1n << 40n)).toThrow(PortValueError);
    expect(() => m.set('s_in', 32768)).toThrow(/does not fit: SInt\(16\) holds -32768\.\.32767/);
    expect(() => m.set('hdr', { kind: 1, len: 256 })).toThrow(/hdr\.len/);
    expect(() => m.set('bytes', [1, 2, 3])).toThrow(/array of 4 elements/);
    expect(() => m.set('nope', 1)).toThrow(/no such port/);
  });
});
