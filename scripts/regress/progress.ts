// The regression's progress on stderr: a bar with done/total, passed/failed/errors,
// elapsed time and an ETA, plus one line per failure as it happens (so a long regression
// shows its first failure at once, not at the end).
//
// On a terminal the bar redraws in place every 250 ms; elsewhere (CI logs, pipes) a plain
// line is written every 5 s, like `nicgen sim`'s own progress (cli/sim-progress.ts).

import type { RunResult } from './outcome.ts';

export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): boolean;
}

export interface Counts {
  done: number;
  passed: number;
  failed: number;
  errors: number;
}

/** `1:05`, `1:02:03`. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(r).padStart(2, '0')}`;
}

export class RegressProgress {
  readonly counts: Counts = { done: 0, passed: 0, failed: 0, errors: 0 };
  readonly #out: ProgressStream;
  readonly #total: number;
  readonly #tty: boolean;
  readonly #t0 = performance.now();
  #timer: NodeJS.Timeout | undefined;
  #drawn = false;

  constructor(out: ProgressStream, total: number) {
    this.#out = out;
    this.#total = total;
    this.#tty = out.isTTY === true;
    this.#timer = setInterval(() => this.#show(), this.#tty ? 250 : 5000);
    // The bar must never be what keeps the process alive.
    this.#timer.unref();
    if (this.#tty) this.#show();
  }

  get elapsed(): number {
    return (performance.now() - this.#t0) / 1000;
  }

  record(r: RunResult): void {
    const c = this.counts;
    c.done++;
    if (r.status === 'passed') c.passed++;
    else if (r.status === 'failed') c.failed++;
    else c.errors++;
    if (r.status !== 'passed') {
      const what = r.status === 'failed' ? 'FAIL' : 'ERROR';
      this.#line(`${what} ${r.run.top}/${r.run.test} seed ${r.run.seed}: ${r.headline}`);
    }
    if (this.#tty) this.#show();
  }

  /** Clears the bar for good (before the final report). */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (!this.#tty) this.#out.write(`${this.text()}\n`);
    this.#clear();
  }

  text(width = 24): string {
    const c = this.counts;
    const elapsed = this.elapsed;
    // Runs finish at a roughly steady rate once the models are built; the first runs
    // (which build) make early estimates pessimistic, which is the safer error.
    const eta = c.done > 0 && c.done < this.#total ? clock((elapsed / c.done) * (this.#total - c.done)) : c.done >= this.#total ? '0:00' : '--';
    const filled = this.#total > 0 ? Math.round((c.done / this.#total) * width) : width;
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
    return `${bar} ${c.done}/${this.#total}  passed ${c.passed}  failed ${c.failed}  errors ${c.errors}  elapsed ${clock(elapsed)}  ETA ${eta}`;
  }

  #line(text: string): void {
    this.#clear();
    this.#out.write(`${text}\n`);
    if (this.#tty) this.#show();
  }

  #show(): void {
    if (this.#tty) {
      this.#out.write(`\r\x1b[K${this.text()}`);
      this.#drawn = true;
    } else {
      this.#out.write(`${this.text()}\n`);
    }
  }

  #clear(): void {
    if (this.#tty && this.#drawn) this.#out.write('\r\x1b[K');
    this.#drawn = false;
  }
}
