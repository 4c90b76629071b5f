// Progress of a running bench on stderr: a percentage bar when the bench reports how far it
// is (tb/benches/progress.ts: e.g. messages completed of the total), with cycles and
// cycles/s; only cycles and cycles/s otherwise.
//
// tb/core has no per-cycle hook, and a Node timer cannot help: the scheduler advances the
// model entirely in microtasks, so a setInterval callback would not run until the test
// ends. Instead a coroutine forked into the bench waits `step` cycles at a time and
// reports; `step` adapts to the measured speed so reports come about 20 times a second
// whatever the design's speed, while the extra wake-ups stay negligible and fast-forward
// batches are cut only every `step` cycles. The coroutine only reads the cycle count, so
// it cannot change what the bench does (same seed, same run, with or without it).
//
// On a terminal the line redraws in place every 250 ms; otherwise (CI logs, pipes) a plain
// line is printed at every further 10 % of a bar, or every 5 s without one, so logs stay
// short and readable.

import { ClockTime } from '../sim/clock.ts';
import { benchProgress, type BenchProgress } from '../tb/benches/progress.ts';
import type { TestBench } from '../tb/core/index.ts';

const BAR_WIDTH = 24;

export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): boolean;
}

export class SimProgress {
  readonly #out: ProgressStream;
  readonly #label: string;
  readonly #tty: boolean;
  readonly #interval: number;
  #t0 = 0;
  #lastPrint = 0;
  #lastCycle = 0;
  #startCycle = 0;
  #lastTime = 0;
  #rate = 0;
  #drawn = false;
  /** Tenths of the bar already printed (non-TTY). */
  #tenths = -1;
  #clock = new ClockTime();

  constructor(out: ProgressStream, label: string) {
    this.#out = out;
    this.#label = label;
    this.#tty = out.isTTY === true;
    this.#interval = this.#tty ? 250 : 5000;
  }

  /** Before the model exists (building it can take 10-20 s cold). */
  building(): void {
    if (this.#tty) this.#draw(`${this.#label}: elaborating and building the model...`);
  }

  /** Starts reporting; call with the bench's TestBench before its body runs. */
  attach(tb: TestBench): void {
    this.#t0 = this.#lastPrint = this.#lastTime = performance.now();
    this.#clock = tb.model.clock;
    this.#lastCycle = this.#startCycle = tb.cycle;
    if (this.#tty) this.#draw(`${this.#label}: running`);
    let step = 256;
    tb.fork(async () => {
      for (;;) {
        await tb.clockCycles(step);
        const now = performance.now();
        const dt = now - this.#lastTime;
        if (dt > 0) {
          this.#rate = ((tb.cycle - this.#lastCycle) * 1000) / dt;
          // Aim at ~50 ms of simulation per wake-up.
          step = Math.max(64, Math.min(1 << 20, Math.round(this.#rate / 20)));
        }
        this.#lastCycle = tb.cycle;
        this.#lastTime = now;
        const bar = benchProgress(tb);
        // Off a terminal, a bar is printed at each further 10 % only; a cycle count every 5 s.
        const due = !this.#tty && bar ? this.#newTenth(bar) : now - this.#lastPrint >= this.#interval;
        if (due) {
          this.#lastPrint = now;
          this.#report(tb.cycle, now, bar);
        }
      }
    }, 'nicgen-sim-progress');
  }

  /** Simulation wall time so far in seconds (0 before attach). */
  get seconds(): number {
    return this.#t0 ? (performance.now() - this.#t0) / 1000 : 0;
  }

  /** Clears the redrawing line before the summary. */
  done(): void {
    if (this.#tty && this.#drawn) this.#out.write('\r\x1b[K');
    this.#drawn = false;
  }

  /** True once per further 10 % of the bar. */
  #newTenth(bar: BenchProgress): boolean {
    if (bar.total <= 0) return false;
    const t = Math.floor((10 * Math.min(bar.done, bar.total)) / bar.total);
    if (t <= this.#tenths) return false;
    this.#tenths = t;
    return true;
  }

  #report(cycle: number, now: number, bar: BenchProgress | undefined): void {
    // The average since the start: the rate over one ~50 ms window jumps with GC pauses.
    const seconds = (now - this.#t0) / 1000;
    const rest = `cycle ${cycle.toLocaleString('en-US')} (${this.#clock.short(cycle)} simulated), ${formatRate((cycle - this.#startCycle) / seconds)}, ${seconds.toFixed(1)} s`;
    const text = `${this.#label}: ${bar ? `${progressBar(bar)}, ${rest}` : rest}`;
    if (this.#tty) this.#draw(text);
    else this.#out.write(`${text}\n`);
  }

  #draw(text: string): void {
    this.#out.write(`\r\x1b[K${text}`);
    this.#drawn = true;
  }
}

/** `[#########...............]  38 % 36/96 messages` */
export function progressBar(p: BenchProgress): string {
  const f = p.total > 0 ? Math.min(1, Math.max(0, p.done / p.total)) : 0;
  const full = Math.round(f * BAR_WIDTH);
  return `[${'#'.repeat(full)}${'.'.repeat(BAR_WIDTH - full)}] ${String(Math.floor(100 * f)).padStart(3)} % ${p.done}/${p.total} ${p.unit}`;
}

/** `123 k cycles/s`, `1.2 M cycles/s`. */
export function formatRate(perSecond: number): string {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)} M cycles/s`;
  if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)} k cycles/s`;
  return `${perSecond.toFixed(0)} cycles/s`;
}
