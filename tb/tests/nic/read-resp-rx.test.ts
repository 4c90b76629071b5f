// nic_read_resp_rx against its TS model (read-resp-rx-model.ts) on the bench of
// read-resp-rx-bench.ts: random READs 0..64 KiB at every path MTU, 1-4 SGEs at random
// alignments (zero-length ones too), PSN wrap, four QPs interleaved, duplicate / ahead /
// out-of-sequence / bad-length responses, NAKs, DMA errors, random back-pressure and
// DmaStatus latency; the Verilog gates at 64 and 512 bits; the payload rate at full speed;
// the per-QP READ limit (readsPerQp, and nic_top's check of it against the responder's);
// no more DMA writes for a READ once its DMA error is back. The landing chain at wire rate:
// read-resp-rx-landing.test.ts.

import { describe, expect, it } from 'vitest';
import { emitToDir, iverilogCompile, verilatorLint, yosysSynth } from '../../../gen/lib/lint-helper.ts';
import { nicReadRespRx } from '../../../gen/nic/read-resp-rx.ts';
import { emptyQpCtx } from './qp-ctx.ts';
import { LOCAL_QPN_BASE } from '../../../gen/nic/flow-types.ts';
import { nicTop } from '../../../gen/nic/nic-top.ts';
import { READ_RESP } from '../../../gen/nic/read-types.ts';
import { CQE_STATUS, QP_STATE } from '../../../gen/nic/regmap.ts';
import { runTest } from '../../core/index.ts';
import { design } from '../../design.ts';
import { runBench } from './read-resp-rx-bench.ts';
import { makeStim, POISON_BIT, type Ev, type ReadCtx } from './read-resp-rx-model.ts';
import { psnAdd } from '../../model/psn.ts';
import type { Rng } from '../../core/rng.ts';

/** READs on 2 QPs where most lose responses and come back resumed (go-back-N): the first k
 *  responses, maybe an ahead one (an implied NAK) or an ACK past the missing one, maybe
 *  duplicates; the tracker's rewind; the resumed context (firstPsn + k, startOff k x MTU);
 *  then the rest, as the re-request answers it (FIRST..LAST / ONLY) or as the first request's
 *  MIDDLE/LAST still arriving, with stale duplicates behind. */
function rewindStim(rng: Rng): { ctxs: ReadCtx[]; events: Ev[] } {
  const base = makeStim(rng, { reads: 16, qps: 2, maxLen: 9000, pErr: 0, pNoise: 0, mtus: [8, 9, 10] });
  type NoCtx<T> = T extends unknown ? Omit<T, 'ctx'> : never;
  type Item = { ctx: ReadCtx } | { ev: NoCtx<Ev> };
  const perQp: Item[][] = [[], []];
  const resp = (r: ReadCtx, k: number, n: number, fresh: boolean, bytes: Uint8Array[]): NoCtx<Ev> => {
    const left = n - (fresh ? (r.startOff >> r.pmtu) : 0);
    const i = fresh ? k - (r.startOff >> r.pmtu) : k;
    const opcode = fresh ? (left === 1 ? READ_RESP.ONLY : i === 0 ? READ_RESP.FIRST : i === left - 1 ? READ_RESP.LAST : READ_RESP.MIDDLE)
      : (n === 1 ? READ_RESP.ONLY : k === 0 ? READ_RESP.FIRST : k === n - 1 ? READ_RESP.LAST : READ_RESP.MIDDLE);
    const payload = bytes[k]!;
    return { kind: 'hdr', hdr: { opcode, destQpn: LOCAL_QPN_BASE + r.qp, psn: psnAdd(r.firstPsn, i), payloadLen: payload.length }, payload, note: `${fresh ? 're-request' : 'first request'} response ${k}` };
  };
  for (const r of base.ctxs) {
    const mtu = 1 << r.pmtu, n = Math.max(1, Math.ceil(r.length / mtu));
    const bytes = Array.from({ length: n }, (_, k) => rng.bytes(Math.max(0, Math.min(mtu, r.length - k * mtu))));
    const l = perQp[r.qp]!;
    l.push({ ctx: r });
    const k = n >= 2 && rng.bool(0.7) ? rng.int(1, n - 1) : n;
    for (let j = 0; j < k; j++) l.push({ ev: resp(r, j, n, false, bytes) });
    if (k === n) continue;
    if (k + 1 <= n - 1 && rng.bool(0.7)) l.push({ ev: { ...resp(r, rng.int(k + 1, n - 1), n, false, bytes), note: 'ahead: an implied NAK' } });
    else l.push({ ev: { kind: 'ack', qp: r.qp, psn: psnAdd(r.lastPsn, 1), syndrome: 0x1f, note: 'an ACK past the missing response' } });
    l.push({ ev: { kind: 'rewind', qp: r.qp, note: 'rewind' } });
    const again: ReadCtx = { ...r, firstPsn: psnAdd(r.firstPsn, k), startOff: k * mtu };
    l.push({ ctx: again });
    const fresh = rng.bool(0.5);
    if (rng.bool(0.5)) l.push({ ev: { ...resp(r, k - 1, n, false, bytes), note: 'stale duplicate (dropped)' } });
    for (let j = k; j < n; j++) l.push({ ev: fresh ? resp(again, j, n, true, bytes) : resp(r, j, n, false, bytes) });
  }
  const ctxs: ReadCtx[] = [], events: Ev[] = [];
  const cur = [-1, -1], at = [0, 0];
  while (at[0]! < perQp[0]!.length || at[1]! < perQp[1]!.length) {
    const q = at[0]! >= perQp[0]!.length ? 1 : at[1]! >= perQp[1]!.length ? 0 : rng.int(0, 1);
    const it = perQp[q]![at[q]!++]!;
    if ('ctx' in it) cur[q] = ctxs.push(it.ctx) - 1;
    else events.push({ ...it.ev, ctx: cur[q]! } as Ev);
  }
  return { ctxs, events };
}

describe('nic_read_resp_rx', () => {
  it('passes the Verilog tools (64 bits; 512 bits, and 2 QPs of 3 READs each, through verilator)', () => {
    const e = emitToDir(nicReadRespRx, {});
    verilatorLint(e);
    iverilogCompile(e);
    yosysSynth(e);
    verilatorLint(emitToDir(nicReadRespRx, { dataWidth: 512 }));
    verilatorLint(emitToDir(nicReadRespRx, { numQp: 2, readsPerQp: 3 }));
  }, 600_000);

  it('writes clean READs (0..64 KiB, all MTUs, 1-4 SGEs, PSN wrap) under back-pressure', async () => {
    const r = await runBench({ reads: 40, qps: 4, maxLen: 65536, pErr: 0, pNoise: 0 }, { pIn: 0.8, pOut: 0.7, maxLat: 30 });
    expect(r.want.dones.every(d => d.ok === 1), 'every READ succeeds').toBe(true);
    expect(r.want.writes.length).toBeGreaterThan(40);
  }, 600_000);

  it('drops duplicates and ahead packets, fails bad sequences, lengths, NAKed and DMA-failed READs', async () => {
    const r = await runBench({ reads: 80, qps: 4, maxLen: 12000, pErr: 0.3, pNoise: 0.15, poison: 0.08 }, { pIn: 0.7, pOut: 0.6, maxLat: 40 });
    const seen = new Set(r.want.dones.map(d => d.status));
    for (const s of [CQE_STATUS.SUCCESS, CQE_STATUS.REMOTE_INVALID_REQUEST, CQE_STATUS.LOCAL_LENGTH_ERROR, CQE_STATUS.LOCAL_PROTECTION_ERROR]) {
      expect(seen.has(s), `some READ ended with status ${s}`).toBe(true);
    }
    expect(r.want.dones.some(d => d.syndrome !== 0), 'some READ was completed by a NAK').toBe(true);
  }, 600_000);

  it('back to back: the responses of one QP at full rate, each header taken in the cycle its predecessor\'s last DMA command leaves (records read as written)', async () => {
    // The header FSM writes the QP's rows in CHECK (pos_mem) and CUT (sge_mem, with the
    // packet's last piece) and reads them as it takes the next header in IDLE. Without
    // back-pressure the next header of the QP waits on s_hdr while CUT issues the last piece,
    // so it is taken in the IDLE cycle right after, the cycle m_dma_cmd hands that piece on:
    // its read is one edge after the write. A stale row (a write lost or a cycle late) gives
    // a wrong PSN check or DMA address (MTU 256, 1-4 SGEs, so pieces end mid-packet).
    const r = await runBench({ reads: 12, qps: 1, maxLen: 6000, pErr: 0, pNoise: 0, mtus: [8] }, { pIn: 1, pOut: 1, maxLat: 2 });
    const cmdCycles = new Set(r.dma.cmds.map(c => c.cycle));
    const tight = r.hdrCycles.filter(c => cmdCycles.has(c)).length;
    console.log(`back to back: ${r.hdrCycles.length} headers, ${tight} taken in the cycle the previous one's last DMA command left, ${r.want.writes.length} DMA pieces, ${r.seed}`);
    expect(tight, `headers taken right behind their predecessor's last piece (${r.seed})`).toBeGreaterThan(r.hdrCycles.length / 2);
    expect(r.want.dones.length).toBe(12);
    expect(r.want.dones.every(d => d.ok === 1), 'every READ succeeds').toBe(true);
  }, 600_000);

  it('discards the contexts and traffic of QPs in ERROR or RESET without events', async () => {
    const r = await runBench({ reads: 40, qps: 4, maxLen: 9000, pErr: 0.2, pNoise: 0.1, poison: 0.05 }, { pIn: 0.9, pOut: 0.8, maxLat: 20, states: { 1: QP_STATE.ERROR, 2: QP_STATE.RESET } });
    expect(r.ctxs.some(c => c.qp === 1) && r.ctxs.some(c => c.qp === 2), 'READs were posted on the dead QPs').toBe(true);
    expect(r.want.dones.every(d => d.qp === 0 || d.qp === 3), 'only live QPs complete').toBe(true);
    expect(r.want.dones.length).toBeGreaterThan(0);
  }, 600_000);

  it("nic_top: readsPerQp is checked against the responder's READ limit at generate time", () => {
    expect(() => nicTop.elaborate({ readsPerQp: 5 }), '5 READs per QP against the responder\'s 4').toThrow(/nic_top: readsPerQp = 5 is not allowed with these parameters \(allowed: 1\.\.4\)/);
    // The responder's READ contexts are a pool: the limit does not shrink with numQp.
    expect(nicTop.elaborate({ numQp: 8 }).params['readsPerQp'], 'left at its default at 8 QPs').toBe(2);
    expect(() => nicTop.elaborate({ numQp: 8, readsPerQp: 4 })).not.toThrow();
  }, 600_000);

  it('stops writing a READ after its first DMA error: later packets dropped, error completion, next READ written', async () => {
    // READ 0: 64 packets of 256 bytes into a poisoned SGE (every piece fails); READ 1 on the
    // same QP is clean. Statuses come fast, so the error is back long before most of READ 0's
    // packets are decided (headers run at most 8 packets ahead of their payload): those must
    // not reach the DMA.
    const stim = (rng: Parameters<typeof makeStim>[0]) => {
      const s = makeStim(rng, { reads: 2, qps: 1, maxLen: 16384, fixedLen: 16384, mtus: [8], maxSge: 1, pErr: 0, pNoise: 0 });
      s.ctxs[0]!.sge[0]!.addr |= POISON_BIT;
      return s;
    };
    const r = await runBench(stim, { pIn: 0.1, pOut: 1, maxLat: 2 });
    const read0 = r.want.writes.filter(w => w.read === 0).length, written0 = r.dma.cmds.filter(c => (c.va & POISON_BIT) !== 0n).length;
    console.log(`READ 0: ${written0} of ${read0} pieces sent to the DMA (${r.skipped} skipped), ${r.seed}`);
    expect(r.want.dones.map(d => d.status), 'READ 0 fails, READ 1 succeeds').toEqual([CQE_STATUS.LOCAL_PROTECTION_ERROR, CQE_STATUS.SUCCESS]);
    expect(written0, `pieces of the failed READ sent to the DMA (${r.seed})`).toBeLessThan(read0 / 4);
    expect(r.skipped).toBe(read0 - written0);
  }, 600_000);

  for (const dw of [64, 512]) {
    it(`rewinds: drops the QP's contexts; a resumed READ lands the rest at its offset whether the re-request or the first request answers (${dw} bits)`, async () => {
      const r = await runBench(rewindStim, { dataWidth: dw, pIn: 0.8, pOut: 0.7, maxLat: 20, lazyCtx: true });
      const resumed = r.ctxs.filter(c => c.startOff > 0).length;
      const implied = r.want.acks.filter(a => a.rdMiss === 1 && a.syndrome === 0x60).length;
      console.log(`read_resp_rx rewinds ${dw}b: ${resumed} resumed READs, ${r.want.dones.length} completions, ${r.want.acks.length} tracker events (${implied} implied NAKs), ${r.seed}`);
      expect(resumed).toBeGreaterThan(3);
      expect(r.want.dones.every(d => d.ok === 1), 'every READ succeeds').toBe(true);
      expect(r.want.dones.length, 'each READ completes once').toBe(new Set(r.ctxs.map(c => c.wrId)).size);
      expect(implied).toBeGreaterThan(0);
    }, 600_000);
  }

  it('at 512 bits', async () => {
    await runBench({ reads: 30, qps: 4, maxLen: 20000, pErr: 0.2, pNoise: 0.1, poison: 0.05 }, { dataWidth: 512, pIn: 0.8, pOut: 0.7, maxLat: 20 });
  }, 600_000);

  for (const pmtu of [12, 8]) {
    it(`moves a 64 KiB READ at about one beat a cycle (MTU ${1 << pmtu})`, async () => {
      const r = await runBench({ reads: 1, qps: 1, maxLen: 65536, pErr: 0, pNoise: 0, mtus: [pmtu], fixedLen: 65536 }, { pIn: 1, pOut: 1, maxLat: 4 });
      const f = r.dma.pay.frames;
      const beats = f.reduce((a, x) => a + x.beats, 0);
      const cycles = f.at(-1)!.lastCycle - f[0]!.firstCycle + 1;
      console.log(`MTU ${1 << pmtu}, ${r.ctxs[0]!.numSge} SGEs: ${beats} beats in ${cycles} cycles = ${(beats / cycles).toFixed(3)} beats/cycle`);
      expect(beats / cycles).toBeGreaterThan(0.95);
    }, 600_000);
  }

  it('keeps at most readsPerQp contexts per QP (3, below its FIFO depth of 4) until a READ ends', async () => {
    await runTest(design(nicReadRespRx, { numQp: 2, readsPerQp: 3 }), async (dut, tb) => {
      dut.qp_ctx.value = [0, 1].map(() => ({ ...emptyQpCtx(), state: QP_STATE.RTS })) as never;
      dut.s_hdr.valid.value = 0; dut.s_rewind.valid.value = 0; dut.s_payload.tvalid.value = 0; dut.s_dma_status.valid.value = 0;
      dut.m_done.ready.value = 1; dut.m_dma_cmd.ready.value = 1; dut.m_payload.tready.value = 1; dut.m_ack.ready.value = 1;
      await tb.reset(2);
      const none = [0, 1, 2, 3].map(() => ({ addr: 0n, len: 0, lkey: 0 }));
      // Zero-length READs: one READ RESPONSE ONLY without payload ends each.
      const ctx = (qp: number, psn: number) => ({ qp, wrId: BigInt(psn), firstPsn: psn, lastPsn: psn, length: 0, startOff: 0, pd: 0, pmtu: 12, numSge: 0, sge: none });
      /** Offers contexts of `qp` for `cycles` cycles; how many were taken. */
      const offer = async (qp: number, cycles: number, psn0: number): Promise<number> => {
        let taken = 0;
        for (let i = 0; i < cycles; i++) {
          dut.s_ctx.valid.value = 1;
          dut.s_ctx.data.value = ctx(qp, psn0 + taken) as never;
          tb.settle();
          if (Number(dut.s_ctx.ready.value)) taken++;
          await tb.rising();
        }
        dut.s_ctx.valid.value = 0;
        return taken;
      };
      expect(await offer(0, 20, 100), `QP 0 contexts taken in 20 cycles (cycle ${tb.cycle})`).toBe(3);
      expect(await offer(1, 20, 200), `QP 1 contexts taken in 20 cycles (cycle ${tb.cycle}): the limit is per QP`).toBe(3);
      // End QP 0's first READ: its context leaves, one more is taken.
      dut.s_hdr.valid.value = 1;
      dut.s_hdr.data.value = { opcode: READ_RESP.ONLY, destQpn: LOCAL_QPN_BASE, psn: 100, payloadLen: 0, ackReq: 0, hasReth: 0, rethVa: 0n, rethRkey: 0, rethLen: 0, hasAeth: 1, aethSyndrome: 0x1f, aethMsn: 0, srcMac: 0n, srcIp: 0, srcPort: 0 } as never;
      for (let i = 0; i < 20 && (tb.settle(), !Number(dut.s_hdr.ready.value)); i++) await tb.rising();
      await tb.rising();
      dut.s_hdr.valid.value = 0;
      let done = 0;
      for (let i = 0; i < 20; i++) { tb.settle(); if (Number(dut.m_done.valid.value)) done++; await tb.rising(); }
      expect(done, 'completions of the READ ended').toBe(1);
      expect(await offer(0, 20, 103), `QP 0 contexts taken after one READ ended (cycle ${tb.cycle})`).toBe(1);
    });
  }, 600_000);
});

