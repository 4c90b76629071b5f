// nic_read_resp_rx's READ context pool (gen/nic/read-resp-rx.ts, docs/synth.md "u_read_resp_rx's
// READ contexts pooled"): many QPs over a small pool, with contexts registered, completed,
// dropped by rewinds and by RESET/ERROR at random, on several QPs at once (a rewind's flush
// beside another QP's completion, several QPs dropped in one cycle, a context joining a list
// whose popped slots are still being given back). A cross-linked slot shows as a completion
// of the wrong READ (or of another QP's: wrId carries the QP), or as a READ that never
// completes (its header meets another context's PSN and is dropped); a leaked slot as a pool
// that no longer takes `contexts` READs once every QP is idle again (checked twice at the end,
// and every few hundred cycles in between), besides the module's own pool assertion.
//
// Zero-length READs: one READ RESPONSE ONLY without payload (PSN = the context's) completes
// each, so the test is about the contexts alone.

import { describe, expect, it } from 'vitest';
import { LOCAL_QPN_BASE } from '../../../gen/nic/flow-types.ts';
import { nicReadRespRx } from '../../../gen/nic/read-resp-rx.ts';
import { READ_RESP } from '../../../gen/nic/read-types.ts';
import { CQE_STATUS, QP_STATE } from '../../../gen/nic/regmap.ts';
import { runTest } from '../../core/index.ts';
import { design } from '../../design.ts';
import { emptyQpCtx } from './qp-ctx.ts';

const PER_QP = 2;
/** Cycles after a header's, rewind's or state change's handshake during which the test leaves
 *  that QP alone (the header decided, the drop done, the popped slots given back). */
const QUIET = 16;

const none = [0, 1, 2, 3].map(() => ({ addr: 0n, len: 0, lkey: 0 }));
const hdrBase = { ackReq: 0, hasReth: 0, rethVa: 0n, rethRkey: 0, rethLen: 0, hasAeth: 1, aethSyndrome: 0x1f, aethMsn: 0, srcMac: 0n, srcIp: 0, srcPort: 0 };

async function poolRun(numQp: number, contexts: number, cycles: number): Promise<{ done: number; dropped: number; resets: number; rewinds: number; refusedByPool: number }> {
  let out = { done: 0, dropped: 0, resets: 0, rewinds: 0, refusedByPool: 0 };
  await runTest(design(nicReadRespRx, { numQp, readsPerQp: PER_QP, contexts }), async (dut, tb) => {
    const rng = tb.rng.fork();
    const seed = `seed ${tb.seed} (replay: NICGEN_SEED=${tb.seed})`;
    const states = Array.from({ length: numQp }, () => QP_STATE.RTS as number);
    const applyStates = (): void => { dut.qp_ctx.value = states.map(state => ({ ...emptyQpCtx(), state })) as never; };
    applyStates();
    dut.s_ctx.valid.value = 0; dut.s_hdr.valid.value = 0; dut.s_rewind.valid.value = 0; dut.s_payload.tvalid.value = 0; dut.s_dma_status.valid.value = 0;
    dut.m_done.ready.value = 1; dut.m_dma_cmd.ready.value = 1; dut.m_payload.tready.value = 1; dut.m_ack.ready.value = 1;
    await tb.reset(2);

    // The model: each QP's live READs (wrId, PSN) in posting order, and the completions expected.
    type R = { wrId: bigint; psn: number };
    const live: R[][] = Array.from({ length: numQp }, () => []);
    const want: { qp: number; wrId: bigint; psn: number }[] = [];
    const got: { qp: number; wrId: bigint; psn: number; status: number; cycle: number }[] = [];
    const quietUntil = Array.from({ length: numQp }, () => 0);
    // A rewind's drop of the QP's contexts must be over before the QP registers another
    // (nic_req_tx re-reads the ring first; the module asserts it).
    const rewoundUntil = Array.from({ length: numQp }, () => 0);
    let serial = 0;
    let hdr: { qp: number; r: R } | null = null;
    let rw: number | null = null;
    const where = (): string => `cycle ${tb.cycle}, ${seed}`;

    const sample = (): void => {
      if (Number(dut.m_done.valid.value)) {
        const d = dut.m_done.data.value as unknown as Record<string, number | bigint>;
        got.push({ qp: Number(d['qp']), wrId: BigInt(d['wrId']!), psn: Number(d['lastPsn']), status: Number(d['status']), cycle: tb.cycle });
      }
    };
    const step = async (): Promise<void> => { tb.settle(); sample(); await tb.rising(); };
    const idleQp = (q: number): boolean => tb.cycle >= quietUntil[q]! && hdr?.qp !== q && rw !== q;
    const ctxOk = (q: number): boolean => tb.cycle >= rewoundUntil[q]! && rw !== q;
    const checkDones = (): void => {
      for (let i = 0; i < got.length; i++) {
        const g = got[i]!, w = want[i];
        if (!w) throw new Error(`m_done #${i} at cycle ${g.cycle}: qp ${g.qp} wrId 0x${g.wrId.toString(16)}, none expected (${where()})`);
        if (g.qp !== w.qp || g.wrId !== w.wrId || g.psn !== w.psn || g.status !== CQE_STATUS.SUCCESS) {
          throw new Error(`m_done #${i} at cycle ${g.cycle}: qp ${g.qp} wrId 0x${g.wrId.toString(16)} lastPsn ${g.psn} status ${g.status}, want qp ${w.qp} wrId 0x${w.wrId.toString(16)} lastPsn ${w.psn} SUCCESS (${where()})`);
        }
      }
    };

    /** Drives the channels for `n` cycles; `traffic` false: only lets what is in flight finish. */
    const run = async (n: number, traffic: boolean): Promise<void> => {
      for (let c = 0; c < n; c++) {
        // s_ctx: a new READ of a random QP (a dead QP's is taken and forgotten).
        const cq = rng.int(0, numQp - 1);
        const offer = traffic && rng.bool(0.6) && ctxOk(cq);
        const r: R = { wrId: (BigInt(cq) << 32n) | BigInt(++serial), psn: (serial * 7) & 0xffffff };
        dut.s_ctx.valid.value = offer ? 1 : 0;
        dut.s_ctx.data.value = { qp: cq, wrId: r.wrId, firstPsn: r.psn, lastPsn: r.psn, length: 0, startOff: 0, pd: 0, pmtu: 12, numSge: 0, sge: none } as never;
        // s_hdr: the response that completes a QP's oldest READ.
        if (!hdr && traffic && rng.bool(0.5)) {
          const q = rng.int(0, numQp - 1);
          if (idleQp(q) && states[q] === QP_STATE.RTS && live[q]!.length > 0 && q !== cq) hdr = { qp: q, r: live[q]![0]! };
        }
        dut.s_hdr.valid.value = hdr ? 1 : 0;
        if (hdr) dut.s_hdr.data.value = { ...hdrBase, opcode: READ_RESP.ONLY, destQpn: LOCAL_QPN_BASE + hdr.qp, psn: hdr.r.psn, payloadLen: 0 } as never;
        // s_rewind: drops a QP's contexts.
        if (rw === null && traffic && rng.bool(0.04)) {
          const q = rng.int(0, numQp - 1);
          if (idleQp(q) && q !== cq && q !== hdr?.qp) rw = q;
        }
        dut.s_rewind.valid.value = rw === null ? 0 : 1;
        dut.s_rewind.data.value = { qp: rw ?? 0, ringIdx: 0, sqPsn: 0 } as never;
        // RESET or ERROR (drops the QP's contexts), and back to RTS; sometimes two QPs at once.
        // A context offered in the same cycle is for another QP (its fate would depend on the
        // order the model applies the two in).
        if (traffic && rng.bool(0.03)) {
          for (const q of rng.bool(0.3) ? [rng.int(0, numQp - 1), rng.int(0, numQp - 1)] : [rng.int(0, numQp - 1)]) {
            if (!idleQp(q) || q === cq) continue;
            if (states[q] === QP_STATE.RTS) { states[q] = rng.bool(0.5) ? QP_STATE.RESET : QP_STATE.ERROR; live[q] = []; out.resets++; }
            else states[q] = QP_STATE.RTS;
            quietUntil[q] = tb.cycle + QUIET;
          }
          applyStates();
        }
        tb.settle();
        if (offer && Number(dut.s_ctx.ready.value)) {
          if (states[cq] === QP_STATE.RTS) {
            expect(live[cq]!.length, `QP ${cq} took a READ over its limit of ${PER_QP} (${where()})`).toBeLessThan(PER_QP);
            live[cq]!.push(r);
          } else out.dropped++;
        } else if (offer && states[cq] === QP_STATE.RTS && live[cq]!.length < PER_QP) out.refusedByPool++;
        if (hdr && Number(dut.s_hdr.ready.value)) {
          expect(live[hdr.qp]![0], `QP ${hdr.qp}'s head READ changed while its header waited (${where()})`).toBe(hdr.r);
          live[hdr.qp]!.shift();
          want.push({ qp: hdr.qp, wrId: hdr.r.wrId, psn: hdr.r.psn });
          quietUntil[hdr.qp] = tb.cycle + QUIET;
          hdr = null;
        }
        if (rw !== null && Number(dut.s_rewind.ready.value)) {
          live[rw] = [];
          quietUntil[rw] = tb.cycle + QUIET;
          rewoundUntil[rw] = tb.cycle + 8;
          out.rewinds++;
          rw = null;
        }
        sample();
        await tb.rising();
      }
      dut.s_ctx.valid.value = 0; dut.s_hdr.valid.value = 0; dut.s_rewind.valid.value = 0;
    };

    /** With every QP idle and RTS: drop every context (a rewind per QP), then the pool must take
     *  `contexts` READs (PER_QP per QP at most) and complete them all. */
    const poolWhole = async (): Promise<void> => {
      await run(QUIET * 2, false);
      for (let q = 0; q < numQp; q++) if (states[q] !== QP_STATE.RTS) states[q] = QP_STATE.RTS;
      applyStates();
      for (let q = 0; q < numQp; q++) {
        dut.s_rewind.valid.value = 1;
        dut.s_rewind.data.value = { qp: q, ringIdx: 0, sqPsn: 0 } as never;
        for (let i = 0; i < 20 && (tb.settle(), !Number(dut.s_rewind.ready.value)); i++) await step();
        await step();
        dut.s_rewind.valid.value = 0;
        live[q] = [];
      }
      for (let i = 0; i < QUIET * 2; i++) await step();
      let taken = 0;
      for (let k = 0; k < PER_QP; k++) {
        for (let q = 0; q < numQp; q++) {
          const r: R = { wrId: (BigInt(q) << 32n) | BigInt(++serial), psn: (serial * 7) & 0xffffff };
          dut.s_ctx.valid.value = 1;
          dut.s_ctx.data.value = { qp: q, wrId: r.wrId, firstPsn: r.psn, lastPsn: r.psn, length: 0, startOff: 0, pd: 0, pmtu: 12, numSge: 0, sge: none } as never;
          tb.settle();
          if (Number(dut.s_ctx.ready.value)) { live[q]!.push(r); taken++; }
          await step();
        }
      }
      dut.s_ctx.valid.value = 0;
      expect(taken, `READs the idle pool took (${where()}): a slot leaked`).toBe(Math.min(contexts, numQp * PER_QP));
      for (let q = 0; q < numQp; q++) {
        while (live[q]!.length) {
          const r = live[q]!.shift()!;
          dut.s_hdr.valid.value = 1;
          dut.s_hdr.data.value = { ...hdrBase, opcode: READ_RESP.ONLY, destQpn: LOCAL_QPN_BASE + q, psn: r.psn, payloadLen: 0 } as never;
          for (let i = 0; i < 40 && (tb.settle(), !Number(dut.s_hdr.ready.value)); i++) await step();
          await step();
          dut.s_hdr.valid.value = 0;
          want.push({ qp: q, wrId: r.wrId, psn: r.psn });
        }
      }
      for (let i = 0; i < QUIET * 2; i++) await step();
      checkDones();
      expect(got.length, `completions so far (${where()})`).toBe(want.length);
    };

    for (let round = 0; round < cycles / 500; round++) {
      await run(500, true);
      await poolWhole();
    }
    await poolWhole();
    out = { ...out, done: got.length };
    console.log(`read_resp_rx pool ${numQp} QPs, ${contexts} contexts: ${got.length} READs completed, ${out.rewinds} rewinds, ${out.resets} RESET/ERROR, ${out.dropped} contexts of dead QPs dropped, ${out.refusedByPool} offers refused with the QP under its limit, ${seed}`);
  });
  return out;
}

describe('nic_read_resp_rx context pool', () => {
  for (const [numQp, contexts] of [[8, 4], [16, 5]] as const) {
    it(`${numQp} QPs over ${contexts} contexts: rewinds and RESETs mid-READ leak no slot and cross-link none`, async () => {
      const r = await poolRun(numQp, contexts, 5000);
      expect(r.done, 'READs completed').toBeGreaterThan(200);
      expect(r.rewinds, 'rewinds').toBeGreaterThan(10);
      expect(r.resets, 'QPs dropped by RESET/ERROR').toBeGreaterThan(10);
      expect(r.refusedByPool, 'the pool was empty at times (s_ctx waited for it)').toBeGreaterThan(0);
    }, 600_000);
  }
});
