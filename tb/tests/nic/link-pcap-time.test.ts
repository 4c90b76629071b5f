// The link's capture is stamped with the run's clock period (`--period`, NICGEN_PERIOD_NS,
// TestOptions.periodNs), so a frame in the pcap sits at the same time as its last beat in the
// wave dump: cycle N at N x period. Two wires on a small design stand in for two NICs' MACs.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineModule, lit, type ModuleBuilder } from '../../../gen/hdl/index.ts';
import { axiStream, unusedFields } from '../../../gen/lib/interfaces.ts';
import { AxiStreamSource } from '../../bfm/index.ts';
import { runTest } from '../../core/index.ts';
import { design } from '../../design.ts';
import { PcapWriter, readPcap } from '../../model/pcap.ts';
import { EthernetLink } from '../../nic/link.ts';

const axis = axiStream({ dataWidth: 64 });

/** One side: `in` passes straight to `tx` (what its NIC sends); `rx` takes every beat. */
function side(m: ModuleBuilder, name: string) {
  const input = axis.sink(m, `in_${name}`);
  const tx = axis.source(m, `tx_${name}`);
  const rx = axis.sink(m, `rx_${name}`);
  tx.tdata.set(input.tdata); tx.tkeep!.set(input.tkeep!); tx.tlast!.set(input.tlast!); tx.tvalid.set(input.tvalid);
  input.tready.set(tx.tready);
  rx.tready.set(lit(1, 1));
  unusedFields(m, rx, ['tdata', 'tkeep', 'tlast', 'tvalid'], 'the far end only swallows frames');
  return { input, tx, rx };
}

const twoWires = defineModule('link_two_wires', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const a = side(m, 'a');
  const b = side(m, 'b');
  m.unused(clk, 'plain wires: only the testbench side is clocked');
  m.unused(rst, 'no state');
  return { clk, rst, in_a: a.input, tx_a: a.tx, rx_a: a.rx, in_b: b.input, tx_b: b.tx, rx_b: b.rx };
}, { doc: 'two AXI-Stream wires for the link capture test' });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-link-pcap-'));

/** Sends three frames from A and two from B over the link; returns the capture and the link's frames. */
async function capture(periodNs: number | undefined, file: string): Promise<{ cycles: number[]; stamps: bigint[]; period: number }> {
  const pcap = PcapWriter.open(file, { resolution: 'ns' });
  let cycles: number[] = [];
  let period = 0;
  try {
    await runTest(design(twoWires), async (dut, tb) => {
      await tb.reset(2);
      const link = new EthernetLink(tb, { tx: dut.tx_a, rx: dut.rx_a }, { tx: dut.tx_b, rx: dut.rx_b }, { latency: 5, pcap });
      const srcA = new AxiStreamSource(tb, dut.in_a);
      const srcB = new AxiStreamSource(tb, dut.in_b);
      for (const n of [60, 64, 1500]) srcA.send(tb.rng.bytes(n));
      await tb.clockCycles(37);   // frames late in the run: a wrong period drifts the stamps far
      for (const n of [100, 9000]) srcB.send(tb.rng.bytes(n));
      await tb.until(() => link.frames.length === 5, { timeout: 5000, what: 'five frames on the link' });
      cycles = link.frames.map(f => f.cycle);
      period = tb.model.clock.periodNs;
    }, { seed: 1, pictures: false, ...(periodNs === undefined ? {} : { periodNs }) });
  } finally {
    pcap.close();
  }
  return { cycles, stamps: readPcap(file).records.map(r => r.timeNs), period };
}

describe('link capture timestamps', () => {
  it('follow the clock period: a frame is stamped at its last beat\'s dump time (4 ns default, 6.4 ns, 3.2 ns)', async () => {
    for (const periodNs of [undefined, 6.4, 3.2]) {
      const r = await capture(periodNs, path.join(tmp, `link-${periodNs ?? 'default'}.pcap`));
      expect(r.period).toBe(periodNs ?? 4);
      expect(r.cycles.length).toBe(5);
      // Whole ns, rounded down: cycle x period in ps / 1000.
      const want = r.cycles.map(c => (BigInt(c) * BigInt(Math.round(r.period * 1000))) / 1000n);
      expect(r.stamps, `period ${r.period} ns, frames at cycles ${r.cycles.join(', ')}`).toEqual(want);
    }
  });
});
