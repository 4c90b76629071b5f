// A seeded generator of hostile RoCEv2 frames, for a responder (and requester) that must
// survive any peer: well-formed frames with a valid ICRC and arbitrary header values
// (random and out-of-sequence opcodes, PSNs, QPNs, pad counts; RETH VA / rkey / length at
// their edges: 0, 2^31, 2^32-1, VA + length wrapping 2^64; AETH syndromes and MSNs), plausible
// WRITE messages and READs at the expected PSN (so the checks behind the PSN check run too),
// bursts of READs beyond the responder's limit, ACKs and READ RESPONSEs for PSNs never sent,
// and frames that are truncated, over-long, bad-ICRC or carry a broken header field.
//
// It knows what a peer could know (`HostileWorld`): the QPNs, each QP's expected and send PSN
// (read from the NIC now and then by the caller), the keys and ranges of MRs. QPs marked
// `live` carry real traffic that must complete exactly: they only get frames no correct NIC
// may act on (broken frames, requests far behind or ahead of the window, ACKs and responses
// for PSNs far from anything sent), never a frame a peer in sync could legitimately send.

import type { Rng } from '../core/rng.ts';
import { changeHeaderField, padAfter, truncate, breakIcrc } from './frame-mutate.ts';
import { Opcode, OPCODES, opcodeInfo, Syndrome } from './opcodes.ts';
import { encodeRoce, type RocePacket } from './packet.ts';
import { psnAdd } from './psn.ts';
import { segmentReadResponse, segmentWrite, type RocePath } from './segment.ts';

export interface HostileQp {
  readonly qpn: number;
  /** 'live': real traffic runs on it (see the file comment); 'target': anything goes. */
  readonly role: 'live' | 'target';
  /** Path MTU in bytes, as last read. */
  mtu: number;
  /** The responder's next expected PSN (EXP_PSN), as last read. */
  expPsn: number;
  /** The requester's next PSN (SQ_PSN), as last read. */
  sqPsn: number;
}

/** A key to try, with the MR range it belongs to (for in-bounds and edge VAs). */
export interface HostileKey { readonly key: number; readonly va: bigint; readonly len: number; readonly what: string }

export interface HostileWorld {
  /** Addressing of frames from the peer to the NIC under test. */
  readonly path: Omit<RocePath, 'destQp'>;
  readonly qps: readonly HostileQp[];
  /** QPNs the NIC does not have. */
  readonly unknownQpns: readonly number[];
  /** Keys to try, as last read. */
  keys: readonly HostileKey[];
  /** Keys valid on the target QPs (their PD, remote access), tried more often so that the
   *  checks behind the rkey check run too. */
  targetKeys: readonly HostileKey[];
}

export interface HostileFrame {
  readonly data: Uint8Array;
  /** What the frame is, for logs and failure messages. */
  readonly what: string;
  readonly qpn: number;
}

/** PSNs at least this far from the window are "never sent" / long acknowledged in any run. */
export const FAR_PSN = 1 << 20;

const U32 = 0xffff_ffff;
const U64 = (1n << 64n) - 1n;

const hex = (n: number | bigint): string => `0x${n.toString(16)}`;

export class HostileFrames {
  readonly #rng: Rng;
  readonly #w: HostileWorld;
  #ipId = 0;
  /** Frames made so far, by kind (for the bench's summary). */
  readonly counts = new Map<string, number>();

  constructor(rng: Rng, world: HostileWorld) {
    this.#rng = rng;
    this.#w = world;
  }

  /** The next frame or run of frames (a message, a READ burst). */
  next(): HostileFrame[] {
    const r = this.#rng;
    const targets = this.#w.qps.filter(q => q.role === 'target');
    const live = this.#w.qps.filter(q => q.role === 'live');
    const roll = r.float();
    if (live.length > 0 && roll < 0.15) return this.#count('live', [this.#forLive(r.pick(live))]);
    if (roll < 0.20 && this.#w.unknownQpns.length > 0) return this.#count('unknown QP', [this.#frame(this.#randomPacket(r.pick(this.#w.unknownQpns), r.int(0, 0xffffff)), 'unknown QP')]);
    const q = targets.length > 0 ? r.pick(targets) : r.pick(this.#w.qps);
    if (q.role === 'live') return this.#count('live', [this.#forLive(q)]);
    const k = r.float();
    if (k < 0.22) return this.#count('WRITE message', this.#writeMessage(q));
    if (k < 0.37) return this.#count('READ REQUEST', [this.#readRequest(q, this.#psnNear(q.expPsn))]);
    if (k < 0.40) return this.#count('READ burst', this.#readBurst(q));
    if (k < 0.55) return this.#count('random request', [this.#frame(this.#randomPacket(q.qpn, this.#psnNear(q.expPsn)), 'random request')]);
    if (k < 0.65) return this.#count('ACK/response', [this.#requesterSide(q, this.#psnNear(q.sqPsn))]);
    return this.#count('broken', [this.#broken(q, r.bool() ? q.expPsn : r.int(0, 0xffffff))]);
  }

  #count(kind: string, frames: HostileFrame[]): HostileFrame[] {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + frames.length);
    return frames;
  }

  #path(destQp: number): RocePath {
    this.#ipId = (this.#ipId + 1) & 0xffff;
    return { ...this.#w.path, ip: { ...this.#w.path.ip, id: this.#ipId }, destQp };
  }

  #frame(p: RocePacket, what: string): HostileFrame {
    return { data: encodeRoce(p), what: `${what}: ${describe(p)}`, qpn: p.bth.destQp };
  }

  /** Mostly the expected PSN or next to it, sometimes anywhere. */
  #psnNear(psn: number): number {
    const r = this.#rng;
    const d = r.pick([0, 0, 0, 0, 1, -1, 2, -2, r.int(-40, 40), r.int(-0x7fffff, 0x7fffff), 0x800000]);
    return psnAdd(psn, d);
  }

  /** A PSN at least FAR_PSN from `psn` either way (and inside the ±2^23 window). */
  #psnFar(psn: number): number {
    const d = this.#rng.int(FAR_PSN, (1 << 22));
    return psnAdd(psn, this.#rng.bool() ? d : -d);
  }

  #key(): HostileKey {
    const r = this.#rng;
    const keys = this.#w.keys;
    if (keys.length === 0 || r.bool(0.15)) {
      const key = r.pick([r.u32(), 0, U32, r.u32() & 0xfff]);
      return { key, va: 0n, len: 0, what: 'random key' };
    }
    const k = this.#w.targetKeys.length > 0 && r.bool(0.45) ? r.pick(this.#w.targetKeys) : r.pick(keys);
    // A valid key with bits above the MR index and tag set must not alias the MR.
    if (r.bool(0.05)) return { ...k, key: (k.key | (r.int(1, 0xfffff) << 12)) >>> 0, what: `${k.what} with high bits` };
    return k;
  }

  /** VA and length at the interesting places of key `k`'s range, or anywhere. */
  #reth(k: HostileKey, mtu: number): { va: bigint; rkey: number; dmaLen: number } {
    const r = this.#rng;
    const len = r.pick([0, 1, mtu - 1, mtu, mtu + 1, 2 * mtu, r.int(1, 4 * mtu), r.int(1, Math.max(1, k.len)), k.len, 2 ** 31, U32]);
    const inside = k.len > 0 ? k.va + BigInt(r.int(0, Math.max(0, k.len - Math.min(len, k.len)))) : k.va;
    const va = r.pick([inside, inside, inside, k.va + BigInt(k.len) - BigInt(Math.min(len, k.len)) + 1n, k.va - 1n, 0n, 2n ** 31n, 2n ** 32n - 1n,
      U64, (1n << 64n) - BigInt(Math.max(1, Math.floor(len / 2))), r.bigint(64)]);
    return { va: BigInt.asUintN(64, va), rkey: k.key, dmaLen: len };
  }

  /** A WRITE cut at the path MTU from the expected PSN, maybe with one packet changed or gone. */
  #writeMessage(q: HostileQp): HostileFrame[] {
    const r = this.#rng;
    const k = this.#key();
    const reth = this.#reth(k, q.mtu);
    const len = Math.min(reth.dmaLen, r.pick([reth.dmaLen, r.int(0, 4 * q.mtu)]), 8 * q.mtu);
    const pkts = segmentWrite({ path: this.#path(q.qpn), payload: r.bytes(len), mtu: q.mtu, startPsn: this.#psnNear(q.expPsn), va: reth.va, rkey: reth.rkey });
    if (pkts[0]) pkts[0] = { ...pkts[0], reth: { ...reth } };
    const what = `WRITE ${len}/${reth.dmaLen} B (${k.what})`;
    if (r.bool(0.4)) {
      const i = r.int(0, pkts.length - 1);
      const change = r.int(0, 3);
      if (change === 0) pkts.splice(i, 1);
      else if (change === 1) {
        const { padCnt: _pad, ...bth } = pkts[i]!.bth; // the encoder pads the new payload
        pkts[i] = { ...pkts[i]!, payload: r.bytes(r.pick([0, 1, q.mtu - 1, q.mtu + 1, r.int(0, 2 * q.mtu)])), bth };
      }
      else if (change === 2) pkts[i] = { ...pkts[i]!, bth: { ...pkts[i]!.bth, psn: this.#psnNear(pkts[i]!.bth.psn) } };
      else pkts[i] = this.#withOpcode(pkts[i]!, r.pick([Opcode.RDMA_WRITE_FIRST, Opcode.RDMA_WRITE_MIDDLE, Opcode.RDMA_WRITE_LAST, Opcode.RDMA_WRITE_ONLY]));
    }
    q.expPsn = psnAdd(q.expPsn, pkts.length); // a guess: the caller reads the real one again
    return pkts.map(p => this.#frame(p, what));
  }

  #readRequest(q: HostileQp, psn: number): HostileFrame {
    const k = this.#key();
    const reth = this.#reth(k, q.mtu);
    const p: RocePacket = { ...this.#base(q.qpn, Opcode.RDMA_READ_REQUEST, psn), reth, payload: new Uint8Array(0) };
    if (psn === q.expPsn) q.expPsn = psnAdd(psn, Math.max(1, Math.ceil(reth.dmaLen / q.mtu)));
    return this.#frame(p, `READ (${k.what})`);
  }

  /** Three to five READs back to back at consecutive expected PSNs: past the responder's limit. */
  #readBurst(q: HostileQp): HostileFrame[] {
    const n = this.#rng.int(3, 5);
    const out: HostileFrame[] = [];
    for (let i = 0; i < n; i++) out.push(this.#readRequest(q, q.expPsn));
    return out;
  }

  /** An ACK/NAK or READ RESPONSE to the NIC's requester side. */
  #requesterSide(q: HostileQp, psn: number): HostileFrame {
    const r = this.#rng;
    if (r.bool(0.5)) {
      const syndrome = r.pick([Syndrome.ACK, Syndrome.ACK, 0x20 | r.int(0, 31), 0x60, 0x61, 0x62, 0x63, r.int(0, 255)]);
      const p: RocePacket = { ...this.#base(q.qpn, Opcode.ACKNOWLEDGE, psn), aeth: { syndrome, msn: r.int(0, 0xffffff) }, payload: new Uint8Array(0) };
      return this.#frame(p, 'ACK');
    }
    const len = r.pick([0, 1, q.mtu, q.mtu + 1, r.int(1, 3 * q.mtu)]);
    const series = segmentReadResponse({ path: this.#path(q.qpn), payload: r.bytes(len), mtu: q.mtu, requestPsn: psn, msn: r.int(0, 0xffffff) });
    return this.#frame(r.pick(series), 'READ RESPONSE');
  }

  /** Frames no correct NIC acts on, for a QP whose real traffic must complete exactly. */
  #forLive(q: HostileQp): HostileFrame {
    const r = this.#rng;
    switch (r.int(0, 4)) {
      // Broken frames far ahead of the window: whatever survives the damage (a padded frame, a
      // changed TTL or P_Key are still valid) meets the PSN check and gets one NAK 0x60.
      case 0: return this.#broken(q, psnAdd(q.expPsn, r.int(FAR_PSN, 1 << 22)));
      // Requests far behind (duplicates of long ago: re-ACK, nothing written) or far ahead
      // (one NAK 0x60). No READ behind: a duplicate READ is served again (docs/fuzz.md).
      case 1: {
        const p = this.#randomPacket(q.qpn, this.#psnFar(q.expPsn), [Opcode.RDMA_WRITE_FIRST, Opcode.RDMA_WRITE_MIDDLE, Opcode.RDMA_WRITE_LAST, Opcode.RDMA_WRITE_ONLY]);
        return this.#frame(p, 'live: WRITE far from the window');
      }
      case 2: return this.#frame({ ...this.#base(q.qpn, Opcode.RDMA_READ_REQUEST, psnAdd(q.expPsn, r.int(FAR_PSN, 1 << 22))), reth: this.#reth(this.#key(), q.mtu), payload: new Uint8Array(0) }, 'live: READ far ahead');
      default: {
        const f = this.#requesterSide(q, this.#psnFar(q.sqPsn));
        return { ...f, what: `live, PSN never sent: ${f.what}` };
      }
    }
  }

  /** A damaged frame at `psn`: a broken header field, truncated, over-long, bad ICRC, padded.
   *  Some damage leaves it valid (padding, TTL, P_Key): it then arrives as what it is. */
  #broken(q: HostileQp, psn: number): HostileFrame {
    const r = this.#rng;
    const p = this.#randomPacket(q.qpn, psn);
    const f = encodeRoce(p);
    const how = r.int(0, 5);
    if (how === 0) { const name = changeHeaderField(f, r); return { data: f, what: `broken ${name}: ${describe(p)}`, qpn: q.qpn }; }
    if (how === 1) return { data: truncate(f, r), what: `truncated: ${describe(p)}`, qpn: q.qpn };
    if (how === 2) return { data: breakIcrc(f, r), what: `bad ICRC: ${describe(p)}`, qpn: q.qpn };
    if (how === 3) return { data: padAfter(f, r), what: `padded: ${describe(p)}`, qpn: q.qpn };
    // Over-long: more payload than the path MTU, up to past the RX header's 13-bit length.
    const big = r.pick([q.mtu + 4, 4100, 8188, 8192, r.int(q.mtu + 1, 9000)]);
    const op = r.pick([Opcode.RDMA_WRITE_ONLY, Opcode.RDMA_WRITE_MIDDLE, Opcode.RDMA_READ_RESPONSE_ONLY, Opcode.SEND_ONLY]);
    const info = opcodeInfo(op)!;
    const o: RocePacket = { ...this.#base(q.qpn, op, psn), ...(info.reth ? { reth: this.#reth(this.#key(), q.mtu) } : {}), ...(info.aeth ? { aeth: { syndrome: 0x1f, msn: 0 } } : {}), payload: r.bytes(big) };
    return this.#frame(o, 'over-long');
  }

  #base(qpn: number, opcode: number, psn: number): Omit<RocePacket, 'payload'> {
    const r = this.#rng;
    const p = this.#path(qpn);
    return {
      eth: p.eth, ip: p.ip, udp: { srcPort: r.bool(0.9) ? p.udp.srcPort : r.int(0, 0xffff) },
      bth: { opcode, se: r.bool(0.1), migReq: r.bool(0.1), tver: 0, pkey: r.bool(0.9) ? 0xffff : r.int(0, 0xffff), fecn: r.bool(0.1), becn: r.bool(0.1), destQp: qpn, ackReq: r.bool(0.5), psn },
    };
  }

  /** Any RC opcode (or one of `ops`) with random fields: headers as the opcode needs, payload
   *  of any length the opcode allows, any pad count. */
  #randomPacket(qpn: number, psn: number, ops?: readonly number[]): RocePacket {
    const r = this.#rng;
    const op = ops ? r.pick(ops) : r.pick(OPCODES).code;
    const info = opcodeInfo(op)!;
    const payload = info.payload ? r.bytes(r.pick([0, 1, 3, 4, r.int(1, 300), r.int(256, 4200)])) : new Uint8Array(0);
    const p: RocePacket = {
      ...this.#base(qpn, op, psn),
      ...(info.reth ? { reth: this.#reth(this.#key(), 256) } : {}),
      ...(info.aeth ? { aeth: { syndrome: r.int(0, 255), msn: r.int(0, 0xffffff) } } : {}),
      ...(info.imm ? { immDt: r.u32() } : {}),
      payload,
    };
    // Any pad count: a wrong one leaves payload + pad off a multiple of 4 (the receiver's check).
    return r.bool(0.2) ? { ...p, bth: { ...p.bth, padCnt: r.int(0, 3) } } : p;
  }

  #withOpcode(p: RocePacket, opcode: number): RocePacket {
    const info = opcodeInfo(opcode)!;
    const { reth: _r, aeth: _a, immDt: _i, ...rest } = p;
    return { ...rest, bth: { ...p.bth, opcode }, ...(info.reth ? { reth: p.reth ?? this.#reth(this.#key(), 256) } : {}) };
  }
}

function describe(p: RocePacket): string {
  const b = p.bth;
  const parts = [`${opcodeInfo(b.opcode)?.name ?? hex(b.opcode)} qp=${hex(b.destQp)} psn=${hex(b.psn)}`];
  if (p.reth) parts.push(`va=${hex(p.reth.va)} rkey=${hex(p.reth.rkey)} len=${p.reth.dmaLen}`);
  if (p.aeth) parts.push(`syndrome=${hex(p.aeth.syndrome)} msn=${p.aeth.msn}`);
  parts.push(`payload=${p.payload.length}`);
  return parts.join(' ');
}
