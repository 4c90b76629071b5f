// `nicgen gen` never destroys work: it writes only into its output folder, removes only files
// it wrote there and nobody changed since (its .nicgen-files.json), refuses to overwrite a
// file that is not its own, and will not write a user's tops into this project's rtl/.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.join(root, 'tb/tests/cli/fixtures');
const folderTops = path.join(fixtures, 'folder-tops.ts');

function nicgen(args: readonly string[], env: Record<string, string> = {}, cwd = root): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(path.join(root, 'bin/nicgen'), args, { cwd, encoding: 'utf8', timeout: 300_000, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-folder-'));
const read = (f: string): string => fs.readFileSync(f, 'utf8');
const listing = (dir: string): string[] => fs.readdirSync(dir).sort();

describe('nicgen gen: the output folder', () => {
  it('keeps a manifest of what it wrote; a hand-written file survives regeneration and stale removal', () => {
    const out = tmp();
    const mine = path.join(out, 'my_wrapper.v');
    fs.writeFileSync(mine, 'module my_wrapper; endmodule\n');
    const first = nicgen(['gen', '--tops', folderTops, '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/1 other file\(s\) left alone/);
    const manifest = JSON.parse(read(path.join(out, '.nicgen-files.json'))) as { files: Record<string, string> };
    expect(Object.keys(manifest.files)).toContain('cli_folder_inverter.v');
    expect(Object.keys(manifest.files)).not.toContain('my_wrapper.v');
    expect(listing(out)).toContain('cli_folder_counter_width12.core');

    // The inverter top goes away: its files are removed, the user's file is not.
    const second = nicgen(['gen', '--tops', folderTops, '--out', out], { CLI_FOLDER_TOPS: 'counter' });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/removed/);
    expect(listing(out).filter(f => f.startsWith('cli_folder_inverter'))).toEqual([]);
    expect(read(mine)).toBe('module my_wrapper; endmodule\n');
    // A user's file does not make the folder out of date.
    expect(nicgen(['gen', '--check', '--tops', folderTops, '--out', out], { CLI_FOLDER_TOPS: 'counter' }).code).toBe(0);
  }, 600_000);

  it('rewrites its own unchanged files, but refuses (writing nothing) to overwrite a generated file the user edited', () => {
    const out = tmp();
    expect(nicgen(['gen', '--tops', folderTops, '--out', out]).code).toBe(0);
    const counter = path.join(out, 'cli_folder_counter_width12.v');
    // Unchanged since written: a changed generator rewrites it.
    const changed = nicgen(['gen', '--tops', folderTops, '--out', out], { CLI_FOLDER_DOC: 'a counter, second version' });
    expect(changed.code, changed.stderr).toBe(0);
    expect(read(counter)).toMatch(/a counter, second version/);

    // Edited by the user: the next generation stops and names it; nothing is written.
    fs.appendFileSync(counter, '// my fix\n');
    const before = new Map(listing(out).map(f => [f, read(path.join(out, f))]));
    const refused = nicgen(['gen', '--tops', folderTops, '--out', out], { CLI_FOLDER_DOC: 'a counter, third version' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`not nicgen's: ${counter}`);
    expect(refused.stderr).toMatch(/nothing written: 1 file\(s\) .* move them out/);
    expect(new Map(listing(out).map(f => [f, read(path.join(out, f))]))).toEqual(before);
    const check = nicgen(['gen', '--check', '--tops', folderTops, '--out', out], { CLI_FOLDER_DOC: 'a counter, third version' });
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/differs, and is not nicgen's to overwrite: cli_folder_counter_width12\.v/);
  }, 600_000);

  it('keeps an edited file that is no longer generated, and from then on treats it as the user\'s', () => {
    const out = tmp();
    expect(nicgen(['gen', '--tops', folderTops, '--out', out]).code).toBe(0);
    const inverter = path.join(out, 'cli_folder_inverter.v');
    fs.appendFileSync(inverter, '// my fix\n');
    const r = nicgen(['gen', '--tops', folderTops, '--out', out], { CLI_FOLDER_TOPS: 'counter' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`kept ${inverter}: no top generates it any more, but it was changed since nicgen wrote it`);
    expect(read(inverter)).toMatch(/my fix/);
    const manifest = JSON.parse(read(path.join(out, '.nicgen-files.json'))) as { files: Record<string, string> };
    expect(Object.keys(manifest.files)).not.toContain('cli_folder_inverter.v');
    const again = nicgen(['gen', '--tops', folderTops, '--out', out], { CLI_FOLDER_TOPS: 'counter' });
    expect(again.stderr).not.toMatch(/kept/);
  }, 600_000);

  it('refuses --tops (or a top, or --set) without --out instead of writing into rtl/', () => {
    const rtl = path.join(root, 'rtl');
    const before = listing(rtl);
    for (const args of [['gen', '--tops', folderTops], ['gen', 'nic_top', '--set', 'numQp=2'], ['gen', 'sync_fifo']]) {
      const r = nicgen(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toMatch(/^nicgen: .*--out DIR/);
    }
    expect(listing(rtl)).toEqual(before);
  }, 600_000);

  it("this project's tops into a copy of rtl/ with a hand-written file: rewritten in place, then up to date, the file untouched", () => {
    // A project beside the copy whose config is this repository's: the same tops, and the
    // filelists' `rtl/x.v` paths are the same as in rtl/. Its headers name the generators by
    // absolute path (they are outside that project), so the first run rewrites every file
    // the copied manifest says nicgen wrote; the hand-written one stays.
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    fs.writeFileSync(path.join(dir, 'nicgen.config.ts'), `export { default } from ${JSON.stringify(path.join(root, 'nicgen.config.ts'))};\n`);
    const out = path.join(dir, 'rtl');
    fs.cpSync(path.join(root, 'rtl'), out, { recursive: true });
    fs.writeFileSync(path.join(out, 'board_top.v'), '// my board wrapper\n');
    const first = nicgen(['gen'], {}, dir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/ removed; 1 other file\(s\) left alone\)/);
    const check = nicgen(['gen', '--check'], {}, dir);
    expect(check.code, check.stderr).toBe(0);
    const r = nicgen(['gen'], {}, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\(0 changed, 0 removed; 1 other file\(s\) left alone\)/);
    expect(read(path.join(out, 'board_top.v'))).toBe('// my board wrapper\n');
    expect(read(path.join(out, 'sync_fifo_width64.f'))).toBe(read(path.join(root, 'rtl', 'sync_fifo_width64.f')));
  }, 600_000);
});
