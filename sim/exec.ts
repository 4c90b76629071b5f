// Running build tools: capture combined output, fail with a BuildError carrying its tail.

import { spawn } from 'node:child_process';
import { BuildError } from './errors.ts';

export interface RunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
}

export function run(cmd: string, args: readonly string[], opts: RunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d: Buffer) => { log += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { log += d.toString(); });
    child.on('error', err => reject(new BuildError(`could not run ${cmd}: ${err.message}`, log)));
    child.on('close', code => {
      if (code === 0) resolve(log);
      else reject(new BuildError(`${cmd} failed (exit ${code}) in ${opts.cwd}:\n  ${cmd} ${args.join(' ')}`, log));
    });
  });
}

/** Runs async jobs with at most `limit` in flight (2 cores: never more than 2 compilers). */
export async function parallel<T>(items: readonly T[], limit: number, job: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await job(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
