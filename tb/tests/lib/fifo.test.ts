// FIFO benches (tb/benches/lib/fifo.ts) under vitest: every registered FIFO bench runs.

import { describe, it } from 'vitest';
import { syncFifoBenches, syncFifoRamBenches } from '../../benches/lib/fifo.ts';
import { runGroup } from './run-group.ts';

describe('sync_fifo (flip-flops)', () => runGroup(it, syncFifoBenches));
describe('sync_fifo_ram (block RAM)', () => runGroup(it, syncFifoRamBenches));
