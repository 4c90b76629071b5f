// nic_tx_frame_gate: random commands (with and without payload, 1..4096 bytes) and their
// payloads under random valid/ready on every stream. Checked: commands and payload frames come
// out unchanged and in order, and a command with payload leaves only after the last beat of
// its payload went into the gate in an earlier cycle (so the packetizer never waits for
// payload inside a frame). Then the payload sink stalls for a long time: commands must keep
// waiting for their payload, the FIFO fills, and everything drains once it resumes.

import { describe, expect, it } from 'vitest';
import { txFrameGate, txFrameGateDepth } from '../../../gen/nic/tx-frame-gate.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { randomCase, type TxCase, type TxCmd } from './framing-stim.ts';
import { AxisSink, AxisSource, diffBytes, runAgents, StreamSink, StreamSource, type Agent } from './framing-support.ts';

interface Ports { valid: { value: number | bigint }; ready: { value: number | bigint }; data: { value: TxCmd } }

/** At each m_cmd handshake of a command with payload: that packet's tlast was taken before. */
class GateRule implements Agent {
  private claimed = 0;
  constructor(private readonly out: Ports, private readonly pay: AxisSource) {}
  drive(): void {}
  commit(tb: TestBench): void {
    if (!Number(this.out.valid.value) || !Number(this.out.ready.value)) return;
    if (Number(this.out.data.value.payloadLen) === 0) return;
    this.claimed++;
    // `sent` counts the payload frames whose tlast beat the gate accepted before this cycle
    // (this agent commits before the payload source).
    if (this.pay.sent < this.claimed) throw new Error(`cycle ${tb.cycle}: payload command #${this.claimed - 1} left the gate with only ${this.pay.sent} complete payloads in (seed ${tb.seed})`);
  }
}

async function runGate(tb: TestBench, dut: Record<string, never>, W: number, o: { n: number; pIn: number; pCmdOut: number; pPayOut: number; stall: number }): Promise<void> {
  const B = W / 8;
  await tb.reset(2);
  const cases: TxCase[] = [];
  const cmds = new StreamSource<TxCmd>(dut.s_cmd, tb.rng.fork(), o.pIn);
  const pay = new AxisSource(dut.s_payload, B, tb.rng.fork(), o.pIn);
  for (let i = 0; i < o.n; i++) {
    const c = tb.rng.bool(0.2) ? randomCase(tb.rng, B, i, { opcode: 0x11, len: 0 }) : randomCase(tb.rng, B, i, { len: tb.rng.pick([1, 4096, tb.rng.int(1, 4096)]) });
    cases.push(c);
    cmds.queue.push(c.cmd);
    if (c.payload.length) pay.push({ bytes: c.payload, user: 0 });
  }
  const cmdOut = new StreamSink<TxCmd>(dut.m_cmd, tb.rng.fork(), o.pCmdOut);
  const payOut = new AxisSink(dut.m_payload, B, tb.rng.fork(), 0, 'm_payload');
  const rule = new GateRule(dut.m_cmd as Ports, pay);
  const withPay = cases.filter(c => c.payload.length).length;
  // The payload sink is held off for `stall` cycles, then random.
  const start = tb.cycle;
  const gateOut: Agent = { drive: t => { payOut.readyProb = t.cycle - start < o.stall ? 0 : o.pPayOut; }, commit: () => {} };
  await runAgents(tb, [gateOut, rule, cmds, pay, cmdOut, payOut], () => cmdOut.items.length === o.n && payOut.frames.length === withPay, 400 * o.n + o.stall, 'tx frame gate');
  await tb.clockCycles(10);
  expect(cmdOut.items.length, `no extra commands (seed ${tb.seed})`).toBe(o.n);
  expect(payOut.frames.length, `no extra payload frames (seed ${tb.seed})`).toBe(withPay);
  cmdOut.items.forEach((x, i) => {
    const want = cases[i]!.cmd;
    const bad = Object.keys(want).filter(k => BigInt(x.value[k as keyof TxCmd]) !== BigInt(want[k as keyof TxCmd]));
    if (bad.length) throw new Error(`command #${i} out at cycle ${x.cycle}: fields ${bad.join(', ')} differ (seed ${tb.seed})`);
  });
  cases.filter(c => c.payload.length).forEach((c, f) => {
    const d = diffBytes(payOut.frames[f]!.bytes, c.payload, B);
    if (d) throw new Error(`payload frame #${f} (cycles ${payOut.frames[f]!.firstCycle}..${payOut.frames[f]!.lastCycle}): ${d} (seed ${tb.seed})`);
  });
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
