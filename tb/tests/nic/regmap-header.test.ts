// The generated C header compiles and agrees with the TS accessors.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { regmapHeader } from '../../../gen/nic/regmap-header.ts';
import { AXIL_SPACE, MR_BASE } from '../../../gen/nic/regmap.ts';
import { globalReg, mrReg, qpReg } from '../../model/nic-regs.ts';

describe('regmap C header', () => {
  // The default configuration and the largest (1,024 QPs, 4,096 MRs: the last QP's and MR's
  // registers must still lie inside the AXIL_ADDR_WIDTH-bit map).
  for (const [numQp, numMr] of [[4, 16], [1024, 4096]] as const) {
    it(`compiles and gives the same addresses as tb/model/nic-regs.ts (${numQp} QPs, ${numMr} MRs)`, () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-hdr-'));
      fs.writeFileSync(path.join(dir, 'nic_regmap.h'), regmapHeader(numQp, numMr));
      fs.writeFileSync(path.join(dir, 'main.c'), `#include <stdio.h>
#include "nic_regmap.h"
int main(void) { printf("%d %d %d %d %d %d\\n", NIC_IRQ_MOD, NIC_QP_SQ_PI(NIC_NUM_QP - 1), NIC_MR_PT_BASE_HI(NIC_NUM_MR - 1), NIC_MR_TAG(0), NIC_CQE_PHASE_OFFSET, NIC_WQE_SGE3_LKEY_OFFSET); return 0; }
`);
      execFileSync('cc', ['-Wall', '-Werror', '-o', 'main', 'main.c'], { cwd: dir });
      const got = execFileSync(path.join(dir, 'main'), { encoding: 'utf8' }).trim();
      expect(got).toBe(`${globalReg('IRQ_MOD')} ${qpReg(numQp - 1, 'SQ_PI')} ${mrReg(numMr - 1, 'PT_BASE_HI')} ${mrReg(0, 'TAG')} 31 ${0x2c + 48}`);
      expect(mrReg(numMr - 1, 'PT_BASE_HI'), 'last MR register inside the map').toBeLessThan(AXIL_SPACE);
      expect(qpReg(numQp - 1, 'MSN'), 'last QP register below the MR block').toBeLessThan(MR_BASE);
    });
  }
});
