// Every top the project emits into rtl/. `nicgen gen` writes these; `nicgen lint` checks them.

import { top, type TopEntry } from './emit/project.ts';
import { rrArbiter, wrrArbiter } from './lib/arbiter.ts';
import { asyncFifo, asyncFifoRam } from './lib/async-fifo.ts';
import { syncBits, syncHandshake } from './lib/cdc.ts';
import { CRC32, crcParallel } from './lib/crc.ts';
import { syncFifo, syncFifoRam } from './lib/fifo.ts';
import { skidBuffer } from './lib/skid.ts';
import { nicAxiRdMux, nicAxiWrMux } from './nic/axi-mux.ts';
import { nicCompletion } from './nic/completion.ts';
import { nicDmaRead } from './nic/dma-read.ts';
import { nicDmaWrite } from './nic/dma-write.ts';
import { nicTop } from './nic/nic-top.ts';
import { icrcCheck } from './nic/icrc-check.ts';
import { icrcInsert } from './nic/icrc-insert.ts';
import { packetizer } from './nic/packetizer.ts';
import { nicRegs } from './nic/regs.ts';
import { nicReadRespRx } from './nic/read-resp-rx.ts';
import { rxParser } from './nic/rx-parser.ts';
import { nicTlb } from './nic/tlb.ts';
import { nicWqeFetch } from './nic/wqe-fetch.ts';

const libTops: readonly TopEntry[] = [
  top(syncFifo, { width: 64, depth: 16 }, 'synchronous FIFO, register storage'),
  top(syncFifoRam, { width: 64, depth: 512 }, 'synchronous FIFO, block-RAM storage'),
  top(syncFifo, { width: 64, depth: 16, bypass: true }, 'synchronous FIFO, register storage, fall-through when empty'),
  top(syncFifoRam, { width: 64, depth: 512, bypass: true }, 'synchronous FIFO, block-RAM storage, fall-through when empty'),
  top(skidBuffer, { width: 64 }, 'skid buffer (full-throughput register slice)'),
  top(rrArbiter, { n: 4 }, 'round-robin arbiter'),
  top(wrrArbiter, { n: 4 }, 'weighted round-robin arbiter'),
  top(crcParallel(CRC32), { bytes: 8 }, 'parallel CRC32, 64-bit word with byte enables'),
  top(crcParallel(CRC32), { bytes: 64 }, 'parallel CRC32, 512-bit word with byte enables'),
  top(syncBits, {}, 'two-flop synchronizer for single bits (clock-domain crossing)'),
  top(syncHandshake, {}, 'request/acknowledge handshake synchronizer for a slow 32-bit bus'),
  top(asyncFifo, { width: 64, depth: 16 }, 'asynchronous (two-clock) FIFO, register storage, Gray-coded pointers'),
  top(asyncFifoRam, { width: 64, depth: 512 }, 'asynchronous (two-clock) FIFO, dual-clock block RAM, Gray-coded pointers'),
];

/** NIC pipeline stages at the default configuration (64-bit datapath, 4 QPs, 16 MRs). */
const nicStageTops: readonly TopEntry[] = [
  top(nicRegs, {}, 'control registers and doorbells (AXI4-Lite)'),
  top(nicWqeFetch, {}, 'WQE fetch with weighted round-robin among QPs'),
  top(nicTlb, {}, 'address translation with key/PD/access/bounds checks and a TLB'),
  top(nicAxiRdMux, {}, 'AXI4 read interconnect'),
  top(nicAxiWrMux, {}, 'AXI4 write interconnect'),
  top(nicDmaRead, {}, 'DMA read engine (scatter/gather, any alignment)'),
  top(nicDmaWrite, {}, 'DMA write engine (any alignment, wstrb)'),
  top(packetizer, {}, 'RoCEv2 packetizer (Ethernet/IPv4/UDP/BTH/RETH/AETH)'),
  top(icrcInsert, {}, 'ICRC generation in line'),
  top(icrcCheck, {}, 'RX frame buffer with ICRC check'),
  top(rxParser, {}, 'RX header parser and validation'),
  top(nicCompletion, {}, 'CQE writer and interrupt moderation'),
  top(nicReadRespRx, {}, 'READ response receiver (requester side)'),
];

/** The whole NIC (64-bit datapath; dataWidth 512 also elaborates and lints). */
const nicTops: readonly TopEntry[] = [
  top(nicTop, {}, 'RoCEv2 NIC: every stage behind AXI4-Lite, AXI4 host memory and AXI-Stream Ethernet'),
];

export const tops: readonly TopEntry[] = [...libTops, ...nicStageTops, ...nicTops];
