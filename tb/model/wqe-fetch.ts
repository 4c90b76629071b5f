// Reference model for nic_wqe_fetch: WQE encoding into the send ring (from regmap.ts
// WQE_FIELDS), the decoded form the stage must produce, and its burst-planning rule.

import { CQE_STATUS, MAX_SGE, QP_STATE, WQE_BYTES, WQE_FIELDS, WQE_OPCODE, fieldOf } from '../../gen/nic/regmap.ts';
import type { Rng } from '../core/rng.ts';

export interface SgeFields { addr: bigint; len: number; lkey: number }
export interface WqeFields {
  opcode: number; flags: number; numSge: number; length: number;
  wrId: bigint; remoteVa: bigint; rkey: number; sge: SgeFields[];
}
/** What the stage emits for one WQE (field names as in gen/nic/wqe.ts). */
export interface DecodedWqe extends WqeFields { qp: number; ringIndex: number; status: number }

function put(buf: Uint8Array, name: typeof WQE_FIELDS[number]['name'], v: bigint | number): void {
  const f = fieldOf(WQE_FIELDS, name);
  let x = BigInt(v);
  for (let k = 0; k < f.size; k++) { buf[f.offset + k] = Number(x & 0xffn); x >>= 8n; }
}

/** The 128 bytes of a WQE; reserved bytes are filled with `filler` (garbage the NIC ignores). */
export function encodeWqe(w: WqeFields, filler?: Uint8Array): Uint8Array {
  const buf = filler ? Uint8Array.from(filler.subarray(0, WQE_BYTES)) : new Uint8Array(WQE_BYTES);
  put(buf, 'opcode', w.opcode); put(buf, 'flags', w.flags); put(buf, 'num_sge', w.numSge); put(buf, 'length', w.length);
  put(buf, 'wr_id', w.wrId); put(buf, 'remote_va', w.remoteVa); put(buf, 'rkey', w.rkey);
  for (let i = 0; i < MAX_SGE; i++) {
    const s = w.sge[i]!;
    put(buf, `sge${i}_addr` as never, s.addr); put(buf, `sge${i}_len` as never, s.len); put(buf, `sge${i}_lkey` as never, s.lkey);
  }
  return buf;
}

export function randomWqe(rng: Rng, pBadOpcode = 0): WqeFields {
  const opcode = rng.bool(pBadOpcode) ? rng.int(2, 255) : rng.pick([WQE_OPCODE.RDMA_WRITE, WQE_OPCODE.RDMA_READ]);
  return {
    opcode, flags: rng.int(0, 255), numSge: rng.int(0, 255), length: rng.u32(),
    wrId: rng.bigint(64), remoteVa: rng.bigint(64), rkey: rng.u32(),
    sge: Array.from({ length: MAX_SGE }, () => ({ addr: rng.bigint(64), len: rng.u32(), lkey: rng.u32() })),
  };
}

/** The status the stage gives a WQE (precedence: read error, QP state, opcode). */
export function wqeStatus(opcode: number, qpState: number, readError: boolean): number {
  if (readError) return CQE_STATUS.LOCAL_QP_ERROR;
  if (qpState === QP_STATE.ERROR) return CQE_STATUS.FLUSH_ERROR;
  if (qpState !== QP_STATE.RTS) return CQE_STATUS.LOCAL_QP_ERROR;
  return opcode === WQE_OPCODE.RDMA_WRITE || opcode === WQE_OPCODE.RDMA_READ ? CQE_STATUS.SUCCESS : CQE_STATUS.BAD_OPCODE;
}

/** WQEs in the next burst for a QP: at most 4, the posted ones, to the ring end, to 4 KiB. */
export function burstWqes(sqBase: bigint, sizeLog2: number, pi: number, ci: number): number {
  const pending = (pi - ci) & 0xffff;
  const slot = ci & ((1 << sizeLog2) - 1);
  const addr = sqBase + BigInt(slot * WQE_BYTES);
  const toPage = (4096 - Number(addr & 0xfffn)) / WQE_BYTES;
  return Math.min(4, pending, (1 << sizeLog2) - slot, toPage);
}

/** Normalises the DUT's decoded value (numbers/bigints) for comparison with the model. */
export function normaliseWqe(v: Record<string, unknown>): DecodedWqe {
  const n = (x: unknown): number => Number(x as number | bigint);
  const b = (x: unknown): bigint => BigInt(x as number | bigint);
  const sge = (v['sge'] as Record<string, unknown>[]).map(s => ({ addr: b(s['addr']), len: n(s['len']), lkey: n(s['lkey']) }));
  return {
    qp: n(v['qp']), ringIndex: n(v['ringIndex']), status: n(v['status']), opcode: n(v['opcode']), flags: n(v['flags']),
    numSge: n(v['numSge']), length: n(v['length']), wrId: b(v['wrId']), remoteVa: b(v['remoteVa']), rkey: n(v['rkey']), sge,
  };
}
