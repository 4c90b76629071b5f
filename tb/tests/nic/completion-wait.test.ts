// The two-NIC scenarios' completion wait (tb/nic/write-scenario.ts): a CQE the scoreboard
// refuses must fail the run even when it is the last one owed. The scoreboard takes an entry
// off its queue before it judges the CQE, so after a refused last CQE nothing is owed; the
// wait used to end there as if all was well and the refusal was lost. Driven by a stand-in
// pair (a real RdmaScoreboard, a CQ that returns one wrong CQE) on the small counter design,
// so the poller and the wait run on a real testbench clock.

import { describe, expect, it } from 'vitest';
import { runTest, typedDesign, type TestBench } from '../../core/index.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { RdmaScoreboard, ScoreboardMismatch } from '../../model/scoreboard.ts';
import { CQE_STATUS, WQE_OPCODE } from '../../../gen/nic/regmap.ts';
import type { CqeFields } from '../../model/completion.ts';
import type { PairEnv, Host } from '../../nic/env.ts';
import { startPoller, waitForCompletions, type HostSetup } from '../../nic/write-scenario.ts';
import { counterSources, type CounterIO } from '../core/fixtures/counter.ts';

const design = typedDesign<CounterIO>(counterSources());
const wrId = 0x1234n;

/** A pair whose A QP 0 owes one successful WRITE and whose CQ returns `cqe` once, at cycle `at`. */
function standIn(tb: TestBench, cqe: CqeFields, at: number): { env: PairEnv; setup: Map<Host, HostSetup> } {
  const sb = new RdmaScoreboard();
  sb.addHost('A', new HostMemory()); sb.addHost('B', new HostMemory());
  sb.start();
  sb.expectStatus('A', 0, { opcode: WQE_OPCODE.RDMA_WRITE, wrId, signaled: true, sges: [], remoteVa: 0n, rkey: 0 }, CQE_STATUS.SUCCESS);
  let given = false;
  const due = (name: 'A' | 'B'): boolean => name === 'A' && !given && tb.cycle >= at;
  const host = (name: 'A' | 'B'): Host => ({
    name,
    // hasCqe: the poller looks before it polls.
    drv: { hasCqe: () => due(name), pollCq: async () => (due(name) ? (given = true, [{ ...cqe, phase: 1 }]) : []) },
  }) as unknown as Host;
  const a = host('A'), b = host('B');
  const env = { a, b, sb, clock: { cycles: (n: number) => tb.clockCycles(n) } } as unknown as PairEnv;
  const qps = { qps: [{ index: 0 }] } as unknown as HostSetup;
  return { env, setup: new Map([[a, qps], [b, qps]]) };
}

async function waitOn(cqe: CqeFields): Promise<unknown> {
  return runTest(design, async (_dut, tb) => {
    const { env, setup } = standIn(tb, cqe, 40);
    const poll = startPoller(env, setup, tb);
    await waitForCompletions(env, tb, { timeout: 10_000, stallCycles: 5_000, poll, describe: async () => '' });
    poll.stop();
  }, { seed: 1 }).then(() => undefined, (e: unknown) => e);
}

describe('waitForCompletions', () => {
  const ok: CqeFields = { qp: 0, wrId, byteLen: 0, opcode: WQE_OPCODE.RDMA_WRITE, status: CQE_STATUS.SUCCESS, syndrome: 0 };

  it('ends when the last owed CQE is right', async () => {
    expect(await waitOn(ok)).toBeUndefined();
  });

  it('fails with the scoreboard\'s refusal when the last owed CQE is wrong', async () => {
    const err = await waitOn({ ...ok, status: CQE_STATUS.REMOTE_INVALID_REQUEST });
    expect(err).toBeInstanceOf(Error);
    const cause = (err as Error & { cause?: unknown }).cause ?? err;
    expect(cause).toBeInstanceOf(ScoreboardMismatch);
    expect((cause as Error).message).toMatch(/A QP 0 CQE wr_id=0x1234 \(WRITE\): status \d+ \(REMOTE_INVALID_REQUEST\), expected 0 \(SUCCESS\)/);
  });
});
