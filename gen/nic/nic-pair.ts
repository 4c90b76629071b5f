// nic_pair (test only, not in rtl/): two nic_top instances, A and B, each with its own
// register port, host-memory master and Ethernet streams brought out with an a_/b_ prefix.
// The frames do not pass between them in Verilog: the testbench's link model
// (tb/nic/link.ts) carries them, so it can add latency, capture a pcap, and later drop,
// corrupt or reorder frames.

import { Bool, Clock, defineModule, type IORecord, type ModuleDef } from '../hdl/index.ts';
import { axi4, axiLite, axiStream } from '../lib/interfaces.ts';
import { NIC_AXI_ID_W } from './nic-top-build.ts';
import type { MacClock } from './mac-clock.ts';
import { AXIL_ADDR_WIDTH } from './regmap.ts';
import { link, port, portsOf, sink } from './top-wiring.ts';
import { ADDR_WIDTH, frameStream, type NicParams } from './types.ts';

/** nic_pair's parameters: both NICs' sizes and their MAC clocking (macClock 'separate': one
 *  mac_clk / mac_rst for both NICs' Ethernet ports, unrelated to clk). */
export type NicPairParams = NicParams & { macClock: MacClock; /** Both NICs' nic_top trackerEntries (0: numQp x 16). */ trackerEntries: number; /** Both NICs' nic_top readContexts (0: numQp x readsPerQp). */ readContexts: number };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function makeNicPair(nicTop: ModuleDef<any, IORecord>) {
  return defineModule('nic_pair', { dataWidth: 64, numQp: 4, numMr: 16, trackerEntries: 0, readContexts: 0, macClock: 'core' } as NicPairParams, (m, p) => {
    const W = p.dataWidth;
    const { clk, rst } = m.clockAndReset();
    const mac = p.macClock === 'separate' ? { mac_clk: m.input('mac_clk', Clock), mac_rst: m.input('mac_rst', Bool) } : null;
    const side = (x: 'a' | 'b') => {
      const io = {
        s_axil: axiLite({ addrWidth: AXIL_ADDR_WIDTH, dataWidth: 32 }).sink(m, `${x}_s_axil`),
        m_axi: axi4({ idWidth: NIC_AXI_ID_W, addrWidth: ADDR_WIDTH, dataWidth: W }).source(m, `${x}_m_axi`),
        s_axis_rx: frameStream(W).sink(m, `${x}_s_axis_rx`),
        m_axis_tx: axiStream({ dataWidth: W, keep: true, last: true }).source(m, `${x}_m_axis_tx`),
        irq: m.output(`${x}_irq`, Bool),
      };
      const own = portsOf(io);
      const inst = m.instance(`u_${x}`, nicTop, { dataWidth: W, numQp: p.numQp, numMr: p.numMr, trackerEntries: p.trackerEntries, readContexts: p.readContexts, macClock: p.macClock });
      const u = portsOf(inst, `u_${x}`);
      if (mac) { sink(u, 'mac_clk').set(mac.mac_clk); sink(u, 'mac_rst').set(mac.mac_rst); }
      for (const b of ['s_axil', 'm_axi', 's_axis_rx', 'm_axis_tx']) link(own, `${x}_${b}`, u, b);
      io.irq.set(port(u, 'irq'));
      return io;
    };
    const a = side('a'), b = side('b');
    return {
      clk, rst, ...mac,
      a_s_axil: a.s_axil, a_m_axi: a.m_axi, a_s_axis_rx: a.s_axis_rx, a_m_axis_tx: a.m_axis_tx, a_irq: a.irq,
      b_s_axil: b.s_axil, b_m_axi: b.m_axi, b_s_axis_rx: b.s_axis_rx, b_m_axis_tx: b.m_axis_tx, b_irq: b.irq,
    };
  }, { doc: 'test top: two NICs with their host, register and Ethernet ports brought out (a_*, b_*)' });
}
