// The demo's per-direction link table (tb/benches/nic/demo.ts linkTable) after a short run with
// duplication on A -> B: every number is the link's or the NICs' own (frames sent, what the
// faults did, frames handed over, the receiver's RX counters, the NICs' recovery counters).
// Every a->b frame is a WRITE request here, so each duplicate is one DUP_REQ_RX at B (in the
// A -> B column, read from the receiver), and nothing is lost, so nothing is retransmitted.

import { describe, expect, it } from 'vitest';
import { linkTable } from '../../benches/nic/demo.ts';
import { pairDesign } from '../../benches/nic/write.ts';
import { envSeed, runTest } from '../../core/index.ts';
import { PairEnv } from '../../nic/env.ts';
import { runThroughput } from '../../nic/throughput-scenario.ts';

const BUILD_TIMEOUT = 900_000;

/** The cells of the table row whose label starts with `label`. */
function row(table: string, label: string): string[] {
  const line = table.split('\n').find(l => l.startsWith(`│ ${label}`));
  if (!line) throw new Error(`no row '${label}' in\n${table}`);
  return line.split('│').slice(2, -1).map(c => c.trim());
}

describe('demo link table', () => {
  it('shows per direction what was sent, what the faults did, what the receiver counted', async () => {
    await runTest(pairDesign(), async (dut, tb) => {
      const env = await PairEnv.create(dut, tb, { backpressure: 0, stall: 0, link: { faults: { 'a->b': { dup: 0.05 } } } });
      await runThroughput(env, tb, { count: 1, len: 65536, pmtuLog2: 8, lossy: true });
      const t = await linkTable(env);
      const ab = env.link.stats['a->b'], ba = env.link.stats['b->a'], f = env.link.faults!.stats('a->b');
      expect(f.duplicated).toBeGreaterThan(0);
      const n = (x: number): string => x.toLocaleString('en-US');
      expect(row(t, 'frames sent by the NIC')).toEqual([n(ab.frames), n(ba.frames)]);
      expect(row(t, '  duplicated by the link')).toEqual([n(f.duplicated), '0']);
      expect(row(t, '  dropped by the link')).toEqual(['0 (0)', '0 (0)']);
      expect(row(t, 'frames handed to the receiver')).toEqual([n(ab.frames + f.duplicated), n(ba.frames)]);
      expect(row(t, '  accepted by it (RX_FRAMES)')).toEqual([n(await env.b.drv.counter('RX_FRAMES')), n(await env.a.drv.counter('RX_FRAMES'))]);
      expect(row(t, '  accepted by it (RX_FRAMES)')).toEqual([n(ab.frames + f.duplicated), n(ba.frames)]);
      expect(row(t, 'duplicate requests at the receiver (DUP_REQ_RX)')).toEqual([n(f.duplicated), '0']);
      expect(await env.b.drv.counter('DUP_REQ_RX')).toBe(f.duplicated);
      for (const r of ['requests retransmitted by the sender', 'ACK timeouts at the sender', 'seq NAKs sent by the sender', 'seq NAKs taken by the receiver', 'retries exhausted at the sender']) {
        expect(row(t, r), r).toEqual(['0', '0']);
      }
    }, { seed: envSeed() ?? 1, maxCycles: 2_000_000 });
  }, BUILD_TIMEOUT);
});
