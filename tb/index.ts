// nicgen/tb: everything a test bench imports — running a design (runTest, design), the
// coroutine test bench, seeded randomness, benches that `nicgen sim`, `nicgen regress` and
// vitest all run (defineBench, benchCases), comparison helpers, and the bus models.
// Guide: docs/testbench.md.
export * from './core/index.ts';
export { design } from './design.ts';
export { defineBench, benchCases, type Bench, type BenchGroup, type BenchRunOptions, type BenchSpec } from './benches/bench.ts';
export { BenchMismatch, checkEq, checkThat, fmt, num, big, bit } from './benches/check.ts';
export { reportProgress, type BenchProgress } from './benches/progress.ts';
export * from './bfm/index.ts';
