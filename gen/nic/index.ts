// nicgen/nic: the RoCEv2 NIC generators. `nicTop` is the whole NIC (AXI4-Lite control, AXI4
// host memory, AXI-Stream Ethernet); `nicPair` two of them back to back, as the benches use.
// Parameters: docs/nic-top.md; register map: docs/nic-control-path.md.
export { nicTop, nicPair } from './nic-top.ts';
export { defaultNicParams, type NicParams } from './types.ts';
export { nicRegs } from './regs.ts';
export { nicWqeFetch } from './wqe-fetch.ts';
export { nicTlb } from './tlb.ts';
export { nicAxiRdMux, nicAxiWrMux } from './axi-mux.ts';
export { nicDmaRead } from './dma-read.ts';
export { nicDmaWrite } from './dma-write.ts';
export { packetizer } from './packetizer.ts';
export { icrcInsert } from './icrc-insert.ts';
export { icrcCheck } from './icrc-check.ts';
export { rxParser } from './rx-parser.ts';
export { nicCompletion } from './completion.ts';
export { nicReadRespRx } from './read-resp-rx.ts';
