// The domains check across instances: crossings through the synchronizers of gen/lib are
// accepted, every other crossing is reported at the user's line (inside a module, into an
// instance input, out of an instance output, through a dual-clock memory), and m.crossing()
// waives a deliberate one and says why in the Verilog.

import { describe, expect, it } from 'vitest';
import { Bool, Clock, UInt, defineModule, type ModuleBuilder } from '../hdl/index.ts';
import { emitTop } from '../emit/index.ts';
import { asyncFifo, asyncFifoRam } from '../lib/async-fifo.ts';
import { syncBits, syncHandshake } from '../lib/cdc.ts';
import { diagnose, ofPass } from '../test-support/diag.ts';
import { fileLine, marks } from '../test-support/loc.ts';

const here = marks(import.meta.url);

/** Two clock inputs, a reset each, and their domains. */
function twoDomains(m: ModuleBuilder) {
  const clk_a = m.input('clk_a', Clock);
  const clk_b = m.input('clk_b', Clock);
  const rst_a = m.input('rst_a', Bool);
  const rst_b = m.input('rst_b', Bool);
  const a = m.domain('a', { clock: clk_a, reset: rst_a });
  const b = m.domain('b', { clock: clk_b, reset: rst_b });
  return { ports: { clk_a, clk_b, rst_a, rst_b }, a, b };
}

/** A plain registered stage with its own clock: q follows d one edge later. */
const stage = defineModule('cx_stage', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const d = m.input('d', UInt(4));
  const q = m.output('q', UInt(4));
  const r = m.reg('r', UInt(4));
  r.set(d);
  q.set(r);
  return { clk, rst, d, q };
});

const throughSync = defineModule('cx_through_sync', {}, m => {
  const { ports, a, b } = twoDomains(m);
  const x = m.input('x', Bool);
  const y = m.output('y', Bool);
  const ra = m.reg('ra', Bool, { domain: a });
  ra.set(x);
  const sync = m.instance('u_sync', syncBits);
  sync.clk.set(ports.clk_b);
  sync.d.set(ra);
  const rb = m.reg('rb', Bool, { domain: b });
  rb.set(sync.q);
  y.set(rb);
  return { ...ports, x, y };
});

const intoInstance = defineModule('cx_into_instance', {}, m => {
  const { ports, a } = twoDomains(m);
  const x = m.input('x', UInt(4));
  const y = m.output('y', UInt(4));
  const ra = m.reg('ra', UInt(4), { domain: a });
  ra.set(x);
  const u = m.instance('u_stage', stage);
  u.clk.set(ports.clk_b);
  u.rst.set(ports.rst_b);
  u.d.set(ra); // @here:into
  y.set(u.q);
  return { ...ports, x, y };
});

const outOfInstance = defineModule('cx_out_of_instance', {}, m => {
  const { ports, a } = twoDomains(m);
  const x = m.input('x', UInt(4));
  const y = m.output('y', UInt(4));
  const u = m.instance('u_stage', stage);
  u.clk.set(ports.clk_b);
  u.rst.set(ports.rst_b);
  u.d.set(x);
  const ra = m.reg('ra', UInt(4), { domain: a });
  ra.set(u.q.addw(1)); // @here:out
  y.set(ra);
  return { ...ports, x, y };
});

const waived = defineModule('cx_waived', {}, m => {
  const { ports, a } = twoDomains(m);
  const x = m.input('x', UInt(4));
  const y = m.output('y', UInt(4));
  const ra = m.reg('ra', UInt(4), { domain: a });
  ra.set(x);
  m.crossing(ra, 'quasi-static: written once while the b side is held in reset');
  const u = m.instance('u_stage', stage);
  u.clk.set(ports.clk_b);
  u.rst.set(ports.rst_b);
  u.d.set(ra);
  y.set(u.q);
  return { ...ports, x, y };
});

function dualClockRam(withCrossing: boolean) {
  return defineModule(withCrossing ? 'cx_ram_waived' : 'cx_ram', {}, m => {
    const { ports, a, b } = twoDomains(m);
    const addr = m.input('addr', UInt(3));
    const d = m.input('d', UInt(8));
    const q = m.output('q', UInt(8));
    const mem = m.memory('mem', UInt(8), 8, { domain: a }); // @here:ram
    if (withCrossing) m.crossing(mem, 'test: addresses are handed over by a handshake');
    mem.write(addr, d);
    q.set(mem.read(addr, { domain: b }));
    return { ...ports, addr, d, q };
  });
}

/** A stream crossing in both FIFOs and the handshake, a register on either side. */
const fifoUser = defineModule('cx_fifo_user', { bad: false }, (m, p) => {
  const { ports, a, b } = twoDomains(m);
  const x = m.input('x', UInt(8));
  const y = m.output('y', UInt(8));
  const z = m.output('z', UInt(8));
  const w = m.output('w', UInt(8));
  const ra = m.reg('ra', UInt(8), { domain: a });
  ra.set(x);
  const readyB = m.reg('ready_b', Bool, { domain: b });
  readyB.set(readyB.lnot());
  const readyA = m.reg('ready_a', Bool, { domain: a });
  readyA.set(readyA.lnot());
  const outs = [asyncFifo, asyncFifoRam, syncHandshake].map((def, i) => {
    const f = m.instance(`u_x${i}`, def as typeof asyncFifo, { width: 8 });
    f.s_clk.set(ports.clk_a); f.s_rst.set(ports.rst_a);
    f.m_clk.set(ports.clk_b); f.m_rst.set(ports.rst_b);
    f.s.valid.set(1);
    f.s.data.set(ra);
    f.m.ready.set(p.bad && i === 1 ? readyA : readyB); // @here:bad-ready
    m.unused(f.s.ready, 'test');
    if ('s_level' in f) { m.unused(f.s_level, 'test'); m.unused(f.m_level, 'test'); }
    const rb = m.reg(`rb${i}`, UInt(8), { domain: b });
    m.if(f.m.valid, () => rb.set(f.m.data));
    return rb;
  });
  y.set(outs[0]!);
  z.set(outs[1]!);
  w.set(outs[2]!);
  return { ...ports, x, y, z, w };
});

/** One clock, two domains (different resets): not a crossing. */
const oneClockTwoResets = defineModule('cx_one_clock', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const arst = m.input('arst', Bool);
  const x = m.input('x', Bool);
  const y = m.output('y', Bool);
  const other = m.domain('other', { clock: clk, reset: arst, resetKind: 'async' });
  const r1 = m.reg('r1', Bool);
  const r2 = m.reg('r2', Bool, { domain: other });
  r1.set(x);
  r2.set(r1);
  y.set(r2);
  return { clk, rst, arst, x, y };
});

describe('clock-domain crossings across instances', () => {
  it('accepts a crossing through syncBits', () => {
    expect(diagnose(throughSync)).toEqual([]);
  });

  it('accepts streams through asyncFifo, asyncFifoRam and syncHandshake, and reports a handshake signal driven from the wrong side', () => {
    expect(diagnose(fifoUser)).toEqual([]);
    const ds = ofPass(diagnose({ elaborate: () => fifoUser.elaborate({ bad: true }) }), 'domains');
    expect(ds.map(d => d.message)).toEqual(['register ready_a (domain a, clock clk_a) drives input m_ready of u_x1, which logic clocked by clk_b reads']);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('bad-ready'));
  });

  it('reports a register of one clock driving an instance input that another clock reads, where the input is assigned', () => {
    const ds = ofPass(diagnose(intoInstance), 'domains');
    expect(ds.map(d => d.message)).toEqual(['register ra (domain a, clock clk_a) drives input d of u_stage, which logic clocked by clk_b reads']);
    expect(ds[0]!.hint).toMatch(/syncBits .* asyncFifo .* m\.crossing\(signal, 'why it is safe'\)/);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('into'));
  });

  it('reports an instance output of one clock read by a register of another, at the assignment', () => {
    const ds = ofPass(diagnose(outOfInstance), 'domains');
    expect(ds.map(d => d.message)).toEqual(['output q of u_stage (from register r (clock clk) inside, clock clk_b here) is used by register ra (domain a, clock clk_a)']);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('out'));
  });

  it('waives a crossing named with m.crossing and writes the reason beside the declaration', () => {
    expect(diagnose(waived)).toEqual([]);
    const v = emitTop(waived).files.get('cx_waived.v')!;
    expect(v).toContain('// clock-domain crossing: quasi-static: written once while the b side is held in reset\nreg  [3:0] ra;');
    expect(() => waived.elaborate() && defineModule('cx_no_reason', {}, m => {
      const r = m.reg('r', Bool, { reset: null });
      m.crossing(r, ' ');
      return {};
    }).elaborate()).toThrow(/m\.crossing needs a reason/);
  });

  it('reports a memory written in one clock domain and read in another unless waived', () => {
    const ds = ofPass(diagnose(dualClockRam(false)), 'domains');
    expect(ds.map(d => d.message)).toEqual(['memory mem is written and read in different clock domains (read in domain b, clock clk_b)']);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('ram'));
    expect(ofPass(diagnose(dualClockRam(true)), 'domains')).toEqual([]);
  });

  it('treats two domains on one clock (different resets) as one clock', () => {
    expect(diagnose(oneClockTwoResets)).toEqual([]);
  });

  it('still reports a crossing inside one module', () => {
    const inside = defineModule('cx_inside', {}, m => {
      const { ports, a, b } = twoDomains(m);
      const x = m.input('x', Bool);
      const y = m.output('y', Bool);
      const ra = m.reg('ra', Bool, { domain: a });
      const rb = m.reg('rb', Bool, { domain: b });
      ra.set(x);
      rb.set(ra); // @here:inside
      y.set(rb);
      return { ...ports, x, y };
    });
    const ds = ofPass(diagnose(inside), 'domains');
    expect(ds.map(d => d.message)).toEqual(['register ra (domain a, clock clk_a) is used by register rb (domain b, clock clk_b)']);
    expect(fileLine(ds[0]!.loc)).toBe(here.at('inside'));
  });
});
