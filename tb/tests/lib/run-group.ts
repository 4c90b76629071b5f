// Registers one vitest case per bench of a group (tb/benches/bench.ts benchCases).

import type { it as vitestIt } from 'vitest';
import { benchCases, type BenchGroup } from '../../benches/bench.ts';

export function runGroup(it: typeof vitestIt, group: BenchGroup): void {
  benchCases(it, group);
}
