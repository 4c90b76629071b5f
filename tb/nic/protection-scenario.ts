// Remote access violations on RDMA WRITE (NIC.md error table): a wrong rkey tag, a wrong PD, a
// missing remote-write flag, an out-of-bounds range. For each, on its own QP pair:
//   responder: writes nothing (the scoreboard allows no byte of the target to change) and
//              sends NAK 0x62 (seen on the link);
//   requester: error CQE REMOTE_ACCESS_ERROR, QP in ERROR, and WQEs posted afterwards
//              complete with FLUSH_ERROR, in order.

import { ACCESS, CQE_STATUS, QP_STATE } from '../../gen/nic/regmap.ts';
import { AETH } from '../../gen/nic/flow-types.ts';
import type { TestBench } from '../core/index.ts';
import { decodeRoce } from '../model/packet.ts';
import { RC_OP } from '../model/wire-expect.ts';
import type { PairEnv } from './env.ts';
import { pollAll, setupHosts } from './write-scenario.ts';

export const VIOLATIONS = ['bad-tag', 'bad-pd', 'no-remote-write', 'out-of-bounds'] as const;
export type Violation = typeof VIOLATIONS[number];

export async function runProtectionScenario(env: PairEnv, tb: TestBench, cases: readonly Violation[] = VIOLATIONS): Promise<{ naks: number }> {
  const rng = tb.rng;
  const setup = await setupHosts(env, tb, cases.length);
  const A = env.a, B = env.b;
  const sa = setup.get(A)!, sb = setup.get(B)!;
  // Targets on B that fail the checks in different ways.
  const otherPd = await B.drv.registerMr({ len: 8192, access: ACCESS.REMOTE_WRITE, pd: 0x33 });
  const noWrite = await B.drv.registerMr({ len: 8192, access: ACCESS.LOCAL_WRITE | ACCESS.REMOTE_READ, pd: 0x22 });
  for (const mr of [otherPd, noWrite]) mr.write(0, rng.bytes(mr.len));
  const naks: { qpn: number; syndrome: number }[] = [];
  env.link.frames.length = 0;
  const observeNaks = (): void => {
    for (const f of env.link.frames.splice(0)) {
      if (f.dir !== 'b->a') continue;
      const d = decodeRoce(f.data);
      if (d.ok && d.pkt.bth.opcode === RC_OP.ACK && d.pkt.aeth && d.pkt.aeth.syndrome !== AETH.ACK) naks.push({ qpn: d.pkt.bth.destQp, syndrome: d.pkt.aeth.syndrome });
    }
  };

  env.sb.start();
  for (const h of [A, B]) for (const qp of setup.get(h)!.qps) env.sb.allow(h.name, qp.ringRanges);
  for (const [i, c] of cases.entries()) {
    const qp = sa.qps[i]!;
    const dst = sb.dst;
    const len = rng.int(1, 3 * (1 << qp.opts.pmtuLog2));
    const t = {
      'bad-tag': { va: dst.va + 100n, rkey: ((dst.index << 8) | ((dst.tag + 1) & 0xff)) >>> 0 },
      'bad-pd': { va: otherPd.va, rkey: otherPd.key },
      'no-remote-write': { va: noWrite.va + 8n, rkey: noWrite.key },
      'out-of-bounds': { va: dst.va + BigInt(dst.len - Math.max(1, len >> 1)), rkey: dst.key },
    }[c];
    const src = [{ mr: sa.src, offset: rng.int(0, 1000), len }];
    const bad = A.drv.writeRequest(BigInt(0x1000 + i), src, t.va, t.rkey, true);
    env.sb.expectStatus('A', qp.index, bad, CQE_STATUS.REMOTE_ACCESS_ERROR, c === 'no-remote-write' ? 'no-access' : c);
    await A.drv.postSend(qp, bad);
    const deadline = tb.cycle + 200_000;
    while (env.sb.owed('A', qp.index) > 0) {
      if (tb.cycle > deadline) throw new Error(`${c}: no error CQE within 200000 cycles`);
      const got = await A.drv.pollCq(qp);
      for (const cqe of got) {
        if (cqe.status === CQE_STATUS.REMOTE_ACCESS_ERROR && cqe.syndrome !== AETH.NAK_REMOTE_ACCESS) throw new Error(`${c}: CQE syndrome 0x${cqe.syndrome.toString(16)}, expected 0x62`);
        env.sb.onCqe('A', qp.index, cqe);
      }
      await pollAll(env, setup);
      await tb.clockCycles(32);
    }
    await tb.clockCycles(50);
    const st = await A.drv.qpState(qp);
    if (st !== QP_STATE.ERROR) throw new Error(`${c}: requester QP ${qp.index} in state ${st} after a remote access error, expected ERROR`);
    // WQEs posted to a QP in ERROR are flushed, in order.
    for (let k = 0; k < 2; k++) {
      const wr = A.drv.writeRequest(BigInt(0x2000 + 16 * i + k), [{ mr: sa.src, offset: 0, len: 64 }], dst.va, dst.key, rng.bool());
      env.sb.expectStatus('A', qp.index, wr, CQE_STATUS.FLUSH_ERROR);
      await A.drv.postSend(qp, wr);
    }
    const d2 = tb.cycle + 100_000;
    while (env.sb.owed('A', qp.index) > 0) {
      if (tb.cycle > d2) throw new Error(`${c}: flushed WQEs did not complete`);
      await pollAll(env, setup);
      await tb.clockCycles(32);
    }
    observeNaks();
    const nak = naks.find(n => n.qpn === qp.qpn);
    if (!nak) throw new Error(`${c}: no NAK to QPN 0x${qp.qpn.toString(16)} on the wire`);
    if (nak.syndrome !== AETH.NAK_REMOTE_ACCESS) throw new Error(`${c}: NAK syndrome 0x${nak.syndrome.toString(16)}, expected 0x62`);
  }
  env.sb.finish();
  return { naks: naks.length };
}
