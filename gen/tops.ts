// Every top the project emits into rtl/. `nicgen gen` writes these; `nicgen lint` checks them.

import { top, type TopEntry } from './emit/project.ts';
import { rrArbiter, wrrArbiter } from './lib/arbiter.ts';
import { CRC32, crcParallel } from './lib/crc.ts';
import { syncFifo, syncFifoRam } from './lib/fifo.ts';
import { skidBuffer } from './lib/skid.ts';

export const tops: readonly TopEntry[] = [
  top(syncFifo, { width: 64, depth: 16 }, 'synchronous FIFO, register storage'),
  top(syncFifoRam, { width: 64, depth: 512 }, 'synchronous FIFO, block-RAM storage'),
  top(skidBuffer, { width: 64 }, 'skid buffer (full-throughput register slice)'),
  top(rrArbiter, { n: 4 }, 'round-robin arbiter'),
  top(wrrArbiter, { n: 4 }, 'weighted round-robin arbiter'),
  top(crcParallel(CRC32), { bytes: 8 }, 'parallel CRC32, 64-bit word with byte enables'),
  top(crcParallel(CRC32), { bytes: 64 }, 'parallel CRC32, 512-bit word with byte enables'),
];
