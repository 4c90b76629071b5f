// The bench registry: top (the DSL module's name) → test name → bench. `nicgen sim` runs
// entries by name; tb/tests/lib runs the library ones under vitest.

import type { BenchGroup } from './bench.ts';
import { rrBenches, wrrBenches } from './lib/arbiter.ts';
import { asyncFifoBenches, asyncFifoRamBenches, syncHandshakeBenches } from './lib/cdc.ts';
import { crcBenches } from './lib/crc.ts';
import { syncFifoBenches, syncFifoRamBenches } from './lib/fifo.ts';
import { skidBenches } from './lib/skid.ts';
import { demoBench } from './nic/demo.ts';
import { fuzzBenchDef } from './nic/fuzz.ts';
import { soakBench } from './nic/soak.ts';
import { asyncFifoRamFrameBenches } from './lib/cdc-frame.ts';
import { nicPairMacClockBenches } from './nic/mac-clock.ts';
import { nicPairReadBenches } from './nic/read.ts';
import { nicPairBenches } from './nic/write.ts';
import { selftestBenches } from './selftest.ts';

export type { Bench, BenchArgs, BenchGroup, BenchRunOptions, LinkArgs } from './bench.ts';

export const benches: Readonly<Record<string, BenchGroup>> = {
  sync_fifo: syncFifoBenches,
  sync_fifo_ram: syncFifoRamBenches,
  skid_buffer: skidBenches,
  async_fifo: asyncFifoBenches,
  async_fifo_ram: { ...asyncFifoRamBenches, ...asyncFifoRamFrameBenches },
  sync_handshake: syncHandshakeBenches,
  rr_arbiter: rrBenches,
  wrr_arbiter: wrrBenches,
  crc32_parallel: crcBenches,
  selftest: selftestBenches,
  nic_pair: { demo: demoBench, ...nicPairBenches, ...nicPairReadBenches, ...nicPairMacClockBenches, fuzz: fuzzBenchDef, soak: soakBench },
};
