import { describe, expect, it } from 'vitest';
import { Bool, Clock, DslError, Enum, SInt, Struct, UInt, defineBlackBox, defineModule, moduleName } from './index.ts';
import { declText, exprText, stmtText } from '../test-support/ir-text.ts';

describe('statement trees', () => {
  it('if / elif / else nest the assignments under their conditions', () => {
    const M = defineModule('t_if', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const a = m.input('a', UInt(4));
      const y = m.output('y', UInt(4));
      const r = m.reg('r', UInt(4));
      m.if(a.eq(1), () => { y.set(1); r.set(a); })
        .elif(a.eq(2), () => {
          m.if(a.bit(0), () => y.set(2));
        })
        .else(() => y.set(3));
      return { clk, rst, a, y };
    });
    expect(stmtText(M.elaborate().body)).toBe([
      "if (eq u1 a 4'd1)",
      "  y = 4'd1",
      '  r <= a',
      "elif (eq u1 a 4'd2)",
      '  if (slice u1 a 0)',
      "    y = 4'd2",
      'else',
      "  y = 4'd3",
    ].join('\n'));
  });

  it('switch / case / default, with several values per case and enum names', () => {
    const St = Enum('mode', ['OFF', 'SLOW', 'FAST']);
    const M = defineModule('t_switch', {}, m => {
      const a = m.input('a', UInt(3));
      const mode = m.input('mode', St);
      const y = m.output('y', UInt(2));
      const z = m.output('z', Bool);
      m.switch(a).case(0, () => y.set(1)).case([1, 2], () => y.set(2)).default(() => y.set(3));
      m.switch(mode).case('FAST', () => z.set(1));
      return { a, mode, y, z };
    });
    expect(stmtText(M.elaborate().body)).toBe([
      'switch a',
      "  case 3'd0",
      "    y = 2'd1",
      "  case 3'd1, 3'd2",
      "    y = 2'd2",
      '  default',
      "    y = 2'd3",
      'switch mode',
      '  case MODE_FAST',
      "    z = 1'd1",
    ].join('\n'));
  });

  it('misplaced elif / case after default / wide conditions are DslErrors', () => {
    expect(() => defineModule('t_bad_cond', {}, m => {
      const a = m.input('a', UInt(4));
      m.if(a, () => undefined);
      return { a };
    }).elaborate()).toThrow(/condition is 4 bits wide[^]*hint: conditions must be one bit/);
    expect(() => defineModule('t_bad_default', {}, m => {
      const a = m.input('a', UInt(2));
      const y = m.output('y', Bool);
      const sw = m.switch(a);
      sw.default(() => y.set(0));
      sw.case(1, () => y.set(1));
      return { a, y };
    }).elaborate()).toThrow(/case after default[^]*put .default\(\) last/);
    expect(() => defineModule('t_bad_else', {}, m => {
      const a = m.input('a', Bool);
      const y = m.output('y', Bool);
      const chain = m.if(a, () => y.set(1));
      y.set(0);
      chain.else(() => y.set(1));
      return { a, y };
    }).elaborate()).toThrow(/must directly follow/);
  });

  it('FSM: an enum state register with reset to the first state and one case per state', () => {
    const M = defineModule('t_fsm', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const go = m.input('go', Bool);
      const busy = m.output('busy', Bool);
      const fsm = m.fsm('state', ['IDLE', 'RUN', 'DONE'] as const);
      fsm.states({
        IDLE: () => { m.if(go, () => fsm.goto('RUN')); },
        RUN: () => fsm.goto('DONE'),
        DONE: () => fsm.goto('IDLE'),
      });
      busy.set(fsm.is('RUN'));
      return { clk, rst, go, busy };
    });
    const ir = M.elaborate();
    expect(ir.fsms.map(f => ({ name: f.name, signal: f.signal.name, states: f.states }))).toEqual([{ name: 'state', signal: 'state', states: { IDLE: 0, RUN: 1, DONE: 2 } }]);
    expect(declText(ir)).toContain('reg state u2 reset=0 @sync');
    expect(stmtText(ir.body)).toBe([
      'switch state',
      '  case STATE_IDLE',
      '    if go',
      '      state <= STATE_RUN',
      '  case STATE_RUN',
      '    state <= STATE_DONE',
      '  case STATE_DONE',
      '    state <= STATE_IDLE',
      'busy = (eq u1 state STATE_RUN)',
    ].join('\n'));
  });

  it('FSM reset state can be chosen', () => {
    const M = defineModule('t_fsm_reset', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const y = m.output('y', Bool);
      const fsm = m.fsm('st', ['A', 'B'] as const, { reset: 'B' });
      fsm.states({ A: () => fsm.goto('B'), B: () => fsm.goto('A') });
      y.set(fsm.is('A'));
      return { clk, rst, y };
    });
    expect(declText(M.elaborate())).toContain('reg st u1 reset=1 @sync');
  });

  it('registers record reset, domain and enable; wires their default', () => {
    const M = defineModule('t_regs', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const clk2 = m.input('clk2', Clock);
      const arst = m.input('arst', Bool);
      const en = m.input('en', Bool);
      const io = m.domain('io', { clock: clk2, reset: arst, resetKind: 'async' });
      const a = m.reg('a', UInt(4), { reset: 5 });
      const b = m.reg('b', SInt(4), { reset: -2, domain: io });
      const c = m.reg('c', UInt(4), { reset: null, enable: en });
      const w = m.wire('w', UInt(4), { default: 9 });
      const y = m.output('y', UInt(4));
      a.set(c); b.set(b); c.set(a); w.set(a); y.set(w);
      return { clk, rst, clk2, arst, en, y };
    });
    const ir = M.elaborate();
    expect(declText(ir).split('\n').filter(l => !l.startsWith('input') && !l.startsWith('output'))).toEqual([
      'reg a u4 reset=5 @sync',
      'reg b s4 reset=-2 @io',
      'reg c u4 reset=none @sync en=en',
      'wire w u4 default=9',
    ]);
    const io = ir.domains.get('io')!;
    expect([io.clock?.name, io.reset?.name, io.resetKind]).toEqual(['clk2', 'arst', 'async']);
    const sync = ir.domains.get('sync')!;
    expect([sync.clock?.name, sync.reset?.name, sync.resetKind]).toEqual(['clk', 'rst', 'sync']);
  });

  it('a reset value that does not fit is a DslError', () => {
    expect(() => defineModule('t_reset_fit', {}, m => {
      m.reg('r', UInt(3), { reset: 8 });
      return {};
    }).elaborate()).toThrow(/constant 8 does not fit in UInt\(3\)/);
  });

  it('memory ports: write (with lane mask) under conditions, registered reads', () => {
    const M = defineModule('t_mem', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const we = m.input('we', Bool);
      const be = m.input('be', UInt(4));
      const addr = m.input('addr', UInt(3));
      const wdata = m.input('wdata', UInt(32));
      const q = m.output('q', UInt(32));
      const ram = m.memory('ram', UInt(32), 8, { init: [1, 2] });
      m.if(we, () => ram.write(addr, wdata, { enable: be, laneWidth: 8 }));
      q.set(ram.read(addr, { enable: we.lnot() }));
      return { clk, rst, we, be, addr, wdata, q };
    });
    const ir = M.elaborate();
    const ram = ir.memories[0]!;
    expect([ram.name, ram.depth, ram.shape.width, ram.init]).toEqual(['ram', 8, 32, [1n, 2n]]);
    expect(ram.writePorts.map(p => [p.domain.name, p.laneWidth])).toEqual([['sync', 8]]);
    expect(ram.readPorts.map(p => [exprText(p.addr), p.enable && exprText(p.enable), p.domain.name])).toEqual([['addr', '(lnot u1 we)', 'sync']]);
    expect(stmtText(ir.body)).toBe(['if we', '  ram[addr] <= wdata mask be (port 0)', 'q = (memread u32 ram 0)'].join('\n'));
  });

  it('memory misuse is a DslError', () => {
    const bad = (build: Parameters<typeof defineModule>[2]) => () => defineModule('t_mem_bad', {}, build).elaborate();
    expect(bad(m => { m.memory('r', UInt(8), 1); return {}; })).toThrow(/memory depth 1/);
    expect(bad(m => { m.memory('r', UInt(8), 4, { init: [256] }); return {}; })).toThrow(/init word 0 \(256\) does not fit in 8 bits/);
    expect(bad(m => { m.memory('r', UInt(8), 2, { init: [1, 2, 3] }); return {}; })).toThrow(/3 init words for a memory of depth 2/);
    expect(bad(m => { const a = m.input('a', UInt(3)); m.memory('r', UInt(8), 4).read(a); return { a }; })).toThrow(/address is 3 bits, memory r needs 2[^]*trunc\(2\)/);
    expect(bad(m => {
      const a = m.input('a', UInt(2)); const be = m.input('be', UInt(3));
      m.memory('r', UInt(8), 4).write(a, 0, { enable: be, laneWidth: 8 }); return { a, be };
    })).toThrow(/write mask of 3 lanes × 8 bits does not cover the 8-bit word/);
  });

  it('assertions record condition, message and domain', () => {
    const M = defineModule('t_assert', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const a = m.input('a', UInt(4));
      m.assert(a.ne(15), 'a is never 15');
      return { clk, rst, a };
    });
    expect(stmtText(M.elaborate().body)).toBe("assert (ne u1 a 4'd15) \"a is never 15\" @sync");
  });
});

describe('instances', () => {
  const Child = defineModule('child', { width: 4 }, (m, p) => {
    const { clk, rst } = m.clockAndReset();
    const d = m.input('d', UInt(p.width));
    const q = m.output('q', UInt(p.width));
    const r = m.reg('r', UInt(p.width));
    r.set(d);
    q.set(r);
    return { clk, rst, d, q };
  });

  it('connects clk/rst to the parent\'s and makes <inst>_<port> wires for the rest', () => {
    const Parent = defineModule('parent', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const x = m.input('x', UInt(8));
      const y = m.output('y', UInt(8));
      const u = m.instance('u_child', Child, { width: 8 });
      u.d.set(x);
      y.set(u.q);
      return { clk, rst, x, y };
    });
    const ir = Parent.elaborate();
    const inst = ir.instances[0]!;
    expect(inst.name).toBe('u_child');
    expect(inst.module).toBe(Child.elaborate({ width: 8 }));
    expect([...inst.connections].map(([port, sig]) => `${port}->${sig.name}:${sig.kind}`)).toEqual([
      'clk->clk:input', 'rst->rst:input', 'd->u_child_d:wire', 'q->u_child_q:wire',
    ]);
    expect(stmtText(ir.body)).toBe(['u_child_d = x', 'y = u_child_q'].join('\n'));
  });

  it('assigning an automatically connected clk is a DslError, not a TypeError', () => {
    // InstanceIO types every child input as an assignable Sig; the auto-connected clk is not one.
    expect(() => defineModule('parent_setclk', {}, m => {
      const { clk, rst } = m.clockAndReset();
      const u = m.instance('u', Child);
      u.d.set(0);
      u.clk.set(clk);
      return { clk, rst };
    }).elaborate()).toThrow(DslError);
  });

  it('without parent clk/rst the child clock is an ordinary connection wire', () => {
    const Parent = defineModule('parent_noclk', {}, m => {
      const c = m.input('c', Clock);
      const u = m.instance('u', Child);
      u.clk.set(c);
      return { c };
    });
    const ir = Parent.elaborate();
    expect(ir.instances[0]!.connections.get('clk')!.name).toBe('u_clk');
  });

  it('black boxes keep only their ports', () => {
    const Bb = defineBlackBox('vendor_pll', m => ({ ref: m.input('ref', Clock), out: m.output('out', Clock) }), { verilog: 'module vendor_pll(input ref, output out); endmodule\n' });
    const ir = Bb.elaborate();
    expect(ir.blackBox).toEqual({ source: 'module vendor_pll(input ref, output out); endmodule\n' });
    expect(ir.ports.map(p => `${p.signal.kind} ${p.signal.name}`)).toEqual(['input ref', 'output out']);
    expect(ir.body).toEqual([]);
  });
});

describe('module definitions', () => {
  it('moduleName appends the parameters that differ from the defaults, sorted, snake_case', () => {
    const d = { width: 8, depth: 16, dataWidth: 4, signedOut: false };
    expect(moduleName('sync_fifo', d, d)).toBe('sync_fifo');
    expect(moduleName('sync_fifo', d, { ...d, width: 32, depth: 64 })).toBe('sync_fifo_depth64_width32');
    expect(moduleName('sync_fifo', d, { ...d, dataWidth: 12 })).toBe('sync_fifo_data_width12');
    expect(moduleName('sync_fifo', d, { ...d, width: -3 })).toBe('sync_fifo_widthm3');
    expect(moduleName('sync_fifo', d, { ...d, signedOut: true })).toBe('sync_fifo_signed_out1');
    expect(moduleName('m', { mode: 'fast' }, { mode: 'Slow-2' })).toBe('m_modeslow2');
    expect(moduleName('m', { big: 1n }, { big: 1n << 40n })).toBe('m_big1099511627776');
    expect(moduleName('m', { lanes: [1, 2] }, { lanes: [1, 3] })).toMatch(/^m_lanes[0-9a-f]{8}$/);
  });

  it('elaboration names the IR from its parameters', () => {
    const Fifo = defineModule('fifo', { width: 8, depth: 4 }, (m, p) => {
      const d = m.input('d', UInt(p.width));
      const q = m.output('q', UInt(p.width));
      q.set(d);
      return { d, q };
    });
    expect(Fifo.elaborate().name).toBe('fifo');
    expect(Fifo.elaborate({ width: 16 }).name).toBe('fifo_width16');
    expect(Fifo.elaborate({ width: 16 }).params).toEqual({ width: 16, depth: 4 });
  });

  it('the same parameters give the same IR object (elaborated once)', () => {
    let runs = 0;
    const D = defineModule('cached', { width: 8, opts: { a: 1, b: 2 } }, (m, p) => {
      runs++;
      const d = m.input('d', UInt(p.width));
      const q = m.output('q', UInt(p.width));
      q.set(d);
      return { d, q };
    });
    const a = D.elaborate();
    expect(D.elaborate({})).toBe(a);
    expect(D.elaborate({ width: 8 })).toBe(a);
    expect(D.elaborate({ opts: { b: 2, a: 1 } })).toBe(a);
    const b = D.elaborate({ width: 9 });
    expect(b).not.toBe(a);
    expect(D.elaborate({ width: 9 })).toBe(b);
    expect(runs).toBe(2);
  });

  it('module names must be lower_snake_case, identifiers legal', () => {
    expect(() => defineModule('MyMod', {}, () => ({}))).toThrow(/module name 'MyMod' is not lower_snake_case/);
    expect(() => defineModule('t_ident', {}, m => { m.wire('9lives', Bool); return {}; }).elaborate()).toThrow(/'9lives' is not a valid Verilog identifier/);
  });

  it('every port must be returned, and only ports', () => {
    expect(() => defineModule('t_missing', {}, m => { m.input('a', Bool); return {}; }).elaborate()).toThrow(/ports a of t_missing are not in the returned IO record/);
    // Returning a register or wire instead of an output is an easy slip; it must not pass silently.
    expect(() => defineModule('t_notport', {}, m => { const w = m.reg('count', Bool, { reset: null }); w.set(w); return { count: w } as never; }).elaborate())
      .toThrow(/'count' returned by t_notport is reg count, not a port/);
  });

  it('nested IO records give port paths', () => {
    const S = Struct('s', { a: UInt(2) });
    const M = defineModule('t_paths', {}, m => {
      const tdata = m.input('s_axis_tdata', S);
      const tvalid = m.input('s_axis_tvalid', Bool);
      const y = m.output('y', UInt(2));
      y.set(tdata.field('a').and(tvalid.zext(2)));
      return { s_axis: { tdata, tvalid }, y };
    });
    expect(M.elaborate().ports.map(p => p.path.join('.'))).toEqual(['s_axis.tdata', 's_axis.tvalid', 'y']);
  });
});
