// Clock and reset ports as FPGA IP has them: names per module (aclk/aresetn), active-low and
// asynchronous resets emitted as `always @(posedge aclk or negedge aresetn)`, registers without
// reset kept out of that block, and instances whose default clock and reset connect to the
// parent's across names and polarities. Each design passes Verilator -Wall, Icarus and Yosys,
// and Icarus shows the asynchronous reset acting without a clock edge.

import { describe, expect, it } from 'vitest';
import { Bool, UInt, axiClockReset, defineModule } from '../hdl/index.ts';
import { syncFifo } from '../lib/fifo.ts';
import { emitToDir, iverilogRun, verilatorLint, yosysSynth } from '../lib/lint-helper.ts';
import { emitTop } from './index.ts';

const axiCounter = defineModule('rs_axi_counter', {}, m => {
  const { clk: aclk, rst: aresetn } = m.clockAndReset(axiClockReset);
  const en = m.input('en', Bool);
  const d = m.input('d', UInt(8));
  const count = m.output('count', UInt(8));
  const last = m.output('last', UInt(8));
  const value = m.reg('value_reg', UInt(8), { reset: 5 });
  // No reset: a data register, as FPGA IP leaves them.
  const held = m.reg('held_reg', UInt(8), { reset: null });
  m.if(en, () => {
    value.set(value.addw(1));
    held.set(d);
  });
  count.set(value);
  last.set(held);
  return { aclk, aresetn, en, d, count, last };
});

const syncLow = defineModule('rs_sync_low', {}, m => {
  const { clk, rst: rst_n } = m.clockAndReset({ reset: 'rst_n', resetActive: 'low' });
  const y = m.output('y', Bool);
  const r = m.reg('r_reg', Bool, { reset: 1 });
  r.set(r.lnot());
  y.set(r);
  return { clk, rst_n, y };
});

const asyncHigh = defineModule('rs_async_high', {}, m => {
  const { clk, rst } = m.clockAndReset({ resetKind: 'async' });
  const y = m.output('y', Bool);
  const r = m.reg('r_reg', Bool);
  r.set(r.lnot());
  y.set(r);
  return { clk, rst, y };
});

/** An AXI-style parent with a library FIFO (clk, rst active high) and an AXI child inside. */
const axiParent = defineModule('rs_axi_parent', {}, m => {
  const { clk: aclk, rst: aresetn } = m.clockAndReset(axiClockReset);
  const d = m.input('d', UInt(8));
  const y = m.output('y', UInt(8));
  const z = m.output('z', UInt(8));
  const fifo = m.instance('u_fifo', syncFifo, { width: 8, depth: 4 });
  fifo.s.valid.set(1);
  fifo.s.data.set(d);
  fifo.m.ready.set(1);
  m.unused(fifo.s.ready, 'always offered'); m.unused(fifo.count, 'not needed'); m.unused(fifo.full, 'not needed'); m.unused(fifo.empty, 'not needed');
  m.unused(fifo.m.valid, 'not needed');
  y.set(fifo.m.data);
  const c = m.instance('u_cnt', axiCounter);
  c.en.set(1);
  c.d.set(d);
  m.unused(c.last, 'not needed');
  z.set(c.count);
  return { aclk, aresetn, d, y, z };
});

describe('clock and reset ports', () => {
  it('emits an asynchronous active-low reset as FPGA IP does, registers without reset in their own block', () => {
    const v = emitTop(axiCounter).files.get('rs_axi_counter.v')!;
    expect(v).toContain('input  wire       aclk,');
    expect(v).toContain('input  wire       aresetn,');
    expect(v).toMatch(/always @\(posedge aclk or negedge aresetn\) begin\n {4}if \(!aresetn\) begin\n {8}value_reg <= 8'd5;\n {4}end else begin\n {8}if \(en\) begin\n {12}value_reg <= value_reg \+ 8'd1;/);
    // held_reg has no reset: it is not in the reset block.
    const asyncBlock = v.slice(v.indexOf('negedge aresetn'), v.indexOf('registers without reset'));
    expect(asyncBlock).not.toContain('held_reg');
    expect(v).toMatch(/registers without reset\nalways @\(posedge aclk\) begin\n {4}if \(en\) begin\n {8}held_reg <= d;/);
    const e = emitToDir(axiCounter);
    verilatorLint(e);
    yosysSynth(e);
  });

  it('emits synchronous active-low and asynchronous active-high resets', () => {
    expect(emitTop(syncLow).files.get('rs_sync_low.v')).toMatch(/always @\(posedge clk\) begin\n {4}r_reg <= !r_reg;\n {4}if \(!rst_n\) begin\n {8}r_reg <= 1'd1;/);
    expect(emitTop(asyncHigh).files.get('rs_async_high.v')).toMatch(/always @\(posedge clk or posedge rst\) begin\n {4}if \(rst\) begin/);
    for (const e of [emitToDir(syncLow), emitToDir(asyncHigh)]) {
      verilatorLint(e);
      yosysSynth(e);
    }
  });

  it('records the domains in the manifest (tb.reset reads the reset port and polarity from it)', () => {
    expect(emitTop(axiCounter).manifest.domains).toEqual([{ name: 'sync', clock: 'aclk', reset: 'aresetn', resetKind: 'async', resetActive: 'low' }]);
    expect(emitTop(syncLow).manifest.domains).toEqual([{ name: 'sync', clock: 'clk', reset: 'rst_n', resetKind: 'sync', resetActive: 'low' }]);
  });

  it('connects a child\'s default clock and reset to the parent\'s across names, inverting between polarities', () => {
    const e = emitTop(axiParent);
    const v = e.files.get('rs_axi_parent.v')!;
    expect(v).toContain('.clk(aclk),');
    expect(v).toContain('.rst(u_fifo_rst),');
    expect(v).toMatch(/assign u_fifo_rst = ~aresetn;/);
    // Same polarity: the parent's reset itself.
    expect(v).toContain('.aclk(aclk),');
    expect(v).toContain('.aresetn(aresetn),');
    const dir = emitToDir(axiParent);
    verilatorLint(dir);
    yosysSynth(dir);
  });

  it('clears asynchronously: the registers take their reset values with no clock edge (Icarus)', () => {
    const e = emitToDir(axiCounter);
    const out = iverilogRun(e, `
module tb;
  reg aclk = 0, aresetn = 1, en = 1;
  reg [7:0] d = 8'h3c;
  wire [7:0] count, last;
  rs_axi_counter dut (.aclk(aclk), .aresetn(aresetn), .en(en), .d(d), .count(count), .last(last));
  initial begin
    #1 aresetn = 0;                    // asserted between edges, clock stopped
    #1 $display("in reset, no edge: count=%0d", count);
    aresetn = 1;
    #1 aclk = 1; #1 aclk = 0; #1 aclk = 1; #1 aclk = 0;
    $display("two edges later: count=%0d last=%0h", count, last);
    #1 aresetn = 0;
    #1 $display("reset again: count=%0d last=%0h", count, last);
    $finish;
  end
endmodule
`);
    expect(out).toContain('in reset, no edge: count=5');
    expect(out).toContain('two edges later: count=7 last=3c');
    // held_reg has no reset and keeps its value.
    expect(out).toContain('reset again: count=5 last=3c');
  });
});
