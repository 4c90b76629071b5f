// The type-check before elaboration (cli/source-check.ts) writes a tsconfig of its own into a
// fresh temp folder and removes only that folder. It used to remove "the folder of any
// tsconfig under the temp directory" after tsc ran, so a user's project kept under /tmp (a
// scratch design, a CI checkout in $TMPDIR) lost its whole folder to `scripts/typecheck.ts`
// or to the check vitest runs first (found by the issue-11t helper, whose /tmp copy of the
// repository vanished twice).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkProject, checkSources } from '../../../cli/source-check.ts';

/** A tiny TS project in a fresh folder under the temp directory, with a file of its own. */
function userProjectInTmp(): { dir: string; files: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-user-project-'));
  const src = path.join(dir, 'design.ts');
  fs.writeFileSync(src, `export const answer: number = ${Date.now() % 1000};\n`);
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'my notes\n');
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext' }, files: ['design.ts'] }));
  return { dir, files: ['design.ts', 'notes.txt', 'tsconfig.json'] };
}

describe('source check: never removes a user folder', () => {
  it('checkProject on a project under the temp directory leaves every file of it in place', async () => {
    const p = userProjectInTmp();
    const r = await checkProject(path.join(p.dir, 'tsconfig.json'));
    expect(r.files, 'files checked').toBeGreaterThan(0);
    expect(fs.existsSync(p.dir) ? fs.readdirSync(p.dir).sort() : `${p.dir} was removed`, 'the project folder after the check').toEqual(p.files);
    fs.rmSync(p.dir, { recursive: true });
  }, 120_000);

  it('checkSources (its own temp tsconfig) removes its temp folder and nothing of the project', async () => {
    // A private temp directory for this check, so other tests' checks running beside it
    // (their own temp folders come and go) cannot be mistaken for leftovers.
    const privateTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-private-tmp-'));
    const saved = process.env['TMPDIR'];
    process.env['TMPDIR'] = privateTmp;
    try {
      const p = userProjectInTmp();
      expect(path.dirname(p.dir), 'the project is under the temp directory').toBe(privateTmp);
      await checkSources([path.join(p.dir, 'design.ts')], { hardware: false });
      expect(fs.readdirSync(p.dir).sort(), 'the project folder after the check').toEqual(p.files);
      expect(fs.readdirSync(privateTmp), 'the temp directory after the check: the project only, no temp tsconfig folder left').toEqual([path.basename(p.dir)]);
    } finally {
      if (saved === undefined) delete process.env['TMPDIR']; else process.env['TMPDIR'] = saved;
      fs.rmSync(privateTmp, { recursive: true, force: true });
    }
  }, 120_000);
});
