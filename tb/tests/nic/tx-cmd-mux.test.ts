// nic_tx_cmd_mux: every command of both sources comes out once, each source's order kept,
// under random valid/ready; with both sources always valid the grants alternate.

import { describe, expect, it } from 'vitest';
import { runTest } from '../../core/index.ts';
import { design } from '../../design.ts';
import { txCmdMux } from '../../../gen/nic/tx-cmd-mux.ts';
import { runAgents, StreamSink, StreamSource } from './framing-support.ts';
import type { TxCmd } from './framing-stim.ts';

function cmd(src: number, i: number): TxCmd {
  // The source and sequence number ride in fields the mux must not touch.
  return {
    opcode: src ? 0x11 : 0x06, destQpn: i, psn: (src << 20) | i, ackReq: src, payloadLen: src ? 0 : i & 0xfff,
    hasReth: 1 - src, rethVa: BigInt(i) << 32n | 0xabcdn, rethRkey: i ^ 0x5a5a, rethLen: i, hasAeth: src, aethSyndrome: 0x1f, aethMsn: i,
    srcMac: 0x021122334455n, dstMac: BigInt(i), srcIp: 0x0a000001, dstIp: i, srcPort: 0xc000 + src, ttl: 64, dscp: i & 63,
  };
}

describe('nic_tx_cmd_mux', () => {
  for (const [name, pIn, pOut] of [['random valid/ready', 0.6, 0.6], ['both always valid, full rate', 1, 1]] as const) {
    it(name, async () => {
      await runTest(design(txCmdMux, {}), async (dut, tb) => {
        dut.s_req_cmd.valid.value = 0; dut.s_ack_cmd.valid.value = 0;
        await tb.reset(2);
        const req = new StreamSource<TxCmd>(dut.s_req_cmd as never, tb.rng.fork(), pIn);
        const ack = new StreamSource<TxCmd>(dut.s_ack_cmd as never, tb.rng.fork(), pIn);
        const out = new StreamSink<TxCmd>(dut.m_cmd as never, tb.rng.fork(), pOut);
        const N = 200;
        for (let i = 0; i < N; i++) { req.queue.push(cmd(0, i)); ack.queue.push(cmd(1, i)); }
        await runAgents(tb, [req, ack, out], () => out.items.length === 2 * N, 20 * N, 'tx cmd mux');
        for (const src of [0, 1]) {
          const got = out.items.map(x => x.value).filter(c => Number(c.srcPort) === 0xc000 + src);
          got.forEach((c, i) => {
            const want = cmd(src, i);
            const bad = Object.keys(want).filter(k => BigInt(c[k as keyof TxCmd]) !== BigInt(want[k as keyof TxCmd]));
            if (bad.length) throw new Error(`source ${src} command ${i} (out at cycle ${out.items.find(x => x.value === c)?.cycle}): fields ${bad.join(', ')} differ`);
          });
          expect(got.length, `commands from source ${src}`).toBe(N);
        }
        if (pIn === 1 && pOut === 1) {
          const order = out.items.slice(0, 2 * N).map(x => Number(x.value.srcPort) - 0xc000);
          const repeats = order.filter((s, i) => i > 0 && s === order[i - 1]).length;
          expect(repeats, 'round-robin: no source wins twice in a row while both wait').toBe(0);
          const span = out.items[2 * N - 1]!.cycle - out.items[0]!.cycle + 1;
          expect(span, 'one command per cycle').toBe(2 * N);
        }
      });
    }, 120_000);
  }
});
