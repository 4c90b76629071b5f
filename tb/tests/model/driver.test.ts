// The host driver model over the register model (no simulator): MR registration with
// scattered pages and page tables, QP bring-up, WQE encoding and doorbells, CQE reaping by
// phase bit, and the scoreboard's order and byte checks.

import { describe, expect, it } from 'vitest';
import { ACCESS, CQE_BYTES, CQE_STATUS, QP_STATE, WQE_BYTES, WQE_OPCODE } from '../../../gen/nic/regmap.ts';
import { Rng } from '../../core/rng.ts';
import { encodeCqe } from '../../model/completion.ts';
import { NicDriver, type RegAccess } from '../../model/driver.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { mrReg, qpReg, RegsModel } from '../../model/nic-regs.ts';
import { PageAllocator } from '../../model/page-allocator.ts';
import { RdmaScoreboard } from '../../model/scoreboard.ts';
import { translate, XLATE, type MrDesc } from '../../model/tlb.ts';

function setup(seed = 1) {
  const rng = new Rng(seed);
  const model = new RegsModel(4, 16);
  const doorbells: { qp: number; pi: number }[] = [];
  const regs: RegAccess = {
    read: async a => model.read(a).data,
    write: async (a, v) => { const r = model.write(a, v); if (r.doorbell) doorbells.push(r.doorbell); },
  };
  const mem = new HostMemory();
  const alloc = new PageAllocator({ base: 0x1_0000_0000n, pages: 1024, rng: rng.fork() });
  const drv = new NicDriver({ name: 'A', regs, mem, alloc, rng, numQp: 4, numMr: 16, mac: 0x02_00_00_00_00_0an, ip: 0x0a000001 });
  return { rng, model, regs, mem, drv, doorbells };
}

describe('host driver model', () => {
  it('registers MRs whose page tables translate every byte to the page the driver wrote', async () => {
    const { model, mem, drv, rng } = setup();
    const mr = await drv.registerMr({ len: 3 * 4096 + 100, access: ACCESS.REMOTE_WRITE, pd: 7 });
    expect(model.read(mrReg(mr.index, 'ACCESS')).data >>> 0).toBe((ACCESS.VALID | ACCESS.REMOTE_WRITE) >>> 0);
    const data = rng.bytes(mr.len);
    mr.write(0, data);
    const desc: MrDesc = { valid: true, tag: mr.tag, pd: 7, access: mr.access, va: mr.va, len: BigInt(mr.len), ptBase: mr.ptBase };
    for (const off of [0, 1, 4095, 4096, 8191, mr.len - 1]) {
      const t = translate([...Array(mr.index).fill(undefined), desc], mem, { key: mr.key, va: mr.va + BigInt(off), len: 1, pd: 7, access: ACCESS.REMOTE_WRITE });
      expect(t.status).toBe(XLATE.OK);
      expect(mem.read(t.pa, 1)[0]).toBe(data[off]);
    }
    // Pages are scattered: not all consecutive.
    expect(mr.pages.some((p, i) => i > 0 && p !== mr.pages[i - 1]! + 4096n)).toBe(true);
    // Re-registration bumps the tag, so the old key differs.
    await drv.deregisterMr(mr);
    const again = await drv.registerMr({ index: mr.index, len: 100, access: 0, pd: 7 });
    expect(again.key).not.toBe(mr.key);
    expect(again.key >>> 8).toBe(mr.index);
  });

  it('brings QPs to RTS, posts WQEs with doorbells and reaps CQEs by phase', async () => {
    const { model, mem, drv, doorbells } = setup(2);
    const qp = await drv.createQp(1, { pd: 3, pmtuLog2: 10, sqPsn: 0xfffff0, sqSizeLog2: 2, cqSizeLog2: 1 });
    await drv.connectQp(qp, { qpn: 0x123, mac: 0x02_00_00_00_00_0bn, ip: 0x0a000002, psn: 0x42 });
    expect(model.read(qpReg(1, 'STATE')).data).toBe(QP_STATE.RTS);
    expect(model.read(qpReg(1, 'EXP_PSN')).data).toBe(0x42);
    expect(model.read(qpReg(1, 'SQ_PSN')).data).toBe(0xfffff0);
    const src = await drv.registerMr({ len: 5000, access: 0, pd: 3 });
    const wr = drv.writeRequest(0xabcn, [{ mr: src, offset: 10, len: 100 }, { mr: src, offset: 4000, len: 900 }], 0x5000n, 0x777);
    await drv.postSend(qp, wr);
    expect(doorbells).toEqual([{ qp: 1, pi: 1 }]);
    const raw = mem.read(qp.sqBase, WQE_BYTES);
    expect(raw[0]).toBe(WQE_OPCODE.RDMA_WRITE);
    expect(raw[2]).toBe(2);
    expect(new DataView(raw.buffer).getUint32(4, true)).toBe(1000);
    // The NIC writes CQEs: phase 1 on the first pass, 0 on the second (ring of 2).
    const sb = new RdmaScoreboard();
    sb.addHost('A', mem);
    sb.start();
    sb.allow('A', qp.ringRanges);
    const wrs = [0, 1, 2].map(i => drv.writeRequest(BigInt(i), [], 0n, 0));
    for (const w of wrs) sb.expectStatus('A', 1, w, CQE_STATUS.SUCCESS);
    for (let k = 0; k < 3; k++) {
      mem.write(qp.cqBase + BigInt((k % 2) * CQE_BYTES), encodeCqe({ qp: 1, wrId: BigInt(k), byteLen: 0, opcode: 0, status: 0, syndrome: 0 }, k < 2 ? 1 : 0));
      const got = await drv.pollCq(qp);
      expect(got.map(c => c.wrId)).toEqual([BigInt(k)]);
      sb.onCqe('A', 1, got[0]!);
    }
    expect(model.read(qpReg(1, 'CQ_CI')).data).toBe(3);
    expect(drv.reap(qp)).toEqual([]);
    sb.finish();
  });

  it('scoreboard catches out-of-order CQEs and stray writes', () => {
    const { mem, drv } = setup(3);
    const sb = new RdmaScoreboard();
    sb.addHost('A', mem);
    sb.start();
    const a = drv.writeRequest(1n, [], 0n, 0), b = drv.writeRequest(2n, [], 0n, 0);
    sb.expectStatus('A', 0, a, 0); sb.expectStatus('A', 0, b, 0);
    expect(() => sb.onCqe('A', 0, { qp: 0, wrId: 2n, byteLen: 0, opcode: 0, status: 0, syndrome: 0 })).toThrow(/posting order/);
    mem.write(0x9999n, Uint8Array.of(1));
    expect(() => sb.finish()).toThrow();
  });
});
