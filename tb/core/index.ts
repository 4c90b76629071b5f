// Public API of the testbench core.
export { runTest, typedDesign, type GeneratorTestFn, type TestFn, type TestOptions, type TestResult, type TypedDesign } from './run.ts';
export { TestBench, clockCycles, type ResetOptions, type TraceOptions, type UntilOptions } from './testbench.ts';
export { Rng, envSeed, randomSeed } from './rng.ts';
export { envCoverage, type CoverageOptions } from './coverage-options.ts';
export type { Task } from './task.ts';
export { Cycles, CyclesOf, Falling, FallingOf, Rising, RisingOf, Trigger, Until, type TaskGenerator, type UntilTriggerOptions, type Yieldable } from './triggers.ts';
export type { ClockHandle, DutOf, InPort, InputHandle, OutPort, OutputHandle, PortLike } from './types.ts';
export { CycleLimitError, DeadlockError, TaskCancelledError, TestFailure, TimeoutError, TriggerUsageError, causeCycleOf, type FailureFiles, type HasCauseCycle } from './errors.ts';
export { PortNameError } from './port-names.ts';
export { waveFromEnv, type WaveOption } from './run.ts';
export type { ReplayHints } from './where.ts';
