// `make bench`: speed goals measured side by side in one run, printed as numbers and ratios.
// Never a pass/fail test: the machines are shared and noisy.

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function wall(cmd: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr.toString()}`);
  return (performance.now() - t0) / 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function benchGenerate(): void {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-bench-'));
  const runs = 3;
  const node = median(Array.from({ length: runs }, () => wall(process.execPath, ['-e', ''])));
  const tsx = median(Array.from({ length: runs }, () => wall(process.execPath, ['--import', 'tsx', '-e', ''])));
  const gen = median(Array.from({ length: runs }, () => wall('./bin/nicgen', ['gen', '--out', out])));
  // In-process: elaborate + check + emit everything, without process start-up.
  const inproc = spawnSync(process.execPath, ['--import', 'tsx', '-e', `
    const t0 = performance.now();
    const { emitAll } = await import('./cli/project.ts');
    const t1 = performance.now();
    const p = await emitAll();
    const t2 = performance.now();
    console.log(JSON.stringify({ load: (t1 - t0) / 1000, emit: (t2 - t1) / 1000, files: p.files.size }));
  `], { encoding: 'utf8' });
  if (inproc.status !== 0) throw new Error(inproc.stderr);
  const m = JSON.parse(inproc.stdout.trim().split('\n').pop()!) as { load: number; emit: number; files: number };
  fs.rmSync(out, { recursive: true, force: true });
  console.log('== elaborate and emit all RTL (goal: under 2 s)');
  console.log(`  baseline node -e ''            ${node.toFixed(3)} s`);
  console.log(`  baseline node --import tsx     ${tsx.toFixed(3)} s`);
  console.log(`  nicgen gen (whole command)     ${gen.toFixed(3)} s   ratio to node start-up ${(gen / node).toFixed(1)}x`);
  console.log(`  in process: load ${m.load.toFixed(3)} s, elaborate+check+emit ${m.emit.toFixed(3)} s for ${m.files} files`);
  const line = `generate ratio: gen/node=${(gen / node).toFixed(2)} emit_s=${m.emit.toFixed(3)}`;
  console.log(line);
  summary.push(line);
}

// Options: --quick (fewer messages in the NIC benches; also NICGEN_BENCH_QUICK=1),
// --only nic|generate|waves|coverage|harness|synth (one part; several allowed). `synth` (nic_top under the
// synthesis proxies beside the anchors, bench/synth.ts) takes many minutes per configuration
// the first time, so it runs only when named.
const args = process.argv.slice(2);
const only = args.flatMap((a, i) => (a === '--only' ? [args[i + 1] ?? ''] : []));
const wanted = (part: string): boolean => (only.length === 0 && part !== 'synth') || only.includes(part);
const started = performance.now();

/** Summary lines of every part (`<name> ratio: ...`, `nic ...: ...`), repeated at the end. */
const summary: string[] = [];
const isSummary = (line: string): boolean => /^(generate ratio|cpu-time ratio|harness ratio|waves ratio|nic [a-z ]+.*?):/.test(line);

/** Runs one part with its output shown live, keeping its summary lines. */
async function runPart(title: string, script: string, extra: string[] = []): Promise<void> {
  console.log(`\n== ${title}`);
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    summary.push(...lines.filter(isSummary));
  });
  const status = await new Promise<number | null>(resolve => child.on('close', resolve));
  if (pending && isSummary(pending)) summary.push(pending);
  if (status !== 0) { process.exitCode = status ?? 1; summary.push(`${title}: exited with status ${status}`); }
}

if (wanted('generate')) benchGenerate();
if (wanted('nic')) await runPart('NIC benchmarks (docs/bench.md)', 'bench/nic.ts', args.includes('--quick') ? ['--quick'] : []);
if (wanted('waves')) await runPart('waves: tracing a window, the failure re-run (docs/waves.md)', 'bench/waves.ts');
if (wanted('coverage')) await runPart('code coverage cost (bench/coverage-cost.ts)', 'bench/coverage-cost.ts', args.includes('--quick') ? ['--quick', '--no-toggle'] : []);
if (wanted('harness') && fs.existsSync('bench/harness.ts')) await runPart('simulation harness', 'bench/harness.ts');
if (wanted('synth')) await runPart('nic_top under the synthesis proxies, beside the anchors (docs/synth.md)', 'bench/synth.ts');
console.log(`\nbench total: ${((performance.now() - started) / 1000).toFixed(0)} s`);
// The harness's ratio line stays the last line of the run (issue 3's contract).
console.log('\n== summary');
const harness = summary.filter(l => l.startsWith('harness ratio:'));
for (const l of [...summary.filter(l => !l.startsWith('harness ratio:')), ...harness]) console.log(l);
