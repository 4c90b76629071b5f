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
//
// Drop (option `drop` 1, nic_top with nic_req_tx's DMA abort; docs/nic-reliability.md
// "NAK-path recovery"): `drop` asks to discard the packet whose payload is coming in now (its
// command waits on s_cmd, its tlast not yet written, or written in this very cycle). The gate
// then takes that command without passing it on, moves the FIFO's write pointer back to the
// packet's first beat (one cycle, whatever its length: nothing of it is ever read, as in
// verilog-axis' axis_fifo with DROP_BAD_FRAME) and takes the rest of its payload, up to its
// tlast, at one beat per cycle without writing it (`discard_reg`), FIFO full or not. Why: at a
// go-back-N rewind the QP's packet filling the gate would otherwise go out whole (up to 520
// cycles at 64 bits) ahead of the resend, whose payload queues behind it. nic_req_tx asks only
// for its own packet (the QP's last command taken, its payload not all out of nic_dma_read);
// the packet cannot be another source's: nic_tx_cmd_mux grants no other payload command before
// its tlast, and packets whose tlast is in (another QP's too) are never dropped.
// Why the read side cannot have taken any of it: the packetizer reads payload only for
// commands it has, and this packet's command has not passed. The FIFO reads ahead one word
// into its output register (the RAM's read register), so that word may be the packet's first:
// it is not offered before the packet's tlast is in, and the drop empties the output register
// and moves the read pointer back too.

import { Bool, cat, defineModule, intIn, lit, UInt } from '../hdl/index.ts';
import { stream } from '../lib/interfaces.ts';
import { log2Exact } from '../lib/util.ts';
import { byteStream, TxPktCmd } from './types.ts';

export interface TxFrameGateParams {
  dataWidth: number;
  depth: number;
  /** 1: a `drop` input discards the packet coming in (nic_req_tx's DMA abort); 0: none. */
  drop: number;
}

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

export const txFrameGate = defineModule('nic_tx_frame_gate', { dataWidth: 64, depth: 1024, drop: 0 } as TxFrameGateParams, (m, p) => {
  const W = p.dataWidth, B = W / 8;
  const aw = log2Exact(p.depth, 'depth');
  if (p.depth * B < TX_MAX_PAYLOAD) throw new Error(`nic_tx_frame_gate: depth ${p.depth} x ${B} bytes holds less than one ${TX_MAX_PAYLOAD}-byte payload (deadlock)`);
  const { clk, rst } = m.clockAndReset();
  const cmds = stream(TxPktCmd);
  const s_cmd = cmds.sink(m, 's_cmd');
  const m_cmd = cmds.source(m, 'm_cmd');
  const s_payload = byteStream(W).sink(m, 's_payload');
  const m_payload = byteStream(W).source(m, 'm_payload');

  const dropIn = p.drop ? m.input('drop', Bool) : undefined;
  const dropNow = dropIn ?? lit(0, 1);

  // ---- the payload FIFO: block RAM, registered read, one push and one pop per cycle (as
  // gen/lib syncFifoRam, with the drop's pointer moves) ----------------------------------------
  // Why not syncFifoRam with a frame option (a committed write pointer, as asyncFifoRam's
  // frameBit): the reader would load a packet's first word only after its tlast is committed,
  // so word j of a packet whose tlast is written in cycle t would be out at t + 2 + j, not by
  // t + 2 - (n - 1 - j) as here (TX_GATE_PAYLOAD_LAG, which the packetizer counts on to start
  // a frame early without stalling inside it).
  const mem = m.memory('mem', UInt(W + B + 1), p.depth);
  const wrPtr = m.reg('wr_ptr_reg', UInt(aw + 1));
  // rd_ptr points at the next word to move from the RAM into the output register.
  const rdPtr = m.reg('rd_ptr_reg', UInt(aw + 1));
  const outValid = m.reg('out_valid_reg', Bool);
  // The first beat of the packet coming in: the write pointer after the last tlast written.
  const pktStart = dropIn ? m.reg('pkt_start_reg', UInt(aw + 1)) : undefined;
  const discardReg = dropIn ? m.reg('discard_reg', Bool) : undefined;
  const discard = discardReg ?? lit(0, 1);
  const wrAddr = m.let('wr_addr', wrPtr.bits(aw - 1, 0));
  const rdAddr = m.let('rd_addr', rdPtr.bits(aw - 1, 0));
  const ramEmpty = m.let('ram_empty', wrPtr.eq(rdPtr));
  const ramFull = m.let('ram_full', wrAddr.eq(rdAddr).land(wrPtr.bit(aw).ne(rdPtr.bit(aw))));
  // A dropped packet's beats are taken at one per cycle (never written), the FIFO full or not.
  s_payload.tready.set(discard.lor(ramFull.lnot()));
  const beatIn = m.let('beat_in', s_payload.tvalid.land(discard.lor(ramFull.lnot())));
  const push = m.let('push', beatIn.land(discard.lnot()).land(dropNow.lnot()));
  // The output register reads ahead. With drop, the first word of the packet coming in (the
  // only one of it the read-ahead can reach) is held there but not offered until the packet's
  // tlast is written, so a drop never withdraws an offered beat (AXI-Stream); the packetizer
  // cannot want it sooner (its command passes in that cycle at the earliest, its frame starts a
  // cycle later). Nor is that word read ahead in the drop cycle.
  const openHead = pktStart ? m.let('out_holds_open_packet', rdPtr.subw(1).eq(pktStart)) : undefined;
  const outShown = openHead ? m.let('out_shown', outValid.land(openHead.lnot())) : outValid;
  const pop = m.let('pop', outShown.land(m_payload.tready));
  const load0 = ramEmpty.lnot().land(outValid.lnot().lor(pop));
  const load = m.let('load', pktStart ? load0.land(dropNow.land(rdPtr.eq(pktStart)).lnot()) : load0);
  const ramOut = mem.read(rdAddr, { enable: load });
  m_payload.tdata.set(ramOut.bits(W - 1, 0));
  m_payload.tkeep!.set(ramOut.bits(W + B - 1, W));
  m_payload.tlast!.set(ramOut.bit(W + B));
  m_payload.tvalid.set(outShown);
  m.if(push, () => {
    mem.write(wrAddr, cat(s_payload.tlast!, s_payload.tkeep!, s_payload.tdata));
    wrPtr.set(wrPtr.addw(1));
    if (pktStart) m.if(s_payload.tlast!, () => pktStart.set(wrPtr.addw(1)));
  });
  m.if(load, () => rdPtr.set(rdPtr.addw(1)));
  m.if(load, () => outValid.set(1)).elif(pop, () => outValid.set(0));

  // At most depth + 1 packets (one beat each) are in the FIFO: aw + 2 bits.
  const readyPkts = m.reg('ready_pkts_reg', UInt(aw + 2));
  const hasPay = m.let('cmd_has_payload', s_cmd.data.field('payloadLen').ne(0));
  const completed = m.let('pkt_completed', push.land(s_payload.tlast!));
  // A packet counts from the cycle its tlast is written (a cycle before the count shows it).
  // Its frame still cannot catch up with the FIFO when the packetizer knows the FIFO's lag
  // (TX_GATE_PAYLOAD_LAG): it starts a frame in its command's cycle only when the frame's
  // header beats cover it (packetizer.ts).
  const pass = m.let('cmd_pass', hasPay.lnot().lor(readyPkts.ne(0)).lor(completed).land(dropNow.lnot()));
  m_cmd.valid.set(s_cmd.valid.land(pass));
  m_cmd.data.set(s_cmd.data);
  s_cmd.ready.set(m_cmd.ready.land(pass).lor(dropNow));

  const claimed = m.let('pkt_claimed', s_cmd.valid.land(m_cmd.ready).land(pass).land(hasPay));
  m.if(completed.land(claimed.lnot()), () => readyPkts.set(readyPkts.addw(1)))
    .elif(claimed.land(completed.lnot()), () => readyPkts.set(readyPkts.subw(1)));

  if (dropIn && pktStart && discardReg) {
    // The packet's command is on s_cmd with payload, and no packet with its tlast in waits
    // (only the incoming one can: nic_tx_cmd_mux takes no payload command before the last
    // one's tlast). Its words written so far: wr_ptr - pkt_start; the output register holds its
    // first word when rd_ptr is one past pkt_start.
    m.assert(dropNow.lnot().lor(s_cmd.valid.land(hasPay).land(readyPkts.eq(0)).land(discard.lnot())),
      'drop without a payload command waiting for its payload on s_cmd');
    const rdOff = m.let('drop_rd_offset', rdPtr.subw(pktStart));
    const rdIn = m.let('drop_rd_in_pkt', rdOff.ne(0).land(rdOff.le(wrPtr.subw(pktStart))));
    m.assert(dropNow.lnot().lor(rdIn.lnot()).lor(rdOff.eq(1).land(outValid)),
      'drop: the read side has taken a word of the dropped packet');
    m.if(dropNow, () => {
      wrPtr.set(pktStart);
      // Its tlast in this cycle ends it here; otherwise the rest is discarded up to its tlast.
      discardReg.set(beatIn.land(s_payload.tlast!).lnot());
      m.if(rdIn, () => { rdPtr.set(pktStart); outValid.set(0); });
    }).elif(discardReg.land(beatIn).land(s_payload.tlast!), () => discardReg.set(0));
    m.cover(dropNow.land(wrPtr.ne(pktStart)), 'gate_drop_partial_packet');
    m.cover(dropNow.land(rdIn), 'gate_drop_word_in_output_register');
    m.cover(discard.land(ramFull), 'gate_discard_while_full');
  }

  return { clk, rst, s_cmd, m_cmd, s_payload, m_payload, ...(dropIn ? { drop: dropIn } : {}) };
}, { doc: 'TX frame gate: a packet command passes to the packetizer only when its whole payload is buffered (no underrun inside a frame); optionally drops the packet coming in', params: { rules: { drop: intIn(0, 1) } } });
