// Failure pictures in the regression report. A failing `nicgen sim` run re-runs its seed
// with tracing over the window that holds the cause and draws the signals that matter
// (issue 13a: runTest on failure, tb/waves/failure.ts); make regress points those files at
// `<out>/pictures/` (NICGEN_FAILURE_DIR), so this side only collects them: no run is repeated
// for its picture. The renderer stays one function so a report can be given another source
// (tests use a stand-in); a failure with no picture file says "no picture", never a made-up one.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileLabel } from '../../tb/core/where.ts';
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

/** The folder where a failed run's own re-run put its files (tb/waves/failure.ts naming). */
export function failureFolder(picturesDir: string, top: string, test: string, seed: number): string {
  return path.join(picturesDir, `${fileLabel(`${top}-${test}`)}-seed${seed}`);
}

/** The pictures the failed run drew itself under `picturesDir` (the SVG; the PNG when there is
 *  no SVG): what make regress embeds. */
export function ownPictures(picturesDir: string): FailurePictureRenderer {
  return async run => {
    const dir = failureFolder(picturesDir, run.top, run.test, run.seed);
    const svg = path.join(dir, 'failure.svg'), png = path.join(dir, 'failure.png');
    return fs.existsSync(svg) ? [svg] : fs.existsSync(png) ? [png] : [];
  };
}

/**
 * Pictures of the first `limit` failed runs, kept under `<out>/pictures/<top>-<test>-seed<N>/`
 * (copied there when the renderer put them elsewhere); by run order, paths relative to `out`.
 * A renderer that throws costs that run its pictures, not the report (the error is printed).
 * Errors (timeouts, crashes) get none: there is no failing check to draw.
 */
export async function failurePictures(
  out: string, results: readonly RunResult[], limit: number, render: FailurePictureRenderer = ownPictures(path.join(out, 'pictures')),
  log: (line: string) => void = l => process.stderr.write(`${l}\n`),
): Promise<Map<number, string[]>> {
  const pictures = new Map<number, string[]>();
  if (limit <= 0) return pictures;
  for (const r of results.filter(x => x.status === 'failed').slice(0, limit)) {
    const dir = failureFolder(path.join(out, 'pictures'), r.run.top, r.run.test, r.run.seed);
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
