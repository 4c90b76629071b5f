// The RoCEv2 ICRC as a CRC parameter set for gen/lib's crcParallel: CRC-32 (Ethernet) with
// the eight 0xFF bytes that stand in for the InfiniBand LRH already folded into the initial
// register, so the hardware starts from a constant instead of feeding them (NIC.md §6).
// Same algorithm as tb/model/icrc.ts ICRC_PARAMS (a test checks that); its own name, so the
// two parameter objects never meet in crcParallel's per-name registry.

import { CRC32, withPrefix, type CrcParams } from '../lib/crc-model.ts';
import { crcParallel } from '../lib/crc.ts';
import { ETH_BYTES, ICRC_MASKED } from './roce.ts';

export const ROCE_ICRC: CrcParams = withPrefix(CRC32, 'roce_icrc', new Uint8Array(8).fill(0xff));

/** The parallel ICRC module (`roce_icrc_parallel_bytes<B>_skip<S>`). */
export const icrcParallel = crcParallel(ROCE_ICRC);

/** Where the ICRC coverage starts at a bus of `bytes` bytes: the beat holding the first
 *  IPv4 byte and how many leading bytes of it the CRC skips. */
export function icrcStart(bytes: number): { beat: number; skip: number } {
  return { beat: Math.floor(ETH_BYTES / bytes), skip: ETH_BYTES % bytes };
}

/** Per beat index, the byte lanes the ICRC sees as 0xFF (bit i = lane i). */
export function icrcMaskLanes(bytes: number): Map<number, bigint> {
  const out = new Map<number, bigint>();
  for (const o of ICRC_MASKED) {
    const k = Math.floor(o / bytes);
    out.set(k, (out.get(k) ?? 0n) | (1n << BigInt(o % bytes)));
  }
  return out;
}
