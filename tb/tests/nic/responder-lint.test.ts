// nic_responder (64 and 512 bits) and nic_tx_cmd_mux through the Verilog gates:
// verilator --lint-only -Wall, iverilog -g2005, and the yosys gate (64 bits and the mux).

import { describe, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { responder } from '../../../gen/nic/responder.ts';
import { txCmdMux } from '../../../gen/nic/tx-cmd-mux.ts';

describe('responder stages pass the Verilog tools', () => {
  for (const W of [64, 512]) {
    it(`nic_responder ${W} bits`, () => {
      const e = emitToDir(responder, { dataWidth: W });
      verilatorLint(e);
      iverilogCompile(e);
      if (W === 64) yosysSynth(e);
    }, 300_000);
  }
  it('nic_responder with 2 QPs', () => {
    const e = emitToDir(responder, { numQp: 2 });
    verilatorLint(e);
    iverilogCompile(e);
  }, 300_000);
  it('nic_tx_cmd_mux', () => {
    const e = emitToDir(txCmdMux, {});
    verilatorLint(e);
    iverilogCompile(e);
    yosysSynth(e);
  }, 300_000);
});
