// nic_top's MAC boundary: the Ethernet streams (m_axis_tx, s_axis_rx) on the core clock, or in
// a MAC clock domain of their own (`macClock: 'separate'`: mac_clk / mac_rst, e.g. a 322 MHz
// CMAC clock beside the 250 MHz core), crossing into the core through dual-clock FIFOs as
// Corundum and the ETH stack do.
//
// - TX: a frame FIFO (asyncFifoRam with frameBit = tlast): the MAC side sees a frame only once
//   its last beat is written, so a frame that has started on m_axis_tx never waits for a beat
//   however fast mac_clk is against clk (a MAC underruns otherwise). Its depth holds the
//   longest frame (MAX_FRAME_BYTES) rounded up to a power of two, about two frames.
// - RX: a plain asyncFifoRam; s_axis_rx_tready is its not-full flag. nic_icrc_check behind it
//   takes a beat every core cycle, so it backs up only when the MAC's bus rate (not its line
//   rate) exceeds the core's.

import { Bool, Clock, type ModuleBuilder, type Value } from '../hdl/index.ts';
import type { Domain } from '../hdl/ir.ts';
import { asyncFifoRam } from '../lib/async-fifo.ts';
import { fieldsThroughFifo, fieldsWidth, link, port, sink, type PortMap } from './top-wiring.ts';

export type MacClock = 'core' | 'separate';

/** The longest frame nic_top sends: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 +
 *  payload of path MTU 4096 + ICRC 4. */
export const MAX_FRAME_BYTES = 14 + 20 + 8 + 12 + 16 + 4096 + 4;

/** RX crossing words: a few frames' worth of slack while the core side starts up. */
const RX_FIFO_DEPTH = 64;

/** Words of the TX frame FIFO at `dataWidth` bits: the longest frame, rounded up to a power of two. */
export function macTxFifoDepth(dataWidth: number): number {
  return 2 ** Math.ceil(Math.log2(Math.ceil(MAX_FRAME_BYTES / (dataWidth / 8))));
}

type Inst = (name: string, def: typeof asyncFifoRam, params: Record<string, unknown>) => PortMap;

export interface MacBoundary {
  /** Extra top ports (mac_clk, mac_rst) in 'separate' mode. */
  readonly ports: Record<string, Value>;
  /** The ready nic_icrc_insert's output sees (a TX beat leaves the core when its valid and this are high). */
  readonly txReady: Value;
  /** Clock domain of m_axis_tx / s_axis_rx (undefined: the core's). */
  readonly domain: Domain | undefined;
}

/** The streams between `top`'s m_axis_tx / s_axis_rx and the core's ICRC insert / check. */
export function macBoundary(m: ModuleBuilder, mode: MacClock, core: { clk: Value; rst: Value }, top: PortMap, ins: PortMap, chk: PortMap, inst: Inst): MacBoundary {
  if (mode === 'core') {
    link(top, 'm_axis_tx', ins, 'm_axis', { skip: ['tuser'] });
    link(chk, 's_axis_rx', top, 's_axis_rx');
    return { ports: {}, txReady: port(top, 'm_axis_tx_tready'), domain: undefined };
  }
  const mac_clk = m.input('mac_clk', Clock);
  const mac_rst = m.input('mac_rst', Bool);
  const domain = m.domain('mac', { clock: mac_clk, reset: mac_rst });
  const clocks = (f: PortMap, from: { clk: Value; rst: Value }, to: { clk: Value; rst: Value }): void => {
    sink(f, 's_clk').set(from.clk); sink(f, 's_rst').set(from.rst);
    sink(f, 'm_clk').set(to.clk); sink(f, 'm_rst').set(to.rst);
  };
  const mac = { clk: mac_clk, rst: mac_rst };

  const txFields = ['tlast', 'tkeep', 'tdata'];
  const txWidth = fieldsWidth(ins, 'm_axis', txFields);
  // tlast is the top bit of the packed word: the frame FIFO's frame end.
  const tx = inst('u_mac_tx_fifo', asyncFifoRam, { width: txWidth, depth: macTxFifoDepth(ins.get('m_axis_tdata')!.width), frameBit: txWidth - 1 });
  clocks(tx, core, mac);
  streamThrough(m, tx, ins, 'm_axis', top, 'm_axis_tx', txFields);
  m.unused(port(ins, 'm_axis_tuser'), 'no bad-frame flag on TX: the MAC gets only good frames');

  const rxFields = ['tlast', 'tuser', 'tkeep', 'tdata'];
  const rx = inst('u_mac_rx_fifo', asyncFifoRam, { width: fieldsWidth(top, 's_axis_rx', rxFields), depth: RX_FIFO_DEPTH });
  clocks(rx, mac, core);
  streamThrough(m, rx, top, 's_axis_rx', chk, 's_axis_rx', rxFields);
  return { ports: { mac_clk, mac_rst }, txReady: port(tx, 's_ready'), domain };
}

/** `<from>_t*` of `src` -> FIFO -> `<to>_t*` of `dst`, ready/valid straight through. */
function streamThrough(m: ModuleBuilder, fifo: PortMap, src: PortMap, from: string, dst: PortMap, to: string, fields: readonly string[]): void {
  fieldsThroughFifo(fifo, src, from, dst, to, fields);
  sink(fifo, 's_valid').set(port(src, `${from}_tvalid`));
  sink(src, `${from}_tready`).set(port(fifo, 's_ready'));
  sink(dst, `${to}_tvalid`).set(port(fifo, 'm_valid'));
  sink(fifo, 'm_ready').set(port(dst, `${to}_tready`));
  for (const x of ['s_level', 'm_level']) m.unused(port(fifo, x), 'ready/valid only');
}
