// The NIC's internal interfaces: every stage talks to the next through one of these
// ready/valid streams (or an AXI-Stream of bytes), so each stage can be built and tested on
// its own. See docs/nic.md for the pipeline picture.

import { Bool, Struct, UInt } from '../hdl/index.ts';
import { axiStream, stream } from '../lib/interfaces.ts';

/** NIC-wide parameters. Every stage takes the subset it needs. */
export interface NicParams {
  /** Datapath width in bits: 64 .. 512, a power of two. */
  dataWidth: number;
  numQp: number;
  numMr: number;
}
export const defaultNicParams: NicParams = { dataWidth: 64, numQp: 4, numMr: 16 };

export const ADDR_WIDTH = 64;
export const PAGE_BITS = 12;
/** Largest path MTU: 4096 bytes; payload lengths of one packet fit in 13 bits. */
export const MAX_MTU_LOG2 = 12;

export function qpIndexWidth(numQp: number): number { return Math.max(1, Math.ceil(Math.log2(numQp))); }
export function mrIndexWidth(numMr: number): number { return Math.max(1, Math.ceil(Math.log2(numMr))); }

/** Access a translation needs (the MR's ACCESS bits it must have). Local reads need none. */
export const XLATE_ACCESS = { LOCAL_READ: 0, LOCAL_WRITE: 1, REMOTE_READ: 2, REMOTE_WRITE: 4 } as const;

/** Translation results; anything but OK means nothing may be read or written. */
export const XLATE_STATUS = { OK: 0, BAD_KEY: 1, BAD_TAG: 2, BAD_PD: 3, NO_ACCESS: 4, OUT_OF_BOUNDS: 5 } as const;

/** A translation request: check [va, va+len) against the MR named by `key` and translate the
 *  page holding `va`. Clients split transfers at 4 KiB page boundaries themselves; a request
 *  with a long `len` checks the whole range (used to validate a whole SGE before moving data). */
export const XlateReq = Struct('xlate_req', {
  key: UInt(32),
  va: UInt(ADDR_WIDTH),
  len: UInt(32),
  pd: UInt(16),
  access: UInt(3),
});
export const XlateResp = Struct('xlate_resp', {
  status: UInt(3),
  /** Physical address of `va` (page frame from the page table + va's page offset). */
  pa: UInt(ADDR_WIDTH),
});
export const xlateReq = stream(XlateReq);
export const xlateResp = stream(XlateResp);

/** Byte streams between stages: AXI-Stream with tkeep (contiguous from byte 0) and tlast. */
export function byteStream(dataWidth: number) {
  return axiStream({ dataWidth, keep: true, last: true });
}
/** Ethernet frames (MAC side): tuser = bad frame on RX. */
export function frameStream(dataWidth: number) {
  return axiStream({ dataWidth, keep: true, last: true, userWidth: 1 });
}

/** One SGE for the DMA read engine. The engine validates every SGE of a message (one
 *  translation over its whole range) before it moves any byte, then streams the message's
 *  bytes packed (no gaps between SGEs), with tlast every `segBytes` bytes and at the end. */
export const DmaReadCmd = Struct('dma_read_cmd', {
  va: UInt(ADDR_WIDTH),
  len: UInt(32),
  key: UInt(32),
  pd: UInt(16),
  /** Last SGE of the message. */
  last: Bool,
  /** log2 of the segment size (path MTU) at which tlast is raised. */
  segLog2: UInt(4),
  /** Access to check: LOCAL_READ for requester payload, REMOTE_READ for READ responses. */
  access: UInt(3),
});
/** One per message: OK, or the first failing translation's XLATE_STATUS (then no data). */
export const DmaStatus = Struct('dma_status', { status: UInt(3) });

/** One write for the DMA write engine: `len` bytes of the payload stream to [va, va+len). */
export const DmaWriteCmd = Struct('dma_write_cmd', {
  va: UInt(ADDR_WIDTH),
  len: UInt(32),
  key: UInt(32),
  pd: UInt(16),
  access: UInt(3),
});

/** Everything the packetizer needs to build one RoCEv2 frame's headers; it looks nothing up.
 *  `payloadLen` bytes follow on the payload stream (none when 0). */
export const TxPktCmd = Struct('tx_pkt_cmd', {
  opcode: UInt(8),
  destQpn: UInt(24),
  psn: UInt(24),
  ackReq: Bool,
  payloadLen: UInt(13),
  hasReth: Bool,
  rethVa: UInt(64),
  rethRkey: UInt(32),
  rethLen: UInt(32),
  hasAeth: Bool,
  aethSyndrome: UInt(8),
  aethMsn: UInt(24),
  srcMac: UInt(48),
  dstMac: UInt(48),
  srcIp: UInt(32),
  dstIp: UInt(32),
  srcPort: UInt(16),
  ttl: UInt(8),
  dscp: UInt(6),
});

/** A received RoCEv2 packet's headers, after the frame checks passed. Its payload (without
 *  pad and ICRC) follows on a byte stream, aligned to byte 0, when payloadLen > 0. */
export const RxPktHdr = Struct('rx_pkt_hdr', {
  opcode: UInt(8),
  destQpn: UInt(24),
  psn: UInt(24),
  ackReq: Bool,
  payloadLen: UInt(13),
  hasReth: Bool,
  rethVa: UInt(64),
  rethRkey: UInt(32),
  rethLen: UInt(32),
  hasAeth: Bool,
  aethSyndrome: UInt(8),
  aethMsn: UInt(24),
  srcMac: UInt(48),
  srcIp: UInt(32),
  srcPort: UInt(16),
});

/** Reasons the RX checks drop a frame (counted; no state changes). */
export const RX_DROP = { NONE: 0, BAD_ICRC: 1, BAD_ETHERTYPE: 2, BAD_IP: 3, BAD_IP_CHECKSUM: 4, NOT_ROCE: 5, TRUNCATED: 6, BAD_FRAME: 7 } as const;
