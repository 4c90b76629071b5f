// Skid buffer benches (tb/benches/lib/skid.ts) under vitest.

import { describe, it } from 'vitest';
import { skidBenches } from '../../benches/lib/skid.ts';
import { runGroup } from './run-group.ts';

describe('skid_buffer', () => runGroup(it, skidBenches));
