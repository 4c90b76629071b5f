// Bus models and protocol checkers for testbenches (tb/bfm).
export { ClockPhases, GatedSampler } from './clock-phases.ts';
export { ProtocolError, BusResponseError } from './protocol-error.ts';
export type { Pause } from './pause.ts';
export type { Latency } from './latency.ts';
export type {
  Bits, Readable, Drivable, AxisInPorts, AxisOutPorts, AxiSlavePorts, AxiMasterPorts, AxiLiteSlavePorts,
  AxiWatchPorts, AxiLiteWatchPorts,
} from './ports.ts';
export { watchChannel, type ChannelPorts, type ChannelWatch, type WatchOptions } from './channel-checker.ts';
export { ChannelDriver, type DriverPorts } from './channel-driver.ts';
export { ChannelReceiver, type ReceiverPorts } from './channel-receiver.ts';
export { watchAxiStream, type AxisBeat, type AxisWatchOptions, type AxisWatchPorts } from './axis-checker.ts';
export { AxiStreamSource, type AxisSendOptions, type AxisSourceOptions } from './axis-source.ts';
export { AxiStreamSink, type AxisPacket, type AxisSinkOptions, type RecvOptions } from './axis-sink.ts';
export { BURST, BeatCursor, beatAddress, beatLanes, burstBytes, checkBurst, describeBurst, laneMask, type AxiBurst, type BurstName, type BurstViolation } from './axi-burst.ts';
export { AxiChecker, type AxiCheckerOptions, type AxiStats } from './axi-checker.ts';
export type { ByteMemory } from './byte-memory.ts';
export { AxiRam, type AxiRamOptions, type AxiRamStats } from './axi-ram.ts';
export { AxiMaster, AxiOp, type AxiMasterOptions, type BurstRequest, type ReadResult, type WriteRequest, type WriteResult } from './axi-master.ts';
export { AxiLiteChecker, type AxiLiteCheckerOptions } from './axil-checker.ts';
export { AxiLiteMaster, AXI_RESP, type AccessOptions, type AxiLiteMasterOptions, type AxiRespName } from './axil-master.ts';
export { StreamSource, StreamSink, StreamMonitor, type StreamInPorts, type StreamOutPorts, type StreamWatchPorts, type StreamItem, type StreamOptions } from './stream.ts';
