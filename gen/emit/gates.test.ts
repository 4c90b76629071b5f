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
