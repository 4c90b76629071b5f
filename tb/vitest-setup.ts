// Loaded by vitest before every test file (vitest.config.ts setupFiles): tells tb/core which
// test is running, so a failure's replay hint is the vitest command for exactly that test.

import { afterEach, beforeEach } from 'vitest';
import { setVitestTest } from './core/where.ts';

interface Named { readonly name: string; readonly suite?: Named | undefined }

/** Suite names and the test's, as `-t` matches them (the file itself is not part of it). */
function fullName(t: Named, file: unknown): string {
  const parts: string[] = [];
  for (let s: Named | undefined = t; s && s !== file; s = s.suite) if (s.name) parts.unshift(s.name);
  return parts.join(' ');
}

beforeEach(ctx => {
  setVitestTest({ file: ctx.task.file.filepath, fullName: fullName(ctx.task, ctx.task.file) });
});

afterEach(() => {
  setVitestTest(undefined);
});
