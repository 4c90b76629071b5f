// The mixed WRITE/READ scenario's planner (tb/nic/mixed-scenario.ts) without a simulator: two
// drivers over the register model plan a random workload; the scoreboard must accept every plan
// (no racy overlap, FENCEs where needed), pass an ideal NIC that executes each QP's WQEs in
// posting order, and fail a NIC that lets READs overtake the WRITEs posted before them.

import { describe, expect, it } from 'vitest';
import { CQE_STATUS, WQE_OPCODE } from '../../../gen/nic/regmap.ts';
import type { Rng } from '../../core/rng.ts';
import { NicDriver, type RegAccess, type WorkRequest } from '../../model/driver.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { RegsModel } from '../../model/nic-regs.ts';
import { PageAllocator } from '../../model/page-allocator.ts';
import { RdmaScoreboard, gather } from '../../model/scoreboard.ts';
import { RC_OP, responseKey } from '../../model/wire-expect.ts';
import { expectPlanned, planMixed, registerMixedMrs, type MixedMrs, type Planned, type Side, type Stream } from '../../nic/mixed-scenario.ts';
import { wireKey } from '../../nic/write-scenario.ts';
import { testRng } from './helpers.ts';

function side(name: 'A' | 'B', index: number, rng: Rng): Side & { mem: HostMemory } {
  const model = new RegsModel(4, 16);
  const regs: RegAccess = { read: async a => model.read(a).data, write: async (a, v) => { model.write(a, v); } };
  const mem = new HostMemory();
  const alloc = new PageAllocator({ base: 0x1_0000_0000n + BigInt(index) * 0x1000_0000n, pages: 4096, rng: rng.fork() });
  const drv = new NicDriver({ name, regs, mem, alloc, rng: rng.fork(), numQp: 4, numMr: 16, mac: 0x02_00_00_00_00_0an + BigInt(index), ip: 0x0a000001 + index });
  return { name, drv, mem };
}

async function plan(rng: Rng, wqes: number) {
  const a = side('A', 0, rng), b = side('B', 1, rng);
  const src = new Map<string, Awaited<ReturnType<NicDriver['registerMr']>>>();
  for (const h of [a, b]) { const m = await h.drv.registerMr({ len: 128 * 1024, access: 0, pd: h.name === 'A' ? 0x11 : 0x22 }); m.write(0, rng.bytes(m.len)); src.set(h.name, m); }
  const mrs = await registerMixedMrs([a, b], rng, src);
  const streams: Stream[] = [];
  for (let i = 0; i < 4; i++) {
    const pmtuLog2 = rng.int(8, 12);
    const qa = await a.drv.createQp(i, { pd: 0x11, pmtuLog2, sqPsn: 0xffffff - rng.int(0, 40) });
    const qb = await b.drv.createQp(i, { pd: 0x22, pmtuLog2, sqPsn: 0xffffff - rng.int(0, 40) });
    streams.push({ h: a, peer: b, qp: qa, rqpn: qb.qpn, psn: qa.opts.sqPsn, msn: 0, readsSinceFence: 0, remote: [], local: [] });
    streams.push({ h: b, peer: a, qp: qb, rqpn: qa.qpn, psn: qb.opts.sqPsn, msn: 0, readsSinceFence: 0, remote: [], local: [] });
  }
  const sb = new RdmaScoreboard();
  sb.addHost('A', a.mem); sb.addHost('B', b.mem);
  sb.start();
  const p = planMixed(rng, streams, mrs, { wqes, qps: 4 });
  for (const x of p.plan) expectPlanned(sb, x, mrs);
  return { ...p, sb, mrs };
}

/** What an RC NIC does with one WQE: copy the bytes. */
function execute(x: Planned, mrs: Map<string, MixedMrs>): void {
  const rw = mrs.get(x.s.peer.name)!.rw;
  if (x.wr.opcode === WQE_OPCODE.RDMA_WRITE) { rw.write(x.remoteOff, gather(x.wr.sges)); return; }
  const data = rw.read(x.remoteOff, x.len);
  let o = 0;
  for (const s of x.wr.sges) { s.mr.write(s.offset, data.subarray(o, o + s.len)); o += s.len; }
}

function complete(sb: RdmaScoreboard, plan: readonly Planned[]): void {
  for (const x of plan) {
    if (!x.wr.signaled) continue;
    sb.onCqe(x.s.h.name, x.s.qp.index, { wrId: x.wr.wrId, byteLen: x.len, qp: x.s.qp.index, opcode: x.wr.opcode, status: CQE_STATUS.SUCCESS, syndrome: 0 });
  }
}

/** Some READ reads remote bytes an earlier WRITE of its stream wrote. */
const readAfterWrite = (plan: readonly Planned[]): boolean => plan.some((r, j) => r.wr.opcode === WQE_OPCODE.RDMA_READ
  && plan.slice(0, j).some(w => w.s === r.s && w.wr.opcode === WQE_OPCODE.RDMA_WRITE && w.len > 0 && r.len > 0
    && w.remoteOff < r.remoteOff + r.len && r.remoteOff < w.remoteOff + w.len));

describe('mixed WRITE/READ planner', () => {
  it('plans race-free workloads an in-order NIC passes, with fences and the wire packets', async () => {
    const rng = testRng('mixed plan');
    for (let run = 0; run < 3; run++) {
      const { plan: p, wire, sb, mrs } = await plan(rng, 60);
      expect(p.some(x => x.wr.fence)).toBe(true);
      for (const x of p) execute(x, mrs);
      complete(sb, p);
      sb.finish();
      for (const s of new Set(p.map(x => x.s))) {
        const reads = p.filter(x => x.s === s && x.wr.opcode === WQE_OPCODE.RDMA_READ);
        const resp = wire.get(responseKey(wireKey(s.peer.name, s.qp.qpn))) ?? [];
        expect(resp.length).toBe(reads.reduce((n, x) => n + Math.max(1, Math.ceil(x.len / (1 << s.qp.opts.pmtuLog2))), 0));
        const req = wire.get(wireKey(s.h.name, s.rqpn))!;
        expect(req.filter(e => e.opcode === RC_OP.READ_REQUEST).length).toBe(reads.length);
      }
    }
  });

  it('fails a NIC that lets READs overtake earlier WRITEs of their QP', async () => {
    const rng = testRng('mixed plan reorder');
    let tried = 0;
    for (;;) {
      const { plan: p, sb, mrs } = await plan(rng, 60);
      if (!readAfterWrite(p)) { expect(++tried).toBeLessThan(10); continue; }
      const isRead = (x: Planned): boolean => x.wr.opcode === WQE_OPCODE.RDMA_READ;
      for (const x of [...p.filter(isRead), ...p.filter(x => !isRead(x))]) execute(x, mrs);
      expect(() => { complete(sb, p); sb.finish(); }).toThrow(/expected 0x|host memory/);
      return;
    }
  });

  it('every READ behind two unfenced READs of its QP is fenced (the responder serves 2 per QP)', async () => {
    const { plan: p } = await plan(testRng('read depth'), 80);
    const byStream = new Map<Stream, WorkRequest[]>();
    for (const x of p) byStream.set(x.s, [...(byStream.get(x.s) ?? []), x.wr]);
    for (const wrs of byStream.values()) {
      let open = 0;
      for (const wr of wrs) {
        if (wr.fence) open = 0;
        if (wr.opcode === WQE_OPCODE.RDMA_READ) open++;
        if (wr.opcode === WQE_OPCODE.RDMA_READ && !wr.fence) expect(open).toBeLessThanOrEqual(2);
      }
    }
  });
});
