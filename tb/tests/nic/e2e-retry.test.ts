// Go-back-N end to end (docs/nic-reliability.md): two NICs (nic_pair) whose link loses,
// duplicates and reorders chosen frames (support/frame-faults.ts). Each case checks the
// scoreboard (every byte, nothing else changed on either host, CQEs in posting order with
// their status), that the fault really happened, what each side did about it (counters, the
// transmissions of the lost PSN, the re-requested READ's RETH) and that every retransmitted
// request repeats its first transmission byte for byte. Seed 1 in make test; NICGEN_SEED=<n>.

import { describe, expect, it } from 'vitest';
import { CQE_STATUS, QP_STATE, retryReg } from '../../../gen/nic/regmap.ts';
import { envSeed, runTest } from '../../core/index.ts';
import { pairDesignOf } from '../../../bench/nic-pair.ts';
import { psnAdd, psnCompare } from '../../model/psn.ts';
import { RC_OP } from '../../model/wire-expect.ts';
import { both, isAck, isSeqNak, opIs, psnIs, toQp, type FaultRule, type SentPacket } from './support/frame-faults.ts';
import { RetryPair, type HostName, type Posted, type RetryPairOptions } from './support/retry-pair.ts';

const BUILD_TIMEOUT = 1_800_000;
const SEED = envSeed() ?? 1;
/** 3 retries, ACK timeout 2^14 cycles (65 us at 250 MHz): far above any round trip here. */
const RETRY = retryReg({ retryCnt: 3, timeoutLog2: 14 });
const qpn = (i: number): number => 0x100 + i;
const to = (i: number, ...ops: number[]) => both(toQp(qpn(i)), opIs(...ops));

/** Runs `body` on a fresh pair; the seed is printed for replay. */
async function withPair(name: string, o: RetryPairOptions, body: (p: RetryPair) => Promise<void>, maxCycles = 3_000_000, dataWidth = 64): Promise<void> {
  await runTest(pairDesignOf(dataWidth), async (dut, tb) => {
    console.log(`e2e-retry ${name}: seed ${tb.seed} (NICGEN_SEED=${tb.seed} replays)`);
    const pair = await RetryPair.create(dut, tb, o);
    await body(pair);
  }, { seed: SEED, maxCycles });
}

/** Request packets host `from` sent at or below a PSN it had sent before on that QP (a READ
 *  REQUEST covers its responses' PSNs): what RETX_PKTS must count, taken from the wire. */
function resends(p: RetryPair, from: HostName): number {
  const dir = from === 'A' ? 'a->b' : 'b->a';
  const high = new Map<number, number>();
  let n = 0;
  for (const s of p.log.sent) {
    if (s.dir !== dir || s.pkt.bth.opcode > RC_OP.READ_REQUEST) continue;
    const q = s.pkt.bth.destQp, psn = s.pkt.bth.psn;
    const h = high.get(q);
    if (h !== undefined && psnCompare(psn, h) <= 0) n++;
    const mtu = p.mtu(q - 0x100);
    const last = s.pkt.bth.opcode === RC_OP.READ_REQUEST ? psnAdd(psn, Math.max(1, Math.ceil(s.pkt.reth!.dmaLen / mtu)) - 1) : psn;
    if (h === undefined || psnCompare(last, h) > 0) high.set(q, last);
  }
  return n;
}

const isAckSent = (s: SentPacket): boolean => isAck(s.pkt);

async function expectAllRts(p: RetryPair, qps: number): Promise<void> {
  for (const n of ['A', 'B'] as const) for (let i = 0; i < qps; i++) expect(await p.state(n, i), `${n} QP ${i} state`).toBe(QP_STATE.RTS);
}

describe('nic_pair go-back-N', () => {
  it('drop WRITE FIRST, a MIDDLE, LAST and ONLY (one QP each): NAK 0x60, resent from the lost PSN, byte-exact', async () => {
    await withPair('WRITE drops', {
      qps: 4, retry: RETRY, pmtuLog2: [10, 9, 12, 10],
      faults: [
        { what: 'WRITE FIRST to QP 0', dir: 'a->b', match: to(0, RC_OP.WRITE_FIRST), nth: 1, action: 'drop' },
        { what: 'second WRITE MIDDLE to QP 1', dir: 'a->b', match: to(1, RC_OP.WRITE_MIDDLE), nth: 2, action: 'drop' },
        { what: 'WRITE LAST to QP 2', dir: 'a->b', match: to(2, RC_OP.WRITE_LAST), nth: 1, action: 'drop' },
        { what: 'WRITE ONLY to QP 3', dir: 'a->b', match: to(3, RC_OP.WRITE_ONLY), nth: 1, action: 'drop' },
      ],
    }, async pair => {
      const firsts: number[] = [];
      for (let i = 0; i < 3; i++) {
        for (const len of [5 * pair.mtu(i) + 77, 2 * pair.mtu(i) + 5]) firsts.push((await pair.post({ kind: 'write', from: 'A', qp: i, len })).psn);
      }
      for (const len of [100, 1000, 7]) firsts.push((await pair.post({ kind: 'write', from: 'A', qp: 3, len })).psn);
      await pair.drain(400_000);
      pair.plan.expectActed();
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A'), b = await pair.counters('B');
      console.log(`WRITE drops: ${retransmissions} retransmissions checked; A ${JSON.stringify(a)}; B ${JSON.stringify(b)}`);
      // Each lost packet went out twice: QP 0 its FIRST, QP 1 its 2nd MIDDLE, QP 2 its LAST, QP 3 the ONLY.
      expect(pair.log.requests('a->b', qpn(0), firsts[0]!).length, 'QP 0 FIRST').toBe(2);
      expect(pair.log.requests('a->b', qpn(1), psnAdd(firsts[2]!, 2)).length, 'QP 1 2nd MIDDLE').toBe(2);
      expect(pair.log.requests('a->b', qpn(2), psnAdd(firsts[4]!, 5)).length, 'QP 2 LAST').toBe(2);
      expect(pair.log.requests('a->b', qpn(3), firsts[6]!).length, 'QP 3 ONLY').toBe(2);
      expect(a.RETX_PKTS, 'RETX_PKTS = request packets sent again').toBe(resends(pair, 'A'));
      expect(b.SEQ_NAK_TX, 'one NAK 0x60 per gap (a later packet of the QP followed each loss)').toBe(4);
      expect(a.SEQ_NAK_RX).toBe(4);
      expect(a.ACK_TIMEOUTS + a.RETRY_EXC).toBe(0);
      expect(retransmissions).toBe(a.RETX_PKTS);
      await expectAllRts(pair, 4);
    });
  }, BUILD_TIMEOUT);

  it('drop an ACK, a READ REQUEST, READ RESPONSE FIRST and a MIDDLE: coalesced ACK or timeout; implied NAK; partial re-request', async () => {
    const mtu3 = 512;
    await withPair('ACK and READ drops', {
      qps: 4, retry: RETRY, pmtuLog2: [10, 10, 10, 9],
      faults: [
        // ACK 1 is covered by ACK 2 (coalescing); ACK 3 is the only one of its WRITE: timeout.
        { what: 'ACKs 1 and 3 to QP 0', dir: 'b->a', match: both(toQp(qpn(0)), isAck), nth: [1, 3], action: 'drop' },
        { what: 'READ REQUEST to QP 1', dir: 'a->b', match: to(1, RC_OP.READ_REQUEST), nth: 1, action: 'drop' },
        { what: 'READ RESPONSE FIRST to QP 2', dir: 'b->a', match: to(2, RC_OP.READ_RESPONSE_FIRST), nth: 1, action: 'drop' },
        { what: '2nd READ RESPONSE MIDDLE to QP 3', dir: 'b->a', match: to(3, RC_OP.READ_RESPONSE_MIDDLE), nth: 2, action: 'drop' },
      ],
    }, async pair => {
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 3000 });
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 2000 });
      const r1 = await pair.post({ kind: 'read', from: 'A', qp: 1, len: 3000 });
      const r2 = await pair.post({ kind: 'read', from: 'A', qp: 2, len: 5 * 1024 + 11 });
      const r3 = await pair.post({ kind: 'read', from: 'A', qp: 3, len: 6 * mtu3 + 100 });
      await pair.drain(400_000, 'first batch');
      const w3 = await pair.post({ kind: 'write', from: 'A', qp: 0, len: 1500 });
      await pair.drain(400_000, 'the WRITE whose only ACK is lost');
      pair.plan.expectActed();
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A'), b = await pair.counters('B');
      console.log(`ACK/READ drops: ${retransmissions} retransmissions; A ${JSON.stringify(a)}; B ${JSON.stringify(b)}`);
      // ACK 1 lost, ACK 2 covered both WRITEs: nothing of the first two WRITEs went out twice.
      expect(pair.log.requests('a->b', qpn(0), pair.posted[0]!.psn).length, 'WRITE 1 (ACK covered later)').toBe(1);
      // The lone WRITE's ACK was lost: its timeout resent it from its first PSN; B re-ACKed the duplicate.
      expect(pair.log.requests('a->b', qpn(0), w3.psn).length, 'WRITE 3 after its ACK was lost').toBe(2);
      expect(b.DUP_REQ_RX, 'duplicates at B: WRITE 3 (2 packets) resent').toBeGreaterThanOrEqual(2);
      // The lost READ REQUEST (nothing behind it): timeout, the same request again.
      expect(pair.log.requests('a->b', qpn(1), r1.psn).length, 'READ REQUEST of QP 1').toBe(2);
      expect(a.ACK_TIMEOUTS, 'timeouts: WRITE 3 and the READ of QP 1').toBe(2);
      // FIRST lost: the MIDDLE after it was an implied NAK; the whole READ asked again at its PSN.
      expect(pair.log.requests('a->b', qpn(2), r2.psn).length, 'READ of QP 2 re-requested whole').toBe(2);
      // The 2nd MIDDLE (response PSN first + 2) lost: re-requested from there, VA and length advanced.
      const again = pair.log.requests('a->b', qpn(3), psnAdd(r3.psn, 2));
      expect(again.length, 'partial re-request of the READ of QP 3').toBe(1);
      expect(again[0]!.pkt.reth).toEqual({ va: r3.wr.remoteVa + BigInt(2 * mtu3), rkey: r3.wr.rkey, dmaLen: 6 * mtu3 + 100 - 2 * mtu3 });
      expect(a.RETX_PKTS).toBe(resends(pair, 'A'));
      expect(a.SEQ_NAK_RX, 'READ losses are implied NAKs, not NAK frames').toBe(0);
      await expectAllRts(pair, 4);
    });
  }, BUILD_TIMEOUT);

  it('drop READ RESPONSE LAST (an ACK past it, or the timeout) and ONLY; duplicate and reorder requests and responses', async () => {
    await withPair('LAST/ONLY drops, duplicates, reorders', {
      qps: 4, retry: RETRY, pmtuLog2: [10, 11, 10, 9],
      faults: [
        { what: 'READ RESPONSE LAST to QP 0', dir: 'b->a', match: to(0, RC_OP.READ_RESPONSE_LAST), nth: 1, action: 'drop' },
        { what: 'READ RESPONSE LAST and ONLY to QP 1', dir: 'b->a', match: to(1, RC_OP.READ_RESPONSE_LAST, RC_OP.READ_RESPONSE_ONLY), nth: [1, 2], action: 'drop' },
        { what: 'duplicate WRITE MIDDLEs to QP 2', dir: 'a->b', match: to(2, RC_OP.WRITE_MIDDLE), nth: 'all', action: 'dup' },
        { what: 'duplicate READ RESPONSE MIDDLEs to QP 2', dir: 'b->a', match: to(2, RC_OP.READ_RESPONSE_MIDDLE), nth: 'all', action: 'dup' },
        { what: 'WRITE MIDDLE to QP 3 behind the next 2 frames', dir: 'a->b', match: to(3, RC_OP.WRITE_MIDDLE), nth: 1, action: { holdFor: 2 } },
        { what: 'READ RESPONSE MIDDLE to QP 3 behind the next frame', dir: 'b->a', match: to(3, RC_OP.READ_RESPONSE_MIDDLE), nth: 2, action: { holdFor: 1 } },
      ],
    }, async pair => {
      const r0 = await pair.post({ kind: 'read', from: 'A', qp: 0, len: 3 * 1024 - 10 });
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 700 });
      const r1 = await pair.post({ kind: 'read', from: 'A', qp: 1, len: 2 * 2048 });
      const r1b = await pair.post({ kind: 'read', from: 'A', qp: 1, len: 900 });
      for (const op of ['write', 'read', 'write', 'read'] as const) await pair.post({ kind: op, from: 'A', qp: 2, len: 4 * 1024 + 3 });
      for (const op of ['write', 'read', 'write'] as const) await pair.post({ kind: op, from: 'A', qp: 3, len: 5 * 512 + 9 });
      await pair.drain(400_000);
      pair.plan.expectActed();
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A'), b = await pair.counters('B');
      console.log(`LAST/ONLY/dup/reorder: ${retransmissions} retransmissions; A ${JSON.stringify(a)}; B ${JSON.stringify(b)}`);
      // QP 0: the WRITE's ACK came past the missing LAST: the READ asked again for its last packet.
      const r0Last = psnAdd(r0.psn, 2);
      const again0 = pair.log.requests('a->b', qpn(0), r0Last);
      expect(again0.length, 'READ of QP 0 re-requested at its LAST').toBe(1);
      expect(again0[0]!.pkt.reth?.dmaLen).toBe(3 * 1024 - 10 - 2 * 1024);
      // QP 1: the first READ's LAST lost, then (its re-request answered) the second READ's ONLY.
      expect(pair.log.requests('a->b', qpn(1), psnAdd(r1.psn, 1)).length, 'QP 1 READ 1 from its LAST').toBe(1);
      expect(pair.log.requests('a->b', qpn(1), r1b.psn).length, 'QP 1 READ 2 (ONLY lost)').toBe(2);
      // Duplicates and reordering: nothing resent for QP 2; B saw the duplicate requests.
      for (const p of pair.posted.filter(x => x.op.qp === 2)) expect(pair.log.requests('a->b', qpn(2), p.psn).length, `QP 2 op at PSN ${p.psn}`).toBe(1);
      expect(b.DUP_REQ_RX, 'duplicated WRITE MIDDLEs (2 WRITEs x 4 MIDDLEs) at least').toBeGreaterThanOrEqual(6);
      expect(a.RETX_PKTS).toBe(resends(pair, 'A'));
      await expectAllRts(pair, 4);
    });
  }, BUILD_TIMEOUT);

  it('duplicated READ REQUESTs answered again; a READ REQUEST overtaken by a WRITE; a stale ACK arriving during a retry is ignored', async () => {
    let dup = true;
    await withPair('duplicate READ REQUESTs, reordered READ REQUEST, stale ACK', {
      qps: 3, retry: RETRY, pmtuLog2: 10,
      faults: [
        { what: 'every READ REQUEST to QP 0 twice', dir: 'a->b', match: p => dup && to(0, RC_OP.READ_REQUEST)(p), nth: 'all', action: 'dup' },
        { what: 'READ REQUEST to QP 1 behind the next frame (its WRITE)', dir: 'a->b', match: to(1, RC_OP.READ_REQUEST), nth: 1, action: { holdFor: 1 } },
        { what: 'first ACK to A QP 2 behind the next frame (the NAK 0x60)', dir: 'b->a', match: both(toQp(qpn(2)), isAck), nth: 1, action: { holdFor: 1 } },
        { what: 'first WRITE MIDDLE to QP 2', dir: 'a->b', match: to(2, RC_OP.WRITE_MIDDLE), nth: 1, action: 'drop' },
      ],
    }, async pair => {
      // Phase 1, QP 0 alone: each READ REQUEST arrives twice. B answers READ 1's duplicate again
      // (A keeps the first answer) in QP 0's duplicate slot, not in one of its two READ slots
      // (soak finding 3, docs/nic-read.md), so READ 2 finds room and is answered at once: no
      // NAK 0x61, no drop, no timeout. READ 2's duplicate is answered again when the duplicate
      // slot is free by then, else dropped (A has its answer anyway).
      const r0 = [await pair.post({ kind: 'read', from: 'A', qp: 0, len: 3000 }), await pair.post({ kind: 'read', from: 'A', qp: 0, len: 5 })];
      await pair.drain(200_000, 'duplicated READs');
      dup = false;
      const a1 = await pair.counters('A'), b1 = await pair.counters('B');
      const answers = (r: Posted) => pair.log.responses('b->a', qpn(0)).filter(s => s.pkt.bth.psn === r.psn).length;
      expect(pair.log.requests('a->b', qpn(0), r0[0]!.psn).length, 'A sent READ 1 once').toBe(1);
      expect(answers(r0[0]!), 'B answered READ 1 twice').toBe(2);
      expect(pair.log.requests('a->b', qpn(0), r0[1]!.psn).length, 'A sent READ 2 once (B took it)').toBe(1);
      expect(answers(r0[1]!), 'B answered READ 2, and its duplicate at most once more').toBeGreaterThanOrEqual(1);
      expect(answers(r0[1]!)).toBeLessThanOrEqual(2);
      expect(a1.ACK_TIMEOUTS, 'nothing was dropped for want of a READ slot').toBe(0);
      expect(b1.DUP_REQ_RX, 'duplicates at B: READ 1 and READ 2').toBe(2);
      // Phase 2, QP 1 alone: the WRITE behind a READ REQUEST overtakes it: NAK 0x60 at the READ's PSN, go back.
      const r1 = await pair.post({ kind: 'read', from: 'A', qp: 1, len: 2500 });
      await pair.post({ kind: 'write', from: 'A', qp: 1, len: 2000 });
      await pair.drain(200_000, 'the overtaken READ REQUEST');
      const b2 = await pair.counters('B');
      // WRITE FIRST ahead: NAK 0x60 at the READ; the late READ arrives in sequence and is answered
      // (it clears the NAK state), then WRITE LAST is ahead of the (lost) FIRST: a second NAK.
      expect(b2.SEQ_NAK_TX - b1.SEQ_NAK_TX, 'B NAKed the gap the late READ REQUEST left, then the one behind it').toBe(2);
      expect(pair.log.requests('a->b', qpn(1), r1.psn).length, 'A went back to the READ').toBe(2);
      // Phase 3, QP 2 alone: the ACK of WRITE 1 is held until after the NAK 0x60 for WRITE 2's lost MIDDLE,
      // so it arrives while A resends: old, inside nothing outstanding, ignored.
      const w1 = await pair.post({ kind: 'write', from: 'A', qp: 2, len: 100 });
      const w2 = await pair.post({ kind: 'write', from: 'A', qp: 2, len: 4 * 1024 + 5 });
      await pair.drain(200_000, 'the stale ACK');
      pair.plan.expectActed();
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A'), b = await pair.counters('B');
      console.log(`dup READ / reordered READ / stale ACK: ${retransmissions} retransmissions; A ${JSON.stringify(a)}; B ${JSON.stringify(b)}`);
      const back = pair.log.sent.filter(s => s.dir === 'b->a' && s.pkt.bth.destQp === qpn(2));
      const ack1 = back.findIndex(isAckSent);
      expect(back[ack1 + 1] && isSeqNak(back[ack1 + 1]!.pkt), 'the frame B sent after the held ACK is the NAK 0x60').toBe(true);
      expect(pair.log.requests('a->b', qpn(2), w1.psn).length, 'WRITE 1 never resent (its ACK came late, not lost)').toBe(1);
      expect(pair.log.requests('a->b', qpn(2), psnAdd(w2.psn, 1)).length, 'the lost MIDDLE resent').toBe(2);
      expect(pair.log.requests('a->b', qpn(2), w2.psn).length, 'WRITE 2 FIRST not resent').toBe(1);
      expect(a.RETX_PKTS).toBe(resends(pair, 'A'));
      expect(a.ACK_TIMEOUTS - a1.ACK_TIMEOUTS + a.RETRY_EXC, 'no timeout after phase 1, no error').toBe(0);
      await expectAllRts(pair, 3);
    });
  }, BUILD_TIMEOUT);

  it('every transmission of one packet lost: exactly retry_cnt + 1 of that PSN on the wire, RETRY_EXCEEDED, QP in ERROR, later WQEs flushed', async () => {
    const retryCnt = 3;
    let lostWrite = -1, lostRead = -1;
    const faults: FaultRule[] = [
      { what: 'every WRITE ONLY at the lost PSN to QP 0', dir: 'a->b', match: p => p.bth.destQp === qpn(0) && p.bth.psn === lostWrite, nth: 'all', action: 'drop' },
      { what: 'every READ REQUEST at the lost PSN to QP 1', dir: 'a->b', match: p => p.bth.destQp === qpn(1) && p.bth.psn === lostRead, nth: 'all', action: 'drop' },
    ];
    await withPair('retries exhausted', { qps: 3, retry: retryReg({ retryCnt, timeoutLog2: 13 }), faults }, async pair => {
      lostWrite = pair.nextPsn.A[0]!;
      lostRead = pair.nextPsn.A[1]!;
      const w = await pair.post({ kind: 'write', from: 'A', qp: 0, len: 600, status: CQE_STATUS.RETRY_EXCEEDED });
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 5000, status: CQE_STATUS.FLUSH_ERROR });
      await pair.post({ kind: 'read', from: 'A', qp: 0, len: 300, status: CQE_STATUS.FLUSH_ERROR, signaled: false });
      const r = await pair.post({ kind: 'read', from: 'A', qp: 1, len: 4000, status: CQE_STATUS.RETRY_EXCEEDED });
      await pair.post({ kind: 'write', from: 'A', qp: 1, len: 100, status: CQE_STATUS.FLUSH_ERROR });
      // QP 2 carries on meanwhile.
      for (let k = 0; k < 4; k++) await pair.post({ kind: k % 2 ? 'read' : 'write', from: 'A', qp: 2, len: 3000 });
      await pair.drain(600_000);
      pair.plan.expectActed();
      // WQEs posted to a QP in ERROR are flushed too, in order.
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 64, status: CQE_STATUS.FLUSH_ERROR });
      await pair.drain(100_000, 'a WQE posted after the error');
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A'), b = await pair.counters('B');
      console.log(`retries exhausted: ${retransmissions} retransmissions; A ${JSON.stringify(a)}; B ${JSON.stringify(b)}`);
      expect(pair.log.requests('a->b', qpn(0), w.psn).length, 'transmissions of the lost WRITE PSN').toBe(retryCnt + 1);
      expect(pair.log.requests('a->b', qpn(1), r.psn).length, 'transmissions of the lost READ REQUEST PSN').toBe(retryCnt + 1);
      expect(a.RETRY_EXC).toBe(2);
      expect(await pair.state('A', 0)).toBe(QP_STATE.ERROR);
      expect(await pair.state('A', 1)).toBe(QP_STATE.ERROR);
      expect(await pair.state('A', 2)).toBe(QP_STATE.RTS);
      for (let i = 0; i < 3; i++) expect(await pair.state('B', i), `responder QP ${i}`).toBe(QP_STATE.RTS);
      const st = pair.cqeCycles.filter(c => c.host === 'A' && c.qp === 0).map(c => c.status);
      expect(st).toEqual([CQE_STATUS.RETRY_EXCEEDED, CQE_STATUS.FLUSH_ERROR, CQE_STATUS.FLUSH_ERROR, CQE_STATUS.FLUSH_ERROR]);
    });
  }, BUILD_TIMEOUT);

  it('retry count reloads after progress; PSN wrap at 2^24 inside a retried READ and WRITE', async () => {
    // One retry only: two losses in a row on QP 0 need the reload between them.
    let w2Middle = -1;
    await withPair('reload and wrap', {
      qps: 3, retry: retryReg({ retryCnt: 1, timeoutLog2: 14 }), pmtuLog2: [10, 9, 9],
      sqPsn: (h, i) => (h === 'A' && i === 1 ? 0xfffffd : h === 'A' && i === 2 ? 0xfffffe : 0x123456 + i),
      faults: [
        { what: 'WRITE 1 MIDDLE to QP 0', dir: 'a->b', match: to(0, RC_OP.WRITE_MIDDLE), nth: 1, action: 'drop' },
        { what: 'WRITE 2 MIDDLE to QP 0', dir: 'a->b', match: p => p.bth.destQp === qpn(0) && p.bth.psn === w2Middle, nth: 1, action: 'drop' },
        { what: 'READ RESPONSE MIDDLE at PSN 0xffffff to A QP 1', dir: 'b->a', match: both(toQp(qpn(1)), psnIs(0xffffff), opIs(RC_OP.READ_RESPONSE_MIDDLE)), nth: 1, action: 'drop' },
        { what: 'WRITE packet at PSN 0 to QP 2', dir: 'a->b', match: both(toQp(qpn(2)), psnIs(0)), nth: 1, action: 'drop' },
      ],
    }, async pair => {
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 4 * 1024 });
      await pair.drain(200_000, 'WRITE 1');
      w2Middle = psnAdd(pair.nextPsn.A[0]!, 1);
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 4 * 1024 });
      // QP 1: a READ at 0xfffffd..0x000000 loses its MIDDLE at 0xffffff: asked again from there.
      const r = await pair.post({ kind: 'read', from: 'A', qp: 1, len: 4 * 512 });
      // QP 2: a WRITE at 0xfffffe..0x000001 loses its packet at PSN 0: resent from 0 (k = 2 across the wrap).
      await pair.post({ kind: 'write', from: 'A', qp: 2, len: 4 * 512 - 3 });
      await pair.drain(400_000, 'WRITE 2 and the wrap');
      pair.plan.expectActed();
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A');
      console.log(`reload and wrap: ${retransmissions} retransmissions; A ${JSON.stringify(a)}`);
      expect(pair.log.requests('a->b', qpn(0), w2Middle).length, 'WRITE 2 resent once (the reloaded retry)').toBe(2);
      expect(r.psn).toBe(0xfffffd);
      const again = pair.log.requests('a->b', qpn(1), 0xffffff);
      expect(again.length, 'the READ asked again from 0xffffff').toBe(1);
      expect(again[0]!.pkt.reth?.dmaLen).toBe(2 * 512);
      expect(pair.log.requests('a->b', qpn(2), 0).length, 'the WRITE packet at PSN 0').toBe(2);
      expect(pair.log.requests('a->b', qpn(2), 0xffffff).length, 'the packet before the lost one, not resent').toBe(1);
      expect(a.RETRY_EXC).toBe(0);
      await expectAllRts(pair, 3);
    });
  }, BUILD_TIMEOUT);

  it('fence and READ limit during retries: a fenced WRITE over bytes three retried READs read waits for them; no NAK 0x61', async () => {
    let r3Last = -1;
    await withPair('fence and READ limit', {
      qps: 2, retry: RETRY, pmtuLog2: 10,
      faults: [
        { what: 'READ RESPONSE FIRST of READ 1', dir: 'b->a', match: to(0, RC_OP.READ_RESPONSE_FIRST), nth: 1, action: 'drop' },
        { what: 'READ RESPONSE LAST of READ 3', dir: 'b->a', match: p => p.bth.destQp === qpn(0) && p.bth.psn === r3Last, nth: 1, action: 'drop' },
        { what: 'ACK to A QP 0', dir: 'b->a', match: both(toQp(qpn(0)), isAck), nth: 1, action: 'drop' },
      ],
    }, async pair => {
      // Three READs on one QP (the limit is 2 outstanding), then WRITEs over what they read: the
      // first fenced (it must wait for all three, retries included), the next ones after it.
      r3Last = psnAdd(pair.nextPsn.A[0]!, 2 * 4 + 3);
      const r: Posted[] = [];
      for (let k = 0; k < 3; k++) r.push(await pair.post({ kind: 'read', from: 'A', qp: 0, len: 3 * 1024 + 5 }));
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 3 * 1024 + 5, sameRemoteAs: 0, fence: true });
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 3 * 1024 + 5, sameRemoteAs: 1 });
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 3 * 1024 + 5, sameRemoteAs: 2 });
      for (let k = 0; k < 3; k++) await pair.post({ kind: 'write', from: 'A', qp: 1, len: 8000 });
      await pair.drain(600_000);
      pair.plan.expectActed();
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A'), b = await pair.counters('B');
      console.log(`fence and READ limit: ${retransmissions} retransmissions; A ${JSON.stringify(a)}; B ${JSON.stringify(b)}`);
      // The third READ's request left only once a READ context was free (no NAK 0x61, all RTS).
      const third = pair.log.requests('a->b', qpn(0), r[2]!.psn)[0]!;
      const firstDone = pair.log.responses('b->a', qpn(0)).filter(s => s.pkt.bth.opcode === RC_OP.READ_RESPONSE_LAST && s.pkt.bth.psn === psnAdd(r[0]!.psn, 3));
      expect(firstDone.length).toBeGreaterThan(0);
      expect(third.cycle, 'READ 3 sent after READ 1 was answered').toBeGreaterThan(firstDone[firstDone.length - 1]!.cycle);
      await expectAllRts(pair, 2);
    });
  }, BUILD_TIMEOUT);

  it('one QP waits for its ACK timeout while three others run at full rate: they finish before its timer fires', async () => {
    const firstSent = new Set<number>();
    await withPair('no head-of-line blocking', {
      qps: 4, retry: retryReg({ retryCnt: 3, timeoutLog2: 17 }), pmtuLog2: 12,
      faults: [
        // Every first transmission to QP 0 is lost: only its ACK timeout (2^17 cycles) recovers it,
        // while its READ, its fenced WRITE (parked behind the READ) and the rest wait.
        { what: 'first transmissions to QP 0', dir: 'a->b', match: p => p.bth.destQp === qpn(0) && !firstSent.has(p.bth.psn) && (firstSent.add(p.bth.psn), true), nth: 'all', action: 'drop' },
      ],
    }, async pair => {
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 3 * 4096 });
      await pair.post({ kind: 'read', from: 'A', qp: 0, len: 5000 });
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 5000, fence: true });
      await pair.post({ kind: 'read', from: 'A', qp: 0, len: 5000 });
      const t0 = pair.tb.cycle;
      for (let k = 0; k < 6; k++) for (let i = 1; i < 4; i++) await pair.post({ kind: k % 3 === 2 ? 'read' : 'write', from: 'A', qp: i, len: 16 * 1024 });
      await pair.drain(1_000_000);
      pair.plan.expectActed();
      pair.finish();
      const others = pair.cqeCycles.filter(c => c.host === 'A' && c.qp !== 0);
      const lastOther = Math.max(...others.map(c => c.cycle));
      const seen = new Set<number>();
      const firstResend = pair.log.sent.find(s => {
        if (s.dir !== 'a->b' || s.pkt.bth.destQp !== qpn(0)) return false;
        if (seen.has(s.pkt.bth.psn)) return true;
        seen.add(s.pkt.bth.psn);
        return false;
      })!;
      const a = await pair.counters('A');
      console.log(`no HOL: QPs 1-3 (${others.length} CQEs, 288 KiB) done ${lastOther - t0} cycles after posting; QP 0 resent from cycle ${firstResend.cycle - t0}; A ${JSON.stringify(a)}`);
      expect(others.length).toBe(18);
      expect(a.ACK_TIMEOUTS).toBeGreaterThanOrEqual(1);
      expect(lastOther, 'QPs 1-3 done before QP 0 was resent').toBeLessThan(firstResend.cycle);
      await expectAllRts(pair, 4);
    }, 4_000_000);
  }, BUILD_TIMEOUT);

  it('reset and reconnect: a QP errored by exhausted retries, its flushes drained, both ends reset and connected again with new PSNs, traffic (and a retry) again', async () => {
    let lost = -2;
    await withPair('reset and reconnect', {
      qps: 2, retry: retryReg({ retryCnt: 2, timeoutLog2: 13 }), pmtuLog2: 10,
      faults: [
        { what: 'every transmission of the first WRITE to QP 0', dir: 'a->b', match: p => p.bth.destQp === qpn(0) && p.bth.psn === lost, nth: 'all', action: 'drop' },
        { what: 'one READ RESPONSE MIDDLE to A QP 0 after the reconnect', dir: 'b->a', match: to(0, RC_OP.READ_RESPONSE_MIDDLE), nth: 3, action: 'drop' },
      ],
    }, async pair => {
      // Some traffic B -> A first, so B's requester state is not fresh either.
      await pair.post({ kind: 'read', from: 'B', qp: 0, len: 3000 });
      await pair.post({ kind: 'write', from: 'B', qp: 0, len: 3000 });
      await pair.post({ kind: 'read', from: 'A', qp: 0, len: 2048 + 100 });
      await pair.drain(200_000, 'traffic before the error');
      lost = pair.nextPsn.A[0]!;
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 2000, status: CQE_STATUS.RETRY_EXCEEDED });
      for (let k = 0; k < 3; k++) await pair.post({ kind: k === 1 ? 'read' : 'write', from: 'A', qp: 0, len: 1000, status: CQE_STATUS.FLUSH_ERROR });
      await pair.drain(400_000, 'the error and its flushes');
      expect(await pair.state('A', 0)).toBe(QP_STATE.ERROR);
      lost = -1;
      await pair.reconnect(0, { A: 0x00abc0, B: 0xfffff0 });
      expect(await pair.host('A').drv.qpReg(pair.qp('A', 0), 'SQ_CI')).toBe(0);
      for (const from of ['A', 'B'] as const) {
        for (let k = 0; k < 3; k++) await pair.post({ kind: k === 1 ? 'read' : 'write', from, qp: 0, len: 4 * 1024 + 7 });
      }
      await pair.drain(400_000, 'traffic after the reconnect');
      pair.plan.expectActed();
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A');
      console.log(`reset and reconnect: ${retransmissions} retransmissions; A ${JSON.stringify(a)}`);
      expect(a.RETRY_EXC).toBe(1);
      await expectAllRts(pair, 2);
    });
  }, BUILD_TIMEOUT);

  it('512-bit datapath: a lost WRITE MIDDLE resent from its PSN, a lost READ RESPONSE MIDDLE re-requested from there, a lost READ REQUEST after its timeout, byte-exact', async () => {
    const mtu = 1024;
    await withPair('512 bits', {
      qps: 3, retry: RETRY, pmtuLog2: [10, 10, 10],
      faults: [
        { what: 'second WRITE MIDDLE to QP 0', dir: 'a->b', match: to(0, RC_OP.WRITE_MIDDLE), nth: 2, action: 'drop' },
        { what: 'second READ RESPONSE MIDDLE to QP 1', dir: 'b->a', match: to(1, RC_OP.READ_RESPONSE_MIDDLE), nth: 2, action: 'drop' },
        { what: 'READ REQUEST to QP 2', dir: 'a->b', match: to(2, RC_OP.READ_REQUEST), nth: 1, action: 'drop' },
      ],
    }, async pair => {
      const w = await pair.post({ kind: 'write', from: 'A', qp: 0, len: 5 * mtu + 33 });
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 2 * mtu + 1 });
      const r = await pair.post({ kind: 'read', from: 'A', qp: 1, len: 6 * mtu + 100 });
      const r2 = await pair.post({ kind: 'read', from: 'A', qp: 2, len: 3 * mtu + 7 });
      await pair.drain(400_000);
      pair.plan.expectActed();
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A'), b = await pair.counters('B');
      console.log(`512 bits: ${retransmissions} retransmissions checked; A ${JSON.stringify(a)}; B ${JSON.stringify(b)}`);
      expect(pair.log.requests('a->b', qpn(0), psnAdd(w.psn, 2)).length, 'QP 0 2nd MIDDLE').toBe(2);
      expect(pair.log.requests('a->b', qpn(0), w.psn).length, 'QP 0 FIRST (before the loss) once').toBe(1);
      const again = pair.log.requests('a->b', qpn(1), psnAdd(r.psn, 2));
      expect(again.length, 'partial re-request of the READ of QP 1').toBe(1);
      expect(again[0]!.pkt.reth).toEqual({ va: r.wr.remoteVa + BigInt(2 * mtu), rkey: r.wr.rkey, dmaLen: 6 * mtu + 100 - 2 * mtu });
      expect(pair.log.requests('a->b', qpn(2), r2.psn).length, 'the lost READ REQUEST of QP 2 sent again').toBe(2);
      expect(a.ACK_TIMEOUTS, 'the lost READ REQUEST: only its timer recovers it').toBe(1);
      expect(b.SEQ_NAK_TX).toBe(1);
      expect(a.RETX_PKTS).toBe(resends(pair, 'A'));
      expect(retransmissions).toBeGreaterThan(0);
      await expectAllRts(pair, 3);
    }, 3_000_000, 512);
  }, BUILD_TIMEOUT);
});
