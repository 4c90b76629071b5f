// nic_tx_frame_gate: between nic_tx_cmd_mux and nic_packetizer. Holds each packet's payload
// in a FIFO and lets a command with payload on to the packetizer only once that packet's whole
// payload (up to its tlast) is in the FIFO.
//
// Why: an Ethernet MAC (CMAC, 10G MAC) underruns when tvalid drops between a frame's first
// beat and its tlast. The packetizer starts a frame's header as soon as it has the command,
// and payload read from host memory may still be on its way (memory latency, a TLB miss, the
// read mux serving others): the frame then stalled mid-way (an 18-beat frame over 70 cycles
// at memory latency 50). With the whole payload buffered before the command is passed on,
// the packetizer streams the frame from its first beat to tlast without waiting on anything
// but m_axis_tx_tready.
//
// `ready_pkts` counts packets whose tlast is in the FIFO and whose command has not yet been
// passed on; a command may also pass in the cycle its packet's tlast is written. Payload is in command order (the mux switches it per command), so when the
// count is non-zero the next command with payload owns the oldest such packet; passing the
// command takes it off the count. Packets of commands already passed (the frame being sent,
// the one in the packetizer's header stage) are therefore never counted again.
// Commands without payload pass straight on, in order.
//
// Depth: `depth` beats must hold at least one packet of the largest payload (4096 bytes,
// path MTU 4096), else its tlast could never be written (deadlock); two packets keep the
// packetizer busy at the framing limit: the next packet fills while this one streams.

import { cat, defineModule, UInt } from '../hdl/index.ts';
import { stream } from '../lib/interfaces.ts';
import { syncFifoRam } from '../lib/fifo.ts';
import { log2Exact } from '../lib/util.ts';
import { byteStream, TxPktCmd } from './types.ts';

export interface TxFrameGateParams { dataWidth: number; depth: number }

/** Bytes of the largest payload one packet carries (path MTU 4096). */
export const TX_MAX_PAYLOAD = 4096;

/** Payload lag of m_payload against m_cmd, for the packetizer: a command passes in the cycle
 *  t its packet's tlast is written into the FIFO, or later; the FIFO (block RAM, registered
 *  read) shows a word written in cycle t from t + 2, and the packet's earlier words, written
 *  at most one per cycle before it, one per cycle before that. So word j of n is out by
 *  t + 2 - (n - 1 - j), once the previous packet's words are taken. */
export const TX_GATE_PAYLOAD_LAG = 2;

/** FIFO depth (beats, a power of two) for two max-MTU packets at `dataWidth`. */
export const txFrameGateDepth = (dataWidth: number): number => (2 * TX_MAX_PAYLOAD) / (dataWidth / 8);

export const txFrameGate = defineModule('nic_tx_frame_gate', { dataWidth: 64, depth: 1024 } as TxFrameGateParams, (m, p) => {
  const W = p.dataWidth, B = W / 8;
  const aw = log2Exact(p.depth, 'depth');
  if (p.depth * B < TX_MAX_PAYLOAD) throw new Error(`nic_tx_frame_gate: depth ${p.depth} x ${B} bytes holds less than one ${TX_MAX_PAYLOAD}-byte payload (deadlock)`);
  const { clk, rst } = m.clockAndReset();
  const cmds = stream(TxPktCmd);
  const s_cmd = cmds.sink(m, 's_cmd');
  const m_cmd = cmds.source(m, 'm_cmd');
  const s_payload = byteStream(W).sink(m, 's_payload');
  const m_payload = byteStream(W).source(m, 'm_payload');

  const fifo = m.instance('u_fifo', syncFifoRam, { width: W + B + 1, depth: p.depth });
  fifo.s.data.set(cat(s_payload.tlast!, s_payload.tkeep!, s_payload.tdata));
  fifo.s.valid.set(s_payload.tvalid);
  s_payload.tready.set(fifo.s.ready);
  m_payload.tdata.set(fifo.m.data.bits(W - 1, 0));
  m_payload.tkeep!.set(fifo.m.data.bits(W + B - 1, W));
  m_payload.tlast!.set(fifo.m.data.bit(W + B));
  m_payload.tvalid.set(fifo.m.valid);
  fifo.m.ready.set(m_payload.tready);
  for (const x of [fifo.count, fifo.full, fifo.empty]) m.unused(x, 'ready/valid only');

  // At most depth + 1 packets (one beat each) are in the FIFO: aw + 2 bits.
  const readyPkts = m.reg('ready_pkts_reg', UInt(aw + 2));
  const hasPay = m.let('cmd_has_payload', s_cmd.data.field('payloadLen').ne(0));
  const completed = m.let('pkt_completed', s_payload.tvalid.land(fifo.s.ready).land(s_payload.tlast!));
  // A packet counts from the cycle its tlast is written (a cycle before the count shows it).
  // Its frame still cannot catch up with the FIFO when the packetizer knows the FIFO's lag
  // (TX_GATE_PAYLOAD_LAG): it starts a frame in its command's cycle only when the frame's
  // header beats cover it (packetizer.ts).
  const pass = m.let('cmd_pass', hasPay.lnot().lor(readyPkts.ne(0)).lor(completed));
  m_cmd.valid.set(s_cmd.valid.land(pass));
  m_cmd.data.set(s_cmd.data);
  s_cmd.ready.set(m_cmd.ready.land(pass));

  const claimed = m.let('pkt_claimed', s_cmd.valid.land(m_cmd.ready).land(pass).land(hasPay));
  m.if(completed.land(claimed.lnot()), () => readyPkts.set(readyPkts.addw(1)))
    .elif(claimed.land(completed.lnot()), () => readyPkts.set(readyPkts.subw(1)));

  return { clk, rst, s_cmd, m_cmd, s_payload, m_payload };
}, { doc: 'TX frame gate: a packet command passes to the packetizer only when its whole payload is buffered (no underrun inside a frame)' });
