// The requester's own checks, end to end on nic_pair (NIC.md error table; tb/model/req-tx.ts
// checkWqe): each WQE below is judged by A before anything goes on the wire, except the last
// READ, whose response B sends and A cannot land. On four QP pairs:
//   QP 0, RTS: a WRITE and a READ with no SGE and length 0 (SUCCESS), an unknown opcode
//     (BAD_OPCODE), a WRITE and a READ whose length is not the sum of their SGEs
//     (LOCAL_LENGTH_ERROR), then a WRITE that must still work: none of these errors stops the QP;
//   QP 1, left in RTR: a WRITE, a READ and an unknown opcode, each LOCAL_QP_ERROR;
//   QP 2: a WRITE whose SGE has a wrong lkey tag: LOCAL_PROTECTION_ERROR, the QP to ERROR, then
//     a WRITE, a READ and an unknown opcode each FLUSH_ERROR, in order;
//   QP 3: a READ into an SGE with a wrong lkey tag: B answers, A cannot land it:
//     LOCAL_PROTECTION_ERROR, the QP to ERROR.
// The scoreboard allows no byte of any failed WQE's target or destination to change, checks
// each CQE's status in posting order, and the QP states are read back.

import { ACCESS, CQE_STATUS, QP_STATE } from '../../gen/nic/regmap.ts';
import type { TestBench } from '../core/index.ts';
import type { QueuePair, SgeRef, WorkRequest } from '../model/driver.ts';
import type { MemoryRegion } from '../model/mr.ts';
import type { PairEnv } from './env.ts';
import { pollAll, setupHosts } from './write-scenario.ts';

/** An opcode the NIC does not know. */
const UNKNOWN_OPCODE = 7;

/** `mr` with a wrong key tag: what a stale or mistyped lkey looks like (same index, other tag). */
function wrongKey(mr: MemoryRegion): MemoryRegion {
  const bad = ((mr.index << 8) | ((mr.tag + 1) & 0xff)) >>> 0;
  return Object.create(mr, { key: { value: bad } }) as MemoryRegion;
}

export interface LocalErrorResult { readonly cqes: number; readonly cycles: number }

export async function runLocalErrorScenario(env: PairEnv, tb: TestBench): Promise<LocalErrorResult> {
  const rng = tb.rng;
  const A = env.a, B = env.b;
  // QP 0 the usual way; QPs 1..3 made here, QP 1 of A left in RTR.
  const setup = await setupHosts(env, tb, 1);
  const sa = setup.get(A)!, sb = setup.get(B)!;
  for (let i = 1; i < 4; i++) {
    const o = { pmtuLog2: rng.int(8, 12), sqSizeLog2: 4, cqSizeLog2: 5 };
    const qa = await A.drv.createQp(i, { pd: 0x11, sqPsn: rng.int(0, 0xffffff), ...o });
    const qb = await B.drv.createQp(i, { pd: 0x22, sqPsn: rng.int(0, 0xffffff), ...o });
    await A.drv.connectQp(qa, B.drv.address(qb), i === 1 ? 'RTR' : 'RTS');
    await B.drv.connectQp(qb, A.drv.address(qa));
    sa.qps.push(qa); sb.qps.push(qb);
  }
  const remote = await B.drv.registerMr({ len: 16384, access: ACCESS.REMOTE_READ | ACCESS.REMOTE_WRITE, pd: 0x22 });
  const land = await A.drv.registerMr({ len: 16384, access: ACCESS.LOCAL_WRITE, pd: 0x11 });
  for (const mr of [remote, land]) mr.write(0, rng.bytes(mr.len));
  env.sb.start();
  for (const h of [A, B]) for (const qp of setup.get(h)!.qps) env.sb.allow(h.name, qp.ringRanges);

  let wrId = 0x5000n;
  const src = (len: number): SgeRef[] => [{ mr: sa.src, offset: rng.int(0, 4000), len }];
  const dst = (len: number): SgeRef[] => [{ mr: land, offset: rng.int(0, 8000), len }];
  const remoteAt = (off: number) => ({ host: 'B', mr: remote, offset: off });
  const write = (sges: SgeRef[], off: number, extra: Partial<WorkRequest> = {}): WorkRequest =>
    ({ ...A.drv.writeRequest(++wrId, sges, remote.va + BigInt(off), remote.key, rng.bool()), ...extra });
  const read = (sges: SgeRef[], off: number, extra: Partial<WorkRequest> = {}): WorkRequest =>
    ({ ...A.drv.readRequest(++wrId, sges, remote.va + BigInt(off), remote.key, rng.bool()), ...extra });
  const unknown = (): WorkRequest => ({ ...A.drv.writeRequest(++wrId, src(16), remote.va, remote.key, rng.bool()), opcode: UNKNOWN_OPCODE });
  const post = async (qp: QueuePair, wr: WorkRequest, expect: () => void): Promise<void> => { expect(); await A.drv.postSend(qp, wr); };
  const expectStatus = (qp: QueuePair, status: number) => (wr: WorkRequest) => env.sb.expectStatus('A', qp.index, wr, status);

  // QP 0 (RTS): nothing here stops it.
  const q0 = sa.qps[0]!;
  const w0 = write([], 100, { signaled: true });
  await post(q0, w0, () => env.sb.expectWrite('A', 0, w0, CQE_STATUS.SUCCESS, remoteAt(100)));
  const r0 = read([], 200, { signaled: true });
  await post(q0, r0, () => env.sb.expectRead('A', 0, r0, CQE_STATUS.SUCCESS, remoteAt(200)));
  for (const wr of [unknown()]) await post(q0, wr, () => expectStatus(q0, CQE_STATUS.BAD_OPCODE)(wr));
  const longW = write(src(64), 300, { length: 65 });
  await post(q0, longW, () => expectStatus(q0, CQE_STATUS.LOCAL_LENGTH_ERROR)(longW));
  const shortR = read(dst(64), 400, { length: 63 });
  await post(q0, shortR, () => env.sb.expectRead('A', 0, shortR, CQE_STATUS.LOCAL_LENGTH_ERROR, remoteAt(400)));
  const okW = write(src(100), 500, { signaled: true });
  await post(q0, okW, () => env.sb.expectWrite('A', 0, okW, CQE_STATUS.SUCCESS, remoteAt(500)));

  // QP 1 (RTR): the requester refuses every WQE.
  const q1 = sa.qps[1]!;
  for (const wr of [write(src(32), 600), read(dst(32), 700), unknown()]) await post(q1, wr, () => expectStatus(q1, CQE_STATUS.LOCAL_QP_ERROR)(wr));

  // QP 2: a bad lkey on a WRITE's SGE moves the QP to ERROR; what follows is flushed.
  const q2 = sa.qps[2]!;
  const badW = write([{ mr: wrongKey(sa.src), offset: 0, len: 48 }], 800);
  await post(q2, badW, () => expectStatus(q2, CQE_STATUS.LOCAL_PROTECTION_ERROR)(badW));
  for (const wr of [write(src(32), 900), read(dst(32), 1000), unknown()]) await post(q2, wr, () => expectStatus(q2, CQE_STATUS.FLUSH_ERROR)(wr));

  // QP 3: a READ whose destination has a bad lkey: answered by B, not landed by A.
  const q3 = sa.qps[3]!;
  const badR = read([{ mr: wrongKey(land), offset: 12000, len: 200 }], 1100);
  await post(q3, badR, () => env.sb.expectRead('A', 3, badR, CQE_STATUS.LOCAL_PROTECTION_ERROR, remoteAt(1100)));

  const t0 = tb.cycle;
  const deadline = tb.cycle + 400_000;
  let cqes = 0;
  while (env.sb.totalOwed > 0) {
    if (tb.cycle > deadline) throw new Error(`${env.sb.totalOwed} CQE(s) still owed after 400000 cycles`);
    cqes += await pollAll(env, setup);
    await tb.clockCycles(32);
  }
  env.sb.finish();
  const want = [QP_STATE.RTS, QP_STATE.RTR, QP_STATE.ERROR, QP_STATE.ERROR];
  for (const [i, w] of want.entries()) {
    const s = await A.drv.qpState(sa.qps[i]!);   // one register read at a time
    if (s !== w) throw new Error(`A QP ${i} in state ${s} after its WQEs, expected ${w}`);
  }
  return { cqes, cycles: tb.cycle - t0 };
}
