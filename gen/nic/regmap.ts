// The NIC's software interface, defined once: the control-register map, and the WQE and CQE
// layouts in host memory. The hardware generators, the TS host driver model and the tables
// in docs/nic.md are all made from these objects, so they cannot drift apart.
//
// Everything is little-endian. Registers are 32 bits on AXI4-Lite with AXIL_ADDR_WIDTH-bit
// (20-bit) byte addresses.

export type Access = 'rw' | 'ro' | 'w1c' | 'wo';

export interface RegField {
  readonly name: string;
  /** Byte offset inside its block. */
  readonly offset: number;
  /** Bits used (from bit 0). */
  readonly width: number;
  readonly access: Access;
  readonly reset: number;
  readonly doc: string;
}

/** Global registers at 0x0000. */
export const GLOBAL_REGS = [
  { name: 'ID', offset: 0x000, width: 32, access: 'ro', reset: 0x4e494331, doc: "identification, 'NIC1'" },
  { name: 'CONFIG', offset: 0x004, width: 1, access: 'rw', reset: 0, doc: 'bit 0: enable the NIC' },
  { name: 'MAC_LO', offset: 0x008, width: 32, access: 'rw', reset: 0, doc: 'own MAC address, bits 31:0' },
  { name: 'MAC_HI', offset: 0x00c, width: 16, access: 'rw', reset: 0, doc: 'own MAC address, bits 47:32' },
  { name: 'IP_ADDR', offset: 0x010, width: 32, access: 'rw', reset: 0, doc: 'own IPv4 address' },
  { name: 'IP_CFG', offset: 0x014, width: 14, access: 'rw', reset: 64, doc: 'bits 7:0 TTL, bits 13:8 DSCP' },
  { name: 'IRQ_STATUS', offset: 0x018, width: 1, access: 'w1c', reset: 0, doc: 'bit 0: completions written (write 1 to clear)' },
  { name: 'IRQ_MOD', offset: 0x01c, width: 32, access: 'rw', reset: 0x0100_0001, doc: 'bits 5:0 completions per interrupt (1..32), bits 31:16 timer in cycles (0 = off)' },
  { name: 'TLB_HITS', offset: 0x020, width: 32, access: 'ro', reset: 0, doc: 'address translations served from the TLB' },
  { name: 'TLB_MISSES', offset: 0x024, width: 32, access: 'ro', reset: 0, doc: 'address translations that read a page-table entry' },
  { name: 'RX_DROP_ICRC', offset: 0x028, width: 32, access: 'ro', reset: 0, doc: 'received frames dropped for a bad ICRC' },
  { name: 'RX_DROP_OTHER', offset: 0x02c, width: 32, access: 'ro', reset: 0, doc: 'received frames dropped for any other reason (bad header, unknown QP, ...)' },
  { name: 'TX_FRAMES', offset: 0x030, width: 32, access: 'ro', reset: 0, doc: 'frames transmitted' },
  { name: 'RX_FRAMES', offset: 0x034, width: 32, access: 'ro', reset: 0, doc: 'frames received and accepted' },
  { name: 'RETX_PKTS', offset: 0x038, width: 32, access: 'ro', reset: 0, doc: 'request packets retransmitted (go-back-N resends: WRITE packets and READ REQUESTs whose PSN was sent before)' },
  { name: 'ACK_TIMEOUTS', offset: 0x03c, width: 32, access: 'ro', reset: 0, doc: 'local ACK timeouts that expired (each one starts a retry or ends the QP with RETRY_EXCEEDED)' },
  { name: 'SEQ_NAK_TX', offset: 0x040, width: 32, access: 'ro', reset: 0, doc: 'NAKs 0x60 (PSN sequence error) sent by the responder' },
  { name: 'SEQ_NAK_RX', offset: 0x044, width: 32, access: 'ro', reset: 0, doc: 'NAKs 0x60 received for a QP in RTR/RTS (ghosts included; implied NAKs of READ responses are not counted)' },
  { name: 'DUP_REQ_RX', offset: 0x048, width: 32, access: 'ro', reset: 0, doc: 'duplicate requests received (WRITE packets and READ REQUESTs with a PSN behind EXP_PSN)' },
  { name: 'RETRY_EXC', offset: 0x04c, width: 32, access: 'ro', reset: 0, doc: 'work requests completed with RETRY_EXCEEDED or RNR_RETRY_EXCEEDED' },
] as const satisfies readonly RegField[];

/** Byte-address bits of the register map on AXI4-Lite: 1 MiB, so that 1,024 QPs (QP_BASE ..
 *  0x41000) and 4,096 MRs (MR_BASE .. 0xC0000) fit, with room to spare for twice as many. */
export const AXIL_ADDR_WIDTH = 20;
/** The register map's size in bytes. */
export const AXIL_SPACE = 2 ** AXIL_ADDR_WIDTH;

/** Per-QP registers at QP_BASE + qp * QP_STRIDE. */
export const QP_BASE = 0x1000;
export const QP_STRIDE = 0x100;
export const QP_REGS = [
  { name: 'STATE', offset: 0x00, width: 3, access: 'rw', reset: 0, doc: '0 RESET, 1 INIT, 2 RTR, 3 RTS, 4 ERROR (hardware moves it to ERROR)' },
  { name: 'DEST_QPN', offset: 0x04, width: 24, access: 'rw', reset: 0, doc: 'QP number at the peer' },
  { name: 'SQ_PSN', offset: 0x08, width: 24, access: 'rw', reset: 0, doc: 'next PSN the requester sends' },
  { name: 'EXP_PSN', offset: 0x0c, width: 24, access: 'rw', reset: 0, doc: 'next PSN the responder expects' },
  { name: 'PMTU', offset: 0x10, width: 4, access: 'rw', reset: 10, doc: 'log2 of the path MTU, 8 (256) .. 12 (4096)' },
  { name: 'DEST_MAC_LO', offset: 0x14, width: 32, access: 'rw', reset: 0, doc: 'peer MAC address, bits 31:0' },
  { name: 'DEST_MAC_HI', offset: 0x18, width: 16, access: 'rw', reset: 0, doc: 'peer MAC address, bits 47:32' },
  { name: 'DEST_IP', offset: 0x1c, width: 32, access: 'rw', reset: 0, doc: 'peer IPv4 address' },
  { name: 'PD', offset: 0x20, width: 16, access: 'rw', reset: 0, doc: 'protection domain' },
  { name: 'RETRY', offset: 0x24, width: 16, access: 'rw', reset: 0x1473, doc: 'bits 2:0 retry count (0..7 retries), bits 6:4 RNR retry count (7 = infinite), bits 12:8 local ACK timeout L: 2^L cycles, 0 = off (IBTA t = L - 10 at 250 MHz); read while the QP is not RTS' },
  { name: 'SQ_BASE_LO', offset: 0x28, width: 32, access: 'rw', reset: 0, doc: 'send queue ring, physical address bits 31:0 (128-byte aligned)' },
  { name: 'SQ_BASE_HI', offset: 0x2c, width: 32, access: 'rw', reset: 0, doc: 'send queue ring, physical address bits 63:32' },
  { name: 'SQ_SIZE_LOG2', offset: 0x30, width: 4, access: 'rw', reset: 4, doc: 'log2 of the number of WQEs in the ring (1..12; the ring stays inside 4 KiB pages it was given)' },
  { name: 'SQ_PI', offset: 0x34, width: 16, access: 'rw', reset: 0, doc: 'doorbell: producer index (free-running, 16 bits); writing it starts work' },
  { name: 'SQ_CI', offset: 0x38, width: 16, access: 'ro', reset: 0, doc: 'consumer index: WQEs the NIC has fetched' },
  { name: 'CQ_BASE_LO', offset: 0x3c, width: 32, access: 'rw', reset: 0, doc: 'completion ring, physical address bits 31:0 (32-byte aligned)' },
  { name: 'CQ_BASE_HI', offset: 0x40, width: 32, access: 'rw', reset: 0, doc: 'completion ring, physical address bits 63:32' },
  { name: 'CQ_SIZE_LOG2', offset: 0x44, width: 4, access: 'rw', reset: 4, doc: 'log2 of the number of CQEs in the ring' },
  { name: 'CQ_PI', offset: 0x48, width: 16, access: 'ro', reset: 0, doc: 'CQEs written by the NIC (free-running)' },
  { name: 'CQ_CI', offset: 0x4c, width: 16, access: 'rw', reset: 0, doc: 'CQEs consumed by software (the NIC never overwrites an unconsumed CQE)' },
  { name: 'UDP_SPORT', offset: 0x50, width: 16, access: 'rw', reset: 0xc000, doc: 'UDP source port of this QP, 0xC000..0xFFFF' },
  { name: 'MSN', offset: 0x54, width: 24, access: 'ro', reset: 0, doc: 'responder message sequence number' },
] as const satisfies readonly RegField[];

/** Per-MR registers at MR_BASE + mr * MR_STRIDE. A key is (mr index << 8) | tag. */
export const MR_BASE = 0x8_0000;
export const MR_STRIDE = 0x40;
export const MR_REGS = [
  { name: 'TAG', offset: 0x00, width: 8, access: 'rw', reset: 0, doc: 'key tag: low 8 bits of valid keys (bump it on re-registration so stale keys fail)' },
  { name: 'PD', offset: 0x04, width: 16, access: 'rw', reset: 0, doc: 'protection domain' },
  { name: 'ACCESS', offset: 0x08, width: 32, access: 'rw', reset: 0, doc: 'bit 0 local write, bit 1 remote read, bit 2 remote write, bit 31 valid' },
  { name: 'VA_LO', offset: 0x0c, width: 32, access: 'rw', reset: 0, doc: 'first virtual address, bits 31:0' },
  { name: 'VA_HI', offset: 0x10, width: 32, access: 'rw', reset: 0, doc: 'first virtual address, bits 63:32' },
  { name: 'LEN_LO', offset: 0x14, width: 32, access: 'rw', reset: 0, doc: 'length in bytes, bits 31:0' },
  { name: 'LEN_HI', offset: 0x18, width: 32, access: 'rw', reset: 0, doc: 'length in bytes, bits 63:32' },
  { name: 'PT_BASE_LO', offset: 0x1c, width: 32, access: 'rw', reset: 0, doc: 'page table, physical address bits 31:0: one 8-byte PA per 4 KiB page from VA & ~0xFFF' },
  { name: 'PT_BASE_HI', offset: 0x20, width: 32, access: 'rw', reset: 0, doc: 'page table, physical address bits 63:32' },
] as const satisfies readonly RegField[];

export const ACCESS = { LOCAL_WRITE: 1, REMOTE_READ: 2, REMOTE_WRITE: 4, VALID: 0x8000_0000 } as const;
export const QP_STATE = { RESET: 0, INIT: 1, RTR: 2, RTS: 3, ERROR: 4 } as const;

// ---- host-memory structures --------------------------------------------------------------

export interface LayoutField {
  readonly name: string;
  readonly offset: number;
  /** Bytes. */
  readonly size: number;
  readonly doc: string;
}

/** A send-queue entry: 128 bytes, up to MAX_SGE scatter/gather entries. */
export const WQE_BYTES = 128;
export const MAX_SGE = 4;
export const WQE_FIELDS = [
  { name: 'opcode', offset: 0x00, size: 1, doc: 'WQE_OPCODE: 0 RDMA WRITE, 1 RDMA READ; anything else completes with BAD_OPCODE' },
  { name: 'flags', offset: 0x01, size: 1, doc: 'bit 0 signaled (write a CQE on success), bit 1 fence (wait for earlier READs)' },
  { name: 'num_sge', offset: 0x02, size: 1, doc: `scatter/gather entries used, 0..${MAX_SGE}` },
  { name: 'length', offset: 0x04, size: 4, doc: 'message length in bytes: the sum of the SGE lengths' },
  { name: 'wr_id', offset: 0x08, size: 8, doc: 'software cookie, returned in the CQE' },
  { name: 'remote_va', offset: 0x10, size: 8, doc: 'remote virtual address' },
  { name: 'rkey', offset: 0x18, size: 4, doc: 'remote key' },
  ...Array.from({ length: MAX_SGE }, (_, i) => [
    { name: `sge${i}_addr`, offset: 0x20 + 16 * i, size: 8, doc: `SGE ${i}: local virtual address` },
    { name: `sge${i}_len`, offset: 0x28 + 16 * i, size: 4, doc: `SGE ${i}: length in bytes` },
    { name: `sge${i}_lkey`, offset: 0x2c + 16 * i, size: 4, doc: `SGE ${i}: local key` },
  ]).flat(),
] as const satisfies readonly LayoutField[];

export const WQE_OPCODE = { RDMA_WRITE: 0, RDMA_READ: 1 } as const;
export const WQE_FLAG = { SIGNALED: 1, FENCE: 2 } as const;

/** A completion-queue entry: 32 bytes. The `phase` bit flips on every pass around the ring,
 *  so software sees a new CQE without reading CQ_PI. */
export const CQE_BYTES = 32;
export const CQE_FIELDS = [
  { name: 'wr_id', offset: 0x00, size: 8, doc: 'wr_id of the WQE' },
  { name: 'byte_len', offset: 0x08, size: 4, doc: 'bytes transferred' },
  { name: 'qp', offset: 0x0c, size: 2, doc: 'local QP index' },
  { name: 'opcode', offset: 0x0e, size: 1, doc: 'WQE_OPCODE of the WQE' },
  { name: 'status', offset: 0x0f, size: 1, doc: 'CQE_STATUS' },
  { name: 'syndrome', offset: 0x10, size: 1, doc: 'AETH syndrome of the NAK that caused an error, else 0' },
  { name: 'phase', offset: 0x1f, size: 1, doc: 'bit 0: 1 on the first pass around the ring, 0 on the second, ...' },
] as const satisfies readonly LayoutField[];

export const CQE_STATUS = {
  SUCCESS: 0,
  LOCAL_LENGTH_ERROR: 1,
  LOCAL_QP_ERROR: 2,
  LOCAL_PROTECTION_ERROR: 3,
  REMOTE_ACCESS_ERROR: 4,
  REMOTE_INVALID_REQUEST: 5,
  REMOTE_OPERATIONAL_ERROR: 6,
  RETRY_EXCEEDED: 7,
  FLUSH_ERROR: 8,
  BAD_OPCODE: 9,
  RNR_RETRY_EXCEEDED: 10,
} as const;

/** Fields of the per-QP RETRY register (IBTA retry_cnt, rnr_retry, local ACK timeout). */
export const RETRY_FIELDS = {
  /** bits 2:0: retries after a timeout or sequence NAK (IBTA retry_cnt; 7 is seven retries). */
  RETRY_CNT: { lo: 0, width: 3 },
  /** bits 6:4: retries after an RNR NAK; 7 = retry for ever (IBTA rnr_retry). */
  RNR_RETRY: { lo: 4, width: 3 },
  /** bits 12:8: local ACK timeout, 2^L cycles; 0 = no timeout. IBTA's 4.096 us x 2^t is
   *  2^(t + 10) cycles at 250 MHz, so L = t + 10. */
  ACK_TIMEOUT: { lo: 8, width: 5 },
} as const;
/** rnr_retry value that never runs out (IBTA). */
export const RNR_RETRY_INFINITE = 7;
/** The RETRY register value for a retry count, an RNR retry count and a timeout exponent. */
export function retryReg(o: { retryCnt: number; rnrRetry?: number; timeoutLog2: number }): number {
  return (o.retryCnt & 7) | ((o.rnrRetry ?? RNR_RETRY_INFINITE) & 7) << 4 | (o.timeoutLog2 & 31) << 8;
}

export function fieldOf<T extends readonly LayoutField[]>(fields: T, name: T[number]['name']): LayoutField {
  const f = fields.find(x => x.name === name);
  if (!f) throw new Error(`no field ${name}`);
  return f;
}
