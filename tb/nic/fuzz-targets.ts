// What the hostile-frame fuzzer aims at on the NIC under test (B of a nic_pair), and what it
// knows about it:
//  - QPs 0 and 1 carry the real traffic (tb/nic/mixed-scenario.ts, PD 0x22): 'live';
//  - QPs 2 and 3 are 'target' QPs, connected to A's QPs 2 and 3, in their own PD (0x33), so
//    the real MRs' keys fail the PD check on them; a target QP that a hostile frame moved to
//    ERROR is reset and connected again (new PSNs, same rings), so it keeps being exercised;
//  - target MRs in PD 0x33: `fw` (remote write + read), `fr` (remote read only: its bytes never
//    change, so READ responses from it are compared byte for byte), `fn` (no remote access),
//    plus `fo` (remote write + read, but PD 0x44) and a stale key (its MR registered again).
// Every key (real ones included) is offered to the generator with its MR's range.

import { ACCESS, QP_STATE } from '../../gen/nic/regmap.ts';
import type { TestBench } from '../core/index.ts';
import type { QueuePair } from '../model/driver.ts';
import type { ByteRange } from '../model/host-memory.ts';
import type { HostileKey, HostileQp, HostileWorld } from '../model/hostile-frames.ts';
import type { MemoryRegion } from '../model/mr.ts';
import { qpReg } from '../model/nic-regs.ts';
import { LOCAL_QPN_BASE } from '../../gen/nic/flow-types.ts';
import type { Host, PairEnv } from './env.ts';

export const LIVE_QPS = [0, 1] as const;
export const TARGET_QPS = [2, 3] as const;
const TARGET_PD = { A: 0x55, B: 0x33 };

export interface FuzzTargets {
  /** B's target QPs by index (replaced when revived). */
  readonly bQps: Map<number, QueuePair>;
  readonly aQps: Map<number, QueuePair>;
  readonly mrs: { readonly fw: MemoryRegion; readonly fr: MemoryRegion; readonly fn: MemoryRegion; readonly fo: MemoryRegion };
  /** A key whose MR was registered again since (its tag moved on). */
  readonly staleKey: HostileKey;
  /** Ring memory of the target QPs on each host (the driver fills it when it creates them). */
  readonly rings: { readonly A: ByteRange[]; readonly B: ByteRange[] };
  /** Target QPs reset and reconnected after a hostile frame moved them to ERROR. */
  revived: number;
}

async function targetQp(h: Host, index: number, pmtuLog2: number, psn: number): Promise<QueuePair> {
  return h.drv.createQp(index, { pd: TARGET_PD[h.name], pmtuLog2, sqPsn: psn, sqSizeLog2: 2, cqSizeLog2: 2 });
}

/** Creates the target MRs on B and the target QP pairs (B i <-> A i). */
export async function setupFuzzTargets(env: PairEnv, tb: TestBench): Promise<FuzzTargets> {
  const rng = tb.rng, B = env.b;
  const mr = async (len: number, access: number, pd = TARGET_PD.B): Promise<MemoryRegion> => {
    const m = await B.drv.registerMr({ len, access, pd });
    m.write(0, rng.bytes(len));
    return m;
  };
  const fw = await mr(64 * 1024, ACCESS.REMOTE_WRITE | ACCESS.REMOTE_READ | ACCESS.LOCAL_WRITE);
  const fr = await mr(16 * 1024, ACCESS.REMOTE_READ);
  const fn = await mr(8 * 1024, ACCESS.LOCAL_WRITE);
  const fo = await mr(8 * 1024, ACCESS.REMOTE_WRITE | ACCESS.REMOTE_READ, 0x44);
  const old = await mr(4096, ACCESS.REMOTE_WRITE | ACCESS.REMOTE_READ);
  const again = await B.drv.registerMr({ len: 4096, access: ACCESS.REMOTE_WRITE | ACCESS.REMOTE_READ, pd: TARGET_PD.B, index: old.index });
  again.write(0, rng.bytes(4096));
  const staleKey: HostileKey = { key: old.key, va: again.va, len: again.len, what: `stale key of MR ${old.index}` };
  const t: FuzzTargets = { bQps: new Map(), aQps: new Map(), mrs: { fw, fr, fn, fo }, staleKey, rings: { A: [], B: [] }, revived: 0 };
  for (const i of TARGET_QPS) await connectTarget(env, t, i, rng.int(8, 12), rng.int(0, 0xffffff), rng.int(0, 0xffffff));
  return t;
}

/** (Re)creates target QP pair i: RESET, program, INIT, RTR, RTS on both ends. */
async function connectTarget(env: PairEnv, t: FuzzTargets, i: number, pmtuLog2: number, aPsn: number, bPsn: number): Promise<void> {
  const qb = await targetQp(env.b, i, pmtuLog2, bPsn), qa = await targetQp(env.a, i, pmtuLog2, aPsn);
  await env.b.drv.connectQp(qb, env.a.drv.address(qa));
  await env.a.drv.connectQp(qa, env.b.drv.address(qb));
  t.bQps.set(i, qb); t.aQps.set(i, qa);
  t.rings.B.push(...qb.ringRanges); t.rings.A.push(...qa.ringRanges);
}

/** Resets and reconnects every target QP pair whose B end is in ERROR, with new PSNs: RESET,
 *  SQ_PSN, INIT, then RTR/RTS towards the peer, on both ends. The rings stay where they are
 *  (the host writes no memory here, so no check can race with it). */
export async function reviveTargets(env: PairEnv, tb: TestBench, t: FuzzTargets): Promise<number> {
  let n = 0;
  for (const [i, qb] of t.bQps) {
    if (await env.b.drv.qpState(qb) !== QP_STATE.ERROR) continue;
    const qa = t.aQps.get(i)!;
    const psn = { A: tb.rng.int(0, 0xffffff), B: tb.rng.int(0, 0xffffff) };
    for (const [h, qp] of [[env.a, qa], [env.b, qb]] as const) {
      await h.drv.regs.write(qpReg(qp.index, 'STATE'), QP_STATE.RESET);
      await h.drv.regs.write(qpReg(qp.index, 'SQ_PSN'), psn[h.name]);
      await h.drv.regs.write(qpReg(qp.index, 'STATE'), QP_STATE.INIT);
    }
    await env.b.drv.connectQp(qb, { ...env.a.drv.address(qa), psn: psn.A });
    await env.a.drv.connectQp(qa, { ...env.b.drv.address(qb), psn: psn.B });
    n++;
  }
  t.revived += n;
  return n;
}

/** Every key B has (registered MRs, the stale one), with its MR's range and what it is. */
export function fuzzKeys(env: PairEnv, t: FuzzTargets): HostileKey[] {
  const keys: HostileKey[] = [t.staleKey];
  for (const m of env.b.drv.mrs) {
    if (!m) continue;
    keys.push({ key: m.key, va: m.va, len: m.len, what: `MR ${m.index} (PD 0x${m.pd.toString(16)}, access ${m.access})` });
  }
  return keys;
}

/** The generator's view of B, filled in by refreshWorld. */
export function fuzzWorld(env: PairEnv, live: boolean): HostileWorld {
  const a = env.a.drv, b = env.b.drv;
  const qps: HostileQp[] = [...(live ? LIVE_QPS : []), ...TARGET_QPS].map(i => ({
    qpn: LOCAL_QPN_BASE + i, role: (LIVE_QPS as readonly number[]).includes(i) ? 'live' : 'target', mtu: 256, expPsn: 0, sqPsn: 0,
  }));
  return {
    path: {
      eth: { src: Number(a.mac), dst: Number(b.mac) },
      ip: { dscp: 26, ecn: 0, id: 0, df: true, ttl: 64, src: a.ip, dst: b.ip },
      udp: { srcPort: 0xc000 | 0x1234 },
    },
    qps, unknownQpns: [LOCAL_QPN_BASE + 4, LOCAL_QPN_BASE + 0xff, 0x000001, 0x000002, 0xffffff, 0x0000ff], keys: [], targetKeys: [],
  };
}

/** Reads each QP's EXP_PSN, SQ_PSN and PMTU from B into the world, and B's keys. */
export async function refreshWorld(env: PairEnv, t: FuzzTargets, w: HostileWorld): Promise<void> {
  const b = env.b.drv;
  for (const q of w.qps) {
    const qp = b.qps[q.qpn - LOCAL_QPN_BASE];
    if (!qp) continue;
    q.expPsn = await b.qpReg(qp, 'EXP_PSN');
    q.sqPsn = await b.qpReg(qp, 'SQ_PSN');
    q.mtu = 1 << qp.opts.pmtuLog2;
  }
  w.keys = fuzzKeys(env, t);
  w.targetKeys = [t.mrs.fw, t.mrs.fr].map(m => ({ key: m.key, va: m.va, len: m.len, what: `MR ${m.index} (target ${m === t.mrs.fr ? 'read-only' : 'read/write'})` }));
}
