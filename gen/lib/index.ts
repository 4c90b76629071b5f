// nicgen/lib: the reusable hardware (interfaces, FIFOs, skid buffer, arbiters, CRC).
export * from './interfaces.ts';
export { syncFifo, syncFifoRam, type FifoParams } from './fifo.ts';
export { skidBuffer, type SkidParams } from './skid.ts';
export { syncBits, syncHandshake, syncChain, type SyncBitsParams, type SyncHandshakeParams } from './cdc.ts';
export { asyncFifo, asyncFifoRam, type AsyncFifoParams } from './async-fifo.ts';
export { rrArbiter, wrrArbiter, type RrParams, type WrrParams } from './arbiter.ts';
export * from './crc.ts';
export { CrcModel, CrcRunning, withPrefix, reflectBits } from './crc-model.ts';
export { creditGate, type CreditGate, type CreditGateOptions } from './credit-gate.ts';
export { indexWidth, log2Exact, positiveInt } from './util.ts';
