// Arbiter benches (tb/benches/lib/arbiter.ts) under vitest.

import { describe, it } from 'vitest';
import { rrBenches, wrrBenches } from '../../benches/lib/arbiter.ts';
import { runGroup } from './run-group.ts';

describe('rr_arbiter', () => runGroup(it, rrBenches));
describe('wrr_arbiter', () => runGroup(it, wrrBenches));
