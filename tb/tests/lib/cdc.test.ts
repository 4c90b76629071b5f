// Clock-domain crossing benches (tb/benches/lib/cdc.ts) under vitest: both FIFOs and the
// handshake synchronizer, clocks from the seed and the fixed extremes; asyncFifoRam as a frame
// FIFO (tb/benches/lib/cdc-frame.ts).

import { describe, it } from 'vitest';
import { asyncFifoBenches, asyncFifoRamBenches, syncHandshakeBenches } from '../../benches/lib/cdc.ts';
import { asyncFifoRamFrameBenches } from '../../benches/lib/cdc-frame.ts';
import { runGroup } from './run-group.ts';

describe('async_fifo (flip-flops, two clocks)', () => runGroup(it, asyncFifoBenches));
describe('async_fifo_ram (dual-clock block RAM)', () => runGroup(it, asyncFifoRamBenches));
describe('sync_handshake (toggle request/acknowledge)', () => runGroup(it, syncHandshakeBenches));
describe('async_fifo_ram as a frame FIFO (frameBit)', () => runGroup(it, asyncFifoRamFrameBenches));
