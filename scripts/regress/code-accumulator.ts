// Verilator counters of a regression's passing runs, folded into one file as the runs finish
// (verilator_coverage --write acc acc run), each run's own file then removed: a nic_pair run
// writes ~7 MB of counters, so keeping every run's would take gigabytes for a few hundred
// runs, while merging two files takes about half a second. Merges run one at a time, in the
// background of the pool; `file()` waits for the last one. Counts are sums, so the order
// runs finish in does not matter.

import * as fs from 'node:fs';
import { mergeCoverageFiles } from '../../coverage/verilator-data.ts';

export class CodeAccumulator {
  readonly #file: string;
  #chain: Promise<void> = Promise.resolve();
  #runs = 0;
  #error: unknown;

  constructor(file: string) {
    this.#file = file;
  }

  /** Folds a run's counters in (and deletes the run's file once merged). */
  add(runFile: string): void {
    this.#chain = this.#chain.then(async () => {
      if (this.#error !== undefined || !fs.existsSync(runFile)) return;
      try {
        if (this.#runs === 0) fs.renameSync(runFile, this.#file);
        else {
          await mergeCoverageFiles([this.#file, runFile], this.#file);
          fs.rmSync(runFile);
        }
        this.#runs++;
      } catch (err) {
        this.#error = err;
      }
    });
  }

  /** The merged file after every add() so far, or undefined when no run had counters. */
  async file(): Promise<string | undefined> {
    await this.#chain;
    if (this.#error !== undefined) throw this.#error;
    return this.#runs > 0 ? this.#file : undefined;
  }
}
