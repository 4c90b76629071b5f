// NAK-path recovery with nic_dma_read's abort (docs/nic-reliability.md "NAK-path recovery"):
// two NICs (nic_pair), one QP, path MTU 4096, two 64 KiB WRITEs posted back to back; the link
// drops the 5th WRITE MIDDLE of the first. B NAKs (0x60) at the next packet; A's nic_req_tx
// cuts its message at the packet boundary its DMA stream is at (the commands already passed
// on keep their payload), drops the second message (its DMA commands were already in
// nic_dma_read) and resends from the lost PSN. Checked: the scoreboard (every byte, both
// hosts), both CQEs SUCCESS in order, the lost PSN sent twice, no packet of the second
// message before the resend, RETX_PKTS = the packets the wire saw twice, every retransmission
// equal to its first transmission, and the time from the NAK leaving B to the resend's first
// beat at A within the bound the mechanism gives (below). At 64 and 512 bits. Seed 1 in make
// test; NICGEN_SEED=<n>.
//
// The bound: when the NAK reaches A, frames A already committed still go out first: the one
// on the wire and, at most, one whose payload is all in nic_tx_frame_gate (its tlast in, its
// command waiting for the packetizer; at 512 bits one may also sit in the packetizer's header
// stage). Since issue-11n the QP's packet still filling the gate is dropped there and the
// DMA abort cuts inside it (docs/nic-reliability.md "NAK-path recovery within R + 64"), so at
// most 2 packet times T (T = ceil(4154 / 8) = 520 beats at 64 bits); the rewind, the WQE
// fetched again, its DMA validation and the resend's payload read again overlap with them;
// RX of the NAK, the tracker and the hand-overs add SLACK cycles. Issue-11h (the packet filling
// the gate went out whole, 8 x 2 KiB of reads in flight) measured 1 509 cycles at 64 bits
// (> 2 T + SLACK = 1 440), issue-11n 687. Before the abort (13 523 cycles from the drop) the
// resend also waited for the rest of message 1 and all of message 2: over 20 T.

import { describe, expect, it } from 'vitest';
import { CQE_STATUS, retryReg } from '../../../gen/nic/regmap.ts';
import { envSeed, runTest } from '../../core/index.ts';
import { pairDesignOf } from '../../../bench/nic-pair.ts';
import { psnAdd, psnCompare } from '../../model/psn.ts';
import { RC_OP } from '../../model/wire-expect.ts';
import { both, isSeqNak, opIs, toQp, type SentPacket } from './support/frame-faults.ts';
import { RetryPair } from './support/retry-pair.ts';

const BUILD_TIMEOUT = 1_800_000;
const SEED = envSeed() ?? 1;
/** 3 retries, ACK timeout 2^16 cycles: only the NAK recovers the loss. */
const RETRY = retryReg({ retryCnt: 3, timeoutLog2: 16 });
const QPN = 0x100;
const LEN = 65536;
const PMTU_LOG2 = 12;
/** Frame bytes of a 4096-byte WRITE MIDDLE (Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4). */
const FRAME_BYTES = 4096 + 58;
/** Cycles beyond the committed frames: the NAK's RX, tracker, rewind, fetch, DMA validation. */
const SLACK = 400;

const firstBeat = (s: SentPacket, beatBytes: number): number => s.cycle - Math.ceil(s.frame.length / beatBytes) + 1;

async function nakRecovery(dataWidth: number): Promise<void> {
  const beatBytes = dataWidth / 8;
  const T = Math.ceil(FRAME_BYTES / beatBytes);
  await runTest(pairDesignOf(dataWidth), async (dut, tb) => {
    console.log(`e2e-nak-recovery ${dataWidth}b: seed ${tb.seed} (NICGEN_SEED=${tb.seed} replays)`);
    const pair = await RetryPair.create(dut, tb, {
      qps: 1, retry: RETRY, pmtuLog2: PMTU_LOG2,
      faults: [{ what: '5th WRITE MIDDLE to QP 0', dir: 'a->b', match: both(toQp(QPN), opIs(RC_OP.WRITE_MIDDLE)), nth: 5, action: 'drop' }],
    });
    const m1 = await pair.post({ kind: 'write', from: 'A', qp: 0, len: LEN });
    const m2 = await pair.post({ kind: 'write', from: 'A', qp: 0, len: LEN });
    await pair.drain(1_000_000);
    pair.plan.expectActed();
    const { retransmissions } = pair.finish();
    // The scoreboard took each CQE in posting order with its expected status (SUCCESS).
    expect(pair.cqeCycles.filter(c => c.host === 'A').map(c => c.status), 'A\'s CQEs').toEqual([CQE_STATUS.SUCCESS, CQE_STATUS.SUCCESS]);
    const a = await pair.counters('A'), b = await pair.counters('B');
    const lost = psnAdd(m1.psn, 5);
    const tx = pair.log.requests('a->b', QPN, lost);
    expect(tx.length, 'the lost MIDDLE went out twice').toBe(2);
    const [drop, resend] = [tx[0]!, tx[1]!];
    const nak = pair.log.sent.find(s => s.dir === 'b->a' && s.cycle > drop.cycle && isSeqNak(s.pkt));
    expect(nak, 'B sent a NAK 0x60').toBeDefined();
    expect(nak!.pkt.bth.psn, 'the NAK names the lost PSN').toBe(lost);
    const before = pair.log.sent.filter(s => s.dir === 'a->b' && s.cycle > drop.cycle && s.cycle < resend.cycle);
    const m2Before = before.filter(s => psnCompare(s.pkt.bth.psn, m2.psn) >= 0).length;
    const recovery = firstBeat(resend, beatBytes) - drop.cycle;
    const afterNak = firstBeat(resend, beatBytes) - nak!.cycle;
    console.log(`e2e-nak-recovery ${dataWidth}b: drop -> resend ${recovery} cycles (NAK left B ${nak!.cycle - drop.cycle} cycles after the drop, resend ${afterNak} after it; `
      + `bound ${2 * T + SLACK}); ${before.length} frames between (${m2Before} of message 2); ${retransmissions} retransmissions checked; RETX_PKTS ${a.RETX_PKTS}`);
    expect(m2Before, 'no packet of message 2 before the resend (its DMA was aborted)').toBe(0);
    expect(afterNak, `NAK at A -> resend's first beat within 2 T + ${SLACK}`).toBeLessThanOrEqual(2 * T + SLACK);
    // Retransmissions on the wire: the packets from the lost PSN up to the cut (message 1's
    // packets cut before the NAK arrived went out once more).
    const resent = pair.log.sent.filter(s => s.dir === 'a->b' && s.pkt.bth.opcode <= RC_OP.READ_REQUEST
      && pair.log.requests('a->b', QPN, s.pkt.bth.psn).indexOf(s) > 0).length;
    expect(a.RETX_PKTS, 'RETX_PKTS = request packets the wire saw again').toBe(resent);
    expect(retransmissions).toBe(a.RETX_PKTS);
    expect(b.SEQ_NAK_TX, 'one NAK 0x60').toBe(1);
    expect(a.ACK_TIMEOUTS + a.RETRY_EXC).toBe(0);
  }, { seed: SEED, maxCycles: 3_000_000 });
}

/** Soak finding (regress soak seed 1625113463, docs/nic-reliability.md): a rewind for a QP
 *  whose message in the packet generator is a zero-length WRITE, the next message another
 *  QP's WRITE with its payload in nic_dma_read. The abort used to start for it: the generator
 *  froze on the zero-length message, the other QP's payload could not leave nic_dma_read, and
 *  the abort, with nothing of its QP there to cut, waited for nic_dma_read to empty: every QP
 *  stopped. QP 0 posts zero-length WRITEs between QP 1's 2 KiB WRITEs (behind a 32 KiB one); some of QP 0's WRITE
 *  ONLYs are dropped, so its NAKs arrive while the generator holds one of them. */
async function zeroLengthRewind(): Promise<void> {
  await runTest(pairDesignOf(64), async (dut, tb) => {
    console.log(`e2e-nak-recovery zero-length: seed ${tb.seed} (NICGEN_SEED=${tb.seed} replays)`);
    const pair = await RetryPair.create(dut, tb, {
      qps: 2, retry: RETRY, pmtuLog2: 10,
      faults: [{ what: 'WRITE ONLYs to QP 0', dir: 'a->b', match: both(toQp(QPN), opIs(RC_OP.WRITE_ONLY)), nth: [3, 7, 11, 15, 19, 23], action: 'drop' }],
    });
    // A long WRITE first, so the WQEs below are all in the ring before the generator reaches them.
    await pair.post({ kind: 'write', from: 'A', qp: 1, len: 32768 });
    for (let i = 0; i < 28; i++) {
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 0 });
      await pair.post({ kind: 'write', from: 'A', qp: 1, len: 2048 });
    }
    await pair.drain(400_000);
    pair.plan.expectActed();
    pair.finish();
    expect(pair.cqeCycles.filter(c => c.host === 'A').every(c => c.status === CQE_STATUS.SUCCESS), 'A\'s CQEs all SUCCESS').toBe(true);
    expect(pair.cqeCycles.filter(c => c.host === 'A').length).toBe(57);
  }, { seed: SEED, maxCycles: 1_000_000 });
}

/** Soak finding 7, second part: a rewind for QP 0 that needs an abort (QP 0's next WRITE past its
 *  DMA command, or its message with payload in the generator) while QP 0's zero-length WRITE
 *  ONLY waits on m_pkt_cmd. nic_req_tx does not start the abort then (the rewind waits until
 *  the command is taken): withheld, that command would stop the generator's next message.
 *  The state occurs here (cover point `abort_held_for_payless_cmd` in nic_req_tx: 313 cycles
 *  over both NICs at seed 1, `NICGEN_COVERAGE=DIR`), and everything must complete exactly.
 *  Honest limit: with that wait removed this test still passed, as did 12 variants of it
 *  (QP sizes 0.5 to 32 KiB, other drop patterns, seeds 1-9): no deadlock was reproduced without
 *  it, so the wait is a precaution this test exercises but does not prove necessary. Rounds
 *  of QP 0 zero-length, QP 1 2 KiB, QP 0 2 KiB behind a 32 KiB WRITE of QP 1; some of QP 0's
 *  packets dropped, so its NAKs meet that state. */
async function payloadlessOnCmdRewind(): Promise<void> {
  await runTest(pairDesignOf(64), async (dut, tb) => {
    console.log(`e2e-nak-recovery payload-less command: seed ${tb.seed} (NICGEN_SEED=${tb.seed} replays)`);
    const pair = await RetryPair.create(dut, tb, {
      qps: 2, retry: RETRY, pmtuLog2: 10,
      faults: [
        { what: 'WRITE ONLYs to QP 0', dir: 'a->b', match: both(toQp(QPN), opIs(RC_OP.WRITE_ONLY)), nth: [2, 6, 10, 14, 18], action: 'drop' },
        { what: 'WRITE FIRSTs to QP 0', dir: 'a->b', match: both(toQp(QPN), opIs(RC_OP.WRITE_FIRST)), nth: [4, 8, 12, 16, 20], action: 'drop' },
      ],
    });
    await pair.post({ kind: 'write', from: 'A', qp: 1, len: 32768 });
    for (let i = 0; i < ROUNDS; i++) {
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 0 });
      await pair.post({ kind: 'write', from: 'A', qp: 1, len: 2048 });
      await pair.post({ kind: 'write', from: 'A', qp: 0, len: 2048 });
    }
    await pair.drain(400_000);
    pair.plan.expectActed();
    pair.finish();
    expect(pair.cqeCycles.filter(c => c.host === 'A').every(c => c.status === CQE_STATUS.SUCCESS), 'A\'s CQEs all SUCCESS').toBe(true);
    expect(pair.cqeCycles.filter(c => c.host === 'A').length).toBe(1 + 3 * ROUNDS);
  }, { seed: SEED, maxCycles: 1_000_000 });
}
const ROUNDS = 24;

describe('nic_pair NAK-path recovery (DMA abort)', () => {
  it('a rewind while the generator holds a zero-length WRITE of the QP and another QP\'s payload waits (soak seed 1625113463): no abort, nothing hangs', async () => {
    await zeroLengthRewind();
  }, BUILD_TIMEOUT);
  it('a rewind that needs an abort while the QP\'s zero-length WRITE waits on m_pkt_cmd (soak finding 7, second part): the abort waits, everything completes', async () => {
    await payloadlessOnCmdRewind();
  }, BUILD_TIMEOUT);
  it('64 bits: a lost MIDDLE of the first of two 64 KiB WRITEs is resent within 2 packet times of the NAK, message 2 aborted', async () => {
    await nakRecovery(64);
  }, BUILD_TIMEOUT);
  it('512 bits: the same (T = 65 beats)', async () => {
    await nakRecovery(512);
  }, BUILD_TIMEOUT);
});
