// The clock-domain crossing blocks as hardware: every variant passes the three gates, the
// synchronizer flops carry ASYNC_REG, the crossings are written down in the Verilog, and
// Yosys' Xilinx flow maps asyncFifoRam onto one block RAM with its ports on the two clocks.
// Their behaviour with two unrelated clocks is in tb/benches/lib/cdc.ts.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitTop } from '../emit/index.ts';
import { asyncFifo, asyncFifoRam } from './async-fifo.ts';
import { syncBits, syncHandshake } from './cdc.ts';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth, type Emitted } from './lint-helper.ts';

const variants: [string, () => Emitted][] = [
  ['syncBits 1 bit', () => emitToDir(syncBits)],
  ['syncBits 5 bits, 3 stages', () => emitToDir(syncBits, { width: 5, stages: 3 })],
  ['syncHandshake 32 bits', () => emitToDir(syncHandshake)],
  ['syncHandshake 1 bit, 4 stages', () => emitToDir(syncHandshake, { width: 1, stages: 4 })],
  ['asyncFifo depth 2', () => emitToDir(asyncFifo, { depth: 2 })],
  ['asyncFifo 64 x 16', () => emitToDir(asyncFifo, { width: 64, depth: 16 })],
  ['asyncFifoRam depth 2, 3 stages', () => emitToDir(asyncFifoRam, { depth: 2, stages: 3 })],
  ['asyncFifoRam 64 x 512', () => emitToDir(asyncFifoRam, { width: 64, depth: 512 })],
];

describe('clock-domain crossing blocks', () => {
  for (const [label, emit] of variants) {
    it(`${label}: Verilator -Wall, Icarus, Yosys`, () => {
      const e = emit();
      verilatorLint(e);
      iverilogCompile(e);
      yosysSynth(e);
    });
  }

  it('marks every synchronizer flop ASYNC_REG and writes each crossing beside its declaration', () => {
    const v = emitTop(asyncFifo).files.get('async_fifo.v')!;
    expect(v.match(/\(\* ASYNC_REG = "TRUE" \*\) reg /g)).toHaveLength(4);
    expect(v).toContain('// clock-domain crossing: Gray-coded read pointer from the m_clk domain\nwire [4:0] rd_gray_sync_d;');
    expect(v).toMatch(/\/\/ clock-domain crossing: a slot is read only after .*\nreg  \[127:0\] storage_reg;/);
    const s = emitTop(syncBits, { stages: 3 }).files.get('sync_bits_stages3.v')!;
    expect(s).toContain('// clock-domain crossing: asynchronous to clk: sampled by a 3-flop synchronizer\n    input wire d,');
    expect(s.match(/\(\* ASYNC_REG = "TRUE" \*\)/g)).toHaveLength(3);
  });

  it('refuses bad parameters with the parameter named', () => {
    expect(() => syncBits.elaborate({ stages: 1 })).toThrow(/error \[params\]: sync_bits: stages = 1 is out of range \(allowed: 2, 3 or 4\)/);
    expect(() => asyncFifo.elaborate({ depth: 12 })).toThrow(/error \[params\]: async_fifo: depth = 12 is out of range \(allowed: a power of two in 2\.\.1024\)/);
  });

  it('asyncFifoRam 64 x 512 is one RAMB36E1 written on s_clk and read on m_clk (Yosys synth_xilinx)', () => {
    const e = emitToDir(asyncFifoRam, { width: 64, depth: 512 });
    const net = path.join(e.dir, 'net.v');
    const r = spawnSync('yosys', ['-q', '-p', `read_verilog ${e.files.join(' ')}; synth_xilinx -top ${e.top} -family xc7 -noiopad -noclkbuf; write_verilog -noattr ${net}`], { cwd: e.dir, encoding: 'utf8', timeout: 300_000 });
    expect(r.status, r.stderr).toBe(0);
    const text = fs.readFileSync(net, 'utf8');
    expect(text.match(/RAMB36E1 /g)).toHaveLength(1);
    expect(text.match(/RAMB18E1 /g)).toBeNull();
    // Port A reads (CLKARDCLK), port B writes (CLKBWRCLK) in simple dual-port mode.
    expect(text).toContain('.CLKARDCLK(m_clk)');
    expect(text).toContain('.CLKBWRCLK(s_clk)');
  });
});
