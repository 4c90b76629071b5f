// A nic_wqe_fetch run that fails on purpose once WQEs have gone through: the FSM has moved,
// the AXI read channels and the struct-typed m_wqe stream have carried data. The savefile and
// picture tests look at its dumps: every kind of signal the wave tools treat specially is in it.

import type { IOOf } from '../../../gen/hdl/index.ts';
import { QpCtx } from '../../../gen/nic/ctx.ts';
import { QP_STATE, WQE_BYTES } from '../../../gen/nic/regmap.ts';
import { nicWqeFetch } from '../../../gen/nic/wqe-fetch.ts';
import { AxiRam } from '../../bfm/index.ts';
import { runTest, TestFailure, type DutOf, type TestBench, type TestOptions } from '../../core/index.ts';
import { design } from '../../design.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { encodeWqe, randomWqe } from '../../model/wqe-fetch.ts';
import { readMasterPorts } from '../nic/axi-halves.ts';
import { sqPiLane } from '../nic/sq-pi-lane.ts';

export const fetchDesign = () => design(nicWqeFetch, {});

/** The set-up of the fetch runs here and in bench/waves.ts: QPs 0 and 1 in RTS with 16-WQE
 *  rings, QPs 2 and 3 in RESET, SQ_PI written through the stage's `sq_pi_wr` lane (`publish()`
 *  hands `pi` to it), after a 2-cycle reset an AXI RAM on m_axi with `noise` back-pressure
 *  and stalls. */
export async function fetchRig(dut: DutOf<IOOf<typeof nicWqeFetch>>, tb: TestBench, noise: number): Promise<{ mem: HostMemory; base: (q: number) => bigint; pi: number[]; publish: () => void }> {
  const mem = new HostMemory();
  const base = (q: number): bigint => BigInt(0x3000_0000 + q * 0x1_0000);
  const empty = Object.fromEntries(QpCtx.fields.map(f => [f.name, 0]));
  const pi = [0, 0, 0, 0];
  const show = (sqPi: readonly number[]): void => {
    dut.qp_ctx.value = sqPi.map((p, q) => ({ ...empty, state: q < 2 ? QP_STATE.RTS : QP_STATE.RESET, sqSizeLog2: 4, sqBase: base(q), sqPi: p })) as never;
  };
  const lane = sqPiLane(tb, dut.sq_pi_wr, pi.length, show);
  dut.weight.value = [1, 1, 1, 1];
  dut.m_wqe.ready.value = 1;
  show(lane.shown);
  await tb.reset(2);
  new AxiRam(tb, readMasterPorts(dut.m_axi), { name: 'm_axi', memory: mem, reorder: false, backpressure: noise, stall: noise });
  return { mem, base, pi, publish: () => { pi.forEach((v, q) => { lane.want[q] = v; }); } };
}

export class DeliberateFailure extends Error {
  constructor(message: string, readonly signals: readonly string[]) {
    super(message);
    this.name = 'DeliberateFailure';
  }
}

/** Posts WQEs on two QPs, takes them on m_wqe, and fails `after` cycles past the 3rd one. */
export async function failingFetch(options: TestOptions, after = 3): Promise<TestFailure> {
  const err = await runTest(fetchDesign(), async (dut, tb) => {
    const { mem, base, pi, publish } = await fetchRig(dut, tb, 0.3);
    for (let q = 0; q < 2; q++) {
      for (let s = 0; s < 3; s++) mem.write(base(q) + BigInt(s * WQE_BYTES), encodeWqe(randomWqe(tb.rng)));
      pi[q] = 3;
    }
    await tb.rising();
    publish();
    let taken = 0;
    await tb.until(() => {
      if (dut.m_wqe.valid.value && dut.m_wqe.ready.value) taken++;
      return taken >= 3;
    }, { timeout: 2_000, what: 'three WQEs on m_wqe' });
    await tb.clockCycles(after);
    throw new DeliberateFailure(`m_wqe: failing on purpose ${after} cycles after the 3rd WQE, at cycle ${tb.cycle}`, ['m_wqe_data']);
  }, { seed: 1, ...options }).catch((e: unknown) => e);
  if (!(err instanceof TestFailure)) throw new Error(`the deliberately failing run did not fail: ${String(err)}`);
  return err;
}
