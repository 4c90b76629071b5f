// Functional checks of the emitted Verilog with Icarus (no dependency on sim/): the CRC module
// against the software model, and the stream blocks for order, loss and throughput.

import { describe, expect, it } from 'vitest';
import { CRC32, crcModel, crcParallel } from './crc.ts';
import { syncFifo, syncFifoRam } from './fifo.ts';
import { skidBuffer } from './skid.ts';
import { lowestSetIndex, rrArbiter, wrrArbiter } from './arbiter.ts';
import { Bool, UInt, defineModule } from '../hdl/index.ts';
import { indexWidth } from './util.ts';
import { emitToDir, iverilogRun, type Emitted } from './lint-helper.ts';
import { seededRandom } from '../../tb/tests/seed.ts';

const hex = (v: bigint, bits: number): string => `${bits}'h${v.toString(16)}`;

describe('CRC hardware in Icarus equals the software model', () => {
  for (const [bytes, skip] of [[8, 0], [8, 3], [1, 0], [16, 14], [64, 14], [6, 2]] as const) {
    it(`bytes=${bytes} skip=${skip}`, () => {
      const { rng, seed } = seededRandom();
      const model = crcModel(CRC32);
      const e = emitToDir(crcParallel(CRC32), { bytes, skip });
      const lines: string[] = [];
      const expected: string[] = [];
      for (let p = 0; p < 40; p++) {
        let pkt = rng.bytes(rng.int(skip + 1, 5 * bytes));
        const codeword = p % 4 === 3;
        if (codeword) { const c = model.compute(pkt.subarray(skip)); pkt = Uint8Array.from([...pkt, ...model.toBytes(c)]); }
        for (let off = 0; off < pkt.length; off += bytes) {
          const n = Math.min(bytes, pkt.length - off);
          let word = 0n;
          for (let k = bytes - 1; k >= 0; k--) word = (word << 8n) | BigInt(k < n ? pkt[off + k]! : rng.int(0, 255));
          lines.push(`beat(${hex(word, 8 * bytes)}, ${hex((1n << BigInt(n)) - 1n, bytes)}, ${off === 0 ? 1 : 0}, ${off + bytes >= pkt.length ? 1 : 0}, ${rng.int(0, 2)});`);
        }
        expected.push(`CRC ${model.compute(pkt.subarray(skip)).toString(16).padStart(8, '0')} ${codeword ? 1 : 0}`);
      }
      const tb = `\`timescale 1ns/1ps
module tb;
reg clk = 0, rst = 1, valid = 0, start = 0, last = 0;
reg [${8 * bytes - 1}:0] data = 0;
reg [${bytes - 1}:0] keep = 0;
wire [31:0] state, crc; wire crc_valid, match;
${e.top} dut(.clk(clk), .rst(rst), .data(data), .keep(keep), .valid(valid), .start(start), .last(last),
  .state(state), .crc(crc), .crc_valid(crc_valid), .match(match));
always #5 clk = !clk;
always @(posedge clk) if (crc_valid) $display("CRC %h %0d", crc, match);
task beat(input [${8 * bytes - 1}:0] d, input [${bytes - 1}:0] k, input s, input l, input integer idle);
  begin
    data <= d; keep <= k; start <= s; last <= l; valid <= 1; @(posedge clk);
    valid <= 0; keep <= {${bytes}{1'b1}}; repeat (idle) @(posedge clk);
  end
endtask
initial begin
  repeat (2) @(posedge clk); rst <= 0;
${lines.map(l => `  ${l}`).join('\n')}
  repeat (3) @(posedge clk); $finish;
end
endmodule
`;
      const got = iverilogRun(e, tb).split('\n').filter(l => l.startsWith('CRC'));
      expect(got, `seed=${seed} dir=${e.dir}`).toEqual(expected);
    });
  }
});

/** Random valid/ready traffic through a stream block; checks order, loss and (with
 *  always-on traffic) one transfer per cycle. */
function streamTb(e: Emitted, width: number, seed: number, validPct: number, readyPct: number, n: number): string {
  return `\`timescale 1ns/1ps
module tb;
reg clk = 0, rst = 1, s_valid = 0, m_ready = 0;
reg [${width - 1}:0] s_data = 0, expect_data = 0;
wire [${width - 1}:0] m_data; wire s_ready, m_valid;
integer seed = ${seed}, sent = 0, got = 0, cycles = 0, first = -1;
${e.top} dut(.clk(clk), .rst(rst), .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready),
  .m_data(m_data), .m_valid(m_valid), .m_ready(m_ready)${e.top.startsWith('sync_fifo') ? ', .count(), .full(), .empty()' : ''});
always #5 clk = !clk;
always @(posedge clk) if (!rst) begin
  cycles <= cycles + 1;
  if (s_valid && s_ready) begin sent = sent + 1; s_data <= s_data + 1; end
  if (m_valid && m_ready) begin
    if (m_data !== expect_data) begin $display("ERROR order: got %0d expected %0d", m_data, expect_data); $finish; end
    if (first < 0) first = cycles;
    expect_data <= expect_data + 1; got = got + 1;
    if (got == ${n}) begin $display("DONE %0d %0d", got, cycles - first + 1); $finish; end
  end
  // Valid may only drop after a transfer (AXI rule); ready is free.
  if (!s_valid || s_ready) s_valid <= (($random(seed) & 32'h7fffffff) % 100) < ${validPct};
  m_ready <= (($random(seed) & 32'h7fffffff) % 100) < ${readyPct};
end
initial begin repeat (3) @(posedge clk); rst <= 0; #200000 $display("TIMEOUT sent=%0d got=%0d", sent, got); $finish; end
endmodule
`;
}

describe('stream blocks in Icarus: order, no loss, full throughput', () => {
  const blocks: [string, () => Emitted, number][] = [
    ['skid buffer', () => emitToDir(skidBuffer, { width: 16 }), 16],
    ['fifo regs depth 4', () => emitToDir(syncFifo, { width: 16, depth: 4 }), 16],
    ['fifo ram depth 8', () => emitToDir(syncFifoRam, { width: 16, depth: 8 }), 16],
    ['fifo ram depth 2', () => emitToDir(syncFifoRam, { width: 16, depth: 2 }), 16],
  ];
  for (const [label, make, width] of blocks) {
    it(label, () => {
      const { rng, seed } = seededRandom();
      const e = make();
      for (const [v, r] of [[50, 50], [90, 30], [30, 90]] as const) {
        const out = iverilogRun(e, streamTb(e, width, rng.int(1, 1 << 30), v, r, 300));
        expect(out, `seed=${seed} valid%=${v} ready%=${r}`).toMatch(/DONE 300 /);
      }
      // Always valid and ready: 300 transfers in 300 consecutive cycles.
      const out = iverilogRun(e, streamTb(e, width, 1, 100, 100, 300));
      expect(out, `throughput, dir=${e.dir}`).toMatch(/DONE 300 300\b/);
    });
  }
});

describe('arbiters in Icarus', () => {
  const tb = (top: string, weights: number[] | null, reqs: number[]): string => `\`timescale 1ns/1ps
module tb;
reg clk = 0, rst = 1, accept = 0; reg [3:0] req = 0;
wire [3:0] grant; wire [1:0] grant_index; wire grant_valid;
${top} dut(.clk(clk), .rst(rst), .req(req), ${weights ? `.weight({${[...weights].reverse().map(w => `4'd${w}`).join(', ')}}), ` : ''}.accept(accept),
  .grant(grant), .grant_index(grant_index), .grant_valid(grant_valid));
always #5 clk = !clk;
always @(posedge clk) if (accept) $write("%0d", grant_index);
initial begin
  repeat (2) @(posedge clk); rst <= 0;
${reqs.map(r => `  req <= 4'd${r}; accept <= ${r ? 1 : 0}; @(posedge clk);`).join('\n')}
  accept <= 0; @(posedge clk); $display(""); $finish;
end
endmodule
`;
  it('round robin rotates and skips idle requesters', () => {
    const e = emitToDir(rrArbiter, { n: 4 });
    expect(iverilogRun(e, tb(e.top, null, [15, 15, 15, 15, 15, 15, 0b1010, 0b1010, 0b1010, 0b0001, 0b1001])).trim()).toBe('0123013130' + '3');
  });
  it('weighted round robin gives weight[i] grants in a row', () => {
    const e = emitToDir(wrrArbiter, { n: 4 });
    // weights 3,1,2,0 (0 counts as 1); then requester 0 drops out mid-turn.
    const reqs = [...new Array(14).fill(15), 0b1110, 0b1110];
    expect(iverilogRun(e, tb(e.top, [3, 1, 2, 0], reqs)).trim()).toBe('00012230001223' + '12');
  });
});

// lowestSetIndex (nic_wqe_fetch's active-list push pick) in a wrapper: every value at small
// widths (power of two or not, so the zero padding is exercised), random values at 64.
const lowestSet = defineModule('lowest_set_probe', { width: 4 } as { width: number }, (m, p) => {
  const v = m.input('v', UInt(p.width));
  const valid = m.output('valid', Bool);
  const index = m.output('index', UInt(indexWidth(p.width)));
  const r = lowestSetIndex(m, 'low', v);
  valid.set(r.valid);
  index.set(r.index);
  return { v, valid, index };
});

describe('lowestSetIndex in Icarus equals the lowest set bit', () => {
  for (const width of [1, 2, 3, 5, 8, 64]) {
    it(`width ${width}`, () => {
      const { rng, seed } = seededRandom();
      const values = width <= 8
        ? Array.from({ length: 2 ** width }, (_, i) => BigInt(i))
        : Array.from({ length: 200 }, () => (1n << BigInt(rng.int(0, 63))) * (BigInt(rng.int(0, 2 ** 30)) | 1n) & ((1n << 64n) - 1n)).concat([0n, 1n, 1n << 63n]);
      const lowest = (v: bigint): number => { let i = 0; while (((v >> BigInt(i)) & 1n) === 0n) i++; return i; };
      const expected = values.map(v => (v === 0n ? 'L 0' : `L 1 ${lowest(v)}`));
      const e = emitToDir(lowestSet, { width });
      const tb = `\`timescale 1ns/1ps
module tb;
reg [${width - 1}:0] v = 0; wire valid; wire [${indexWidth(width) - 1}:0] index;
${e.top} dut(.v(v), .valid(valid), .index(index));
initial begin
${values.map(x => `  v = ${width}'h${x.toString(16)}; #1 if (valid) $display("L 1 %0d", index); else $display("L 0");`).join('\n')}
  $finish;
end
endmodule
`;
      const got = iverilogRun(e, tb).split('\n').filter(l => l.startsWith('L '));
      expect(got, `seed=${seed} dir=${e.dir}`).toEqual(expected);
    });
  }
});
