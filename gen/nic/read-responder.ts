// nic_read_responder: answers accepted RDMA READ requests (docs/nic-read.md).
//
//   s_req ──► request FIFO (the pool: `contexts` READs held at once by all QPs together)
//               │ issuer: QP still able? → DmaReadCmd (rkey, REMOTE_READ, segLog2 = PMTU)
//               ▼         and the request into the in-flight FIFO; else retire it silently
//            in-flight FIFO (requests whose DmaStatus is pending, in DMA order)
//               │ generator: DmaStatus OK  → FIRST/MIDDLE/LAST or ONLY commands, one a cycle
//               ▼            DmaStatus bad → one NAK 0x62 (PSN = request PSN) + qp_error
//            m_pkt_cmd (payload of each response packet: nic_dma_read's m_axis, one tlast
//                       per packet because segLog2 = path MTU; never passes through here)
//
// The issuer runs ahead of the generator, so the next request's validation overlaps the
// current one's packets: commands come one per cycle, far faster than the MTU/bus-bytes
// cycles each packet's payload takes. Requests are served strictly in arrival order (one
// FIFO for all QPs), so no QP can starve another.
//
// Resources: a pool of `contexts` READ contexts shared by all QPs (the request FIFO, a
// memory: LUTRAM or block RAM, not flip-flops per QP); any QP may take one up to its limit
// `perQp` (the number advertised to the peer as the responder's READ depth,
// max_dest_rd_atomic). Per QP only a small counter, a duplicate bit and an error bit are
// flip-flops. `rd_room` bit q says QP q is below its limit; the WRITE responder must NAK 0x61
// (invalid request, QP to ERROR) a new READ when its bit is 0: the peer broke the advertised
// limit. A duplicate READ (ReadReq.dup, answered again after lost responses) never counts
// against that limit (the requester counts each READ once, so a duplicate counted there made
// its next READ find no room: NAK 0x61, QP to ERROR; soak finding 3): each QP has one
// duplicate slot besides (`rd_dup_room` bit q: it is free; the WRITE responder drops a
// duplicate when it is not, and go-back-N asks again). Both kinds take a context from the
// pool; when every context is in use, s_req waits (the WRITE responder's ack stage holds
// the request, a short stall of the RX path, bounded by the responses already queued here)
// instead of refusing a request the peer was allowed to send.
//
// rd_busy bit q: a request of QP q is here whose response commands (or NAK) are not all
// handed on yet (counted, or its last command still in the output register). nic_responder
// holds the QP's later ACKs/NAKs until it falls, so responses leave in PSN order.
//
// A QP that is no longer RTR/RTS, or that this block moved to ERROR, gets no more DMA
// commands; requests already handed to the DMA engine are still answered (their payload
// is on its way to the packetizer), and the requester drops them after the NAK.

import { Bool, UInt, Vec, cat, defineModule, lit, mux, pack, type Value } from '../hdl/index.ts';
import { syncFifo, syncFifoRam } from '../lib/fifo.ts';
import { stream } from '../lib/interfaces.ts';
import { log2Exact } from '../lib/util.ts';
import { NicCfg, qpErrorEvent } from './ctx.ts';
import { ctxPortRule, qpCtxView, type CtxPort } from './ctx-view.ts';
import { AETH } from './flow-types.ts';
import { readReqStruct, READ_RESP } from './read-types.ts';
import { QP_STATE } from './regmap.ts';
import { DmaReadCmd, DmaStatus, MAX_MTU_LOG2, TxPktCmd, XLATE_ACCESS, XLATE_STATUS, qpIndexWidth } from './types.ts';

export type ReadResponderParams = {
  /** Datapath width: no payload passes here; kept so nic_top passes one parameter set. */
  dataWidth: number;
  numQp: number;
  /** READ contexts of the pool shared by all QPs (a power of two): READs held at once. */
  contexts: number;
  /** READs one QP may hold at once (advertised to the peer; rd_room). */
  perQp: number;
  /** Where the QP context comes from (ctx-view.ts): 'vec' = the qp_ctx input (stage tests), 'lanes' = nic_regs' write lanes (nic_top). */
  ctxPort: CtxPort;
};

/** Deepest request FIFO kept in LUTRAM; deeper ones are block RAM. */
const LUTRAM_CONTEXTS = 64;
/** Requests whose DmaStatus is pending at most (the issuer's lead over the generator). */
const IN_FLIGHT = 4;
const MIN_MTU_LOG2 = 8;
const ACK_OPCODE = 0x11;

export const nicReadResponder = defineModule('nic_read_responder', { dataWidth: 64, numQp: 4, contexts: 8, perQp: 2, ctxPort: 'vec' } as ReadResponderParams, (m, p) => {
  const pw = log2Exact(p.contexts, 'contexts');
  const perQp = p.perQp;
  if (!Number.isInteger(perQp) || perQp < 1) throw new Error(`nic_read_responder: perQp ${perQp} is not a positive integer`);
  const qw = qpIndexWidth(p.numQp);
  const cw = Math.ceil(Math.log2(perQp + 1));
  const ReadReq = readReqStruct(p.numQp);

  const { clk, rst } = m.clockAndReset();
  const qpCtx = qpCtxView(m, p.numQp, p.ctxPort, ['state', 'destQpn', 'destMac', 'destIp', 'udpSport'], 'only STATE and the peer addressing fields are read');
  const cfg = m.input('cfg', NicCfg);
  const sReq = stream(ReadReq).sink(m, 's_req');
  const room = m.output('rd_room', UInt(p.numQp));
  const dupRoom = m.output('rd_dup_room', UInt(p.numQp));
  const busyOut = m.output('rd_busy', UInt(p.numQp));
  const mDma = stream(DmaReadCmd).source(m, 'm_dma_cmd');
  const sStatus = stream(DmaStatus).sink(m, 's_dma_status');
  const mPkt = stream(TxPktCmd).source(m, 'm_pkt_cmd');
  const qpError = m.output('qp_error', qpErrorEvent(p.numQp));
  m.unused(cfg, 'only mac, ipAddr and ipCfg are read (response addressing)');

  // The pool: a request waits here for its DMA command; `pool_used_reg` counts the contexts
  // taken (waiting, at the DMA, or being answered), so the FIFO never overflows.
  // Up to LUTRAM_CONTEXTS the FIFO is LUTRAM (a request at the head the cycle after it is
  // taken); deeper pools (nic_top sizes it for every QP at its limit: 1,024 at 256 QPs) are
  // block RAM, whose registered read adds a cycle when the pool was empty.
  const reqs = p.contexts > LUTRAM_CONTEXTS
    ? m.instance('u_req_fifo', syncFifoRam, { width: ReadReq.width, depth: p.contexts })
    : m.instance('u_req_fifo', syncFifo, { width: ReadReq.width, depth: p.contexts });
  const flight = m.instance('u_flight_fifo', syncFifo, { width: ReadReq.width, depth: Math.min(IN_FLIGHT, p.contexts) });
  m.unused(reqs.count, 'pool_used_reg counts the contexts'); m.unused(reqs.full, 'pool_used_reg counts the contexts'); m.unused(reqs.s.ready, 'pool_used_reg keeps the FIFO from filling'); m.unused(reqs.empty, 'm_valid is used');
  m.unused(flight.count, 'only empty/full matter'); m.unused(flight.full, 's_ready is used'); m.unused(flight.empty, 'm_valid is used');

  // ---- resources -----------------------------------------------------------------------
  // READ slots in use per QP (requests that are not duplicates) and the duplicate slots.
  const counts = m.reg('rd_count_reg', Vec(UInt(cw), p.numQp));
  const dupHeld = m.reg('rd_dup_held_reg', UInt(p.numQp));
  const sq = sReq.data.field('qp');
  const used = m.reg('pool_used_reg', UInt(pw + 1));
  const poolFree = m.let('pool_free', used.lt(p.contexts));
  const take = m.let('req_take', sReq.valid.land(poolFree));
  sReq.ready.set(poolFree);
  reqs.s.valid.set(take);
  reqs.s.data.set(sReq.data);
  const roomBits: Value[] = [];
  for (let i = p.numQp - 1; i >= 0; i--) roomBits.push(counts.at(i).lt(perQp));
  room.set(roomBits.length === 1 ? roomBits[0]! : cat(...roomBits));
  dupRoom.set(dupHeld.not());

  // QPs this block moved to ERROR, until software resets them (the merged qp_error can lag).
  const errSeen = m.reg('err_seen_reg', UInt(p.numQp));

  // ---- issuer ----------------------------------------------------------------------------
  const head = reqs.m.data.as(ReadReq);
  const hq = head.field('qp');
  const hst = qpCtx.at(hq).field('state');
  const able = m.let('head_able', hst.eq(QP_STATE.RTR).lor(hst.eq(QP_STATE.RTS)).land(errSeen.bit(hq).lnot()));
  const dmaValid = m.reg('dma_cmd_valid_reg', Bool);
  const dmaData = m.reg('dma_cmd_data_reg', DmaReadCmd, { reset: null });
  mDma.valid.set(dmaValid);
  mDma.data.set(dmaData);
  m.if(mDma.ready, () => dmaValid.set(0));
  const dmaFree = m.let('dma_free', dmaValid.lnot().lor(mDma.ready));
  const issue = m.let('issue', reqs.m.valid.land(able).land(dmaFree).land(flight.s.ready));
  const flushHead = m.let('flush_head', reqs.m.valid.land(able.lnot()));
  reqs.m.ready.set(issue.lor(flushHead));
  flight.s.valid.set(issue);
  flight.s.data.set(reqs.m.data);
  const pm = head.field('pmtu');
  const pmtuClamped = m.let('pmtu_clamped', mux(pm.lt(MIN_MTU_LOG2), lit(MIN_MTU_LOG2, 4), mux(pm.gt(MAX_MTU_LOG2), lit(MAX_MTU_LOG2, 4), pm)));
  m.if(issue, () => {
    dmaValid.set(1);
    dmaData.set(pack(DmaReadCmd, {
      va: head.field('va'), len: head.field('len'), key: head.field('rkey'), pd: head.field('pd'),
      last: 1, segLog2: pmtuClamped, access: XLATE_ACCESS.REMOTE_READ,
    }));
  });

  // ---- generator -------------------------------------------------------------------------
  const busy = m.reg('gen_busy_reg', Bool);
  const g = m.reg('gen_req_reg', ReadReq, { reset: null });
  const gPsn = m.reg('gen_psn_reg', UInt(24));
  const gRem = m.reg('gen_rem_reg', UInt(32));
  const gFirst = m.reg('gen_first_reg', Bool);
  const gMtuLog2 = m.reg('gen_mtu_log2_reg', UInt(4));
  m.unused(g, 'va, rkey, len and pd went to the DMA command');
  const pktValid = m.reg('pkt_valid_reg', Bool);
  const pktData = m.reg('pkt_data_reg', TxPktCmd, { reset: null });
  const pktQp = m.reg('pkt_qp_reg', UInt(qw));
  mPkt.valid.set(pktValid);
  mPkt.data.set(pktData);
  m.if(mPkt.ready, () => pktValid.set(0));
  const pktFree = m.let('pkt_free', pktValid.lnot().lor(mPkt.ready));

  const errValid = m.reg('qp_error_valid_reg', Bool);
  const errQp = m.reg('qp_error_qp_reg', UInt(qw));
  errValid.set(0);
  qpError.set(pack(qpErrorEvent(p.numQp), { valid: errValid, qp: errQp }));

  const fl = flight.m.data.as(ReadReq);
  const load = m.let('gen_load', busy.lnot().land(flight.m.valid).land(sStatus.valid).land(pktFree));
  flight.m.ready.set(load);
  sStatus.ready.set(load);
  const statusOk = sStatus.data.field('status').eq(XLATE_STATUS.OK);

  const ipCfg = cfg.field('ipCfg');
  type V = Value | number;
  const cmd = (q: typeof fl, f: { opcode: V; psn: V; payloadLen: V; hasAeth: V; syndrome: V; msn: V }): Value => {
    const ctx = qpCtx.at(q.field('qp'));
    return pack(TxPktCmd, {
      opcode: f.opcode, destQpn: ctx.field('destQpn'), psn: f.psn, ackReq: 0, payloadLen: f.payloadLen,
      hasReth: 0, rethVa: 0, rethRkey: 0, rethLen: 0, hasAeth: f.hasAeth, aethSyndrome: f.syndrome, aethMsn: f.msn,
      srcMac: cfg.field('mac'), dstMac: ctx.field('destMac'), srcIp: cfg.field('ipAddr'), dstIp: ctx.field('destIp'),
      srcPort: ctx.field('udpSport'), ttl: ipCfg.bits(7, 0), dscp: ipCfg.bits(13, 8),
    });
  };

  const mtu = m.let('gen_mtu', lit(1, 13).shl(gMtuLog2));
  const gLast = m.let('gen_last', gRem.le(mtu.zext(32)));
  const opcode = mux(gFirst, mux(gLast, lit(READ_RESP.ONLY, 8), lit(READ_RESP.FIRST, 8)), mux(gLast, lit(READ_RESP.LAST, 8), lit(READ_RESP.MIDDLE, 8)));
  const emit = m.let('gen_emit', busy.land(pktFree));
  // Retirements free a request's slot: a flushed head, a NAK, or a response's last packet.
  const nakNow = m.let('nak_now', load.land(statusOk.lnot()));
  const genDone = m.let('gen_done', emit.land(gLast));

  m.if(emit, () => {
    pktValid.set(1);
    pktQp.set(g.field('qp'));
    // MIDDLE carries no AETH; its AETH fields are zero so equal packets give equal commands.
    const aeth = gFirst.lor(gLast);
    pktData.set(cmd(g, { opcode, psn: gPsn, payloadLen: mux(gLast, gRem.trunc(13), mtu), hasAeth: aeth, syndrome: mux(aeth, lit(AETH.ACK, 8), lit(0, 8)), msn: mux(aeth, g.field('msn'), lit(0, 24)) }));
    gPsn.set(gPsn.addw(1));
    gRem.set(gRem.subw(mtu.zext(32)));
    gFirst.set(0);
    m.if(gLast, () => busy.set(0));
  });
  m.if(load, () => {
    m.if(statusOk, () => {
      busy.set(1);
      g.set(flight.m.data);
      gPsn.set(fl.field('psn'));
      gRem.set(fl.field('len'));
      gFirst.set(1);
      const fp = fl.field('pmtu');
      gMtuLog2.set(mux(fp.lt(MIN_MTU_LOG2), lit(MIN_MTU_LOG2, 4), mux(fp.gt(MAX_MTU_LOG2), lit(MAX_MTU_LOG2, 4), fp)));
    }).else(() => {
      // Nothing was read and nothing streams: one NAK, and the READ is not counted done.
      pktValid.set(1);
      pktQp.set(fl.field('qp'));
      pktData.set(cmd(fl, { opcode: ACK_OPCODE, psn: fl.field('psn'), payloadLen: 0, hasAeth: 1, syndrome: AETH.NAK_REMOTE_ACCESS, msn: fl.field('msn').subw(1) }));
      errValid.set(1);
      errQp.set(fl.field('qp'));
      for (let i = 0; i < p.numQp; i++) m.if(fl.field('qp').eq(i), () => errSeen.setBits(i, i, 1));
    });
  });

  // Contexts back to the pool: a flushed head, and a NAK or a response's last command (one
  // retirement of each kind a cycle at most).
  const back = m.let('pool_back', flushHead.zext(2).addw(nakNow.lor(genDone).zext(2)));
  m.if(take.lor(back.orr()), () => used.set(used.addw(take.zext(pw + 1)).subw(back.zext(pw + 1)).trunc(pw + 1)));

  // ---- per-QP counters: +1 on acceptance, -1 per retirement (up to two a cycle); a duplicate
  // sets and frees its QP's duplicate slot instead ---------------------------------------------
  const sDup = sReq.data.field('dup'), hDup = head.field('dup'), fDup = fl.field('dup'), gDup = g.field('dup');
  for (let i = 0; i < p.numQp; i++) {
    const takeI = take.land(sq.eq(i)), flushI = flushHead.land(hq.eq(i));
    const nakI = nakNow.land(fl.field('qp').eq(i)), doneI = genDone.land(g.field('qp').eq(i));
    const inc = takeI.land(sDup.lnot()).zext(cw);
    const dec1 = flushI.land(hDup.lnot()).zext(cw);
    const dec2 = nakI.land(fDup.lnot()).lor(doneI.land(gDup.lnot())).zext(cw);
    m.if(inc.orr().lor(dec1.orr()).lor(dec2.orr()), () => counts.setBits(cw * i + cw - 1, cw * i, counts.at(i).addw(inc).subw(dec1).subw(dec2).trunc(cw)));
    const dupFree = flushI.land(hDup).lor(nakI.land(fDup)).lor(doneI.land(gDup));
    m.if(takeI.land(sDup), () => dupHeld.setBits(i, i, 1)).elif(dupFree, () => dupHeld.setBits(i, i, 0));
  }
  const busyBits: Value[] = [];
  for (let i = p.numQp - 1; i >= 0; i--) busyBits.push(counts.at(i).ne(0).lor(dupHeld.bit(i)).lor(pktValid.land(pktQp.eq(i))));
  busyOut.set(busyBits.length === 1 ? busyBits[0]! : cat(...busyBits));
  m.assert(take.lnot().lor(sDup).lor(counts.at(sq).lt(perQp)), `a QP has more than ${perQp} READ requests outstanding (the WRITE responder must check rd_room)`);
  m.assert(take.land(sDup).lnot().lor(dupHeld.bit(sq).lnot()), 'a QP has two duplicate READs outstanding (the WRITE responder must check rd_dup_room)');

  for (let i = 0; i < p.numQp; i++) m.if(qpCtx.at(i).field('state').eq(QP_STATE.RESET), () => errSeen.setBits(i, i, 0));

  return { clk, rst, ...qpCtx.ports, cfg, s_req: sReq, rd_room: room, rd_dup_room: dupRoom, rd_busy: busyOut, m_dma_cmd: mDma, s_dma_status: sStatus, m_pkt_cmd: mPkt, qp_error: qpError };
}, { doc: 'RDMA READ responder: DMA read commands (REMOTE_READ) per accepted request, READ RESPONSE packet commands, NAK 0x62 on a bad range', params: { rules: { ctxPort: ctxPortRule } } });
