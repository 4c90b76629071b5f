// Messages cut into packets the way NIC.md §5 and §7 say: WRITE as FIRST/MIDDLE/LAST or ONLY
// with the RETH on the first packet, READ responses as FIRST/MIDDLE/LAST or ONLY with an AETH on
// all but MIDDLE and PSNs starting at the request's, and the single-packet READ request and ACK.
// These are the expected packets a scoreboard compares the NIC's output against.

import { DEFAULT_PKEY, checkUint, type Bth, type EthHeader, type Ipv4Header, type UdpHeader } from './headers.ts';
import { Opcode, Syndrome } from './opcodes.ts';
import { padFor, type RocePacket } from './packet.ts';
import { psnAdd } from './psn.ts';

/** InfiniBand path MTUs (payload bytes per packet). */
export const PATH_MTUS = [256, 512, 1024, 2048, 4096] as const;
export type PathMtu = (typeof PATH_MTUS)[number];

/** AckReq at least this often (NIC.md): never more than 63 packets in a row without it. */
export const MAX_ACKREQ_INTERVAL = 64;

/** Everything about a connection that is the same in each of its packets. The IPv4 id is used
 *  as given for every packet (DF is set, so receivers do not look at it). */
export interface RocePath {
  readonly eth: EthHeader;
  readonly ip: Ipv4Header;
  readonly udp: UdpHeader;
  /** The remote QP number. */
  readonly destQp: number;
  /** Default 0xFFFF. */
  readonly pkey?: number;
}

function checkMtu(mtu: number): void {
  if (!(PATH_MTUS as readonly number[]).includes(mtu)) throw new RangeError(`path MTU ${mtu}: use one of ${PATH_MTUS.join(', ')}`);
}

/** Packets (and PSNs) a READ of `len` bytes takes: ceil(len / MTU), at least 1. */
export function readRequestPsns(len: number, mtu: number): number {
  checkMtu(mtu); checkUint(len, 32, 'READ length');
  return Math.max(1, Math.ceil(len / mtu));
}

/** Payload slices of at most `mtu` bytes; a zero-length message is one empty slice. */
function chunks(payload: Uint8Array, mtu: number): Uint8Array[] {
  if (payload.length === 0) return [payload.subarray(0, 0)];
  const out: Uint8Array[] = [];
  for (let o = 0; o < payload.length; o += mtu) out.push(payload.subarray(o, Math.min(o + mtu, payload.length)));
  return out;
}

function bth(path: RocePath, opcode: number, psn: number, ackReq: boolean, payloadLen: number, se = false): Bth {
  return {
    opcode, se, migReq: false, padCnt: padFor(payloadLen), tver: 0, pkey: path.pkey ?? DEFAULT_PKEY,
    fecn: false, becn: false, destQp: path.destQp, ackReq, psn,
  };
}

function base(path: RocePath): Pick<RocePacket, 'eth' | 'ip' | 'udp'> {
  return { eth: path.eth, ip: path.ip, udp: path.udp };
}

export interface WriteSegmentOptions {
  readonly path: RocePath;
  readonly payload: Uint8Array;
  readonly mtu: number;
  readonly startPsn: number;
  /** Remote address and key, carried in the RETH of the first packet. */
  readonly va: bigint;
  readonly rkey: number;
  /** RDMA WRITE with immediate: LAST_IMM / ONLY_IMM carry it. */
  readonly immDt?: number;
  /** AckReq on every n-th packet as well as the last; 1..64, default 64. */
  readonly ackReqEvery?: number;
  /** Solicited event on the last packet (only meaningful with immediate data). */
  readonly solicited?: boolean;
}

/** An RDMA WRITE cut at the path MTU. PSNs run from startPsn and wrap at 2^24. */
export function segmentWrite(o: WriteSegmentOptions): RocePacket[] {
  checkMtu(o.mtu); checkUint(o.startPsn, 24, 'start PSN');
  const every = o.ackReqEvery ?? MAX_ACKREQ_INTERVAL;
  if (!Number.isInteger(every) || every < 1 || every > MAX_ACKREQ_INTERVAL) throw new RangeError(`ackReqEvery ${every}: use 1..${MAX_ACKREQ_INTERVAL}`);
  const parts = chunks(o.payload, o.mtu);
  const imm = o.immDt !== undefined;
  return parts.map((payload, i) => {
    const first = i === 0;
    const last = i === parts.length - 1;
    const opcode = first && last ? (imm ? Opcode.RDMA_WRITE_ONLY_IMM : Opcode.RDMA_WRITE_ONLY)
      : first ? Opcode.RDMA_WRITE_FIRST
        : last ? (imm ? Opcode.RDMA_WRITE_LAST_IMM : Opcode.RDMA_WRITE_LAST)
          : Opcode.RDMA_WRITE_MIDDLE;
    const ackReq = last || (i + 1) % every === 0;
    return {
      ...base(o.path),
      bth: bth(o.path, opcode, psnAdd(o.startPsn, i), ackReq, payload.length, last && (o.solicited ?? false)),
      ...(first ? { reth: { va: o.va, rkey: o.rkey, dmaLen: o.payload.length } } : {}),
      ...(last && o.immDt !== undefined ? { immDt: o.immDt } : {}),
      payload,
    };
  });
}

export interface ReadResponseOptions {
  readonly path: RocePath;
  /** The data read, all of it. */
  readonly payload: Uint8Array;
  readonly mtu: number;
  /** PSN of the READ request: the first response uses it, the rest follow. */
  readonly requestPsn: number;
  /** The responder's MSN, which already counts this READ (counted when the request was accepted). */
  readonly msn: number;
  /** Default ACK (0x1F). */
  readonly syndrome?: number;
}

/** The responder's answer to a READ: FIRST/MIDDLE/LAST or ONLY, AETH on all but MIDDLE. */
export function segmentReadResponse(o: ReadResponseOptions): RocePacket[] {
  checkMtu(o.mtu); checkUint(o.requestPsn, 24, 'request PSN'); checkUint(o.msn, 24, 'MSN');
  const parts = chunks(o.payload, o.mtu);
  const aeth = { syndrome: o.syndrome ?? Syndrome.ACK, msn: o.msn };
  return parts.map((payload, i) => {
    const first = i === 0;
    const last = i === parts.length - 1;
    const opcode = first && last ? Opcode.RDMA_READ_RESPONSE_ONLY
      : first ? Opcode.RDMA_READ_RESPONSE_FIRST
        : last ? Opcode.RDMA_READ_RESPONSE_LAST
          : Opcode.RDMA_READ_RESPONSE_MIDDLE;
    return {
      ...base(o.path),
      bth: bth(o.path, opcode, psnAdd(o.requestPsn, i), false, payload.length),
      ...(first || last ? { aeth } : {}),
      payload,
    };
  });
}

export interface ReadRequestOptions {
  readonly path: RocePath;
  readonly psn: number;
  readonly va: bigint;
  readonly rkey: number;
  readonly dmaLen: number;
  /** Default true: a READ request is the last (only) packet of its message. */
  readonly ackReq?: boolean;
}

/** A READ request. The requester's next PSN is psn + readRequestPsns(dmaLen, mtu). */
export function readRequest(o: ReadRequestOptions): RocePacket {
  return {
    ...base(o.path),
    bth: bth(o.path, Opcode.RDMA_READ_REQUEST, o.psn, o.ackReq ?? true, 0),
    reth: { va: o.va, rkey: o.rkey, dmaLen: o.dmaLen },
    payload: new Uint8Array(0),
  };
}

export interface AckOptions {
  readonly path: RocePath;
  /** The PSN being acknowledged (for a NAK 0x60: the expected PSN). */
  readonly psn: number;
  readonly msn: number;
  /** Default ACK (0x1F). */
  readonly syndrome?: number;
}

/** An ACKNOWLEDGE packet (ACK, RNR NAK or NAK, by syndrome). */
export function ackPacket(o: AckOptions): RocePacket {
  return {
    ...base(o.path),
    bth: bth(o.path, Opcode.ACKNOWLEDGE, o.psn, false, 0),
    aeth: { syndrome: o.syndrome ?? Syndrome.ACK, msn: o.msn },
    payload: new Uint8Array(0),
  };
}
