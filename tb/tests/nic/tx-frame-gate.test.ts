// nic_tx_frame_gate: random commands (with and without payload, 1..4096 bytes) and their
// payloads under random valid/ready on every stream. Checked: commands and payload frames come
// out unchanged and in order, and a command with payload leaves only once the last beat of
// its payload goes into the gate (in that cycle or earlier; the packetizer starts a frame in
// that cycle only when its header beats cover the FIFO's two-cycle read, TX_GATE_PAYLOAD_LAG:
// tx-tail.test.ts checks the three stages together, nic_top's underrun assertion and
// tx-no-underrun.test.ts end to end). Then the payload sink stalls for a
// long time: commands must keep waiting for their payload, the FIFO fills, and everything
// drains once it resumes. Streams are tb/bfm models (stage-streams.ts for the command
// streams), each with its checker.

import { describe, it } from 'vitest';
import { txFrameGate, txFrameGateDepth } from '../../../gen/nic/tx-frame-gate.ts';
import { ClockPhases, type Readable } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import type { TxCmd } from './framing-stim.ts';
import { expectGateOut, gateStreams } from './gate-stim.ts';

interface CmdOut { valid: Readable; ready: Readable; data: { readonly value: TxCmd } }
interface PayIn { tvalid: Readable; tready: Readable; tlast: Readable }

/** At each m_cmd handshake of a command with payload: that packet's tlast is taken in this
 *  cycle or was before. Both handshakes are read in one sample, so the order in which the
 *  bus models sample does not matter. */
function watchGateRule(tb: TestBench, out: CmdOut, payIn: PayIn): void {
  let claimed = 0, complete = 0;
  ClockPhases.of(tb).onSample(() => {
    if (Number(payIn.tvalid.value) && Number(payIn.tready.value) && Number(payIn.tlast.value)) complete++;
    if (!Number(out.valid.value) || !Number(out.ready.value) || Number(out.data.value.payloadLen) === 0) return;
    claimed++;
    if (complete < claimed) throw new Error(`cycle ${tb.cycle}: payload command #${claimed - 1} left the gate with only ${complete} complete payloads in (seed ${tb.seed})`);
  });
}

async function runGate(tb: TestBench, dut: Record<string, never>, W: number, o: { n: number; pIn: number; pCmdOut: number; pPayOut: number; stall: number }): Promise<void> {
  const B = W / 8;
  const { cases, cmdOut, payOut } = await gateStreams(tb, dut, B, o);
  watchGateRule(tb, dut.m_cmd as CmdOut, dut.s_payload as PayIn);
  const withPay = cases.filter(c => c.payload.length).length;
  await tb.until(() => cmdOut.items.length === o.n && payOut.count === withPay, { timeout: 400 * o.n + o.stall, what: `tx frame gate: ${o.n} commands and ${withPay} payload frames out` });
  await tb.clockCycles(10);
  await expectGateOut(tb, B, cases, cmdOut, payOut);
}

for (const W of [64, 512]) {
  describe(`nic_tx_frame_gate ${W} bits`, () => {
    const gate = design(txFrameGate, { dataWidth: W, depth: txFrameGateDepth(W) });
    it('random valid/ready: in order, unchanged, a payload command leaves only with its payload complete', async () => {
      await runTest(gate, async (dut, tb) => {
        console.log(`tx_frame_gate W=${W} random: seed ${tb.seed}`);
        await runGate(tb, dut as never, W, { n: 60, pIn: 0.7, pCmdOut: 0.6, pPayOut: 0.8, stall: 0 });
      });
    }, 120_000);
    it('payload sink stalled: the FIFO fills (two 4 KiB packets), commands wait, then all drains', async () => {
      await runTest(gate, async (dut, tb) => {
        await runGate(tb, dut as never, W, { n: 12, pIn: 1, pCmdOut: 1, pPayOut: 1, stall: 3000 });
      });
    }, 120_000);
  });
}
