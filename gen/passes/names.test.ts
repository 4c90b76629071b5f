import { describe, expect, it } from 'vitest';
import { Bool, UInt, defineModule } from '../hdl/index.ts';
import { emitTop } from '../emit/index.ts';
import { DesignErrors } from '../hdl/index.ts';
import { fileLine, marks } from '../test-support/loc.ts';
import { diagnose, ofPass } from '../test-support/diag.ts';

const here = marks(import.meta.url);

const Collision = defineModule('n_collide', {}, m => {
  const a = m.input('a', Bool);
  const y = m.output('y', Bool);
  const w = m.wire('a', Bool); // @here:collide
  w.set(1);
  y.set(a.land(w));
  return { a, y };
});

const Keyword = defineModule('n_keyword', {}, m => {
  const a = m.input('a', Bool);
  const y = m.output('y', Bool);
  const w = m.wire('reg', Bool); // @here:keyword
  w.set(a);
  y.set(w);
  return { a, y };
});

const SvKeyword = defineModule('n_sv_keyword', {}, m => {
  const logic = m.input('logic', Bool); // @here:sv-keyword
  const y = m.output('y', Bool);
  y.set(logic);
  return { logic, y };
});

const Leaf = defineModule('n_leaf', {}, m => {
  const d = m.input('d', Bool);
  const q = m.output('q', Bool);
  q.set(d);
  return { d, q };
});

const InstanceWireCollision = defineModule('n_inst_collide', {}, m => {
  const a = m.input('a', Bool);
  const y = m.output('y', Bool);
  const mine = m.wire('u_d', Bool);
  mine.set(a);
  const u = m.instance('u', Leaf); // @here:inst-collide
  u.d.set(mine);
  y.set(u.q);
  return { a, y };
});

const MemPortCollision = defineModule('n_mem_collide', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const addr = m.input('addr', UInt(2));
  const y = m.output('y', UInt(8));
  const ram_rdata = m.output('ram_rdata', UInt(8));
  const ram = m.memory('ram', UInt(8), 4);
  ram.write(addr, 0);
  y.set(ram.read(addr)); // @here:mem-collide
  ram_rdata.set(0);
  return { clk, rst, addr, y, ram_rdata };
});

const Good = defineModule('n_good', {}, m => {
  const a = m.input('a', Bool);
  const y = m.output('y', Bool);
  const reg_q = m.wire('reg_q', Bool);
  const u = m.instance('u', Leaf);
  u.d.set(a);
  reg_q.set(u.q);
  y.set(reg_q);
  return { a, y };
});

describe('names pass', () => {
  it('reports two signals with one name, pointing at the second and naming the first', () => {
    const ds = ofPass(diagnose(Collision), 'names');
    expect(ds).toHaveLength(1);
    expect(ds[0]!.message).toMatch(/^wire 'a' in module n_collide collides with a name first used at gen\/passes\/names\.test\.ts:\d+:\d+$/);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('collide'));
  });


  it('reports Verilog and SystemVerilog keywords', () => {
    const ds = ofPass(diagnose(Keyword), 'names');
    expect(ds.map(d => d.message)).toEqual(["wire 'reg' is a Verilog/SystemVerilog keyword"]);
    expect(ds[0]!.hint).toBe("rename it (e.g. 'reg_q')");
    expect(fileLine(ds[0]!.loc)).toBe(here.at('keyword'));
    const sv = ofPass(diagnose(SvKeyword), 'names');
    expect(sv.map(d => d.message)).toEqual(["port 'logic' is a Verilog/SystemVerilog keyword"]);
    expect(fileLine(sv[0]!.loc)).toBe(here.at('sv-keyword'));
  });


  it.each(['packed', 'unique', 'priority', 'final', 'const', 'type', 'enum', 'struct', 'always_ff', 'do', 'break', 'return'])('reports the SystemVerilog keyword %s (Verilator parses .v files with SV keywords)', name => {
    const M = defineModule('n_sv_kw', {}, m => {
      const a = m.input('a', Bool);
      const y = m.output(name, Bool);
      y.set(a);
      return { a, y };
    });
    expect(ofPass(diagnose(M), 'names').map(d => d.message)).toEqual([`port '${name}' is a Verilog/SystemVerilog keyword`]);
  });


  it('reports an instance connection wire that collides with a user signal', () => {
    const ds = ofPass(diagnose(InstanceWireCollision), 'names');
    expect(ds.map(d => d.message)).toEqual([expect.stringMatching(/^wire 'u_d' in module n_inst_collide collides with a name first used at /)]);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('inst-collide'));
  });


  it('reports a memory read port name taken by a signal', () => {
    const ds = ofPass(diagnose(MemPortCollision), 'names');
    expect(ds.map(d => d.message)).toEqual([expect.stringMatching(/^memory read port 'ram_rdata' in module n_mem_collide collides with/)]);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('mem-collide'));
  });

  it('reports two definitions emitting the same module name', () => {
    const A = defineModule('n_same', {}, m => { const d = m.input('d', Bool); const q = m.output('q', Bool); q.set(d); return { d, q }; });
    const B = defineModule('n_same', {}, m => { const d = m.input('d', Bool); const q = m.output('q', Bool); q.set(d.lnot()); return { d, q }; });
    const Top = defineModule('n_same_top', {}, m => {
      const d = m.input('d', Bool);
      const q = m.output('q', Bool);
      const a = m.instance('a', A); const b = m.instance('b', B);
      a.d.set(d); b.d.set(d); q.set(a.q.lor(b.q));
      return { d, q };
    });
    let err: unknown;
    try { emitTop(Top); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(DesignErrors);
    expect((err as DesignErrors).diagnostics.map(d => d.message)).toEqual([expect.stringMatching(/^two modules are both named 'n_same'/)]);
  });

  it('does not fire on distinct legal names (keyword prefixes are fine)', () => {
    expect(diagnose(Good)).toEqual([]);
  });
});
