// nic_tx_cmd_mux: merges the packetizer's three command sources, and the two payload streams
// that go with them, into one command stream and one payload stream:
//
//   s_req_cmd + s_req_payload : requester (WRITE packets with payload, READ requests without)
//   s_rd_cmd  + s_rd_payload  : READ responses (payload from the responder's DMA read engine)
//   s_ack_cmd                 : ACK/NAK, never payload (its payloadLen is not looked at)
//
// The packetizer meets payloads in command order, so payload is switched by command: after
// a command with payloadLen > 0 from req or rd is granted, that source owns m_payload until
// its beat with tlast has passed; no other payload command is granted before that beat.
// Commands without payload (ACK/NAK, READ requests, zero-length READ responses) need no
// payload and are granted in between. A payload command can be granted in the very cycle its
// predecessor's last beat passes, so a long message's payload flows without a gap.
//
// Grants: a payload command is eligible only when the payload stream is free (or frees in
// this cycle). Round robin in two levels, so that neither ACKs (granted while a payload
// flows) nor one payload source can starve the others: ACK against the requester/READ-
// response pair, alternating when both are eligible; inside the pair, req and rd alternate.
// A source that stays eligible waits for at most three other grants (ACK, other, ACK).

import { Bool, defineModule, mux, UInt, type Value } from '../hdl/index.ts';
import { stream } from '../lib/interfaces.ts';
import { byteStream, TxPktCmd } from './types.ts';

export type TxCmdMuxParams = { dataWidth: number };

/** Payload owner. */
const OWNER_NONE = 0, OWNER_REQ = 1, OWNER_RD = 2;

export const txCmdMux = defineModule('nic_tx_cmd_mux', { dataWidth: 64 } as TxCmdMuxParams, (m, p) => {
  if (p.dataWidth < 64 || p.dataWidth > 512) throw new Error(`nic_tx_cmd_mux: dataWidth ${p.dataWidth} is outside 64..512`);
  const { clk, rst } = m.clockAndReset();
  const bus = stream(TxPktCmd);
  const bytes = byteStream(p.dataWidth);
  const req = bus.sink(m, 's_req_cmd');
  const reqPay = bytes.sink(m, 's_req_payload');
  const rd = bus.sink(m, 's_rd_cmd');
  const rdPay = bytes.sink(m, 's_rd_payload');
  const ack = bus.sink(m, 's_ack_cmd');
  const out = bus.source(m, 'm_cmd');
  const outPay = bytes.source(m, 'm_payload');

  // ---- payload: a plain switch to the owner (no register, so no cycle lost per packet) --------
  const owner = m.reg('pay_owner_reg', UInt(2));
  const fromReq = m.let('pay_from_req', owner.eq(OWNER_REQ));
  const fromRd = m.let('pay_from_rd', owner.eq(OWNER_RD));
  outPay.tdata.set(mux(fromRd, rdPay.tdata, reqPay.tdata));
  outPay.tkeep!.set(mux(fromRd, rdPay.tkeep!, reqPay.tkeep!));
  outPay.tlast!.set(mux(fromRd, rdPay.tlast!, reqPay.tlast!));
  outPay.tvalid.set(fromReq.land(reqPay.tvalid).lor(fromRd.land(rdPay.tvalid)));
  reqPay.tready.set(fromReq.land(outPay.tready));
  rdPay.tready.set(fromRd.land(outPay.tready));
  const payEnd = m.let('pay_end', outPay.tvalid.land(outPay.tready).land(outPay.tlast!));
  const payFree = m.let('pay_free', owner.eq(OWNER_NONE).lor(payEnd));

  // ---- commands: round robin among the eligible sources -----------------------------------------
  // Registered output: the packetizer sees a clean register.
  const outValid = m.reg('out_valid_reg', Bool);
  const outData = m.reg('out_data_reg', TxPktCmd, { reset: null });
  const lastAck = m.reg('last_ack_reg', Bool);
  const lastRd = m.reg('last_rd_reg', Bool, { reset: 1 }); // so req goes first
  const free = m.let('out_free', outValid.lnot().lor(out.ready));
  const hasPay = (c: typeof req): Value => c.data.field('payloadLen').ne(0);
  const reqPayCmd = m.let('req_has_payload', hasPay(req));
  const rdPayCmd = m.let('rd_has_payload', hasPay(rd));
  const eligReq = m.let('elig_req', req.valid.land(reqPayCmd.lnot().lor(payFree)));
  const eligRd = m.let('elig_rd', rd.valid.land(rdPayCmd.lnot().lor(payFree)));
  const pickAck = m.let('pick_ack', ack.valid.land(eligReq.lor(eligRd).lnot().lor(lastAck.lnot())));
  const pickRd = m.let('pick_rd', pickAck.lnot().land(eligRd).land(eligReq.lnot().lor(lastRd.lnot())));
  const pickReq = m.let('pick_req', pickAck.lnot().land(pickRd.lnot()).land(eligReq));
  const takeReq = m.let('take_req', free.land(pickReq));
  const takeRd = m.let('take_rd', free.land(pickRd));
  const takeAck = m.let('take_ack', free.land(pickAck));
  req.ready.set(takeReq);
  rd.ready.set(takeRd);
  ack.ready.set(takeAck);
  out.valid.set(outValid);
  out.data.set(outData);

  m.if(payEnd, () => owner.set(OWNER_NONE));
  m.if(takeReq, () => {
    outValid.set(1); outData.set(req.data); lastAck.set(0); lastRd.set(0);
    m.if(reqPayCmd, () => owner.set(OWNER_REQ));
  }).elif(takeRd, () => {
    outValid.set(1); outData.set(rd.data); lastAck.set(0); lastRd.set(1);
    m.if(rdPayCmd, () => owner.set(OWNER_RD));
  }).elif(takeAck, () => {
    outValid.set(1); outData.set(ack.data); lastAck.set(1);
  }).elif(out.ready, () => outValid.set(0));

  return {
    clk, rst, s_req_cmd: req, s_req_payload: reqPay, s_rd_cmd: rd, s_rd_payload: rdPay, s_ack_cmd: ack,
    m_cmd: out, m_payload: outPay,
  };
}, { doc: 'TX command mux: requester, READ response and ACK/NAK commands round robin; payload switched to the source of the last payload command until its tlast' });
