// Functional coverage bookkeeping (coverage/functional.ts): crosses, unsupported bins,
// strict hits, merging with first hits by plan order, holes.

import { describe, expect, it } from 'vitest';
import { dim, FunctionalCoverage, mergeFunctional, summarizeFunctional, type CoverGroupSpec, type FunctionalData } from '../../../coverage/functional.ts';
import { NIC_GROUPS, sizeClass } from '../../coverage/nic-bins.ts';

const spec: CoverGroupSpec = {
  name: 'op x size', about: 'test group',
  dims: [dim('op', ['W', 'R']), dim('size', [0, 1, 2])],
  unsupported: [{ where: { op: 'R', size: '2' }, why: 'no such read' }],
};

function runWith(hits: readonly [string, number][]): FunctionalData {
  const cov = new FunctionalCoverage();
  const g = cov.group(spec);
  for (const [op, size] of hits) g.hit({ op, size });
  return cov.data();
}

const counts = (d: FunctionalData): Record<string, number> => Object.fromEntries(d.groups[0]!.bins.map(b => [b.id, b.count]));

describe('functional coverage', () => {
  it('a group is the cross of its dimensions; unsupported bins say why', () => {
    const d = runWith([['W', 0], ['W', 0], ['R', 1]]);
    expect(d.groups[0]!.bins.map(b => b.id)).toEqual(['op=W,size=0', 'op=W,size=1', 'op=W,size=2', 'op=R,size=0', 'op=R,size=1', 'op=R,size=2']);
    expect(counts(d)).toEqual({ 'op=W,size=0': 2, 'op=W,size=1': 0, 'op=W,size=2': 0, 'op=R,size=0': 0, 'op=R,size=1': 1, 'op=R,size=2': 0 });
    expect(d.groups[0]!.bins[5]!.unsupported).toBe('no such read');
    const s = summarizeFunctional(d);
    expect(s).toEqual({ bins: 6, supported: 5, hit: 2, holes: [
      { group: 'op x size', bin: 'op=W,size=1' }, { group: 'op x size', bin: 'op=W,size=2' }, { group: 'op x size', bin: 'op=R,size=0' },
    ] });
  });

  it('a hit with an undeclared value or a missing dimension throws (a typo opens no bin)', () => {
    const g = new FunctionalCoverage().group(spec);
    expect(() => g.hit({ op: 'X', size: 0 })).toThrow("cover group 'op x size': op=X is not a declared value (W, R)");
    expect(() => g.hit({ op: 'W' })).toThrow("hit without a value for 'size'");
    expect(() => new FunctionalCoverage().group({ ...spec, unsupported: [{ where: { op: 'Q' }, why: '' }] })).toThrow('unknown op=Q');
    const cov = new FunctionalCoverage();
    cov.group(spec);
    expect(() => cov.group({ ...spec, dims: [dim('op', ['W'])] })).toThrow('declared twice with different bins');
  });

  it('merging sums counts and keeps the first hit in plan order, whatever order the inputs come in', () => {
    const a = runWith([['W', 0]]);
    const b = runWith([['W', 0], ['W', 1]]);
    const c = runWith([['R', 0]]);
    const hitA = { top: 't', test: 'x', seed: 11, order: 0 };
    const hitB = { top: 't', test: 'x', seed: 22, order: 1 };
    const hitC = { top: 't', test: 'y', seed: 33, order: 2 };
    const whole = mergeFunctional([{ data: a, run: hitA }, { data: b, run: hitB }, { data: c, run: hitC }]);
    expect(counts(whole)).toEqual({ 'op=W,size=0': 2, 'op=W,size=1': 1, 'op=W,size=2': 0, 'op=R,size=0': 1, 'op=R,size=1': 0, 'op=R,size=2': 0 });
    const first = Object.fromEntries(whole.groups[0]!.bins.map(x => [x.id, x.first?.seed]));
    expect(first).toEqual({ 'op=W,size=0': 11, 'op=W,size=1': 22, 'op=W,size=2': undefined, 'op=R,size=0': 33, 'op=R,size=1': undefined, 'op=R,size=2': undefined });
    // Shards: {b, c} and {a} merged separately, then together (in either order), equal the whole.
    const s1 = mergeFunctional([{ data: b, run: hitB }, { data: c, run: hitC }]);
    const s2 = mergeFunctional([{ data: a, run: hitA }]);
    expect(mergeFunctional([{ data: s1 }, { data: s2 }])).toEqual(whole);
    expect(mergeFunctional([{ data: s2 }, { data: s1 }])).toEqual(whole);
  });

  it('the NIC groups are well-formed and size classes partition lengths at each MTU', () => {
    const cov = new FunctionalCoverage();
    for (const g of Object.values(NIC_GROUPS)) cov.group(g);
    expect(cov.data().groups).toHaveLength(Object.keys(NIC_GROUPS).length);
    expect([0, 1, 2, 255, 256, 257, 4096, 4097, 65535, 65536].map(l => sizeClass(l, 256)))
      .toEqual(['0', '1', '<mtu', '<mtu', '=mtu', '>mtu', '>mtu', 'multi-page', 'multi-page', '64KiB']);
    expect([4095, 4096, 4097].map(l => sizeClass(l, 4096))).toEqual(['<mtu', '=mtu', 'multi-page']);
  });
});
