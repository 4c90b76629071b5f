// tb/design-cache.ts: a large top's emission kept on disk between processes gives exactly
// what emitting gives, per (module, parameters), and can be turned off.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitTop } from '../../../gen/emit/index.ts';
import { nicPair } from '../../../gen/nic/nic-top.ts';
import { cachedEmit, hashGenerators, mayStore } from '../../design-cache.ts';
import { PAIR_PARAMS } from '../../nic/env.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-designs-'));
const saved = process.env['NICGEN_CACHE'];
process.env['NICGEN_CACHE'] = tmp;
afterAll(() => {
  if (saved === undefined) delete process.env['NICGEN_CACHE']; else process.env['NICGEN_CACHE'] = saved;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('design cache', () => {
  it('nic_pair from the cache equals nic_pair emitted: every file and the manifest', () => {
    let emits = 0;
    const emit = () => { emits++; const e = emitTop(nicPair, PAIR_PARAMS); return { manifest: e.manifest, files: e.files }; };
    const first = cachedEmit('nic_pair', JSON.stringify(PAIR_PARAMS), emit);
    const second = cachedEmit('nic_pair', JSON.stringify(PAIR_PARAMS), emit);
    expect(emits).toBe(1);
    expect([...second.files]).toEqual([...first.files]);
    expect(second.manifest).toEqual(first.manifest);
    expect(fs.readdirSync(path.join(tmp, 'designs'))).toEqual([expect.stringMatching(/^nic_pair-[0-9a-f]{24}\.json$/)]);
  });

  it('keys on the parameters; NICGEN_DESIGN_CACHE=0 always emits', () => {
    let emits = 0;
    const emit = () => { emits++; return { manifest: emitTop(nicPair, PAIR_PARAMS).manifest, files: new Map([['x.v', String(emits)]]) }; };
    cachedEmit('nic_pair', '{"other":1}', emit);
    cachedEmit('nic_pair', '{"other":2}', emit);
    expect(emits).toBe(2);
    process.env['NICGEN_DESIGN_CACHE'] = '0';
    try {
      cachedEmit('nic_pair', '{"other":1}', emit);
    } finally {
      delete process.env['NICGEN_DESIGN_CACHE'];
    }
    expect(emits).toBe(3);
    // A damaged entry is emitted again, not trusted.
    for (const f of fs.readdirSync(path.join(tmp, 'designs'))) fs.writeFileSync(path.join(tmp, 'designs', f), '{broken');
    expect(cachedEmit('nic_pair', '{"other":1}', emit).files.get('x.v')).toBe('4');
  });

  // An edit saved between a process's start (its imports) and its hash once stored the old
  // design under the new text's key (found on issue-11h: stale nic_pair designs served).
  it('stores nothing when a generator source is newer than the process', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-gen-src-'));
    try {
      fs.mkdirSync(path.join(root, 'gen'));
      const file = path.join(root, 'gen', 'a.ts');
      fs.writeFileSync(file, 'export const a = 1;\n');
      const start = Date.now();
      fs.utimesSync(file, new Date(start - 60_000), new Date(start - 60_000));
      const before = hashGenerators(root);
      expect(mayStore(before, start)).toBe(true);
      fs.writeFileSync(file, 'export const a = 2;\n');
      fs.utimesSync(file, new Date(start + 1_000), new Date(start + 1_000));
      const after = hashGenerators(root);
      expect(after.hash).not.toBe(before.hash);
      expect(mayStore(after, start)).toBe(false);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
