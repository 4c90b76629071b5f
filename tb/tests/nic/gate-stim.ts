// Shared by the nic_tx_frame_gate stage tests (tx-frame-gate.test.ts, tx-frame-gate-drop.test.ts):
// random commands (20 % without payload, else 1, 4096 or 1..4096 bytes) pushed into s_cmd and
// s_payload, sinks on m_cmd and m_payload (the payload sink held off for `stall` cycles), and the
// check that what came out is exactly the expected cases, in order.

import { expect } from 'vitest';
import { AxiStreamSink, AxiStreamSource } from '../../bfm/index.ts';
import type { TestBench } from '../../core/index.ts';
import { diffBytes } from './frames.ts';
import { randomCase, type TxCase, type TxCmd } from './framing-stim.ts';
import { drain, StructSink, StructSource } from './stage-streams.ts';

export interface GateStimOptions { n: number; pIn: number; pCmdOut: number; pPayOut: number; stall: number }

/** Resets, starts the sources with `o.n` random cases and the sinks. */
export async function gateStreams(tb: TestBench, dut: Record<string, never>, B: number, o: GateStimOptions): Promise<{ cases: TxCase[]; cmdOut: StructSink<TxCmd>; payOut: AxiStreamSink }> {
  await tb.reset(2);
  const cases: TxCase[] = [];
  const cmds = new StructSource<TxCmd>(tb, dut.s_cmd, 's_cmd', { pause: 1 - o.pIn });
  const pay = new AxiStreamSource(tb, dut.s_payload, { pause: 1 - o.pIn });
  for (let i = 0; i < o.n; i++) {
    const c = tb.rng.bool(0.2) ? randomCase(tb.rng, B, i, { opcode: 0x11, len: 0 }) : randomCase(tb.rng, B, i, { len: tb.rng.pick([1, 4096, tb.rng.int(1, 4096)]) });
    cases.push(c);
    cmds.push(c.cmd);
    if (c.payload.length) pay.send(c.payload);
  }
  // The payload sink is held off for `stall` cycles, then random.
  const start = tb.cycle;
  const cmdOut = new StructSink<TxCmd>(tb, dut.m_cmd, 'm_cmd', { pause: 1 - o.pCmdOut });
  const payOut = new AxiStreamSink(tb, dut.m_payload, { pause: rng => tb.cycle - start < o.stall || rng.bool(1 - o.pPayOut) });
  return { cases, cmdOut, payOut };
}

/** Exactly `want`'s commands came out of m_cmd and their payloads out of m_payload, in order. */
export async function expectGateOut(tb: TestBench, B: number, want: readonly TxCase[], cmdOut: StructSink<TxCmd>, payOut: AxiStreamSink): Promise<void> {
  const withPay = want.filter(c => c.payload.length);
  expect(cmdOut.items.length, `no extra commands (seed ${tb.seed})`).toBe(want.length);
  expect(payOut.count, `no extra payload frames (seed ${tb.seed})`).toBe(withPay.length);
  cmdOut.items.forEach((x, i) => {
    const w = want[i]!.cmd;
    const bad = Object.keys(w).filter(k => BigInt(x.value[k as keyof TxCmd]) !== BigInt(w[k as keyof TxCmd]));
    if (bad.length) throw new Error(`command #${i} out at cycle ${x.cycle}: fields ${bad.join(', ')} differ (seed ${tb.seed})`);
  });
  const frames = await drain(payOut);
  withPay.forEach((c, f) => {
    const d = diffBytes(frames[f]!.data, c.payload, B);
    if (d) throw new Error(`payload frame #${f} (cycles ${frames[f]!.firstCycle}..${frames[f]!.cycle}): ${d} (seed ${tb.seed})`);
  });
}
