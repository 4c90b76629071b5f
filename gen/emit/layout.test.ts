// What a reader of the Verilog sees of the TS declarations: each struct-typed port carries its
// field layout beside it, and FSM states become localparams in the order they were declared.

import { describe, expect, it } from 'vitest';
import { Bool, Enum, SInt, Struct, UInt, Vec, defineModule } from '../hdl/index.ts';
import { stream } from '../lib/interfaces.ts';
import { verilatorLint, emitToDir } from '../lib/lint-helper.ts';
import { emitTop } from './index.ts';

const Inner = Struct('inner', { a: UInt(3), b: Bool });
const Hdr = Struct('hdr', { op: UInt(4), len: UInt(12), inner: Inner, offs: SInt(5), kind: Enum('kind', ['X', 'Y', 'Z']), lanes: Vec(UInt(2), 3) });

const layout = defineModule('ly_layout', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const s = stream(Hdr).sink(m, 's');
  const o = stream(Hdr).source(m, 'm');
  const many = m.input('many', Vec(Inner, 2));
  const y = m.output('y', Vec(Inner, 2));
  s.ready.set(o.ready);
  o.valid.set(s.valid);
  o.data.set(s.data);
  y.set(many);
  const fsm = m.fsm('state', ['IDLE', 'FETCH', 'WAIT', 'DONE', 'ABORT'] as const);
  fsm.states({
    IDLE: () => m.if(s.valid, () => fsm.goto('FETCH')),
    FETCH: () => fsm.goto('WAIT'),
    WAIT: () => m.if(o.ready, () => fsm.goto('DONE')).elif(s.valid.lnot(), () => fsm.goto('ABORT')),
    DONE: () => fsm.goto('IDLE'),
    ABORT: () => fsm.goto('IDLE'),
  });
  const busy = m.output('busy', Bool);
  busy.set(fsm.is('IDLE').lnot());
  return { clk, rst, s, m: o, many, y, busy };
});

describe('the Verilog shows the TS declarations', () => {
  const v = emitTop(layout).files.get('ly_layout.v')!;

  it('writes the field layout beside each struct-typed port, first field at the low bits', () => {
    const hdr = 'struct hdr: op [3:0], len [15:4], inner [19:16] (struct inner), offs [24:20] (signed), kind [26:25] (enum kind), lanes [32:27] (3 x 2 bits)';
    expect(v).toMatch(new RegExp(`input  wire \\[32:0\\] s_data, +// ${hdr.replace(/[[\]()]/g, c => `\\${c}`)}\\n`));
    expect(v).toMatch(/output wire \[32:0\] m_data, +\/\/ struct hdr: op \[3:0\]/);
    expect(v).toMatch(/input  wire \[7:0\] +many, +\/\/ 2 x struct inner: a \[2:0\], b \[3\] \(element i at \[i\*4 \+: 4\]\)/);
    expect(v).not.toMatch(/s_valid.*\/\//);
    verilatorLint(emitToDir(layout));
  });

  it('emits FSM states as localparams in the order they were declared', () => {
    const params = [...v.matchAll(/localparam \[2:0\] (STATE_\w+) = 3'd(\d);/g)].map(m => `${m[1]}=${m[2]}`);
    expect(params).toEqual(['STATE_IDLE=0', 'STATE_FETCH=1', 'STATE_WAIT=2', 'STATE_DONE=3', 'STATE_ABORT=4']);
  });
});
