// Runs the real `./bin/nicgen` CLI in a child process and collects its exit code and output,
// so the CLI tests exercise exactly what a user types.

import { spawn } from 'node:child_process';

export interface NicgenRun { code: number | null; stdout: string; stderr: string }

/** `./bin/nicgen ...args`; `env` replaces the child's environment when given. */
export function runNicgen(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<NicgenRun> {
  return new Promise((resolve, reject) => {
    const p = spawn('./bin/nicgen', [...args], env ? { env } : {});
    let stdout = '', stderr = '';
    p.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    p.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    p.on('error', reject);
    p.on('close', code => resolve({ code, stdout, stderr }));
  });
}
