// The failure picture of one bench run, for reports (docs/waves.md): run `top`/`test` with
// `seed`; when it fails, runTest re-runs it with tracing on the cause's window and draws the
// picture; this returns the files and the failure. What `make regress`' report embeds.

import type { FailureFiles } from '../core/index.ts';
import { TestFailure } from '../core/index.ts';
import { fileLabel, shellQuote, type ReplayHints } from '../core/where.ts';
import { benches } from './index.ts';

/** The replay commands of a registered bench: `nicgen sim TOP --test NAME --seed N`. */
export function benchHints(top: string, test: string, periodNs?: number, nicgen = './bin/nicgen'): ReplayHints {
  const base = `${nicgen} sim ${top} --test ${test}${periodNs !== undefined ? ` --period ${periodNs}` : ''}`;
  return {
    label: fileLabel(`${top}-${test}`),
    name: `${top}/${test}`,
    command: seed => `${base} --seed ${seed}`,
    withWaves: (seed, file, from, to) => `${base} --seed ${seed} --wave ${shellQuote(file)} --from ${from} --to ${to}`,
  };
}

export type FailurePicturesResult =
  | { readonly failed: false; readonly cycles: number }
  | {
    readonly failed: true;
    /** The whole failure message (cause, cycle and time, seed, replay commands, file names). */
    readonly message: string;
    readonly cycle: number;
    /** The picture (SVG, PNG), the re-run's dump and savefile; absent when they could not be made. */
    readonly files: FailureFiles | undefined;
    /** Why there are no files, or what to know about them (e.g. the re-run diverged). */
    readonly note: string | undefined;
  };

export interface FailurePicturesOptions {
  /** Folder the files go in (a folder per failure is made inside; default out/failures). */
  readonly dir?: string;
  readonly periodNs?: number;
}

/**
 * Runs bench `top`/`test` with `seed`. On a failure: re-runs it tracing the window of the
 * cause and returns the picture's and the dump's paths (`<dir>/<top>-<test>-seed<N>/failure.svg`,
 * `failure.png`, `waves.fst`, `waves.gtkw`) with the failure message.
 */
export async function failurePictures(top: string, test: string, seed: number, o: FailurePicturesOptions = {}): Promise<FailurePicturesResult> {
  const bench = benches[top]?.[test];
  if (!bench) throw new RangeError(`no bench ${top}/${test} (nicgen sim --list)`);
  try {
    const r = await bench.run({
      seed, replay: benchHints(top, test, o.periodNs), pictures: o.dir ?? true,
      ...(o.periodNs === undefined ? {} : { periodNs: o.periodNs }),
    });
    return { failed: false, cycles: r.cycles };
  } catch (err) {
    if (!(err instanceof TestFailure)) throw err;
    return { failed: true, message: err.message, cycle: err.cycle, files: err.files, note: err.details.filesNote };
  }
}
