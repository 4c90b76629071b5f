// Running external tools (Verilator, Icarus, Yosys) with captured output, a few at a time.

import { spawn } from 'node:child_process';

export interface ToolResult {
  readonly ok: boolean;
  readonly code: number | null;
  readonly output: string;
  readonly seconds: number;
}

export function runTool(cmd: string, args: readonly string[], opts: { cwd?: string; input?: string } = {}): Promise<ToolResult> {
  const t0 = performance.now();
  return new Promise(resolve => {
    // No stdin pipe unless there is input: a tool that exits at once (`--version`) would
    // otherwise fail our write with EPIPE.
    const child = spawn(cmd, args, { cwd: opts.cwd, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr?.on('data', (d: Buffer) => { output += d.toString(); });
    child.on('error', err => resolve({ ok: false, code: null, output: `${cmd}: ${err.message}`, seconds: (performance.now() - t0) / 1000 }));
    child.on('close', code => resolve({ ok: code === 0, code, output, seconds: (performance.now() - t0) / 1000 }));
    if (opts.input !== undefined) {
      child.stdin?.on('error', () => { /* a tool that exits before reading its input: its exit code tells */ });
      child.stdin?.end(opts.input);
    }
  });
}

/** Map `items` through `fn` with at most `jobs` running at once, keeping the order. */
export async function pool<T, R>(items: readonly T[], jobs: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  return results;
}
