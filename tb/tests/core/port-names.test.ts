// Run-time port mistakes name the port and the testbench line: a misspelt port in the tree
// (`dut.s.redy.value = 1`), a misspelt property of a handle (`dut.s.valid.valu`), and a value
// too wide for its port.

import { describe, expect, it } from 'vitest';
import { skidBuffer } from '../../../gen/lib/skid.ts';
import { PortNameError, runTest, TestFailure } from '../../core/index.ts';
import { design } from '../../design.ts';
import { PortValueError } from '../../../sim/errors.ts';

const skid = () => design(skidBuffer, { width: 16 });
const fail = (fn: Parameters<typeof runTest<NonNullable<ReturnType<typeof skid>['__io']>>>[1]): Promise<TestFailure> =>
  runTest(skid(), fn, { seed: 1, pictures: false }).then(() => { throw new Error('the test passed'); }, (e: unknown) => e as TestFailure);

/** The line of this file that contains `marker` (1-based). */
async function lineOf(marker: string): Promise<number> {
  const { readFileSync } = await import('node:fs');
  return readFileSync(new URL(import.meta.url), 'utf8').split('\n').findIndex(l => l.includes(marker) && !l.includes('lineOf(')) + 1;
}

describe('port names at run time', () => {
  it('a misspelt port: its name, the closest ports and the testbench line, not "Cannot set properties of undefined"', async () => {
    const err = await fail(async (dut, tb) => {
      await tb.reset(2);
      (dut.m as unknown as Record<string, { value: number }>)['redy']!.value = 1; // misspelt-port
    });
    expect(err.cause).toBeInstanceOf(PortNameError);
    const line = await lineOf('// misspelt-port');
    expect(err.message).toMatch(new RegExp(`^dut\\.m has no port 'redy'; closest ports: m\\.ready, [^;]+; at tb/tests/core/port-names\\.test\\.ts:${line}:\\d+\\n`));
  });

  it('a misspelt property of a port handle fails at once, read or written', async () => {
    const err = await fail(async (dut, tb) => {
      await tb.reset(2);
      (dut.s.valid as unknown as Record<string, number>)['valu'] = 1; // misspelt-property
    });
    const line = await lineOf('// misspelt-property');
    expect(err.message).toMatch(new RegExp(`^port s_valid has no property 'valu' to set \\(a port handle has value, words, name, dir\\); at tb/tests/core/port-names\\.test\\.ts:${line}:\\d+`));
    const read = await fail(async dut => { void (dut.m.valid as unknown as Record<string, number>)['vlaue']; });
    expect(read.message).toMatch(/^port m_valid has no property 'vlaue' \(a port handle has value, words, name, dir\); at tb\/tests\/core\/port-names\.test\.ts:\d+/);
  });

  it('a value too wide for its port names the line that wrote it', async () => {
    const err = await fail(async (dut, tb) => {
      await tb.reset(2);
      dut.s.data.value = 0x1_0000; // too-wide
    });
    expect(err.cause).toBeInstanceOf(PortValueError);
    const line = await lineOf('// too-wide');
    expect(err.message).toMatch(new RegExp(`^port s_data: 65536 does not fit: UInt\\(16\\) holds 0\\.\\.65535 \\(written at tb/tests/core/port-names\\.test\\.ts:${line}:\\d+\\)`));
  });

  it('probing an optional port still answers undefined (bus models do)', async () => {
    await runTest(skid(), async dut => {
      expect((dut.s as unknown as Record<string, unknown>)['keep']).toBeUndefined();
      expect('keep' in dut.s).toBe(false);
    }, { seed: 1 });
  });
});
