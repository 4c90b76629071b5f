import { describe, expect, it } from 'vitest';
import { emitTop } from './index.ts';
import { allDesigns, TwoRoms } from '../test-support/designs.ts';
import { runGates, type VerilogSet } from '../test-support/gates.ts';

const bad = (name: string, text: string): VerilogSet => ({ top: name, files: new Map([[`${name}.v`, `\`default_nettype none\n${text}`]]) });

describe('the gates themselves', () => {
  it('pass clean Verilog', () => {
    const g = runGates(bad('ok', 'module ok(input wire a, input wire b, output wire q);\nassign q = a & b;\nendmodule\n'));
    expect(g.report).toBe('');
    expect(g.ok).toBe(true);
  });

  it('Yosys flags a latch (check -assert alone does not)', () => {
    const g = runGates(bad('latch', 'module latch(input wire en, input wire d, output reg q);\nalways @* begin\n  if (en) q = d;\nend\nendmodule\n'));
    expect(g.yosys.ok).toBe(false);
    expect(g.yosys.output).toMatch(/selection is not empty/);
  });

  it('Yosys flags an undriven wire (checked before synth)', () => {
    const g = runGates(bad('undr', 'module undr(input wire a, output wire q);\nwire w;\nassign q = a & w;\nendmodule\n'));
    expect(g.yosys.ok).toBe(false);
    expect(g.yosys.output).toMatch(/no driver/);
  });

  it('Yosys flags a combinational loop and two drivers; Verilator flags unused bits', () => {
    expect(runGates(bad('loop', 'module loop(input wire a, output wire q);\nwire x;\nwire y;\nassign x = y ^ a;\nassign y = x;\nassign q = y;\nendmodule\n')).yosys.output).toMatch(/logic loop/);
    const multi = runGates(bad('multi', 'module multi(input wire a, input wire b, output wire q);\nassign q = a;\nassign q = b;\nendmodule\n'));
    // Verilator 5.006 accepts two `assign`s to one wire; Yosys' check does not.
    expect(multi.yosys.output).toMatch(/multiple conflicting drivers/);
    expect(multi.ok).toBe(false);
    const unused = runGates(bad('unused', 'module unused(input wire [1:0] a, output wire q);\nassign q = a[0];\nendmodule\n'));
    expect(unused.verilator.output).toMatch(/UNUSED/);
  });
});

/** A top `pair` around one child `leaf`; `top` and `leaf` are module bodies. */
const withChild = (top: string, leaf: string): VerilogSet => ({
  top: 'pair',
  files: new Map([
    ['leaf.v', `\`default_nettype none\nmodule leaf(input wire en, input wire d, output reg q);\n${leaf}\nendmodule\n`],
    ['pair.v', `\`default_nettype none\nmodule pair(input wire en, input wire d, output wire q);\n${top}\nendmodule\n`],
  ]),
});
const goodLeaf = 'always @* q = en & d;';
const leafInst = 'leaf u_leaf(.en(en), .d(d), .q(q));';

// `nicgen lint` synthesizes each module's own body with its submodules as black boxes (every
// module of a top gets its own gate): the top's faults must still show, and a child's fault is
// left to the child's gate.
describe("the Yosys gate in 'module' scope (children as black boxes)", () => {
  it('passes a clean top and sees its child only through the ports', () => {
    expect(runGates(withChild(leafInst, goodLeaf), 'module').report).toBe('');
  });

  it('flags two drivers of one wire where one is a child output', () => {
    const g = runGates(withChild(`wire w;\nleaf u_leaf(.en(en), .d(d), .q(w));\nassign w = d;\nassign q = w;`, goodLeaf), 'module');
    expect(g.yosys.ok).toBe(false);
    expect(g.yosys.output).toMatch(/multiple conflicting drivers/);
  });

  it('flags a latch and an undriven wire in the top itself', () => {
    const latch = runGates(withChild(`reg l;\nalways @* if (en) l = d;\nwire w;\nleaf u_leaf(.en(l), .d(d), .q(w));\nassign q = w;`, goodLeaf), 'module');
    expect(latch.yosys.output).toMatch(/selection is not empty/);
    const undriven = runGates(withChild(`wire w;\nwire u;\nleaf u_leaf(.en(en), .d(u), .q(w));\nassign q = w;`, goodLeaf), 'module');
    expect(undriven.yosys.output).toMatch(/no driver/);
  });

  it("flags a port the child does not have", () => {
    const g = runGates(withChild('leaf u_leaf(.en(en), .dd(d), .q(q));', goodLeaf), 'module');
    expect(g.yosys.ok).toBe(false);
  });

  it("leaves a child's latch to the child's own gate (the whole-hierarchy scope sees it)", () => {
    const latchLeaf = 'always @* if (en) q = d;';
    expect(runGates(withChild(leafInst, latchLeaf), 'module').yosys.ok).toBe(true);
    expect(runGates(withChild(leafInst, latchLeaf)).yosys.output).toMatch(/selection is not empty/);
    expect(runGates({ top: 'leaf', files: new Map([...withChild(leafInst, latchLeaf).files].filter(([f]) => f === 'leaf.v')) }, 'module').yosys.output).toMatch(/selection is not empty/);
  });
});

describe('every emitted module passes verilator -Wall, iverilog -g2005 and yosys synth + check -assert', () => {
  it.each(Object.entries(allDesigns))('%s', (_name, def) => {
    const g = runGates(emitTop(def as Parameters<typeof emitTop>[0]));
    expect(g.report).toBe('');
  });


  it('two memories with initial contents in one module', () => {
    const g = runGates(emitTop(TwoRoms));
    expect(g.report).toBe('');
  });
});
