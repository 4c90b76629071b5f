// Verilator code coverage end to end on the selftest design (skid buffer + m.cover points):
// the coverage variant is its own cached build, its counters match a count kept by the
// testbench for the same cycles, runs merge by summing (verilator_coverage), the report has
// the per-module table, an lcov/genhtml line report and the points never hit, and only
// passing runs are merged.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { coverageCommand } from '../../../cli/coverage-print.ts';
import { readRunCoverage } from '../../../coverage/run-data.ts';
import { mergeCoverageFiles, readCoverage, type CoverPoint } from '../../../coverage/verilator-data.ts';
import { buildModel } from '../../../sim/build.ts';
import { Model } from '../../../sim/model.ts';
import { selftestDesign } from '../../benches/selftest-design.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import type { DutOf } from '../../core/index.ts';
import type { IOOf } from '../../../gen/hdl/index.ts';
import type { selftestSkid } from '../../benches/selftest-design.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-cov-'));
afterAll(() => { if (!process.env.KEEP) fs.rmSync(tmp, { recursive: true, force: true }); });

type Dut = DutOf<NonNullable<IOOf<typeof selftestSkid>>>;
interface Counts { streaming: number; sink_stalls: number; source_waits: number; cycles: number }

/** Random valid/ready for `cycles` cycles after a 2-cycle reset; counts, as the cover points
 *  do, the edges outside reset at which each condition holds (values settled before the edge). */
async function randomTraffic(dut: Dut, tb: TestBench, cycles: number, counts: Counts): Promise<void> {
  dut.s.valid.value = 0;
  dut.m.ready.value = 0;
  await tb.reset(2);
  for (let c = 0; c < cycles; c++) {
    dut.s.valid.value = tb.rng.bool(0.7) ? 1 : 0;
    dut.m.ready.value = tb.rng.bool(0.6) ? 1 : 0;
    dut.s.data.value = tb.rng.int(0, 0xffff);
    tb.settle();
    const sv = dut.s.valid.value === 1, sr = dut.s.ready.value === 1, mv = dut.m.valid.value === 1, mr = dut.m.ready.value === 1;
    if (sv && sr && mv && mr) counts.streaming++;
    if (mv && !mr) counts.sink_stalls++;
    if (sv && !sr) counts.source_waits++;
    await tb.rising();
  }
  counts.cycles = tb.cycle;
}

const userCount = (points: readonly CoverPoint[], label: string): number => points.find(p => p.kind === 'user' && p.comment === label)!.count;

async function coveredRun(dir: string, seed: number, cycles: number, fail = false): Promise<Counts> {
  const counts: Counts = { streaming: 0, sink_stalls: 0, source_waits: 0, cycles: 0 };
  const run = runTest(selftestDesign(), async (dut, tb) => {
    await randomTraffic(dut, tb, cycles, counts);
    if (fail) throw new Error('failing on purpose');
  }, { seed, coverage: { dir, code: true, toggle: true } });
  if (fail) await expect(run).rejects.toThrow('failing on purpose');
  else await run;
  return counts;
}

describe('code coverage (Verilator)', () => {
  it('is a separate cached variant: the plain model has no counters', async () => {
    const plain = await buildModel(selftestDesign(), { quiet: true });
    const covered = await buildModel(selftestDesign(), { quiet: true, coverage: { toggle: true } });
    const noToggles = await buildModel(selftestDesign(), { quiet: true, coverage: { toggle: false } });
    expect(new Set([plain.key, covered.key, noToggles.key]).size).toBe(3);
    expect([plain.coverage, covered.coverage]).toEqual([undefined, { toggle: true }]);
    const m = new Model(plain, selftestDesign().manifest);
    expect(m.hasCoverage).toBe(false);
    expect(() => m.writeCoverage(path.join(tmp, 'x.dat'))).toThrow(/built without coverage/);
    m.dispose();
  });

  it('counts cover points, branches and toggles exactly as the testbench counted the same cycles', async () => {
    const dir = path.join(tmp, 'one');
    const counts = await coveredRun(dir, 1, 3000);
    const run = readRunCoverage(dir)!;
    expect(run.meta).toMatchObject({ top: 'selftest_skid', seed: 1, passed: true, code: true, cycles: counts.cycles });
    const points = readCoverage(run.codeFile!);
    expect(counts.streaming).toBeGreaterThan(100);
    expect(counts.sink_stalls).toBeGreaterThan(100);
    for (const label of ['streaming', 'sink_stalls', 'source_waits'] as const) expect(userCount(points, label), label).toBe(counts[label]);
    // The skid buffer's `if (rst)` arm ran at the 2 reset edges, its else at every other edge.
    const skid = fs.readFileSync(path.join(run.meta.sourceDir!, 'skid_buffer_width16.v'), 'utf8').split('\n');
    const rstLine = skid.findIndex(l => l.trim() === 'if (rst) begin') + 1;
    const arms = points.filter(p => p.kind === 'branch' && p.file === 'skid_buffer_width16.v' && p.line === rstLine);
    expect(arms.map(p => [p.comment, p.count])).toEqual([['if', 2], ['else', counts.cycles - 2]]);
    // s_valid toggles: each 0/1 change of the input the testbench drove.
    expect(points.some(p => p.kind === 'toggle' && p.module === 'selftest_skid' && p.comment === 's_valid' && p.count > 500)).toBe(true);
  });

  it('merges runs by summing (verilator_coverage); the report lists modules, cover points and what was never hit; failed runs are left out', async () => {
    const a = await coveredRun(path.join(tmp, 'runs', 'a'), 2, 1500);
    const b = await coveredRun(path.join(tmp, 'runs', 'b'), 3, 2500);
    await coveredRun(path.join(tmp, 'runs', 'c-failed'), 4, 500, true);
    expect(readRunCoverage(path.join(tmp, 'runs', 'c-failed'))!.meta.passed).toBe(false);
    const merged = path.join(tmp, 'merged.dat');
    await mergeCoverageFiles([path.join(tmp, 'runs', 'a', 'code.dat'), path.join(tmp, 'runs', 'b', 'code.dat')], merged);
    expect(userCount(readCoverage(merged), 'streaming')).toBe(a.streaming + b.streaming);

    const lines: string[] = [];
    const report = path.join(tmp, 'report');
    expect(await coverageCommand([path.join(tmp, 'runs')], report, l => lines.push(l))).toBe(0);
    const text = lines.join('\n');
    expect(text).toContain('coverage: 2 passing runs merged (1 failed runs left out)');
    expect(text).toMatch(/^ {2}selftest_skid +\d+\/\d+ \(/m);
    expect(text).toMatch(/^ {2}skid_buffer_width16 +\d+\/\d+ \(/m);
    expect(text).toContain(`cover selftest_skid.streaming (selftest_skid.v:`);
    expect(text).toMatch(new RegExp(`cover selftest_skid\\.streaming \\(selftest_skid\\.v:\\d+\\): ${a.streaming + b.streaming} hits`));
    const info = fs.readFileSync(path.join(report, 'coverage.info'), 'utf8');
    expect(info).toMatch(/^SF:.*sources\/selftest_skid\/skid_buffer_width16\.v$/m);
    expect(info).toMatch(/^BRDA:\d+,\d+,\d+,\d+$/m);
    const html = fs.readFileSync(path.join(report, 'html', 'index.html'), 'utf8');
    expect(html).toContain('selftest_skid');
    // Random traffic reaches everything; a run that never stalls leaves the stall paths out.
    expect(fs.readFileSync(path.join(report, 'uncovered.txt'), 'utf8')).toContain('never hit (0):');
    await runTest(selftestDesign(), async (dut, tb) => {
      dut.s.valid.value = 1;
      dut.m.ready.value = 1;
      await tb.reset(2);
      await tb.clockCycles(50);
    }, { seed: 5, coverage: { dir: path.join(tmp, 'steady', 'run'), code: true, toggle: true } });
    const steady = path.join(tmp, 'steady', 'report');
    await coverageCommand([path.join(tmp, 'steady')], steady, () => undefined);
    const never = fs.readFileSync(path.join(steady, 'uncovered.txt'), 'utf8');
    expect(never).toMatch(/^selftest_skid selftest_skid\.v:\d+ user cover sink_stalls never hit$/m);
    expect(never).toMatch(/^skid_buffer_width16 skid_buffer_width16\.v:\d+ toggle skid_valid_reg never toggled$/m);
    expect(never).toMatch(/^skid_buffer_width16 skid_buffer_width16\.v:\d+ toggle s_data bits 0,1,2,/m);
  });

  it('NICGEN_COVERAGE=DIR gives every runTest its own run folder', async () => {
    const dir = path.join(tmp, 'env');
    process.env['NICGEN_COVERAGE'] = dir;
    process.env['NICGEN_COVERAGE_TOGGLE'] = '1';
    try {
      await runTest(selftestDesign(), async (dut, tb) => { await randomTraffic(dut, tb, 100, { streaming: 0, sink_stalls: 0, source_waits: 0, cycles: 0 }); }, { seed: 9 });
    } finally {
      delete process.env['NICGEN_COVERAGE'];
      delete process.env['NICGEN_COVERAGE_TOGGLE'];
    }
    const runs = fs.readdirSync(path.join(dir, 'runs'));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(new RegExp(`^selftest_skid-9-${process.pid}-\\d+$`));
    expect(fs.existsSync(path.join(dir, 'runs', runs[0]!, 'code.dat'))).toBe(true);
  });
});
