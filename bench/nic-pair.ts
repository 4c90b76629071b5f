// Shared by the NIC benchmarks: the two-NIC test top at a given data width, run once with a
// fixed seed (NICGEN_SEED overrides), handing back what the body measured.

import { nicPair } from '../gen/nic/nic-top.ts';
import { envSeed, runTest, type TestBench, type TestOptions } from '../tb/core/index.ts';
import { design } from '../tb/design.ts';
import { PAIR_PARAMS, type PairDut, type PairParams } from '../tb/nic/env.ts';

/** nic_pair at `dataWidth` bits with PAIR_PARAMS, or with `params` (a larger configuration:
 *  its elaboration, slow at hundreds of QPs, is cached on disk). */
export const pairDesignOf = (dataWidth: number, params?: PairParams) =>
  params ? design(nicPair, { ...params, dataWidth }, { diskCache: true }) : design(nicPair, { ...PAIR_PARAMS, dataWidth });

export const benchSeed = (): number => envSeed() ?? 1;

/** Runs `body` on a fresh nic_pair of `dataWidth` bits (PAIR_PARAMS, or `params`); its result, or
 *  the failure with seed and cycle. `debug` adds test options (a wave dump, a VCD build) when
 *  looking into a number. */
export async function onPair<T>(dataWidth: number, maxCycles: number, body: (dut: PairDut, tb: TestBench) => Promise<T>, debug: Omit<TestOptions, 'seed' | 'maxCycles'> = {}, params?: PairParams): Promise<T> {
  let out: { value: T } | undefined;
  await runTest(pairDesignOf(dataWidth, params), async (dut, tb) => { out = { value: await body(dut, tb) }; }, { seed: benchSeed(), maxCycles, ...debug });
  if (!out) throw new Error('bench body returned nothing');
  return out.value;
}

/** Median of a non-empty list. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
