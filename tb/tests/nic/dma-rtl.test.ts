// The DMA engines' Verilog passes verilator -Wall, iverilog -g2005 and yosys synth + check
// at both datapath widths, and bad parameters are rejected with a design error.

import { describe, expect, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { nicDmaRead } from '../../../gen/nic/dma-read.ts';
import { nicDmaWrite } from '../../../gen/nic/dma-write.ts';

describe('nic_dma_read / nic_dma_write RTL', () => {
  for (const dataWidth of [64, 512]) {
    it(`nic_dma_read dataWidth ${dataWidth}`, () => {
      const e = emitToDir(nicDmaRead, { dataWidth });
      verilatorLint(e);
      iverilogCompile(e);
      // yosysSynth throws unless check -assert finds nothing and no latch exists; it returns `stat`.
      expect(yosysSynth(e)).toMatch(/Number of cells/);
    });
    it(`nic_dma_write dataWidth ${dataWidth}`, () => {
      const e = emitToDir(nicDmaWrite, { dataWidth });
      verilatorLint(e);
      iverilogCompile(e);
      // yosysSynth throws unless check -assert finds nothing and no latch exists; it returns `stat`.
      expect(yosysSynth(e)).toMatch(/Number of cells/);
    });
  }
  it('rejects bursts past 256 beats or 4 KiB, and odd widths', () => {
    expect(() => nicDmaRead.elaborate({ dataWidth: 64, burstBytes: 4096 })).toThrow(/burstBytes/);
    expect(() => nicDmaWrite.elaborate({ dataWidth: 512, burstBytes: 8192 })).toThrow(/burstBytes/);
    // The declared parameter range refuses an odd width before the generator's own check.
    expect(() => nicDmaRead.elaborate({ dataWidth: 96 })).toThrow(/nic_dma_read: dataWidth = 96 is out of range \(allowed: 64, 128, 256 or 512\)/);
  });
});
