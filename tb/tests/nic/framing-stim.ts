// Stimulus and expectations for the framing tests, built on the reference model
// (tb/model/packet.ts): random TxPktCmds with the packet the model says they must become,
// and the RX verdict (drop reason or the RxPktHdr) the hardware must reach for a frame.

import { emitTop } from '../../../gen/emit/index.ts';
import type { IOOf } from '../../../gen/hdl/index.ts';
import { RX_DROP } from '../../../gen/nic/types.ts';
import { typedDesign, type Rng, type TypedDesign } from '../../core/index.ts';
import { checkIcrc, icrcMaskedOffsets } from '../../model/icrc.ts';
import type { Frame } from './frames.ts';
import { decodeRoce, encodeRoce, type DecodeReason, type RocePacket } from '../../model/packet.ts';
import { OPCODES, type OpcodeInfo } from '../../model/opcodes.ts';
import { framingTop } from './framing-top.ts';

export type FramingIO = IOOf<typeof framingTop>;
const designs = new Map<number, TypedDesign<FramingIO>>();
/** The shared test top for a data width (emitted once per process; Verilator caches builds). */
export function framingDesign(dataWidth: number): TypedDesign<FramingIO> {
  let d = designs.get(dataWidth);
  if (!d) { d = typedDesign<FramingIO>(emitTop(framingTop, { dataWidth })); designs.set(dataWidth, d); }
  return d;
}

export interface TxCmd {
  opcode: number; destQpn: number; psn: number; ackReq: number; payloadLen: number;
  hasReth: number; rethVa: bigint; rethRkey: number; rethLen: number;
  hasAeth: number; aethSyndrome: number; aethMsn: number;
  srcMac: bigint; dstMac: bigint; srcIp: number; dstIp: number; srcPort: number; ttl: number; dscp: number;
}

export interface TxCase { cmd: TxCmd; payload: Uint8Array; pkt: RocePacket; info: OpcodeInfo }

/** Payload lengths: every residue mod the bus width near the edges, and the MTU sizes. */
export function randomLen(rng: Rng, B: number): number {
  const r = rng.float();
  if (r < 0.45) return rng.int(0, 3 * B + 7);
  if (r < 0.55) return rng.pick([1, 2, 3, 4, 255, 256, 257, 1023, 1024, 1025, 4095, 4096]);
  return rng.int(0, 4096);
}

/** A random command; ImmDt opcodes carry their immediate as the AETH bytes (same layout),
 *  so every RC opcode's header layout can be produced. `id` is the IPv4 id expected. */
export function randomCase(rng: Rng, B: number, id: number, opts: { len?: number; opcode?: number } = {}): TxCase {
  const info = opts.opcode !== undefined ? OPCODES.find(o => o.code === opts.opcode)! : rng.pick(OPCODES);
  const len = info.payload ? (opts.len ?? randomLen(rng, B)) : 0;
  const payload = rng.bytes(len);
  const ext = { syn: rng.int(0, 255), msn: rng.int(0, 0xffffff) };
  const cmd: TxCmd = {
    opcode: info.code, destQpn: rng.int(0, 0xffffff), psn: rng.int(0, 0xffffff), ackReq: rng.int(0, 1), payloadLen: len,
    hasReth: info.reth ? 1 : 0, rethVa: rng.bigint(64), rethRkey: rng.u32(), rethLen: rng.u32(),
    hasAeth: info.aeth || info.imm ? 1 : 0, aethSyndrome: ext.syn, aethMsn: ext.msn,
    srcMac: rng.bigint(48), dstMac: rng.bigint(48), srcIp: rng.u32(), dstIp: rng.u32(), srcPort: rng.int(0xc000, 0xffff),
    ttl: rng.int(0, 255), dscp: rng.int(0, 63),
  };
  const pkt: RocePacket = {
    eth: { dst: Number(cmd.dstMac), src: Number(cmd.srcMac) },
    ip: { dscp: cmd.dscp, ecn: 0, id: id & 0xffff, df: true, ttl: cmd.ttl, src: cmd.srcIp, dst: cmd.dstIp },
    udp: { srcPort: cmd.srcPort },
    bth: { opcode: info.code, se: false, migReq: false, tver: 0, pkey: 0xffff, fecn: false, becn: false, destQp: cmd.destQpn, ackReq: cmd.ackReq === 1, psn: cmd.psn },
    ...(info.reth ? { reth: { va: cmd.rethVa, rkey: cmd.rethRkey, dmaLen: cmd.rethLen } } : {}),
    ...(info.aeth ? { aeth: { syndrome: ext.syn, msn: ext.msn } } : {}),
    ...(info.imm ? { immDt: ((ext.syn << 24) | ext.msn) >>> 0 } : {}),
    payload,
  };
  return { cmd, payload, pkt, info };
}

/** What the packetizer must emit: the model's frame with the ICRC bytes still zero. */
export function placeholderFrame(pkt: RocePacket): Uint8Array {
  const f = encodeRoce(pkt);
  f.fill(0, f.length - 4);
  return f;
}

export interface RxHdr {
  opcode: number; destQpn: number; psn: number; ackReq: number; payloadLen: number;
  hasReth: number; rethVa: bigint; rethRkey: number; rethLen: number;
  hasAeth: number; aethSyndrome: number; aethMsn: number; srcMac: bigint; srcIp: number; srcPort: number;
}

export function rxHdrOf(pkt: RocePacket): RxHdr {
  return {
    opcode: pkt.bth.opcode, destQpn: pkt.bth.destQp, psn: pkt.bth.psn, ackReq: pkt.bth.ackReq ? 1 : 0, payloadLen: pkt.payload.length,
    hasReth: pkt.reth ? 1 : 0, rethVa: pkt.reth?.va ?? 0n, rethRkey: pkt.reth?.rkey ?? 0, rethLen: pkt.reth?.dmaLen ?? 0,
    hasAeth: pkt.aeth ? 1 : 0, aethSyndrome: pkt.aeth?.syndrome ?? 0, aethMsn: pkt.aeth?.msn ?? 0,
    srcMac: BigInt(pkt.eth.src), srcIp: pkt.ip.src, srcPort: pkt.udp.srcPort,
  };
}

const REASON: Record<Exclude<DecodeReason, 'bad-icrc'>, number> = {
  'truncated': RX_DROP.TRUNCATED,
  'bad-ethertype': RX_DROP.BAD_ETHERTYPE,
  'bad-ip-version': RX_DROP.BAD_IP,
  'bad-ihl': RX_DROP.BAD_IP,
  'bad-ip-checksum': RX_DROP.BAD_IP_CHECKSUM,
  'ip-fragment': RX_DROP.BAD_IP,
  'not-udp': RX_DROP.NOT_ROCE,
  'wrong-port': RX_DROP.NOT_ROCE,
  'bad-length': RX_DROP.BAD_IP,
  'bad-tver': RX_DROP.NOT_ROCE,
  'unknown-opcode': RX_DROP.NOT_ROCE,
};

export type RxVerdict =
  | { kind: 'ok'; hdr: RxHdr; payload: Uint8Array }
  | { kind: 'drop'; stage: 'check' | 'parser'; reason: number; why: string };

/** The hardware's rule: the MAC's bad flag first, then the ICRC whenever it can be located
 *  (IPv4, IHL 5, total length >= 44 and inside the frame), then the parser's checks in the
 *  reference decoder's order. */
export function expectedRx(frame: Uint8Array, macBad: boolean): RxVerdict {
  if (macBad) return { kind: 'drop', stage: 'check', reason: RX_DROP.BAD_FRAME, why: 'tuser' };
  const total = frame.length >= 18 ? (frame[16]! << 8) | frame[17]! : 0;
  const locatable = frame.length >= 18 && frame[12] === 0x08 && frame[13] === 0x00 && frame[14] === 0x45 && total >= 44 && 14 + total <= frame.length;
  if (locatable && !checkIcrc(frame)) return { kind: 'drop', stage: 'check', reason: RX_DROP.BAD_ICRC, why: 'bad-icrc' };
  const r = decodeRoce(frame, { checkIcrc: false });
  if (!r.ok) return { kind: 'drop', stage: 'parser', reason: REASON[r.reason as Exclude<DecodeReason, 'bad-icrc'>], why: `${r.reason}: ${r.detail}` };
  if (r.pkt.payload.length >= 8192) return { kind: 'drop', stage: 'parser', reason: RX_DROP.BAD_IP, why: 'payload too long' };
  return { kind: 'ok', hdr: rxHdrOf(r.pkt), payload: r.pkt.payload };
}

/** Struct port values → plain comparable objects (numbers and bigints as the model has them). */
export function normHdr(v: Record<string, number | bigint>): RxHdr {
  const o: Record<string, number | bigint> = {};
  for (const [k, x] of Object.entries(v)) o[k] = k === 'rethVa' || k === 'srcMac' ? BigInt(x) : Number(x);
  return o as unknown as RxHdr;
}

/** A frame and a label for messages. */
export interface Item { frame: Frame; label: string }

/** One-fault variants of a good frame for the receive-side tests. */
export function corruptions(rng: Rng, base: Uint8Array): Item[] {
  const flip = (f: Uint8Array, off: number) => { const g = Uint8Array.from(f); g[off]! ^= 1 << rng.int(0, 7); return g; };
  const masked = icrcMaskedOffsets().map(o => o + 14);
  const covered = () => { for (;;) { const o = rng.int(14, base.length - 1); if (!masked.includes(o)) return o; } };
  const items: Item[] = [
    { frame: { bytes: flip(base, covered()), user: 0 }, label: 'bit flip in a covered byte' },
    { frame: { bytes: flip(base, rng.pick(masked)), user: 0 }, label: 'bit flip in a masked byte' },
    { frame: { bytes: base, user: 1 }, label: 'MAC bad-frame flag' },
    { frame: { bytes: base.subarray(0, rng.int(1, base.length - 1)), user: 0 }, label: 'truncated' },
    { frame: { bytes: flip(base, rng.int(0, 13)), user: 0 }, label: 'bit flip in the Ethernet header' },
  ];
  return items;
}

