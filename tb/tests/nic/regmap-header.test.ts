// The generated C header compiles and agrees with the TS accessors.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { regmapHeader } from '../../../gen/nic/regmap-header.ts';
import { globalReg, mrReg, qpReg } from '../../model/nic-regs.ts';

describe('regmap C header', () => {
  it('compiles and gives the same addresses as tb/model/nic-regs.ts', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-hdr-'));
    fs.writeFileSync(path.join(dir, 'nic_regmap.h'), regmapHeader(4, 16));
    fs.writeFileSync(path.join(dir, 'main.c'), `#include <stdio.h>
#include "nic_regmap.h"
int main(void) { printf("%d %d %d %d %d\\n", NIC_IRQ_MOD, NIC_QP_SQ_PI(3), NIC_MR_PT_BASE_HI(15), NIC_CQE_PHASE_OFFSET, NIC_WQE_SGE3_LKEY_OFFSET); return 0; }
`);
    execFileSync('cc', ['-Wall', '-Werror', '-o', 'main', 'main.c'], { cwd: dir });
    const got = execFileSync(path.join(dir, 'main'), { encoding: 'utf8' }).trim();
    expect(got).toBe(`${globalReg('IRQ_MOD')} ${qpReg(3, 'SQ_PI')} ${mrReg(15, 'PT_BASE_HI')} 31 ${0x2c + 48}`);
  });
});
