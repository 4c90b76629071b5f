// $stop / $fatal / $finish from the design become errors; Node and later tests survive.

import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AssertionFailure, ModelStateError, SimFinishError, SimStopError } from '../../../sim/errors.ts';
import { Model } from '../../../sim/model.ts';
import { runTest, typedDesign, TestFailure } from '../../core/index.ts';
import { counterSources, type CounterIO } from './fixtures/counter.ts';

const design = typedDesign<CounterIO>(counterSources());

async function countingModel(): Promise<Model> {
  const { model } = await Model.load(design);
  model.set('rst', 1);
  model.step(2);
  model.set('rst', 0);
  model.set('en', 1);
  return model;
}

describe('traps', () => {
  it('maps a $stop to the DSL assert with its TS location and cycle', async () => {
    const m = await countingModel();
    m.set('check_en', 1);
    // count is 5 after edge 7, so the check fires on edge 8; the batch stops there.
    const err = (() => { try { m.step(100); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(AssertionFailure);
    expect((err as AssertionFailure).message).toBe(
      'assertion failed at gen/fixture/counter.ts:12:5 (cycle 8, 32 ns): count must not reach 5 while check_en');
    expect(m.cycle).toBe(8);
    expect(() => m.step(1)).toThrow(ModelStateError);
  });

  it('turns $fatal into an error carrying the message and cycle', async () => {
    const m = await countingModel();
    m.step(3);
    m.set('fatal_en', 1);
    expect(() => m.step(10)).toThrow(SimStopError);
    try { m.step(1); } catch { /* dead now */ }
    expect(m.cycle).toBe(6);
  });

  it('still runs models after a fatal (Node survived)', async () => {
    const m = await countingModel();
    m.step(4);
    expect(m.get('count')).toBe(4);
  });

  it('reports the $fatal message through runTest with the cycle and seed', async () => {
    const err = await runTest(design, async (dut, tb) => {
      await tb.reset(2);
      dut.fatal_en.value = 1;
      await tb.clockCycles(5);
    }, { seed: 77, pictures: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestFailure);
    const msg = (err as TestFailure).message;
    expect(msg).toMatch(/\$stop at counter\.v:58 \(cycle 3, 12 ns\): .*fatal requested/);
    expect(msg).toContain('replay: NICGEN_SEED=77 npx vitest run tb/tests/core/traps.test.ts -t');
    expect((err as TestFailure).cycle).toBe(3);
  });

  it('turns $finish into SimFinishError', async () => {
    const m = await countingModel();
    m.set('finish_en', 1);
    expect(() => m.step(1)).toThrow(SimFinishError);
  });
});

describe('process lifetime', () => {
  it('exits normally with several models alive', () => {
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'two-models.ts');
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.signal).toBeNull();
    expect(r.stdout).toContain('ok 3 5');
    expect(r.status).toBe(0);
  });
});
