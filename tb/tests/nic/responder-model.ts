// Reference model of nic_responder (rxe-like check order, NIC.md error table) and the MR map
// its TLB and DMA stand-ins answer from. The model takes the received headers in order and
// says what must come out, in order: DMA writes, ACK/NAKs, EXP_PSN / MSN updates, QP errors
// and drops, the counter pulses (NAKs 0x60 sent and received, duplicate requests); for RDMA
// READ, the ReadReqs for nic_read_responder; and, to the requester's receiver, the READ
// responses and the ACKs received, in arrival order (one stream, m_rresp_hdr).

import { AETH, LOCAL_QPN_BASE } from '../../../gen/nic/flow-types.ts';
import { QP_STATE } from '../../../gen/nic/regmap.ts';
import { XLATE_ACCESS, XLATE_STATUS } from '../../../gen/nic/types.ts';
import { Opcode } from '../../model/opcodes.ts';
import { psnAdd, psnDiff } from '../../model/psn.ts';

export interface RxHdr {
  opcode: number; destQpn: number; psn: number; ackReq: number; payloadLen: number;
  hasReth: number; rethVa: bigint; rethRkey: number; rethLen: number;
  hasAeth: number; aethSyndrome: number; aethMsn: number; srcMac: bigint; srcIp: number; srcPort: number;
}
export interface RxPkt { hdr: RxHdr; payload: Uint8Array; what: string }

export interface Mr { key: number; pd: number; va: bigint; len: bigint; access: number }

/** XLATE_STATUS of [va, va+len) with `access` against the MR map (the TLB's checks, in order). */
export function mrCheck(mrs: readonly Mr[], key: number, pd: number, va: bigint, len: number, access: number): number {
  const idx = key >>> 8;
  const byIdx = mrs.filter(r => r.key >>> 8 === idx);
  if (byIdx.length === 0) return XLATE_STATUS.BAD_KEY;
  const mr = byIdx.find(r => r.key === key);
  if (!mr) return XLATE_STATUS.BAD_TAG;
  if (mr.pd !== pd) return XLATE_STATUS.BAD_PD;
  if ((mr.access & access) !== access) return XLATE_STATUS.NO_ACCESS;
  if (va < mr.va || va + BigInt(len) > mr.va + mr.len) return XLATE_STATUS.OUT_OF_BOUNDS;
  return XLATE_STATUS.OK;
}

export interface QpState {
  state: number; expPsn: number; msn: number; pmtu: number; pd: number;
  /** rd_room bit the bench drives for this QP (constant: the model needs no timing). */
  rdRoom: boolean;
}
/** `writesBefore`: DMA writes whose status must be taken before this ReadReq leaves. */
export interface ReadReqOut { qp: number; psn: number; va: bigint; rkey: number; len: number; pd: number; pmtu: number; msn: number; pkt: string; writesBefore: number }
export interface RrespOut { hdr: RxHdr; payload: Uint8Array; pkt: string }
export interface DmaWrite { va: bigint; len: number; key: number; pd: number; access: number; bytes: Uint8Array; pkt: string }
/** `writesBefore`: DMA writes that must be complete (status taken) before this ACK leaves. */
export interface AckOut { qp: number; psn: number; syndrome: number; msn: number; pkt: string; writesBefore: number }
export interface Upd { qp: number; value: number }

export interface Expected {
  writes: DmaWrite[]; acks: AckOut[]; expUpd: Upd[]; msnUpd: Upd[]; qpErrors: number[]; drops: number;
  reads: ReadReqOut[]; rresp: RrespOut[];
  /** Counter pulses: NAK 0x60 received (QP in RTR/RTS), duplicate WRITE/READ requests. */
  seqNakRx: number; dupReq: number;
}

interface MsgState { inMsg: boolean; nakSent: boolean; err: boolean; va: bigint; key: number; len: number; off: number }

const WRITE_OPS: readonly number[] = [Opcode.RDMA_WRITE_FIRST, Opcode.RDMA_WRITE_MIDDLE, Opcode.RDMA_WRITE_LAST, Opcode.RDMA_WRITE_ONLY];
/** Requests the responder does not serve (NAK 0x61): SEND, WRITE with immediate, atomics. */
const UNSERVED: readonly number[] = [0, 1, 2, 3, 4, 5, 0x09, 0x0b, 0x13, 0x14];
const READ_RESPONSES: readonly number[] = [Opcode.RDMA_READ_RESPONSE_FIRST, Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.RDMA_READ_RESPONSE_LAST, Opcode.RDMA_READ_RESPONSE_ONLY];

/** READ response packets for `len` bytes: max(1, ceil(len / MTU)), modulo 2^24 like the PSN. */
export const readPackets = (len: number, pmtu: number): number => (len === 0 ? 1 : Math.floor((len - 1) / 2 ** pmtu) + 1);

export class ResponderModel {
  readonly exp: Expected = { writes: [], acks: [], expUpd: [], msnUpd: [], qpErrors: [], drops: 0, reads: [], rresp: [], seqNakRx: 0, dupReq: 0 };
  private readonly msg: MsgState[];
  constructor(readonly qps: QpState[], private readonly mrs: readonly Mr[]) {
    this.msg = qps.map(() => ({ inMsg: false, nakSent: false, err: false, va: 0n, key: 0, len: 0, off: 0 }));
  }

  receive(p: RxPkt): void {
    const h = p.hdr;
    const q = h.destQpn - LOCAL_QPN_BASE;
    const ctx = this.qps[q];
    const s = this.msg[q];
    const op = h.opcode;
    const isWrite = WRITE_OPS.includes(op), unserved = UNSERVED.includes(op), isAck = op === Opcode.ACKNOWLEDGE;
    const isRead = op === Opcode.RDMA_READ_REQUEST;
    if (READ_RESPONSES.includes(op)) {
      // Requester side: forwarded as received while the QP is in RTS; no PSN check here.
      if (ctx && s && ctx.state === QP_STATE.RTS && !s.err) this.exp.rresp.push({ hdr: h, payload: p.payload, pkt: p.what });
      else this.exp.drops++;
      return;
    }
    if (!ctx || !s || !(ctx.state === QP_STATE.RTR || ctx.state === QP_STATE.RTS) || s.err || !(isWrite || unserved || isAck || isRead)) {
      this.exp.drops++;
      return;
    }
    if (isAck) {
      this.exp.rresp.push({ hdr: h, payload: p.payload, pkt: p.what });
      if (h.aethSyndrome === AETH.NAK_PSN_SEQ) this.exp.seqNakRx++;
      return;
    }
    const ack = (psn: number, syndrome: number, msn = ctx.msn): void => { this.exp.acks.push({ qp: q, psn, syndrome, msn, pkt: p.what, writesBefore: this.exp.writes.length }); };
    const fatal = (syndrome: number): void => {
      ack(h.psn, syndrome);
      s.err = true;
      this.exp.qpErrors.push(q);
    };
    const read = (msn: number): void => {
      this.exp.reads.push({ qp: q, psn: h.psn, va: h.rethVa, rkey: h.rethRkey, len: h.rethLen, pd: ctx.pd, pmtu: ctx.pmtu, msn, pkt: p.what, writesBefore: this.exp.writes.length });
    };
    const d = psnDiff(h.psn, ctx.expPsn);
    if (d < 0 && (isWrite || isRead)) this.exp.dupReq++;
    if (d < 0 && isRead) {
      // A duplicate READ is answered again when there is room, else dropped.
      if (ctx.rdRoom) read(ctx.msn);
      else this.exp.drops++;
      return;
    }
    if (d < 0) return ack(psnAdd(ctx.expPsn, -1), AETH.ACK);
    if (d > 0) {
      if (!s.nakSent) ack(ctx.expPsn, AETH.NAK_PSN_SEQ);
      s.nakSent = true;
      return;
    }
    s.nakSent = false;
    if (isRead) {
      if (s.inMsg || h.payloadLen !== 0 || !h.hasReth || !ctx.rdRoom) return fatal(AETH.NAK_INVALID_REQ);
      ctx.msn = (ctx.msn + 1) & 0xff_ffff;
      read(ctx.msn);
      ctx.expPsn = psnAdd(h.psn, readPackets(h.rethLen, ctx.pmtu));
      this.exp.expUpd.push({ qp: q, value: ctx.expPsn });
      this.exp.msnUpd.push({ qp: q, value: ctx.msn });
      return;
    }
    const first = op === Opcode.RDMA_WRITE_FIRST, middle = op === Opcode.RDMA_WRITE_MIDDLE;
    const last = op === Opcode.RDMA_WRITE_LAST, only = op === Opcode.RDMA_WRITE_ONLY;
    const starts = first || only, ends = last || only;
    const seqErr = (starts && s.inMsg) || ((middle || last) && !s.inMsg);
    if (unserved || seqErr) return fatal(AETH.NAK_INVALID_REQ);
    const mtu = 1 << ctx.pmtu;
    const off = starts ? 0 : s.off;
    const dmaLen = starts ? h.rethLen : s.len;
    const plen = h.payloadLen;
    const end = off + plen;
    const lenErr = ends ? end !== dmaLen || plen > mtu || (last && plen === 0) : plen !== mtu || end >= dmaLen;
    if (lenErr) return fatal(AETH.NAK_INVALID_REQ);
    if (starts && h.rethLen !== 0 && mrCheck(this.mrs, h.rethRkey, ctx.pd, h.rethVa, h.rethLen, XLATE_ACCESS.REMOTE_WRITE) !== XLATE_STATUS.OK) {
      return fatal(AETH.NAK_REMOTE_ACCESS);
    }
    if (starts) { s.va = h.rethVa; s.key = h.rethRkey; s.len = h.rethLen; }
    if (plen > 0) {
      this.exp.writes.push({ va: s.va + BigInt(off), len: plen, key: s.key, pd: ctx.pd, access: XLATE_ACCESS.REMOTE_WRITE, bytes: p.payload, pkt: p.what });
    }
    s.off = end;
    s.inMsg = first || middle;
    ctx.expPsn = psnAdd(h.psn, 1);
    this.exp.expUpd.push({ qp: q, value: ctx.expPsn });
    if (ends) {
      ctx.msn = (ctx.msn + 1) & 0xff_ffff;
      this.exp.msnUpd.push({ qp: q, value: ctx.msn });
    }
    if (h.ackReq) ack(h.psn, AETH.ACK);
  }
}
