// Go-back-N end to end (docs/nic-reliability.md): two NICs (nic_pair) whose link loses,
// duplicates and reorders chosen frames (tests/nic/support/frame-faults.ts). Each case checks
// the scoreboard (every byte, nothing else changed, CQEs in posting order with their status),
// that the fault really happened, what each side did about it (counters, transmissions of the
// lost PSN) and that every retransmitted request repeats its first transmission byte for byte.

import { describe, expect, it } from 'vitest';
import { CQE_STATUS, QP_STATE, retryReg } from '../../../gen/nic/regmap.ts';
import { envSeed, runTest } from '../../core/index.ts';
import { pairDesign } from '../../benches/nic/write.ts';
import { RC_OP } from '../../model/wire-expect.ts';
import { both, opIs, toQp } from './support/frame-faults.ts';
import { RetryPair } from './support/retry-pair.ts';

const BUILD_TIMEOUT = 1_800_000;
const SEED = envSeed() ?? 1;
const RETRY = retryReg({ retryCnt: 3, timeoutLog2: 14 });

describe('nic_pair go-back-N: lost WRITE packets', () => {
  it('drop FIRST, a MIDDLE, LAST and ONLY (one QP each): resent from the lost PSN, byte-exact, CQEs in order', async () => {
    await runTest(pairDesign(), async (dut, tb) => {
      console.log(`e2e-retry WRITE drops: seed ${tb.seed} (NICGEN_SEED=${tb.seed} replays)`);
      const qpn = (i: number): number => 0x100 + i;
      const to = (i: number, ...ops: number[]) => both(toQp(qpn(i)), opIs(...ops));
      const pair = await RetryPair.create(dut, tb, {
        qps: 4, retry: RETRY, pmtuLog2: [10, 9, 12, 10],
        faults: [
          { what: 'WRITE FIRST to QP 0', dir: 'a->b', match: to(0, RC_OP.WRITE_FIRST), nth: 1, action: 'drop' },
          { what: 'second WRITE MIDDLE to QP 1', dir: 'a->b', match: to(1, RC_OP.WRITE_MIDDLE), nth: 2, action: 'drop' },
          { what: 'WRITE LAST to QP 2', dir: 'a->b', match: to(2, RC_OP.WRITE_LAST), nth: 1, action: 'drop' },
          { what: 'WRITE ONLY to QP 3', dir: 'a->b', match: to(3, RC_OP.WRITE_ONLY), nth: 1, action: 'drop' },
        ],
      });
      for (let i = 0; i < 3; i++) {
        for (const len of [5 * pair.mtu(i) + 77, 2 * pair.mtu(i) + 5]) await pair.post({ kind: 'write', from: 'A', qp: i, len });
      }
      for (const len of [100, 1000, 7]) await pair.post({ kind: 'write', from: 'A', qp: 3, len });
      await pair.drain(400_000);
      pair.plan.expectActed();
      const { retransmissions } = pair.finish();
      const a = await pair.counters('A'), b = await pair.counters('B');
      console.log(`WRITE drops: ${retransmissions} retransmitted requests checked; A ${JSON.stringify(a)}; B ${JSON.stringify(b)}`);
      expect(retransmissions).toBeGreaterThanOrEqual(4);
      expect(a.RETX_PKTS).toBe(pair.log.sent.filter(s => s.dir === 'a->b').length - new Set(pair.log.sent.filter(s => s.dir === 'a->b').map(s => `${s.pkt.bth.destQp}/${s.pkt.bth.psn}`)).size);
      expect(b.SEQ_NAK_TX).toBeGreaterThanOrEqual(1);
      expect(a.SEQ_NAK_RX).toBe(b.SEQ_NAK_TX);
      for (let i = 0; i < 4; i++) expect(await pair.state('A', i), `A QP ${i} state`).toBe(QP_STATE.RTS);
      expect(a.RETRY_EXC).toBe(0);
      void CQE_STATUS;
    }, { seed: SEED, maxCycles: 2_000_000 });
  }, BUILD_TIMEOUT);
});
