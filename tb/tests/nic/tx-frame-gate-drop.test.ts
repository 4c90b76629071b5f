// nic_tx_frame_gate with `drop` (issue-11n, docs/nic-reliability.md "NAK-path recovery"):
// random commands with and without payload (1..4096 bytes) under random valid/ready, and a
// drop asked for at random moments where nic_req_tx may ask for one: a payload command waits on
// s_cmd and its payload is coming in (none, some or, in the drop's own cycle, all of its beats
// written), the previous dropped packet's beats all taken. A TS model (the commands and
// payloads in order, minus each dropped packet) is the oracle. Checked: every packet not
// dropped comes out unchanged and in order, the packets ahead of a dropped one (their tlast in,
// commands passed or still waiting while the payload sink is stalled) are kept, a dropped one
// never comes out (neither its command nor any of its beats), and the FIFO after the drop
// (write pointer back at the packet's start) holds the next packets intact. Cover: a partial
// packet (some beats written) dropped, and the drop of a packet whose first beat the FIFO had
// already read ahead into its output register.
// Shown failing on a deliberate break (docs/nic-reliability.md): without `wr_ptr_reg :=
// pkt_start_reg` at the drop, "payload frame #k ...: ... differ".

import { describe, expect, it } from 'vitest';
import { txFrameGate, txFrameGateDepth } from '../../../gen/nic/tx-frame-gate.ts';
import { ClockPhases, type Readable } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import { design } from '../../design.ts';
import { expectGateOut, gateStreams, type GateStimOptions } from './gate-stim.ts';

interface GatePorts {
  s_cmd: { valid: Readable; ready: Readable };
  s_payload: { tvalid: Readable; tready: Readable; tlast: Readable };
  drop: { value: number | bigint };
}

async function runDrop(tb: TestBench, dut: Record<string, never>, W: number, o: GateStimOptions & { pDrop: number }): Promise<{ dropped: number; partial: number }> {
  const B = W / 8;
  const d = dut as unknown as GatePorts;
  const { cases, cmdOut, payOut } = await gateStreams(tb, dut, B, o);
  // The model: commands taken on s_cmd (passed or dropped), payload tlasts taken, beats taken
  // of the packet coming in; the drop decided at a sample applies in the next cycle.
  const payCase = cases.map((c, i) => ({ c, i })).filter(x => x.c.payload.length).map(x => x.i);
  const dropped = new Set<number>();
  let cmdsTaken = 0, tlasts = 0, beatsIn = 0, dropNext = false, partial = 0;
  ClockPhases.of(tb).onSample(() => {
    const cmdFire = Number(d.s_cmd.valid.value) && Number(d.s_cmd.ready.value);
    const beat = Number(d.s_payload.tvalid.value) && Number(d.s_payload.tready.value);
    const last = beat && Number(d.s_payload.tlast.value);
    if (dropNext) {
      // This cycle's drop: the command on s_cmd is the one the model chose.
      if (!cmdFire) throw new Error(`cycle ${tb.cycle}: a drop did not take its command (seed ${tb.seed})`);
      dropped.add(cmdsTaken);
    }
    if (cmdFire) cmdsTaken++;
    if (beat) beatsIn++;
    if (last) { tlasts++; beatsIn = 0; }
    // Next cycle: the command now on s_cmd (not taken in this cycle) with payload, its payload
    // the one coming in (every earlier packet's tlast taken, its own not yet).
    const head = cases[cmdsTaken];
    const k = payCase.indexOf(cmdsTaken);
    dropNext = !dropNext && !cmdFire && Number(d.s_cmd.valid.value) === 1 && head !== undefined && head.payload.length > 0
      && k === tlasts && tb.rng.bool(o.pDrop);
    if (dropNext && beatsIn > 0) partial++;
  });
  ClockPhases.of(tb).onDrive(() => { d.drop.value = dropNext ? 1 : 0; });
  const keptCmds = (): number => o.n - dropped.size;
  const keptPay = (): number => payCase.filter(i => !dropped.has(i)).length;
  await tb.until(() => cmdsTaken === o.n && cmdOut.items.length === keptCmds() && payOut.count === keptPay(), { timeout: 600 * o.n + o.stall, what: `tx frame gate with drops: ${o.n} commands taken, the kept ones out` });
  await tb.clockCycles(20);
  await expectGateOut(tb, B, cases.filter((_, i) => !dropped.has(i)), cmdOut, payOut);
  return { dropped: dropped.size, partial };
}

for (const W of [64, 512]) {
  describe(`nic_tx_frame_gate drop ${W} bits`, () => {
    const gate = design(txFrameGate, { dataWidth: W, depth: txFrameGateDepth(W), drop: 1 });
    it('random drops of the packet coming in: the others out unchanged and in order, the dropped one never', async () => {
      await runTest(gate, async (dut, tb) => {
        const r = await runDrop(tb, dut as never, W, { n: 80, pDrop: 0.004, pIn: 0.7, pCmdOut: 0.6, pPayOut: 0.8, stall: 0 });
        console.log(`tx_frame_gate drop W=${W}: ${r.dropped} dropped (${r.partial} partial), seed ${tb.seed}`);
        expect(r.dropped, 'some packets dropped').toBeGreaterThan(3);
        expect(r.partial, 'some dropped with beats already written').toBeGreaterThan(0);
      });
    }, 180_000);
    it('payload sink stalled: packets ahead of a dropped one stay in the FIFO and come out whole', async () => {
      await runTest(gate, async (dut, tb) => {
        const r = await runDrop(tb, dut as never, W, { n: 16, pDrop: 0.05, pIn: 1, pCmdOut: 1, pPayOut: 1, stall: 3000 });
        expect(r.dropped, 'some packets dropped').toBeGreaterThan(0);
      });
    }, 180_000);
  });
}
