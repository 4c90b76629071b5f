// Failure pictures in the regression report. Rendering them (re-running the failed seed with
// tracing over the window that holds the cause, drawing the signals that matter) is issue
// 13a's work; the report only needs this one function. Until 13a's renderer is wired in
// here, no run has a picture and the report says "no picture" (never a made-up one).
//
// To wire it: set `renderFailurePictures` to a function that renders the pictures of one
// failed run into `run.dir` (or anywhere) and returns their paths (SVG or PNG).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunResult } from './outcome.ts';

export interface FailedRun {
  readonly top: string;
  readonly test: string;
  readonly seed: number;
  /** The cycle the failure names, when it names one. */
  readonly cycle: number | undefined;
  /** A fresh folder the renderer may write into. */
  readonly dir: string;
}

export type FailurePictureRenderer = (run: FailedRun) => Promise<readonly string[]>;

/** 13a's renderer (issue 13, "Failure pictures"); undefined until the lead wires it in. */
export const renderFailurePictures: FailurePictureRenderer | undefined = undefined;

/**
 * Pictures of the first `limit` failed runs, copied under `<out>/pictures/<top>-<test>-<seed>/`;
 * by run order, paths relative to `out`. A renderer that throws costs that run its pictures,
 * not the report (the error is printed). Errors (timeouts, crashes) get none: there is no
 * failing check to draw.
 */
export async function failurePictures(
  out: string, results: readonly RunResult[], limit: number, render: FailurePictureRenderer | undefined = renderFailurePictures,
  log: (line: string) => void = l => process.stderr.write(`${l}\n`),
): Promise<Map<number, string[]>> {
  const pictures = new Map<number, string[]>();
  if (!render || limit <= 0) return pictures;
  for (const r of results.filter(x => x.status === 'failed').slice(0, limit)) {
    const dir = path.join(out, 'pictures', `${r.run.top}-${r.run.test}-${r.run.seed}`);
    fs.mkdirSync(dir, { recursive: true });
    try {
      const files = await render({ top: r.run.top, test: r.run.test, seed: r.run.seed, cycle: r.failCycle, dir });
      pictures.set(r.run.order, files.map(f => {
        const to = path.resolve(f).startsWith(path.resolve(dir) + path.sep) ? f : path.join(dir, path.basename(f));
        if (path.resolve(to) !== path.resolve(f)) fs.copyFileSync(f, to);
        return path.relative(out, to);
      }));
    } catch (err) {
      log(`regress: no failure picture for ${r.run.top}/${r.run.test} seed ${r.run.seed}: ${(err as Error).message}`);
    }
  }
  return pictures;
}
