// `nicgen sim --coverage`: the run's own report, as a user reads it: the per-module table,
// each cover point's count, where the line report is, the functional totals; a failing run
// says its coverage would not count; a folder that cannot be made is a one-line misuse.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNicgen } from './run-nicgen.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-simcov-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('nicgen sim --coverage', () => {
  it('prints the per-module table, the cover points and the report paths; writes the run and its report', async () => {
    const dir = path.join(tmp, 'pass');
    const r = await runNicgen(['sim', 'selftest', '--test', 'pass', '--seed', '3', '--coverage', '--coverage-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^code coverage: line \d+\/\d+ \([\d.]+ %\), branch \d+\/\d+ \([\d.]+ %\), toggle -, cover points 1\/3 \(33\.3 %\)$/m);
    expect(r.stdout).toMatch(/^ {2}module +line +branch +toggle +cover points$/m);
    expect(r.stdout).toMatch(/^ {2}selftest_skid +\d+\/\d+ /m);
    expect(r.stdout).toMatch(/^ {2}skid_buffer_width16 +\d+\/\d+ /m);
    // 2000 streaming cycles after reset; the first one has nothing at the output yet.
    expect(r.stdout).toMatch(/^ {2}cover selftest_skid\.streaming \(selftest_skid\.v:\d+\): 1999 hits$/m);
    expect(r.stdout).toMatch(/^ {2}cover selftest_skid\.sink_stalls \(selftest_skid\.v:\d+\): 0 hits$/m);
    expect(r.stdout).toMatch(/^functional coverage: 16 of 16 supported bins hit/m);
    const html = /line report: (\S+); never hit/.exec(r.stdout)![1]!;
    expect(fs.existsSync(path.resolve(html))).toBe(true);
    for (const f of ['run.json', 'code.dat', 'functional.json', 'report/summary.json', 'report/uncovered.txt']) expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
  });

  it('reports a failing run\'s coverage and says a regression would not count it', async () => {
    const r = await runNicgen(['sim', 'selftest', '--test', 'fail', '--seed', '3', '--coverage', '--coverage-dir', path.join(tmp, 'fail')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('coverage of a failed run (a regression does not count it):');
    expect(r.stdout).toMatch(/^code coverage: /m);
  });

  it('a coverage folder that cannot be made is misuse: one line, exit 2', async () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, '');
    const r = await runNicgen(['sim', 'selftest', '--test', 'pass', '--coverage', '--coverage-dir', path.join(file, 'sub')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^nicgen: --coverage-dir .*a-file\/sub: ENOTDIR/);
  });
});
