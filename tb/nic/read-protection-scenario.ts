// Remote access violations on RDMA READ (NIC.md error table, docs/nic-read.md): a wrong rkey
// tag, a wrong PD, an MR without the remote-read flag, a range past the MR's end. For each, on
// its own QP pair, A posts the bad READ and right behind it (same doorbell) a good READ:
//   responder: reads nothing for the bad one, sends NAK 0x62 (seen on the link, PSN = the READ's);
//   requester: error CQE REMOTE_ACCESS_ERROR with syndrome 0x62, QP in ERROR; the READ behind
//              it completes FLUSH_ERROR even if the responder already answered it, and no byte
//              of either READ's local destination changes (the scoreboard allows none); WQEs
//              posted afterwards (READ and WRITE) complete FLUSH_ERROR too, in order.

import { ACCESS, CQE_STATUS, QP_STATE } from '../../gen/nic/regmap.ts';
import type { TestBench } from '../core/index.ts';
import type { WorkRequest } from '../model/driver.ts';
import type { MemoryRegion } from '../model/mr.ts';
import { decodeRoce } from '../model/packet.ts';
import { RC_OP } from '../model/wire-expect.ts';
import type { PairEnv } from './env.ts';
import { pollAll, setupHosts } from './write-scenario.ts';

export const READ_VIOLATIONS = ['bad-tag', 'bad-pd', 'no-remote-read', 'out-of-bounds'] as const;
export type ReadViolation = typeof READ_VIOLATIONS[number];

const NAK_REMOTE_ACCESS = 0x62;

interface Nak { qpn: number; psn: number; syndrome: number }

/** NAKs B sent since the last call (the link keeps every frame). */
function naksOnLink(env: PairEnv): Nak[] {
  const out: Nak[] = [];
  for (const f of env.link.frames.splice(0)) {
    if (f.dir !== 'b->a') continue;
    const d = decodeRoce(f.data);
    if (d.ok && d.pkt.bth.opcode === RC_OP.ACK && d.pkt.aeth && d.pkt.aeth.syndrome !== 0x1f) out.push({ qpn: d.pkt.bth.destQp, psn: d.pkt.bth.psn, syndrome: d.pkt.aeth.syndrome });
  }
  return out;
}

async function drain(env: PairEnv, tb: TestBench, setup: Awaited<ReturnType<typeof setupHosts>>, qp: number, what: string, cycles: number): Promise<void> {
  const deadline = tb.cycle + cycles;
  while (env.sb.owed('A', qp) > 0) {
    if (tb.cycle > deadline) throw new Error(`${what}: ${env.sb.owed('A', qp)} CQE(s) of A QP ${qp} missing after ${cycles} cycles`);
    await pollAll(env, setup);
    await tb.clockCycles(32);
  }
}

export async function runReadProtectionScenario(env: PairEnv, tb: TestBench, cases: readonly ReadViolation[] = READ_VIOLATIONS): Promise<{ naks: number }> {
  const rng = tb.rng;
  const setup = await setupHosts(env, tb, cases.length);
  const A = env.a, B = env.b, sa = setup.get(A)!;
  const good = await B.drv.registerMr({ len: 16384, access: ACCESS.REMOTE_READ, pd: 0x22 });
  const otherPd = await B.drv.registerMr({ len: 8192, access: ACCESS.REMOTE_READ, pd: 0x33 });
  const land = await A.drv.registerMr({ len: 65536, access: ACCESS.LOCAL_WRITE, pd: 0x11 });
  for (const mr of [good, otherPd, land]) mr.write(0, rng.bytes(mr.len));
  const noRead: MemoryRegion = setup.get(B)!.dst; // REMOTE_WRITE | LOCAL_WRITE only
  env.link.frames.length = 0;
  env.sb.start();
  for (const h of [A, B]) for (const qp of setup.get(h)!.qps) env.sb.allow(h.name, qp.ringRanges);
  let naks = 0;
  for (const [i, c] of cases.entries()) {
    const qp = sa.qps[i]!;
    const len = rng.int(1, 3 * (1 << qp.opts.pmtuLog2));
    const t = {
      'bad-tag': { va: good.va + 100n, rkey: ((good.index << 8) | ((good.tag + 1) & 0xff)) >>> 0 },
      'bad-pd': { va: otherPd.va, rkey: otherPd.key },
      'no-remote-read': { va: noRead.va + 8n, rkey: noRead.key },
      'out-of-bounds': { va: good.va + BigInt(good.len - Math.max(1, len >> 1)), rkey: good.key },
    }[c];
    const slice = i * 16384;
    const bad = A.drv.readRequest(BigInt(0x1000 + i), [{ mr: land, offset: slice + rng.int(0, 100), len }], t.va, t.rkey, true);
    const behind = A.drv.readRequest(BigInt(0x1100 + i), [{ mr: land, offset: slice + 8000, len: 64 }], good.va, good.key, rng.bool());
    const psn = await A.drv.qpReg(qp, 'SQ_PSN');
    // The scoreboard allows neither destination to change: a failed READ writes nothing.
    env.sb.expectRead('A', qp.index, bad, CQE_STATUS.REMOTE_ACCESS_ERROR, { host: 'B', mr: good, offset: 0 }, NAK_REMOTE_ACCESS, c === 'no-remote-read' ? 'no-access' : c);
    env.sb.expectStatus('A', qp.index, behind, CQE_STATUS.FLUSH_ERROR);
    A.drv.post(qp, bad); A.drv.post(qp, behind);
    await A.drv.ring(qp);
    await drain(env, tb, setup, qp.index, c, 200_000);
    await tb.clockCycles(50);
    const st = await A.drv.qpState(qp);
    if (st !== QP_STATE.ERROR) throw new Error(`${c}: requester QP ${qp.index} in state ${st} after a remote access error, expected ERROR`);
    const later: WorkRequest[] = [
      A.drv.readRequest(BigInt(0x2000 + 16 * i), [{ mr: land, offset: slice + 9000, len: 32 }], good.va, good.key, rng.bool()),
      A.drv.writeRequest(BigInt(0x2001 + 16 * i), [{ mr: sa.src, offset: 0, len: 64 }], good.va, good.key, rng.bool()),
    ];
    for (const wr of later) { env.sb.expectStatus('A', qp.index, wr, CQE_STATUS.FLUSH_ERROR); await A.drv.postSend(qp, wr); }
    await drain(env, tb, setup, qp.index, `${c} (flush)`, 100_000);
    const nak = naksOnLink(env).find(n => n.qpn === qp.qpn);
    if (!nak) throw new Error(`${c}: no NAK to QPN 0x${qp.qpn.toString(16)} on the wire`);
    if (nak.syndrome !== NAK_REMOTE_ACCESS) throw new Error(`${c}: NAK syndrome 0x${nak.syndrome.toString(16)}, expected 0x62`);
    if (nak.psn !== psn) throw new Error(`${c}: NAK PSN 0x${nak.psn.toString(16)}, expected the READ's 0x${psn.toString(16)}`);
    naks++;
  }
  env.sb.finish();
  return { naks };
}
