// What `nicgen synth` reports for one module: resources of the module alone (no wrapper),
// and the worst path of each proxy with its ends named. The JSON report (`--json`) is
// a list of these under a header; SYNTH_JSON_FORMAT changes whenever its shape does.

import type { SignalRef } from './names.ts';
import type { Target } from './flows.ts';

export const SYNTH_JSON_FORMAT = 'nicgen-synth/1';

export interface Resources {
  /** LUTs of any size (xcup LUT1..LUT6, iCE40 SB_LUT4, generic $lut). */
  readonly luts: number;
  readonly ffs: number;
  /** Carry cells (CARRY4/CARRY8, SB_CARRY). */
  readonly carry: number;
  /** Wide-mux cells (MUXF7/F8/F9). */
  readonly muxf: number;
  readonly ramb36: number;
  readonly ramb18: number;
  /** iCE40 4 Kbit block RAMs (SB_RAM40_4K). */
  readonly ram40: number;
  /** Distributed-RAM cells (RAM32M, RAM64M, RAM64X1D, ...). */
  readonly lutram: number;
  readonly dsp: number;
  /** Every cell type and its count. */
  readonly cells: Readonly<Record<string, number>>;
}

export type Proxy = 'a' | 'b_prime' | 'b' | 'c';

export interface PathReport {
  readonly proxy: Proxy;
  /** (a): cell delay in ns (Yosys sta, xc7 delays, no routing). */
  readonly delayNs: number | null;
  /** (c): routed Fmax in MHz on the iCE40. */
  readonly fmaxMhz: number | null;
  /** Cells on the path: ltp length for (b') and (b); LUT+MUXF+carry cells for (a); null for (c). */
  readonly levels: number | null;
  /** (a) only (ltp and nextpnr do not say a cell's type): LUTs, MUXFs and runs of carry
   *  cells on the path (a chain of CARRY4s counts once). */
  readonly lut: number | null;
  readonly muxf: number | null;
  readonly carryChains: number | null;
  readonly start: SignalRef | null;
  readonly end: SignalRef | null;
  /** Named signals the path passes, start to end (each once). */
  readonly through: readonly SignalRef[];
}

export interface ModuleResult {
  readonly module: string;
  readonly target: Target;
  readonly resources: Resources | null;
  /** xcup only: the generic LUT6 count (proxy (b)'s netlist). */
  readonly genericLuts: number | null;
  readonly paths: readonly PathReport[];
  /** Why a figure is missing (a module too big for the iCE40, ...). */
  readonly notes: readonly string[];
  /** Tool seconds (0 when every flow came from the cache). */
  readonly seconds: number;
  readonly cached: boolean;
}

export interface SynthReport {
  readonly format: typeof SYNTH_JSON_FORMAT;
  readonly top: string;
  readonly target: Target;
  readonly params: Readonly<Record<string, unknown>>;
  readonly flowVersion: number;
  readonly tools: Readonly<Record<string, string>>;
  readonly modules: readonly ModuleResult[];
}
