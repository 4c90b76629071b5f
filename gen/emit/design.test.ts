import { describe, expect, it } from 'vitest';
import { Bool, DesignErrors, UInt, defineBlackBox, defineModule } from '../hdl/index.ts';
import { emitTop, MANIFEST_FORMAT } from './index.ts';
import { Asserts, Fsm, Pipeline, Stage, allDesigns } from '../test-support/designs.ts';

describe('emitting a design', () => {
  it('is deterministic: emitting twice gives byte-identical files, filelist and manifest', () => {
    for (const def of Object.values(allDesigns)) {
      const a = emitTop(def as Parameters<typeof emitTop>[0]);
      const b = emitTop(def as Parameters<typeof emitTop>[0]);
      expect([...b.files]).toEqual([...a.files]);
      expect(b.filelist).toBe(a.filelist);
      expect(JSON.stringify(b.manifest)).toBe(JSON.stringify(a.manifest));
    }
  });

  it('is deterministic across fresh definitions of the same design', () => {
    const make = () => defineModule('e_fresh', { n: 3 }, (m, p) => {
      const a = m.input('a', UInt(p.n));
      const y = m.output('y', UInt(p.n));
      const w = m.wire('w', UInt(p.n));
      w.set(a.not());
      y.set(w.xor(a));
      return { a, y };
    });
    expect([...emitTop(make()).files]).toEqual([...emitTop(make()).files]);
  });

  it('merges structurally identical modules into one file, leaves first', () => {
    const out = emitTop(Pipeline);
    expect([...out.files.keys()]).toEqual(['stage_tagfirst.v', 'vendor_inv.v', 'pipeline.v']);
    expect(out.filelist).toBe('stage_tagfirst.v\nvendor_inv.v\npipeline.v\n');
    expect(out.files.get('pipeline.v')!.match(/^stage_tagfirst u_s[12] \($/gm)).toEqual(['stage_tagfirst u_s1 (', 'stage_tagfirst u_s2 (']);
    expect(Stage.elaborate({ tag: 'first' })).not.toBe(Stage.elaborate({ tag: 'second' }));
  });

  it('keeps modules whose hardware differs apart', () => {
    const Top = defineModule('e_two_widths', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const d = m.input('d', UInt(8));
      const q = m.output('q', UInt(12));
      const a = m.instance('u_a', Stage, { width: 8 });
      const b = m.instance('u_b', Stage, { width: 4 });
      a.d.set(d);
      b.d.set(d.trunc(4));
      q.set(a.q.zext(12).or(b.q.zext(12).shl(8)));
      return { clk, rst, d, q };
    });
    expect([...emitTop(Top).files.keys()]).toEqual(['stage.v', 'stage_width4.v', 'e_two_widths.v']);
  });

  it('black boxes: supplied Verilog is copied, missing Verilog is listed', () => {
    expect(emitTop(Pipeline).files.get('vendor_inv.v')).toBe('`default_nettype none\nmodule vendor_inv (input wire [3:0] i, output wire [3:0] o);\nassign o = ~i;\nendmodule\n');
    const Ext = defineBlackBox('ext_ip', m => ({ i: m.input('i', Bool), o: m.output('o', Bool) }));
    const Top = defineModule('e_bb', {}, m => {
      const i = m.input('i', Bool);
      const o = m.output('o', Bool);
      const u = m.instance('u_ext', Ext);
      u.i.set(i);
      o.set(u.o);
      return { i, o };
    });
    const out = emitTop(Top);
    expect(out.blackBoxes).toEqual(['ext_ip']);
    expect([...out.files.keys()]).toEqual(['e_bb.v']);
    expect(out.files.get('e_bb.v')).toContain('ext_ip u_ext (');
  });

  it('manifest: ports with paths, shapes and signedness, params, FSMs', () => {
    const out = emitTop(Fsm);
    expect(out.manifest.format).toBe(MANIFEST_FORMAT);
    expect(out.manifest.top).toBe('fsm_demo');
    expect(out.manifest.files).toEqual(['fsm_demo.v']);
    expect(out.manifest.ports.map(p => `${p.dir} ${p.name} ${p.width}${p.signed ? 's' : ''} ${p.path.join('.')}`)).toEqual([
      'input clk 1 clk', 'input rst 1 rst', 'input go 1 go', 'output done 1 done',
    ]);
    expect(out.manifest.ports[0]!.shape).toEqual({ kind: 'clock', width: 1 });
    expect(out.manifest.fsms).toEqual([{ module: 'fsm_demo', signal: 'state', states: { IDLE: 0, RUN: 1, DONE: 2 }, loc: expect.stringMatching(/^gen\/test-support\/designs\.ts:\d+:\d+$/) }]);
    expect(emitTop(Stage, { width: 3, tag: 'x' }).manifest.params).toEqual({ width: 3, tag: 'x' });
  });

  it('manifest: each assertion points exactly at its $stop line', () => {
    const out = emitTop(Asserts);
    const fileLines = out.files.get('asserts.v')!.split('\n');
    expect(out.manifest.asserts.map(a => a.message).sort()).toEqual(['a is never "15" (100%)', 'no 2 after 1', 'other clock']);
    for (const a of out.manifest.asserts) {
      expect(a.file).toBe('asserts.v');
      expect(a.module).toBe('asserts');
      expect(fileLines[a.line - 1]!.trim()).toBe('$stop;');
      // The $display just above names the same TS location as the manifest entry.
      expect(fileLines[a.line - 2]).toContain(`assertion failed at ${a.loc}:`);
    }
  });

  it('manifest assert lines stay exact when the module has temporaries and localparams', () => {
    const St = ['A', 'B'] as const;
    const M = defineModule('e_assert_temps', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const a = m.input('a', UInt(8));
      const b = m.input('b', UInt(8));
      const y = m.output('y', UInt(4));
      const fsm = m.fsm('st', St);
      fsm.states({ A: () => fsm.goto('B'), B: () => fsm.goto('A') });
      y.set(a.add(b).bits(8, 5));
      m.assert(fsm.is('A').lor(a.ne(0)), 'msg');
      return { clk, rst, a, b, y };
    });
    const out = emitTop(M);
    const [a] = out.manifest.asserts;
    expect(out.files.get(a!.file)!.split('\n')[a!.line - 1]!.trim()).toBe('$stop;');
  });

  it('throws DesignErrors rather than emitting a design with problems', () => {
    const Bad = defineModule('e_bad', {}, m => {
      const y = m.output('y', Bool);
      return { y };
    });
    expect(() => emitTop(Bad)).toThrow(DesignErrors);
  });
});
