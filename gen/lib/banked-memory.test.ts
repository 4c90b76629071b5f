// bankedMemory in Icarus against a register model: random writes of several banks (different
// rows in one cycle), clears racing writes, a read port checked every cycle; and the lint gate.

import { describe, expect, it } from 'vitest';
import { UInt, defineModule } from '../hdl/index.ts';
import { bankedMemory } from './banked-memory.ts';
import { emitToDir, iverilogRun, verilatorLint } from './lint-helper.ts';
import { indexWidth } from './util.ts';
import { seededRandom } from '../../tb/tests/seed.ts';

const W = 12;
const BANKS = ['a', 'b', 'c'];
const bankedTest = defineModule('banked_memory_test', { banks: 2, rows: 4, zeroFlag: true }, (m, p) => {
  const { clk, rst } = m.clockAndReset();
  const aw = indexWidth(p.rows);
  const we = m.input('we', UInt(p.banks));
  const row = m.input('row', UInt(p.banks * aw));
  const data = m.input('data', UInt(p.banks * W));
  const clr = m.input('clr', UInt(p.rows));
  const rdRow = m.input('rd_row', UInt(aw));
  const rdData = m.output('rd_data', UInt(W));
  const mem = bankedMemory(m, 'word', UInt(W), { banks: BANKS.slice(0, p.banks), rows: p.rows, zeroFlag: p.zeroFlag });
  rdData.set(mem.read(rdRow));
  for (let k = 0; k < p.banks; k++) mem.write(BANKS[k]!, we.bit(k), row.bits((k + 1) * aw - 1, k * aw), data.bits((k + 1) * W - 1, k * W));
  if (p.zeroFlag) mem.clearRows(clr); else { m.unused(clr, 'no zero flag'); m.unused(rst, 'no flag to reset'); }
  return { clk, rst, we, row, data, clr, rd_row: rdRow, rd_data: rdData };
});

function check(banks: number, rows: number, zeroFlag: boolean): void {
  const { rng, seed } = seededRandom();
  const aw = indexWidth(rows);
  const e = emitToDir(bankedTest, { banks, rows, zeroFlag });
  // The register model: what `reg [W-1:0] word [rows]` with a synchronous clear would hold.
  const model: (number | null)[] = Array.from({ length: rows }, () => (zeroFlag ? 0 : null));
  const lines: string[] = [];
  const expected: string[] = [];
  for (let c = 0; c < 400; c++) {
    const rdRow = rng.int(0, rows - 1);
    const got = model[rdRow];
    lines.push(`step(${banks}'d0, 0, 0, 0, ${rdRow}); @(negedge clk); $display("R %0d", rd_data);`);
    expected.push(`R ${got ?? 'x'}`);
    // this cycle's writes (distinct rows), clears, then the edge
    const free = Array.from({ length: rows }, (_, i) => i);
    let weBits = 0, rowBits = 0n, dataBits = 0n;
    const wrote: [number, number][] = [];
    for (let k = 0; k < banks; k++) {
      if (rng.int(0, 1) === 0 || free.length === 0) continue;
      const r = free.splice(rng.int(0, free.length - 1), 1)[0]!;
      const d = rng.int(0, (1 << W) - 1);
      weBits |= 1 << k; rowBits |= BigInt(r) << BigInt(k * aw); dataBits |= BigInt(d) << BigInt(k * W);
      wrote.push([r, d]);
    }
    const clr = zeroFlag && rng.int(0, 5) === 0 ? rng.int(0, (1 << rows) - 1) : 0;
    for (const [r, d] of wrote) model[r] = d;
    for (let i = 0; i < rows; i++) if ((clr >> i) & 1) model[i] = 0;
    lines.push(`step(${banks}'d${weBits}, ${banks * aw}'d${rowBits}, ${banks * W}'d${dataBits}, ${rows}'d${clr}, ${rdRow}); @(posedge clk); #1;`);
  }
  const tb = `\`timescale 1ns/1ps
module tb;
reg clk = 0, rst = 1;
reg [${banks - 1}:0] we = 0; reg [${banks * aw - 1}:0] row = 0; reg [${banks * W - 1}:0] data = 0;
reg [${rows - 1}:0] clr = 0; reg [${aw - 1}:0] rd_row = 0; wire [${W - 1}:0] rd_data;
${e.top} dut(.clk(clk), .rst(rst), .we(we), .row(row), .data(data), .clr(clr), .rd_row(rd_row), .rd_data(rd_data));
always #5 clk = !clk;
task step(input [${banks - 1}:0] w, input [${banks * aw - 1}:0] r, input [${banks * W - 1}:0] d, input [${rows - 1}:0] c, input [${aw - 1}:0] q);
  begin we = w; row = r; data = d; clr = c; rd_row = q; end
endtask
initial begin
  @(posedge clk); @(posedge clk); #1 rst = 0;
${lines.map(l => `  ${l}`).join('\n')}
  $finish;
end
endmodule
`;
  const got = iverilogRun(e, tb).split('\n').filter(l => l.startsWith('R '));
  // A row never written (no zero flag) reads X in Icarus: the model says 'x', anything goes.
  expect(got.map((g, i) => (expected[i] === 'R x' ? 'R x' : g)), `seed=${seed} dir=${e.dir}`).toEqual(expected);
}

describe('bankedMemory reads like a register of the row', () => {
  it('two banks, zero flag (4 rows)', () => check(2, 4, true));
  it('three banks, zero flag (3 rows)', () => check(3, 3, true));
  it('one bank, no zero flag (8 rows)', () => check(1, 8, false));
  it('lints clean (Verilator -Wall)', () => {
    verilatorLint(emitToDir(bankedTest, { banks: 2, rows: 4, zeroFlag: true }));
    verilatorLint(emitToDir(bankedTest, { banks: 1, rows: 2, zeroFlag: false }));
  });
});
