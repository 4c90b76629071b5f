// CRC32 benches (tb/benches/lib/crc.ts) under vitest, plus the zero-length case the
// hardware does not support: it must be caught by the design's own assertion.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../../sim/errors.ts';
import { crcBenches, crcDesign } from '../../benches/lib/crc.ts';
import { runTest, TestFailure } from '../../core/index.ts';
import { runGroup } from './run-group.ts';

describe('crc32_parallel', () => {
  runGroup(it, crcBenches);

  it('rejects a zero-length packet (a valid beat with keep = 0) through its assertion', async () => {
    const err = await runTest(crcDesign(8), async (dut, tb) => {
      dut.valid.value = 0;
      await tb.reset(2);
      dut.valid.value = 1;
      dut.start.value = 1;
      dut.last.value = 1;
      dut.keep.value = 0;
      dut.data.value = 0n;
      await tb.clockCycles(2);
    }, { seed: 1, pictures: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    const cause = (err as TestFailure).cause;
    expect(cause).toBeInstanceOf(AssertionFailure);
    expect((cause as AssertionFailure).assertMessage).toBe('keep must be contiguous from byte 0');
    // The failure names the line of gen/lib/crc.ts that wrote the m.assert, and the cycle.
    const line = readFileSync(new URL('../../../gen/lib/crc.ts', import.meta.url), 'utf8').split('\n').findIndex(l => l.includes("'keep must be contiguous from byte 0'")) + 1;
    expect((cause as AssertionFailure).loc).toMatch(new RegExp(`^gen/lib/crc\\.ts:${line}:\\d+$`));
    expect((err as Error).message).toMatch(new RegExp(`assertion failed at gen/lib/crc\\.ts:${line}:\\d+ \\(cycle \\d+, \\d+ ns\\): keep must be contiguous`));
    // ... with the instance and the values of the signals the condition names ...
    expect((err as Error).message).toContain('keep must be contiguous from byte 0; in TOP.crc32_parallel, valid=1 keep=0 (hex)');
    // ... and that design line on top of the stack: the code frame vitest shows.
    expect((cause as Error).stack!.split('\n')[1]).toMatch(new RegExp(`^    at /.*/gen/lib/crc\\.ts:${line}:\\d+$`));
  });
});
