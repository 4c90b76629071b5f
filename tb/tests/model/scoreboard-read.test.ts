// The scoreboard's READ expectations on hand-built host memories (no simulator): this test plays
// the NIC by copying bytes itself, once the right way and once wrong, and the scoreboard must
// pass the first and name the byte in the second. Also the planning rules: a READ sees the
// WRITEs posted before it on its QP, not later ones (which need a FENCE to be deterministic),
// and overlap between QPs is rejected as racy.

import { describe, expect, it } from 'vitest';
import { CQE_STATUS, WQE_OPCODE } from '../../../gen/nic/regmap.ts';
import type { Rng } from '../../core/rng.ts';
import type { CqeFields } from '../../model/completion.ts';
import type { SgeRef, WorkRequest } from '../../model/driver.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { RacyScenarioError } from '../../model/memory-image.ts';
import { MemoryRegion } from '../../model/mr.ts';
import { gather, RdmaScoreboard } from '../../model/scoreboard.ts';
import { testRng } from './helpers.ts';

/** An MR of `len` bytes at a random page offset, on scattered pages of `mem`, filled at random. */
function mr(mem: HostMemory, rng: Rng, index: number, len: number, pageBase: bigint): MemoryRegion {
  const va = 0x7f00_0000_0000n + (BigInt(index) << 32n) + BigInt(rng.int(0, 4095));
  const n = Number((va + BigInt(len) + 4095n) / 4096n - va / 4096n);
  const pages = Array.from({ length: n }, (_, k) => pageBase + BigInt(4096 * (3 * k + rng.int(0, 2))) * 7n);
  const m = new MemoryRegion(mem, { index, tag: 1, pd: 1, access: 7, va, len, ptBase: 0n, pages });
  m.write(0, rng.bytes(len));
  return m;
}

function world(label: string) {
  const rng = testRng(label);
  const memA = new HostMemory(), memB = new HostMemory();
  const a = mr(memA, rng, 1, 20000, 0x1_0000_0000n), b = mr(memB, rng, 2, 20000, 0x2_0000_0000n);
  const sb = new RdmaScoreboard();
  sb.addHost('A', memA); sb.addHost('B', memB);
  sb.start();
  return { rng, a, b, sb };
}

const read = (wrId: bigint, sges: SgeRef[], src: MemoryRegion, off: number, o: { signaled?: boolean; fence?: boolean } = {}): WorkRequest =>
  ({ opcode: WQE_OPCODE.RDMA_READ, wrId, signaled: o.signaled ?? true, sges, remoteVa: src.va + BigInt(off), rkey: src.key, ...(o.fence ? { fence: true } : {}) });
const write = (wrId: bigint, sges: SgeRef[], dst: MemoryRegion, off: number, fence = false): WorkRequest =>
  ({ opcode: WQE_OPCODE.RDMA_WRITE, wrId, signaled: true, sges, remoteVa: dst.va + BigInt(off), rkey: dst.key, ...(fence ? { fence } : {}) });
const len = (wr: WorkRequest): number => wr.sges.reduce((s, x) => s + x.len, 0);
const cqe = (wr: WorkRequest, status: number = CQE_STATUS.SUCCESS): CqeFields =>
  ({ wrId: wr.wrId, byteLen: len(wr), qp: 0, opcode: wr.opcode, status, syndrome: status === CQE_STATUS.SUCCESS ? 0 : 0x62 });

/** What a correct NIC does for a READ: the remote bytes scattered into the local SGEs. */
function doRead(wr: WorkRequest, src: MemoryRegion, off: number): void {
  const data = src.read(off, len(wr));
  let o = 0;
  for (const s of wr.sges) { s.mr.write(s.offset, data.subarray(o, o + s.len)); o += s.len; }
}
const doWrite = (wr: WorkRequest, dst: MemoryRegion, off: number): void => dst.write(off, gather(wr.sges));

describe('scoreboard: RDMA READ', () => {
  it('passes a READ scattered into page-crossing SGEs and names the first wrong byte', () => {
    for (const wrong of [false, true]) {
      const { a, b, sb, rng } = world('read data');
      const wr = read(7n, [{ mr: a, offset: 4090, len: 300 }, { mr: a, offset: 10, len: 0 }, { mr: a, offset: 9000, len: 5000 }], b, 123);
      sb.expectRead('A', 0, wr, CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 123 });
      doRead(wr, b, 123);
      if (!wrong) {
        sb.onCqe('A', 0, cqe(wr));
        sb.finish();
        expect(sb.bytesChecked).toBe(5300);
        continue;
      }
      const k = rng.int(0, 4999);
      a.write(9000 + k, Uint8Array.of(a.read(9000 + k, 1)[0]! ^ 0x5a));
      expect(() => sb.onCqe('A', 0, cqe(wr))).toThrow(new RegExp(`A QP 0 READ wr_id=0x7 .*local destination .* byte ${300 + k} \\(A 0x`));
    }
  });

  it('a READ after a WRITE of its QP sees the WRITE; returning the old bytes fails', () => {
    for (const stale of [false, true]) {
      const { a, b, sb } = world('read after write');
      const w = write(1n, [{ mr: a, offset: 0, len: 1000 }], b, 500);
      const r = read(2n, [{ mr: a, offset: 12000, len: 800 }], b, 900);
      sb.expectWrite('A', 0, w, CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 500 });
      sb.expectRead('A', 0, r, CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 900 });
      if (stale) doRead(r, b, 900);
      doWrite(w, b, 500);
      if (!stale) doRead(r, b, 900);
      sb.onCqe('A', 0, cqe(w));
      if (stale) expect(() => sb.onCqe('A', 0, cqe(r))).toThrow(/READ wr_id=0x2 .*local destination/);
      else { sb.onCqe('A', 0, cqe(r)); sb.finish(); }
    }
  });

  it('a WRITE after a READ of the same bytes needs a FENCE; with it the READ returns the old bytes', () => {
    const { a, b, sb } = world('write after read');
    sb.expectRead('A', 0, read(1n, [{ mr: a, offset: 0, len: 100 }], b, 0), CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 0 });
    expect(() => sb.expectWrite('A', 0, write(2n, [{ mr: a, offset: 5000, len: 100 }], b, 50), CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 50 }))
      .toThrow(RacyScenarioError);
    for (const late of [false, true]) {
      const x = world('fenced write after read');
      const r = read(1n, [{ mr: x.a, offset: 0, len: 100 }], x.b, 0);
      const w = write(2n, [{ mr: x.a, offset: 5000, len: 100 }], x.b, 50, true);
      x.sb.expectRead('A', 0, r, CQE_STATUS.SUCCESS, { host: 'B', mr: x.b, offset: 0 });
      x.sb.expectWrite('A', 0, w, CQE_STATUS.SUCCESS, { host: 'B', mr: x.b, offset: 50 });
      if (late) { doWrite(w, x.b, 50); doRead(r, x.b, 0); } else { doRead(r, x.b, 0); doWrite(w, x.b, 50); }
      if (late) { expect(() => x.sb.onCqe('A', 0, cqe(r))).toThrow(/local destination .* byte 50 /); continue; }
      x.sb.onCqe('A', 0, cqe(r)); x.sb.onCqe('A', 0, cqe(w)); x.sb.finish();
    }
  });

  it('a WRITE whose source is an earlier READ destination needs a FENCE, then carries the READ data', () => {
    const { a, b, sb } = world('local read-after-read');
    sb.expectRead('A', 0, read(1n, [{ mr: a, offset: 0, len: 64 }], b, 0), CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 0 });
    expect(() => sb.expectWrite('A', 0, write(2n, [{ mr: a, offset: 32, len: 64 }], b, 10000), CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 10000 }))
      .toThrow(/FENCE/);
    const x = world('fenced local read-after-read');
    const r = read(1n, [{ mr: x.a, offset: 0, len: 64 }], x.b, 0);
    const w = write(2n, [{ mr: x.a, offset: 32, len: 64 }], x.b, 10000, true);
    x.sb.expectRead('A', 0, r, CQE_STATUS.SUCCESS, { host: 'B', mr: x.b, offset: 0 });
    x.sb.expectWrite('A', 0, w, CQE_STATUS.SUCCESS, { host: 'B', mr: x.b, offset: 10000 });
    const before = x.b.read(0, 64);
    doRead(r, x.b, 0); doWrite(w, x.b, 10000);
    x.sb.onCqe('A', 0, cqe(r)); x.sb.onCqe('A', 0, cqe(w)); x.sb.finish();
    expect([...x.b.read(10000, 32)]).toEqual([...before.subarray(32)]);
  });

  it('rejects overlap between QPs (and between directions) as racy', () => {
    const { a, b, sb } = world('cross qp');
    sb.expectWrite('A', 0, write(1n, [{ mr: a, offset: 0, len: 100 }], b, 1000), CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 1000 });
    expect(() => sb.expectRead('A', 1, read(2n, [{ mr: a, offset: 500, len: 10 }], b, 1099), CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 1099 }))
      .toThrow(/racy scenario: READ wr_id=0x2 .*A\/qp1.*B host memory byte .*A\/qp0 writes|written by A\/qp0/);
    const x = world('cross direction');
    x.sb.expectRead('A', 0, read(1n, [{ mr: x.a, offset: 0, len: 100 }], x.b, 0), CQE_STATUS.SUCCESS, { host: 'B', mr: x.b, offset: 0 });
    expect(() => x.sb.expectRead('B', 0, read(2n, [{ mr: x.b, offset: 5000, len: 10 }], x.a, 95), CQE_STATUS.SUCCESS, { host: 'A', mr: x.a, offset: 95 }))
      .toThrow(RacyScenarioError);
    // Reading the same bytes from two QPs is fine: nobody writes them.
    const y = world('shared source');
    y.sb.expectRead('A', 0, read(1n, [{ mr: y.a, offset: 0, len: 100 }], y.b, 0), CQE_STATUS.SUCCESS, { host: 'B', mr: y.b, offset: 0 });
    y.sb.expectRead('A', 1, read(2n, [{ mr: y.a, offset: 200, len: 100 }], y.b, 0), CQE_STATUS.SUCCESS, { host: 'B', mr: y.b, offset: 0 });
  });

  it('a failed READ may not change a byte of its destination, and its CQE status is checked', () => {
    for (const leak of [false, true]) {
      const { a, b, sb, rng } = world('failed read');
      const r = read(9n, [{ mr: a, offset: 4000, len: 200 }], b, 0);
      const later = read(10n, [{ mr: a, offset: 8000, len: 10 }], b, 0, { signaled: false });
      sb.expectRead('A', 0, r, CQE_STATUS.REMOTE_ACCESS_ERROR, { host: 'B', mr: b, offset: 0 });
      sb.expectStatus('A', 0, later, CQE_STATUS.FLUSH_ERROR);
      expect(() => sb.onCqe('A', 0, cqe(r, CQE_STATUS.SUCCESS))).toThrow(/\(READ\): status 0 \(SUCCESS\), expected 4 \(REMOTE_ACCESS_ERROR\)/);
      const s2 = world('failed read 2');
      s2.sb.expectRead('A', 0, read(9n, [{ mr: s2.a, offset: 4000, len: 200 }], s2.b, 0), CQE_STATUS.REMOTE_ACCESS_ERROR, { host: 'B', mr: s2.b, offset: 0 }, 0x62);
      s2.sb.expectRead('A', 0, read(11n, [], s2.b, 0), CQE_STATUS.REMOTE_ACCESS_ERROR, { host: 'B', mr: s2.b, offset: 0 }, 0x62);
      s2.sb.onCqe('A', 0, cqe(r, CQE_STATUS.REMOTE_ACCESS_ERROR));
      expect(() => s2.sb.onCqe('A', 0, { ...cqe(read(11n, [], s2.b, 0), CQE_STATUS.REMOTE_ACCESS_ERROR), syndrome: 0x61 })).toThrow(/syndrome 0x61, expected 0x62/);
      if (leak) s2.a.write(4000 + rng.int(0, 199), Uint8Array.of(s2.a.read(4000, 1)[0]! ^ 1, 0xee));
      if (leak) expect(() => s2.sb.finish()).toThrow(/A host memory changed outside the allowed ranges/);
      else s2.sb.finish();
    }
  });

  it('an unsignaled READ is checked at the next CQE of its QP', () => {
    const { a, b, sb } = world('unsignaled read');
    const r1 = read(1n, [{ mr: a, offset: 0, len: 300 }], b, 0, { signaled: false });
    const r2 = read(2n, [{ mr: a, offset: 1000, len: 3 }], b, 7000);
    sb.expectRead('A', 0, r1, CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 0 });
    sb.expectRead('A', 0, r2, CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 7000 });
    doRead(r2, b, 7000); // r1's data never arrived
    expect(() => sb.onCqe('A', 0, cqe(r2))).toThrow(/READ wr_id=0x1 /);
  });

  it('a CQE for an unsignaled WQE is a failure of that WQE, named with its status', () => {
    // Seen with link duplication: an unsignaled WRITE flushed (its QP went to ERROR) was taken
    // as a success and its bytes compared, which hid the flush behind a data mismatch.
    const { a, b, sb } = world('unsignaled flush');
    const r1 = read(1n, [{ mr: a, offset: 0, len: 30 }], b, 0, { signaled: false });
    sb.expectRead('A', 0, r1, CQE_STATUS.SUCCESS, { host: 'B', mr: b, offset: 0 });
    expect(() => sb.onCqe('A', 0, { ...cqe(r1), status: CQE_STATUS.FLUSH_ERROR })).toThrow('A QP 0 CQE wr_id=0x1 (READ, unsignaled): status 8 (FLUSH_ERROR), expected 0 (SUCCESS) and no CQE');
  });
});
