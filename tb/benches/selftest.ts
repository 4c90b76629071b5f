// Benches that exercise `nicgen sim` itself rather than a block: one that passes, one that
// fails on purpose at a seed-dependent cycle (the CLI test checks exit code 1 and the seed
// in the output), and a long one to watch the progress line. They run on the skid buffer
// behind a wrapper with cover points (selftest-design.ts), and count a small functional
// cover group, so the coverage tooling has cheap benches to run end to end.

import { dim, type CoverGroupSpec } from '../../coverage/functional.ts';
import type { IOOf } from '../../gen/hdl/index.ts';
import type { TestFn } from '../core/index.ts';
import { defineBench, type BenchGroup } from './bench.ts';
import { big, bit, checkEq } from './check.ts';
import { selftestDesign, type selftestSkid } from './selftest-design.ts';

type SkidIO = IOOf<typeof selftestSkid>;

/** Counted for every word checked at the output: its low nibble (16 bins). */
export const selftestWords: CoverGroupSpec = {
  name: 'selftest words', about: 'a word checked at m_data: its low nibble', dims: [dim('nibble', Array.from({ length: 16 }, (_, i) => i))],
};

/** Streams a counter through at full rate for `cycles` cycles; with `failAt`, the
 *  expectation is corrupted for one word chosen from the seed, so the bench fails there. */
function stream(cycles: number, failAt?: { readonly from: number; readonly to: number }): TestFn<SkidIO> {
  return async function selftestStream(dut, tb) {
    const bad = failAt ? tb.rng.int(failAt.from, failAt.to) : -1;
    const words = tb.coverage?.group(selftestWords);
    dut.s.valid.value = 0;
    dut.m.ready.value = 1;
    await tb.reset(2);
    let sent = 0, got = 0;
    for (let c = 0; c < cycles; c++) {
      dut.s.valid.value = 1;
      dut.s.data.value = sent & 0xffff;
      const accepted = bit(dut.s.ready.value);
      if (bit(dut.m.valid.value)) {
        const want = got === bad ? (got + 1) & 0xffff : got & 0xffff;
        checkEq(tb, `m_data of word ${got}${got === bad ? ' (expectation corrupted on purpose)' : ''}`, big(dut.m.data.value), BigInt(want));
        words?.hit({ nibble: want & 15 });
        got++;
      }
      if (accepted) sent++;
      await tb.rising();
    }
  };
}

export const selftestBenches: BenchGroup = {
  pass: defineBench({ about: 'passes: 2000 cycles of full-rate streaming through skid_buffer (selftest_skid)', design: selftestDesign, test: stream(2_000) }),
  fail: defineBench({ about: 'fails on purpose at a seed-dependent word (checks the failure path of nicgen sim)', design: selftestDesign, test: stream(2_000, { from: 200, to: 1500 }) }),
  long: defineBench({ about: '10 000 000 cycles of full-rate streaming, to watch the progress line', design: selftestDesign, test: stream(10_000_000), maxCycles: 20_000_000 }),
};
