// Each framing stage on its own through the Verilog tools, at 64 and 512 bits:
// verilator --lint-only -Wall, iverilog -g2005, and yosys synth + check -assert (64 bits;
// the 512-bit CRC networks take minutes in yosys — set NICGEN_YOSYS512=1 to include them).

import { describe, expect, it } from 'vitest';
import type { IORecord, ModuleDef } from '../../../gen/hdl/index.ts';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { icrcCheck } from '../../../gen/nic/icrc-check.ts';
import { icrcInsert } from '../../../gen/nic/icrc-insert.ts';
import { packetizer } from '../../../gen/nic/packetizer.ts';
import { rxParser } from '../../../gen/nic/rx-parser.ts';
import { RC_OPCODES, extBytesOf } from '../../../gen/nic/roce.ts';
import { OPCODES, extHeaderBytes } from '../../model/opcodes.ts';

const defs: [string, ModuleDef<{ dataWidth: number }, IORecord>][] = [
  ['nic_packetizer', packetizer as never], ['nic_icrc_insert', icrcInsert as never], ['nic_icrc_check', icrcCheck as never], ['nic_rx_parser', rxParser as never],
];

describe('framing stages pass the Verilog tools', () => {
  for (const [name, def] of defs) {
    for (const W of [64, 512]) {
      it(`${name} ${W} bits`, () => {
        const e = emitToDir(def, { dataWidth: W });
        verilatorLint(e);
        iverilogCompile(e);
        if (W === 64 || process.env['NICGEN_YOSYS512']) yosysSynth(e);
      });
    }
  }
  it('the hardware opcode table equals the reference model', () => {
    expect(RC_OPCODES.map(o => [o.code, o.reth, o.aeth, o.imm, o.payload, extBytesOf(o)]))
      .toEqual(OPCODES.map(o => [o.code, o.reth, o.aeth, o.imm, o.payload, extHeaderBytes(o)]));
  });
});
