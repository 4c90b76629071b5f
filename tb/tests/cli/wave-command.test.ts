// `nicgen wave` end to end on the dump of a failing bench's re-run: without a display it
// prints the GTKWave command with the savefile, --screenshot renders the view headless, and
// a missing dump is a one-line misuse.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNicgen } from './run-nicgen.ts';

describe('nicgen wave', () => {
  it('prints the GTKWave command without a display, renders a screenshot headless, refuses a missing dump', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-wave-'));
    const env: NodeJS.ProcessEnv = { ...process.env, NICGEN_FAILURE_DIR: dir };
    delete env['DISPLAY'];
    delete env['WAYLAND_DISPLAY'];
    const sim = await runNicgen(['sim', 'selftest', '--test', 'fail', '--seed', '5'], env);
    expect(sim.code, sim.stderr).toBe(1);
    const dump = path.join(dir, 'selftest-fail-seed5', 'waves.fst');
    const savefile = path.join(dir, 'selftest-fail-seed5', 'waves.gtkw');
    const printed = await runNicgen(['wave', dump], env);
    expect([printed.code, printed.stdout]).toEqual([0, `gtkwave ${dump} ${savefile}\n`]);
    expect(printed.stderr).toContain('no display here');
    const png = path.join(dir, 'view.png');
    const shot = await runNicgen(['wave', dump, '--screenshot', png], env);
    expect(shot.code, shot.stderr).toBe(0);
    expect(shot.stdout).toMatch(/^wrote .*view\.png: GTKWave's view of .*waves\.fst \(22 rows\)\n$/);
    expect(fs.readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
    const missing = await runNicgen(['wave', path.join(dir, 'nope.fst')], env);
    expect([missing.code, missing.stderr]).toEqual([2, `nicgen: no wave dump at ${path.join(dir, 'nope.fst')}\n`]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
