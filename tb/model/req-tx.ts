// Reference model of nic_req_tx: what one WQE must produce (DMA commands, packet commands,
// the ReqEntry for the ACK tracker, the read_ctx of a READ, the SQ_PSN update and the QP
// error), given the QP's context at the time. The packet cut (opcodes, PSNs, AckReq, payload
// lengths, RETH) comes from segment.ts's segmentWrite / readRequest / readRequestPsns, the
// same oracle the wire-level tests use. The fence changes only timing, not outputs: the bench
// checks it separately.
// A go-back-N restart inside a message (`resumePsn`, the tracker's send pointer): the packets
// from the resume PSN on are exactly those of the first transmission from that PSN on (same
// opcodes, RETH placement, AckReq, payload bytes); the DMA commands start at the byte of that
// packet; a READ asks again for the rest only (RETH va and length advanced, read_ctx startOff).

import { CQE_STATUS, MAX_SGE, QP_STATE, WQE_OPCODE } from '../../gen/nic/regmap.ts';
import { XLATE_ACCESS, XLATE_STATUS } from '../../gen/nic/types.ts';
import type { EthHeader, Ipv4Header, UdpHeader } from './headers.ts';
import { psnAdd } from './psn.ts';
import { readRequest, readRequestPsns, segmentWrite } from './segment.ts';
import type { DecodedWqe } from './wqe-fetch.ts';

export interface TxQp {
  state: number; sqPsn: number; pmtu: number; pd: number;
  destQpn: number; destMac: bigint; destIp: number; udpSport: number;
}
export interface TxCfg { mac: bigint; ipAddr: number; ttl: number; dscp: number }

export interface DmaCmd { va: bigint; len: number; key: number; pd: number; last: number; segLog2: number; access: number }
export interface PktCmd {
  opcode: number; destQpn: number; psn: number; ackReq: number; payloadLen: number;
  hasReth: number; rethVa: bigint; rethRkey: number; rethLen: number;
  hasAeth: number; srcMac: bigint; dstMac: bigint; srcIp: number; dstIp: number; srcPort: number; ttl: number; dscp: number;
}
export interface ReqEntryV {
  qp: number; wrId: bigint; opcode: number; length: number; firstPsn: number; lastPsn: number; signaled: number; status: number;
  /** First PSN of the whole message (= firstPsn unless it resumed inside after a rewind). */
  msgFirstPsn: number;
  /** Send-ring index of the WQE. */
  ringIndex: number;
}

export interface ReadCtxV {
  qp: number; wrId: bigint; firstPsn: number; lastPsn: number; length: number; startOff: number; pd: number; pmtu: number; numSge: number;
  sge: { addr: bigint; len: number; lkey: number }[];
}

export interface TxResult {
  dma: DmaCmd[];
  pkts: PktCmd[];
  entry: ReqEntryV;
  /** A READ that was sent: its context for the response receiver. */
  readCtx: ReadCtxV | null;
  psnUpd: { qp: number; value: number } | null;
  qpError: number | null;
}

/** The status the engine gives a WQE before any DMA (fetch status, QP state, opcode, length). */
export function checkWqe(w: DecodedWqe, qp: TxQp): number {
  if (w.status !== CQE_STATUS.SUCCESS) return w.status;
  if (qp.state === QP_STATE.ERROR) return CQE_STATUS.FLUSH_ERROR;
  if (qp.state !== QP_STATE.RTS) return CQE_STATUS.LOCAL_QP_ERROR;
  if (w.opcode !== WQE_OPCODE.RDMA_WRITE && w.opcode !== WQE_OPCODE.RDMA_READ) return CQE_STATUS.BAD_OPCODE;
  if (w.numSge > MAX_SGE) return CQE_STATUS.LOCAL_LENGTH_ERROR;
  const sum = w.sge.slice(0, w.numSge).reduce((s, g) => s + g.len, 0);
  return sum === w.length ? CQE_STATUS.SUCCESS : CQE_STATUS.LOCAL_LENGTH_ERROR;
}

export const clampPmtu = (pmtu: number): number => Math.min(12, Math.max(8, pmtu));

/** DMA commands of a WQE that passed the checks: one per SGE, or one empty SGE. `skip` bytes
 *  (a resumed WRITE: k path MTUs) are left out: SGEs wholly before them dropped, the SGE
 *  holding byte `skip` started inside. */
export function dmaCmds(w: DecodedWqe, qp: TxQp, skip = 0): DmaCmd[] {
  const segLog2 = clampPmtu(qp.pmtu);
  let sges = w.numSge === 0 ? [{ ...w.sge[0]!, len: 0 }] : w.sge.slice(0, w.numSge);
  if (skip > 0) {
    let before = 0;
    const first = sges.findIndex(g => { const end = before + g.len; if (end > skip) return true; before = end; return false; });
    sges = sges.slice(first).map((g, i) => (i === 0 ? { ...g, addr: g.addr + BigInt(skip - before), len: g.len - (skip - before) } : g));
  }
  return sges.map((g, i) => ({ va: g.addr, len: g.len, key: g.lkey, pd: qp.pd, last: i === sges.length - 1 ? 1 : 0, segLog2, access: XLATE_ACCESS.LOCAL_READ }));
}

/** Packets of the message before `resumePsn` (k), given its first PSN. */
export function resumeSkip(sqPsn: number, resumePsn: number | undefined): number {
  return resumePsn === undefined ? 0 : (resumePsn - sqPsn) & 0xffffff;
}

const noHeader = {} as EthHeader & Ipv4Header & UdpHeader;

/**
 * One WQE through the engine. `dmaStatus` answers the DMA commands (XLATE_STATUS). Updates
 * `qp` as nic_regs would (SQ_PSN, STATE on a local protection error).
 */
export function reqTxModel(w: DecodedWqe, qp: TxQp, cfg: TxCfg, dmaStatus: (cmds: DmaCmd[]) => number, resumePsn?: number): TxResult {
  const entry: ReqEntryV = {
    qp: w.qp, wrId: w.wrId, opcode: w.opcode, length: w.length, firstPsn: 0, lastPsn: 0, signaled: w.flags & 1, status: checkWqe(w, qp),
    msgFirstPsn: 0, ringIndex: w.ringIndex,
  };
  if (entry.status !== CQE_STATUS.SUCCESS) return { dma: [], pkts: [], entry, readCtx: null, psnUpd: null, qpError: null };
  const k = resumeSkip(qp.sqPsn, resumePsn);
  const skip = k * (1 << clampPmtu(qp.pmtu));
  if (w.opcode === WQE_OPCODE.RDMA_READ) return readModel(w, qp, cfg, entry, k, skip);
  const dma = dmaCmds(w, qp, skip);
  if (dmaStatus(dma) !== XLATE_STATUS.OK) {
    qp.state = QP_STATE.ERROR;
    return { dma, pkts: [], entry: { ...entry, status: CQE_STATUS.LOCAL_PROTECTION_ERROR }, readCtx: null, psnUpd: null, qpError: w.qp };
  }
  const mtu = 1 << clampPmtu(qp.pmtu);
  const wire = segmentWrite({
    path: { eth: noHeader, ip: noHeader, udp: noHeader, destQp: qp.destQpn },
    payload: new Uint8Array(w.length), mtu, startPsn: qp.sqPsn, va: w.remoteVa, rkey: w.rkey,
  });
  const pkts: PktCmd[] = wire.slice(k).map(pk => ({
    opcode: pk.bth.opcode, destQpn: pk.bth.destQp, psn: pk.bth.psn, ackReq: pk.bth.ackReq ? 1 : 0, payloadLen: pk.payload.length,
    hasReth: pk.reth ? 1 : 0, rethVa: pk.reth?.va ?? 0n, rethRkey: pk.reth?.rkey ?? 0, rethLen: pk.reth?.dmaLen ?? 0,
    hasAeth: 0, srcMac: cfg.mac, dstMac: qp.destMac, srcIp: cfg.ipAddr, dstIp: qp.destIp, srcPort: qp.udpSport, ttl: cfg.ttl, dscp: cfg.dscp,
  }));
  const next = psnAdd(qp.sqPsn, wire.length);
  const out: TxResult = { dma, pkts, entry: { ...entry, firstPsn: psnAdd(qp.sqPsn, k), lastPsn: psnAdd(next, -1), msgFirstPsn: qp.sqPsn }, readCtx: null, psnUpd: { qp: w.qp, value: next }, qpError: null };
  qp.sqPsn = next;
  return out;
}

/** A READ that passed the checks: no DMA (its SGEs receive the response), one READ REQUEST
 *  packet, one PSN per expected response packet. */
function readModel(w: DecodedWqe, qp: TxQp, cfg: TxCfg, entry: ReqEntryV, k: number, skip: number): TxResult {
  const pmtu = clampPmtu(qp.pmtu);
  const n = readRequestPsns(w.length, 1 << pmtu);
  const wireFirst = psnAdd(qp.sqPsn, k);
  const pk = readRequest({ path: { eth: noHeader, ip: noHeader, udp: noHeader, destQp: qp.destQpn }, psn: wireFirst, va: w.remoteVa + BigInt(skip), rkey: w.rkey, dmaLen: w.length - skip });
  const pkt: PktCmd = {
    opcode: pk.bth.opcode, destQpn: pk.bth.destQp, psn: pk.bth.psn, ackReq: pk.bth.ackReq ? 1 : 0, payloadLen: pk.payload.length,
    hasReth: 1, rethVa: pk.reth!.va, rethRkey: pk.reth!.rkey, rethLen: pk.reth!.dmaLen,
    hasAeth: 0, srcMac: cfg.mac, dstMac: qp.destMac, srcIp: cfg.ipAddr, dstIp: qp.destIp, srcPort: qp.udpSport, ttl: cfg.ttl, dscp: cfg.dscp,
  };
  const lastPsn = psnAdd(qp.sqPsn, n - 1), next = psnAdd(qp.sqPsn, n);
  const readCtx: ReadCtxV = {
    qp: w.qp, wrId: w.wrId, firstPsn: wireFirst, lastPsn, length: w.length, startOff: skip, pd: qp.pd, pmtu, numSge: w.numSge,
    sge: w.sge.map(g => ({ addr: g.addr, len: g.len, lkey: g.lkey })),
  };
  const msgFirstPsn = qp.sqPsn;
  qp.sqPsn = next;
  return { dma: [], pkts: [pkt], entry: { ...entry, firstPsn: wireFirst, lastPsn, msgFirstPsn }, readCtx, psnUpd: { qp: w.qp, value: next }, qpError: null };
}
