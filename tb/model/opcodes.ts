// RC opcodes (NIC.md "Wire format facts") and what each one carries. The packet codec and the
// segmentation helpers read this table instead of testing opcode numbers, so adding an opcode
// is one row here.

/** RC opcode numbers. The top three bits (transport) are 0 for RC. */
export const Opcode = {
  SEND_FIRST: 0x00,
  SEND_MIDDLE: 0x01,
  SEND_LAST: 0x02,
  SEND_LAST_IMM: 0x03,
  SEND_ONLY: 0x04,
  SEND_ONLY_IMM: 0x05,
  RDMA_WRITE_FIRST: 0x06,
  RDMA_WRITE_MIDDLE: 0x07,
  RDMA_WRITE_LAST: 0x08,
  RDMA_WRITE_LAST_IMM: 0x09,
  RDMA_WRITE_ONLY: 0x0a,
  RDMA_WRITE_ONLY_IMM: 0x0b,
  RDMA_READ_REQUEST: 0x0c,
  RDMA_READ_RESPONSE_FIRST: 0x0d,
  RDMA_READ_RESPONSE_MIDDLE: 0x0e,
  RDMA_READ_RESPONSE_LAST: 0x0f,
  RDMA_READ_RESPONSE_ONLY: 0x10,
  ACKNOWLEDGE: 0x11,
} as const;

export type OpcodeName = keyof typeof Opcode;
export type OpcodeValue = (typeof Opcode)[OpcodeName];

/** Which message an opcode belongs to. */
export type OpcodeKind = 'send' | 'write' | 'read-request' | 'read-response' | 'ack';
/** Where in a multi-packet message the packet sits; `single` for one-packet-only opcodes. */
export type Position = 'first' | 'middle' | 'last' | 'only' | 'single';

export interface OpcodeInfo {
  readonly code: OpcodeValue;
  readonly name: OpcodeName;
  readonly kind: OpcodeKind;
  readonly position: Position;
  /** RETH (16 bytes) follows the BTH. */
  readonly reth: boolean;
  /** AETH (4 bytes) follows the BTH. */
  readonly aeth: boolean;
  /** ImmDt (4 bytes) follows the BTH (after RETH when both). */
  readonly imm: boolean;
  /** May carry payload (zero bytes is allowed for a zero-length message). */
  readonly payload: boolean;
}

function info(name: OpcodeName, kind: OpcodeKind, position: Position,
  f: { reth?: boolean; aeth?: boolean; imm?: boolean; payload: boolean }): OpcodeInfo {
  return { code: Opcode[name], name, kind, position, reth: f.reth ?? false, aeth: f.aeth ?? false, imm: f.imm ?? false, payload: f.payload };
}

const TABLE: readonly OpcodeInfo[] = [
  info('SEND_FIRST', 'send', 'first', { payload: true }),
  info('SEND_MIDDLE', 'send', 'middle', { payload: true }),
  info('SEND_LAST', 'send', 'last', { payload: true }),
  info('SEND_LAST_IMM', 'send', 'last', { imm: true, payload: true }),
  info('SEND_ONLY', 'send', 'only', { payload: true }),
  info('SEND_ONLY_IMM', 'send', 'only', { imm: true, payload: true }),
  info('RDMA_WRITE_FIRST', 'write', 'first', { reth: true, payload: true }),
  info('RDMA_WRITE_MIDDLE', 'write', 'middle', { payload: true }),
  info('RDMA_WRITE_LAST', 'write', 'last', { payload: true }),
  info('RDMA_WRITE_LAST_IMM', 'write', 'last', { imm: true, payload: true }),
  info('RDMA_WRITE_ONLY', 'write', 'only', { reth: true, payload: true }),
  info('RDMA_WRITE_ONLY_IMM', 'write', 'only', { reth: true, imm: true, payload: true }),
  info('RDMA_READ_REQUEST', 'read-request', 'single', { reth: true, payload: false }),
  info('RDMA_READ_RESPONSE_FIRST', 'read-response', 'first', { aeth: true, payload: true }),
  info('RDMA_READ_RESPONSE_MIDDLE', 'read-response', 'middle', { payload: true }),
  info('RDMA_READ_RESPONSE_LAST', 'read-response', 'last', { aeth: true, payload: true }),
  info('RDMA_READ_RESPONSE_ONLY', 'read-response', 'only', { aeth: true, payload: true }),
  info('ACKNOWLEDGE', 'ack', 'single', { aeth: true, payload: false }),
];

const BY_CODE = new Map<number, OpcodeInfo>(TABLE.map(i => [i.code, i]));

/** Every RC opcode the model knows, in numeric order. */
export const OPCODES: readonly OpcodeInfo[] = TABLE;

/** The table row of an opcode, or undefined for one the model does not know. */
export function opcodeInfo(code: number): OpcodeInfo | undefined {
  return BY_CODE.get(code);
}

/** Like opcodeInfo, but throws: for code that builds packets and must not meet unknown ones. */
export function requireOpcode(code: number): OpcodeInfo {
  const i = BY_CODE.get(code);
  if (!i) throw new RangeError(`opcode 0x${code.toString(16).padStart(2, '0')} is not an RC opcode this model knows`);
  return i;
}

/** `RDMA_WRITE_FIRST (0x06)`, for messages. */
export function opcodeLabel(code: number): string {
  const hex = `0x${code.toString(16).padStart(2, '0')}`;
  const i = BY_CODE.get(code);
  return i ? `${i.name} (${hex})` : `unknown opcode ${hex}`;
}

/** Bytes of extension headers (RETH, ImmDt, AETH) between the BTH and the payload. */
export function extHeaderBytes(i: OpcodeInfo): number {
  return (i.reth ? 16 : 0) + (i.imm ? 4 : 0) + (i.aeth ? 4 : 0);
}

/** AETH syndromes (NIC.md). RNR NAK is 0x20 | timer code. */
export const Syndrome = {
  ACK: 0x1f,
  RNR_NAK: 0x20,
  NAK_PSN_SEQUENCE: 0x60,
  NAK_INVALID_REQUEST: 0x61,
  NAK_REMOTE_ACCESS: 0x62,
  NAK_REMOTE_OPERATIONAL: 0x63,
} as const;
