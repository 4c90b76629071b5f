// nicgen/model: simulator-free RDMA reference models — RoCEv2 packets, ICRC, pcap files,
// host memory, the NIC driver and the scoreboard (they check the RTL, a capture, or any
// other implementation).
export * from './headers.ts';
export * from './opcodes.ts';
export * from './packet.ts';
export * from './icrc.ts';
export * from './pcap.ts';
export * from './host-memory.ts';
export * from './driver.ts';
export * from './scoreboard.ts';
