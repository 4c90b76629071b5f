// nic_tx_cmd_mux: merges the requester's packet commands and the responder's ACK/NAK
// commands into the packetizer's one command stream, round-robin per command.
//
// Only commands are muxed. A requester command's payload travels on its own byte stream,
// which this block never touches: ACK/NAK commands carry no payload, so the packetizer
// still meets each requester command's payload in order.

import { Bool, defineModule } from '../hdl/index.ts';
import { stream } from '../lib/interfaces.ts';
import { TxPktCmd } from './types.ts';

export const txCmdMux = defineModule('nic_tx_cmd_mux', {}, m => {
  const { clk, rst } = m.clockAndReset();
  const bus = stream(TxPktCmd);
  const req = bus.sink(m, 's_req_cmd');
  const ack = bus.sink(m, 's_ack_cmd');
  const out = bus.source(m, 'm_cmd');

  // Registered output: no combinational path from m_cmd_ready to either s_*_ready's
  // source logic beyond "output free", and the packetizer sees a clean register.
  const outValid = m.reg('out_valid_reg', Bool);
  const outData = m.reg('out_data_reg', TxPktCmd, { reset: null });
  // Who won last time: the other side gets priority when both wait.
  const lastAck = m.reg('last_ack_reg', Bool);

  const free = m.let('out_free', outValid.lnot().lor(out.ready));
  const pickAck = m.let('pick_ack', ack.valid.land(req.valid.lnot().lor(lastAck.lnot())));
  const takeAck = m.let('take_ack', free.land(pickAck));
  const takeReq = m.let('take_req', free.land(req.valid).land(pickAck.lnot()));

  req.ready.set(takeReq);
  ack.ready.set(takeAck);
  out.valid.set(outValid);
  out.data.set(outData);

  m.if(takeAck, () => {
    outValid.set(1);
    outData.set(ack.data);
    lastAck.set(1);
  }).elif(takeReq, () => {
    outValid.set(1);
    outData.set(req.data);
    lastAck.set(0);
  }).elif(out.ready, () => outValid.set(0));

  return { clk, rst, s_req_cmd: req, s_ack_cmd: ack, m_cmd: out };
}, { doc: 'TX command mux: requester commands and responder ACK/NAK commands, round-robin per command' });
