// Runs the vitest suite and ends the output with one plain summary line,
// `tests: N passed, N failed[, N skipped]`, which CI reads. Extra arguments go to vitest.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const report = path.resolve('.cache/vitest-report.json');
fs.mkdirSync(path.dirname(report), { recursive: true });
fs.rmSync(report, { force: true });
const vitest = path.resolve('node_modules/vitest/vitest.mjs');
const r = spawnSync(process.execPath, [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)], { stdio: 'inherit' });

interface VitestJson { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number; numFailedTestSuites: number }
let code = r.status ?? 1;
if (fs.existsSync(report)) {
  const j = JSON.parse(fs.readFileSync(report, 'utf8')) as VitestJson;
  // A test file that fails to load counts as a failure too.
  const failed = j.numFailedTests || j.numFailedTestSuites;
  const skipped = j.numPendingTests + j.numTodoTests;
  if (j.numPassedTests + failed === 0) { console.log('no tests ran'); code = 1; }
  console.log(`tests: ${j.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
} else {
  console.log('tests: 0 passed, 1 failed (vitest wrote no report)');
  code = code || 1;
}
process.exitCode = code;
