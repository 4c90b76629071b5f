// `nicgen sim` end to end: spawns the real command on the selftest benches (they run on the
// skid buffer model, which the lib benches build anyway).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNicgen, type NicgenRun } from './run-nicgen.ts';

/** Failure pictures go to a temporary folder, not the project's out/. */
const failureDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-sim-failures-'));

/** The CLI's own seed handling is under test: no NICGEN_SEED from the caller. */
function seedlessEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NICGEN_FAILURE_DIR: failureDir };
  delete env['NICGEN_SEED'];
  return env;
}

const nicgen = (...args: string[]): Promise<NicgenRun> => runNicgen(['sim', ...args], seedlessEnv());

describe('nicgen sim', () => {
  it('runs a passing bench: exit 0 and a summary with seed, cycles, time and rate', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-sim-'));
    const wave = path.join(dir, 'pass.fst');
    const r = await nicgen('selftest', '--test', 'pass', '--seed', '42', '--wave', wave, '--from', '10', '--to', '50');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^PASS selftest/pass: seed 42, 2002 cycles, [0-9.]+ s wall .*cycles/s, 8.01 µs simulated at 4 ns, wave ${wave.replace(/[.]/g, '\\.')} \\(savefile beside it: nicgen wave FILE\\)\\n$`));
    expect(fs.statSync(wave).size).toBeGreaterThan(0);
    // The savefile beside the dump opens on it: the dump's path, the window's first cycle.
    const gtkw = fs.readFileSync(path.join(dir, 'pass.gtkw'), 'utf8');
    expect(gtkw).toContain(`[dumpfile] "${wave}"`);
    expect(gtkw).toContain('[timestart] 40000');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports a failing bench: exit 1, the seed, the cycle, what differed and the replay command', async () => {
    const r = await nicgen('selftest', '--test', 'fail', '--seed', '1234');
    expect(r.code).toBe(1);
    const cycle = Number(/^FAIL selftest\/fail: seed 1234, failed at cycle (\d+) \((\d+) ns\)/.exec(r.stdout)?.[1]);
    expect(r.stdout).toContain(`failed at cycle ${cycle} (${cycle * 4} ns)`);
    expect(r.stderr).toMatch(/m_data of word \d+ \(expectation corrupted on purpose\): got 0x[0-9a-f]+, expected 0x[0-9a-f]+ at cycle \d+ \(\d+ ns\)/);
    expect(r.stderr).toContain('replay: ./bin/nicgen sim selftest --test fail --seed 1234\n');
    expect(r.stderr).toContain(`replay with waves: ./bin/nicgen sim selftest --test fail --seed 1234 --wave selftest-fail.fst --from ${cycle - 200} --to ${cycle + 10}`);
    // The re-run's picture and dump, named in the message.
    const folder = path.join(failureDir, 'selftest-fail-seed1234');
    expect(r.stderr).toContain(`picture: ${folder}/failure.svg (and ${folder}/failure.png)`);
    expect(r.stderr).toContain(`savefile ${folder}/waves.gtkw: nicgen wave ${folder}/waves.fst`);
    const svg = fs.readFileSync(path.join(folder, 'failure.svg'), 'utf8');
    for (const lane of ['clk', 'm_data', 'm_valid', 'm_ready']) expect(svg).toContain(`>${lane}<`);
    expect(fs.statSync(path.join(folder, 'failure.png')).size).toBeGreaterThan(1000);
  });

  it('fails the same way for the same seed, and picks a seed when none is given', async () => {
    const a = await nicgen('selftest', '--test', 'fail', '--seed', '99');
    const b = await nicgen('selftest', '--test', 'fail', '--seed', '99');
    expect(b.stdout.replace(/[0-9.]+ s wall/, '')).toBe(a.stdout.replace(/[0-9.]+ s wall/, ''));
    const c = await nicgen('selftest', '--test', 'fail');
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(/seed \d+/);
  });

  it('exits 2 with one line naming the known tests for an unknown test, and the known tops for an unknown top', async () => {
    const t = await nicgen('skid_buffer', '--test', 'nope');
    expect(t.code).toBe(2);
    expect(t.stderr).toBe("nicgen: unknown test 'nope' for skid_buffer (known tests: random, throughput)\n");
    const u = await nicgen('nope', '--test', 'x');
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/^nicgen: unknown top 'nope' \(known tops: sync_fifo, .*selftest.*\)\n$/);
    const m = await nicgen('skid_buffer', '--from', '5');
    expect(m.code).toBe(2);
    const p = await nicgen('selftest', '--test', 'pass', '--pcap', '/nonexistent-dir/x.pcap');
    expect([p.code, p.stderr]).toEqual([2, 'nicgen: --pcap /nonexistent-dir/x.pcap: folder /nonexistent-dir does not exist\n']);
  });

  it('lists the benches', async () => {
    const r = await nicgen('--list');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sync_fifo\n {2}random_w8_d4 /);
    expect(r.stdout).toContain('crc32_parallel\n  random_bytes8 ');
  });
});
