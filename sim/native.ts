// The JS view of the generated addon (see addonSource in wrapper.ts) and how to load it.

import { createRequire } from 'node:module';
import type { TraceFormat } from './wrapper.ts';

export interface NativeTrap {
  readonly kind: number;
  readonly file: string;
  readonly line: number;
  readonly message: string;
  /** Tail of what the design printed so far. */
  readonly output: string;
}

/** One model instance. Calls return undefined when fine, else a TrapKind. */
export interface NativeModel {
  step(cycles: number): number | undefined;
  /** 0 = falling edge, 1 = rising edge. */
  half(level: number): number | undefined;
  eval(): number | undefined;
  cycle(): number;
  /** Clock period in time precision units (even); takes effect at the next edge. */
  setPeriod(units: number): void;
  /** The design's time precision as a power of ten (-12 for 1 ps). */
  timePrecision(): number;
  traceOpen(file: string, depth: number): void;
  traceClose(): void;
  /** Writes one more dump time `cycles` periods later, with no changes (open dumps only). */
  traceHold(cycles: number): void;
  /** The pending trap (and clear it), or null. */
  trap(): NativeTrap | null;
  /** Models with several clocks only: (period, high, phase) per clock, in port order. */
  clocks?(schedule: Uint32Array): void;
  destroy(): void;
  /** Writes Verilator's coverage data file; false when the model has no coverage compiled in. */
  coverageWrite(file: string): boolean;
}

export interface NativeAddon {
  create(buffer: Uint32Array): NativeModel;
  readonly totalWords: number;
  readonly inputWords: number;
  readonly traceFormat: TraceFormat;
  /** Built with Verilator coverage (BuildOptions.coverage). */
  readonly coverage: boolean;
}

const require = createRequire(import.meta.url);

export function loadAddon(file: string): NativeAddon {
  return require(file) as NativeAddon;
}
