// Predicates over frames on a link, for targeted faults ("drop the 2nd READ RESPONSE MIDDLE",
// "corrupt every retransmission of PSN 0x10") and for anything else that must pick frames by
// what they carry. Built on the packet decoder (packet.ts): a frame that does not decode (bad
// ICRC, not RoCE) matches no packet predicate.
//
// A retransmission is a request (WRITE, READ REQUEST, SEND) or a READ RESPONSE whose dest QP,
// PSN and kind were already seen in the same direction; ACKs are never retransmissions (the
// responder repeats an ACK's PSN on purpose when it coalesces or re-ACKs a duplicate).

import { opcodeInfo, Opcode, type Position } from './opcodes.ts';
import { decodeRoce, type RocePacket } from './packet.ts';

export interface FrameView {
  /** 0-based position among the frames of its direction. */
  readonly index: number;
  readonly data: Uint8Array;
  /** The decoded packet; undefined when the frame does not decode. */
  readonly pkt: RocePacket | undefined;
  /** A request or READ RESPONSE with this dest QP, PSN and kind went this way before. */
  readonly retransmission: boolean;
}

export type FramePredicate = (f: FrameView) => boolean;

/** Remembers which (dest QP, PSN, kind) went by, so repeats can be recognised. */
export class RetransmissionTracker {
  readonly #seen = new Set<string>();

  /** Records `pkt` and says whether it repeats an earlier one (ACKs: always false). */
  see(pkt: RocePacket | undefined): boolean {
    if (!pkt) return false;
    const kind = opcodeInfo(pkt.bth.opcode)?.kind;
    if (kind === undefined || kind === 'ack') return false;
    const key = `${kind === 'read-response' ? 'rsp' : 'req'}:${pkt.bth.destQp}:${pkt.bth.psn}`;
    if (this.#seen.has(key)) return true;
    this.#seen.add(key);
    return false;
  }
}

/** A FrameView for `data`, decoding it once and updating `tracker`. */
export function viewFrame(index: number, data: Uint8Array, tracker: RetransmissionTracker): FrameView {
  const r = decodeRoce(data);
  const pkt = r.ok ? r.pkt : undefined;
  return { index, data, pkt, retransmission: tracker.see(pkt) };
}

const kindIs = (k: string, position?: Position) => (f: FrameView): boolean => {
  const i = f.pkt ? opcodeInfo(f.pkt.bth.opcode) : undefined;
  return i !== undefined && i.kind === k && (position === undefined || i.position === position);
};

/** The predicates tests combine. */
export const frames = {
  any: (): FramePredicate => () => true,
  /** ACKNOWLEDGE with syndrome ACK (0x1F). */
  ack: (): FramePredicate => f => f.pkt?.bth.opcode === Opcode.ACKNOWLEDGE && f.pkt.aeth?.syndrome === 0x1f,
  /** ACKNOWLEDGE carrying a NAK (or RNR NAK); only `syndrome` when given. */
  nak: (syndrome?: number): FramePredicate => f => {
    const s = f.pkt?.bth.opcode === Opcode.ACKNOWLEDGE ? f.pkt.aeth?.syndrome : undefined;
    return s !== undefined && s !== 0x1f && (syndrome === undefined || s === syndrome);
  },
  readRequest: (): FramePredicate => kindIs('read-request'),
  /** READ RESPONSE, optionally only FIRST, MIDDLE, LAST or ONLY. */
  readResponse: (position?: Exclude<Position, 'single'>): FramePredicate => kindIs('read-response', position),
  /** RDMA WRITE packet, optionally only FIRST, MIDDLE, LAST or ONLY. */
  write: (position?: Exclude<Position, 'single'>): FramePredicate => kindIs('write', position),
  /** The last packet of a message: WRITE LAST/ONLY, READ RESPONSE LAST/ONLY (and SEND's). */
  lastOfMessage: (): FramePredicate => f => {
    const i = f.pkt ? opcodeInfo(f.pkt.bth.opcode) : undefined;
    return i !== undefined && i.kind !== 'ack' && i.kind !== 'read-request' && (i.position === 'last' || i.position === 'only');
  },
  retransmission: (): FramePredicate => f => f.retransmission,
  psn: (psn: number): FramePredicate => f => f.pkt?.bth.psn === psn,
  destQp: (qpn: number): FramePredicate => f => f.pkt?.bth.destQp === qpn,
  /** Frames that do not decode as RoCE (e.g. already corrupted). */
  undecodable: (): FramePredicate => f => f.pkt === undefined,
  and: (...ps: readonly FramePredicate[]): FramePredicate => f => ps.every(p => p(f)),
  or: (...ps: readonly FramePredicate[]): FramePredicate => f => ps.some(p => p(f)),
  not: (p: FramePredicate): FramePredicate => f => !p(f),
} as const;
