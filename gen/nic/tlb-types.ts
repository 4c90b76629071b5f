// Additions to types.ts for nic_tlb (kept here because types.ts is shared and frozen).

import { XLATE_STATUS } from './types.ts';

/** XLATE_STATUS plus the one outcome types.ts lacks: the page-table read returned an AXI
 *  error (SLVERR/DECERR), so there is no physical address. Fits the 3-bit status field. */
export const XLATE_STATUS_EXT = { ...XLATE_STATUS, PT_ERROR: 6 } as const;

/** A page table is read in lines of this many 8-byte entries (one 64-byte burst). */
export const PTES_PER_LINE = 8;
export const LINE_BYTES = PTES_PER_LINE * 8;

export type TlbParams = {
  /** Datapath (AXI) width in bits: 64..512, a power of two. */
  dataWidth: number;
  numMr: number;
  /** Translation clients (default 2: DMA read, DMA write). */
  numClients: number;
  /** TLB lines (a power of two >= 2); each holds PTES_PER_LINE entries (their PFNs in the
   *  line memory, the tags in registers: tlb.ts). */
  lines: number;
  /** Parked requests (misses waiting for their line, requests queued behind a parked request
   *  of the same client, and without `respSlice` answers the client did not take at once);
   *  any count >= 1. Default 3: two misses (one per fill engine) and a hit can be parked. */
  missSlots: number;
  /** A register slice (skid buffer) on every answer port: +1 cycle per answer. Without it
   *  (nic_top, whose answer FIFOs always have room) answers leave from L or a parked entry. */
  respSlice: boolean;
  /** AXI ID width of the page-table read port (>= 1: the two fill engines use IDs 0 and 1). */
  idWidth: number;
};
export const tlbDefaults: TlbParams = { dataWidth: 64, numMr: 16, numClients: 2, lines: 8, missSlots: 3, respSlice: false, idWidth: 1 };
