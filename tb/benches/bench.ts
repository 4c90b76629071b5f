// A bench: a test function plus the design it runs on, packaged so a registry can hold
// benches of different designs side by side and run any of them by name (`nicgen sim`,
// vitest). The IO type is checked where the bench is defined and erased afterwards.
//
// Benches with an Ethernet link (nic_pair) also take LinkArgs: the captures to write and the
// link's faults (`nicgen sim --pcap/--pcap-rx/--drop/...`); a bench without a link says so
// (`link` false) and the command line refuses those flags for it.

import type { DutOf, TestBench, TestOptions, TestResult, TypedDesign } from '../core/index.ts';
import { runTest } from '../core/index.ts';
import type { LinkFaultSpec } from '../nic/link-faults.ts';

/** What a bench with a link is asked to do with it. */
export interface LinkArgs {
  /** Capture of every frame as its NIC sent it (before the link's faults). */
  readonly pcap?: string;
  /** Capture of every frame as a NIC received it (after the faults). */
  readonly pcapRx?: string;
  readonly faults?: LinkFaultSpec;
}

export interface BenchArgs {
  readonly link: LinkArgs;
}

export type BenchTestFn<IO> = (dut: DutOf<IO>, tb: TestBench, args: BenchArgs) => Promise<void>;

export interface BenchSpec<IO> {
  /** One line for `nicgen sim --list`. */
  readonly about: string;
  /** Emitted on first run, not at import: listing benches should not elaborate every design. */
  readonly design: () => TypedDesign<IO>;
  readonly test: BenchTestFn<IO>;
  /** Cycle budget when the caller gives none; a bench that hangs fails instead. */
  readonly maxCycles?: number;
  /** The bench has an Ethernet link and honours LinkArgs (default false). */
  readonly link?: boolean;
}

export interface BenchRunOptions extends TestOptions {
  /** Called with the test bench before the bench body starts (the model is built by then). */
  readonly onStart?: (tb: TestBench) => void;
  /** Captures and faults for a bench with a link. Default: NICGEN_PCAP as `pcap`, no faults. */
  readonly link?: LinkArgs;
}

/** A bench with its IO type erased. */
export interface Bench {
  readonly about: string;
  readonly maxCycles: number;
  /** It has an Ethernet link (takes --pcap, --pcap-rx and the fault flags). */
  readonly hasLink: boolean;
  /** The emitted top module's name (builds the design on first call). */
  top(): string;
  run(options?: BenchRunOptions): Promise<TestResult>;
}

const defaultMaxCycles = 2_000_000;

/** NICGEN_PCAP=<file>: the capture a bench writes when nobody passed LinkArgs. */
function linkArgsFromEnv(): LinkArgs {
  const pcap = process.env['NICGEN_PCAP'];
  return pcap ? { pcap } : {};
}

export function defineBench<IO>(spec: BenchSpec<IO>): Bench {
  const maxCycles = spec.maxCycles ?? defaultMaxCycles;
  return {
    about: spec.about,
    maxCycles,
    hasLink: spec.link ?? false,
    top: () => spec.design().manifest.top,
    run: (options = {}) => {
      const { onStart, link, ...testOptions } = options;
      const args: BenchArgs = { link: link ?? linkArgsFromEnv() };
      return runTest(spec.design(), async (dut, tb) => {
        onStart?.(tb);
        await spec.test(dut, tb, args);
      }, { maxCycles, ...testOptions });
    },
  };
}

/** Benches of one top, by test name. */
export type BenchGroup = Readonly<Record<string, Bench>>;

/** The `it` of vitest (or any runner with the same shape), so this file does not import vitest. */
export type CaseRegistrar = (name: string, fn: () => Promise<void>) => unknown;

/**
 * Registers one test case per bench of `group`: `describe('fifo', () => benchCases(it, benches))`.
 * The same benches run under `nicgen sim` and `nicgen regress` (listed in nicgen.config.ts), so a
 * bench is written once. runTest puts the seed and the replay hint into any failure; the seed of a
 * passing run is logged too, so a slow drift can be replayed.
 */
export function benchCases(it: CaseRegistrar, group: BenchGroup): void {
  for (const [name, bench] of Object.entries(group)) {
    it(name, async () => {
      const r = await bench.run();
      console.log(`${bench.top()} ${name}: seed ${r.seed}, ${r.cycles} cycles${r.built ? ' (model built)' : ''}`);
    });
  }
}
