// The TX tail as in nic_top: nic_tx_frame_gate -> nic_packetizer -> nic_icrc_insert.
// 1. No gap inside a frame: random commands of every header layout and payload length, the
//    payload arriving with random pauses, the sink always ready; every frame must equal the
//    reference encoder's (ICRC included) and take exactly its beats in cycles. This is what
//    keeps a frame from starting before its payload can follow: a frame that started too
//    early would wait mid-way for a payload word.
// 2. The cycle of the first beat: one packet at a time, its payload sent without pauses; the
//    first beat must leave 3 cycles after the payload's tlast went into the gate (the
//    packetizer's header and output registers and nic_icrc_insert's skid), later only when the first
//    beat itself carries payload the gate FIFO shows later (TX_GATE_PAYLOAD_LAG).
// NICGEN_SEED=<n> replays a run.

import { describe, expect, it } from 'vitest';
import { defineModule } from '../../../gen/hdl/index.ts';
import { connect, stream } from '../../../gen/lib/interfaces.ts';
import { icrcInsert } from '../../../gen/nic/icrc-insert.ts';
import { packetizer } from '../../../gen/nic/packetizer.ts';
import { TX_GATE_PAYLOAD_LAG, txFrameGate, txFrameGateDepth } from '../../../gen/nic/tx-frame-gate.ts';
import { byteStream, frameStream, TxPktCmd } from '../../../gen/nic/types.ts';
import { AxiStreamSink, AxiStreamSource, ClockPhases, type AxisPacket, type Readable } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { encodeRoce } from '../../model/packet.ts';
import { diffBytes } from './frames.ts';
import { randomCase, type TxCase, type TxCmd } from './framing-stim.ts';
import { drain, StructSource } from './stage-streams.ts';

/** Test-only: gate -> packetizer -> ICRC insert, wired as in nic_top. */
const txTail = defineModule('tx_tail_tb', { dataWidth: 64 }, (m, p) => {
  const W = p.dataWidth;
  const { clk, rst } = m.clockAndReset();
  const cmd = stream(TxPktCmd), bytes = byteStream(W), frames = frameStream(W);
  const sCmd = cmd.sink(m, 's_cmd'), sPay = bytes.sink(m, 's_payload');
  const mAxis = frames.source(m, 'm_axis');
  const gate = m.instance('u_gate', txFrameGate, { dataWidth: W, depth: txFrameGateDepth(W) });
  const pk = m.instance('u_pk', packetizer, { dataWidth: W });
  const ins = m.instance('u_ins', icrcInsert, { dataWidth: W });
  connect(cmd, sCmd as never, gate.s_cmd as never);
  connect(bytes, sPay as never, gate.s_payload as never);
  connect(cmd, gate.m_cmd as never, pk.s_cmd as never);
  connect(bytes, gate.m_payload as never, pk.s_payload as never);
  connect(frames, pk.m_axis as never, ins.s_axis as never);
  connect(frames, ins.m_axis as never, mAxis as never);
  m.unused(pk.err_payload, 'the bench sends payloads of the announced length');
  return { clk, rst, s_cmd: sCmd, s_payload: sPay, m_axis: mAxis };
}, { doc: 'test top: nic_tx_frame_gate -> nic_packetizer -> nic_icrc_insert' });

interface Bench { cmds: StructSource<TxCmd>; pay: AxiStreamSource; out: AxiStreamSink; tlastIn: number[] }

async function start(dut: Record<string, never>, tb: TestBench, payPause: number): Promise<Bench> {
  await tb.reset(2);
  const cmds = new StructSource<TxCmd>(tb, dut.s_cmd, 's_cmd');
  const pay = new AxiStreamSource(tb, dut.s_payload, { pause: payPause });
  const out = new AxiStreamSink(tb, dut.m_axis);
  // Cycles in which a payload's tlast went into the gate (sampled where the handshake is decided).
  const tlastIn: number[] = [];
  const s = dut.s_payload as unknown as { tvalid: Readable; tready: Readable; tlast: Readable };
  ClockPhases.of(tb).onSample(() => {
    if (Number(s.tvalid.value) && Number(s.tready.value) && Number(s.tlast.value)) tlastIn.push(tb.cycle);
  });
  return { cmds, pay, out, tlastIn };
}

/** Every frame equals the reference encoder's (the packetizer's IPv4 id counts frames from 0,
 *  as randomCase's `id`). */
function checkFrames(frames: AxisPacket[], cases: TxCase[], B: number, seed: number): void {
  expect(frames.length, `frames out (seed ${seed})`).toBe(cases.length);
  cases.forEach((c, i) => {
    const d = diffBytes(frames[i]!.data, encodeRoce(c.pkt), B);
    if (d) throw new Error(`frame ${i} (opcode 0x${c.cmd.opcode.toString(16)}, ${c.payload.length} bytes, cycles ${frames[i]!.firstCycle}..${frames[i]!.cycle}): ${d} (seed ${seed})`);
  });
}

function firstGapped(frames: AxisPacket[]): number {
  return frames.findIndex(f => f.cycle - f.firstCycle + 1 !== f.beats);
}

/** Header beats and payload words of a case at B bytes per beat. */
function shape(c: TxCase, B: number): { hb: number; n: number } {
  const header = 54 + 16 * c.cmd.hasReth + 4 * c.cmd.hasAeth;
  return { hb: Math.floor(header / B), n: Math.ceil(c.payload.length / B) };
}

/** Cycles from the payload's tlast into the gate (t) to the first beat on m_axis, idle
 *  pipeline, payload written one word per cycle: the gate FIFO shows word 0 at t + lag - (n - 1). */
function expectedDelay(c: TxCase, B: number, lag: number): number {
  const { hb, n } = shape(c, B);
  // The command is in the packetizer's header register (the first beat's source) a cycle
  // after it leaves the gate.
  let first = 1;
  if (hb === 0 && n > 0) first = Math.max(first, lag - (n - 1));
  return first + 2; // the packetizer's output register, nic_icrc_insert's skid
}

/** Sends one packet whose command waits at the gate before its payload comes; its frame. */
async function onePacket(b: Bench, tb: TestBench, c: TxCase): Promise<AxisPacket> {
  b.cmds.push(c.cmd);
  await tb.clockCycles(3);
  if (c.payload.length) b.pay.send(c.payload);
  await tb.until(() => b.out.count === 1, { timeout: 10_000, what: 'tx tail: one frame out' });
  return (await drain(b.out))[0]!;
}

for (const W of [64, 512]) {
  const B = W / 8;
  describe(`TX tail (gate, packetizer, ICRC insert) ${W} bits`, () => {
    it('random commands, payload with random pauses: every frame exact and without a gap', async () => {
      await runTest(design(txTail, { dataWidth: W }), async (dut, tb) => {
        console.log(`tx tail W=${W} gaps: seed ${tb.seed}`);
        const b = await start(dut as never, tb, 0.5);
        const cases = Array.from({ length: W === 64 ? 150 : 300 }, (_, i) => randomCase(tb.rng, B, i, i < 18 ? { opcode: i } : {}));
        for (const c of cases) {
          b.cmds.push(c.cmd);
          if (c.payload.length) b.pay.send(c.payload);
        }
        await tb.until(() => b.out.count === cases.length, { timeout: 400_000, what: `tx tail: ${cases.length} frames out` });
        const frames = await drain(b.out);
        checkFrames(frames, cases, B, tb.seed);
        const g = firstGapped(frames);
        expect(g, `first frame with an idle cycle inside (${frames[g]?.beats} beats in cycles ${frames[g]?.firstCycle}..${frames[g]?.cycle}, seed ${tb.seed})`).toBe(-1);
      });
    }, 300_000);

    it('one packet at a time: the first beat leaves 3 cycles after the payload tlast', async () => {
      await runTest(design(txTail, { dataWidth: W }), async (dut, tb) => {
        console.log(`tx tail W=${W} first beat: seed ${tb.seed}`);
        const b = await start(dut as never, tb, 0);
        const lens = [1, B, B + 1, 2 * B, 2 * B + 1, 3 * B, 64, 100, 1024];
        const cases: TxCase[] = [];
        // WRITE FIRST/MIDDLE/ONLY, READ RESPONSE FIRST/MIDDLE (all four header lengths), ACK.
        for (const opcode of [0x06, 0x07, 0x0a, 0x0d, 0x0e, 0x11]) for (const len of lens) cases.push(randomCase(tb.rng, B, cases.length, { opcode, len }));
        const got: AxisPacket[] = [];
        for (const c of cases) got.push(await onePacket(b, tb, c));
        checkFrames(got, cases, B, tb.seed);
        expect(b.tlastIn.length, 'payload tlasts into the gate').toBe(cases.filter(c => c.payload.length > 0).length);
        let k = 0;
        const bad = cases.flatMap((c, i) => {
          if (!c.payload.length) return [];
          const delay = got[i]!.firstCycle - b.tlastIn[k++]!;
          const want = expectedDelay(c, B, TX_GATE_PAYLOAD_LAG);
          return delay === want ? [] : [`frame ${i} (opcode 0x${c.cmd.opcode.toString(16)}, ${c.payload.length} bytes): ${delay} cycles, expected ${want}`];
        });
        expect(bad, `first beat after the payload tlast (seed ${tb.seed})`).toEqual([]);
        expect(firstGapped(got), 'first frame with an idle cycle inside').toBe(-1);
      });
    }, 300_000);

  });
}
