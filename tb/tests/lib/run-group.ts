// Registers one vitest case per bench of a group. runTest puts the seed and replay hint
// into any failure; the seed of a passing run is logged so slow drifts can be replayed too.

import type { it as vitestIt } from 'vitest';
import type { BenchGroup } from '../../benches/bench.ts';

export function runGroup(it: typeof vitestIt, group: BenchGroup): void {
  for (const [name, bench] of Object.entries(group)) {
    it(name, async () => {
      const r = await bench.run();
      console.log(`${bench.top()} ${name}: seed ${r.seed}, ${r.cycles} cycles${r.built ? ' (model built)' : ''}`);
    });
  }
}
