// What a capture may legitimately contain once a requester retransmits (go-back-N) and a
// responder answers duplicate READs, checked per stream (one sender's requests to one QP, or
// its READ responses to one QP), in capture order:
//  - a first transmission: a PSN this stream has not used yet (the caller checks it against
//    the model's expected packet);
//  - a retransmission: a PSN already sent; it must equal its first transmission in every
//    field but the IPv4 id (the NIC numbers every frame it sends; the IPv4 checksum and ICRC
//    follow from it). A READ RESPONSE resent for a re-requested READ may start its series
//    there: MIDDLE becomes FIRST, LAST becomes ONLY (AETH present as the opcode requires,
//    syndrome ACK, MSN free: the responder's MSN has moved on); its payload must equal the
//    first transmission's;
//  - a re-requested partial READ: a READ REQUEST at a PSN inside an earlier READ's PSN span
//    (p0 < p < p0 + n), asking for the part not yet received: VA + (p - p0) * MTU, length
//    - (p - p0) * MTU, same rkey, every other field equal.

import { Opcode } from './opcodes.ts';
import type { RocePacket } from './packet.ts';
import { diffPackets } from './packet-diff.ts';
import { psnDiff } from './psn.ts';

export type Transmission =
  | { readonly kind: 'first' }
  | { readonly kind: 'retransmission'; readonly of: number }
  | { readonly kind: 're-request'; readonly of: number; readonly advance: number };

interface Sent { readonly frame: number; readonly pkt: RocePacket }
interface ReadSent extends Sent { readonly span: number; readonly mtu: number }

export interface StreamOptions {
  /** READ RESPONSE retransmissions: payload bytes equal to the first transmission (default),
   *  or only the length (when a stale duplicate READ may legitimately read newer data). */
  readonly responsePayload?: 'equal' | 'length';
}

const hex6 = (n: number): string => `0x${n.toString(16).padStart(6, '0')}`;

/** A response opcode a resent READ RESPONSE may carry where the first one carried `first`. */
const RESENT_RESPONSE_FORMS: Readonly<Record<number, readonly number[]>> = {
  [Opcode.RDMA_READ_RESPONSE_FIRST]: [Opcode.RDMA_READ_RESPONSE_FIRST],
  [Opcode.RDMA_READ_RESPONSE_MIDDLE]: [Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.RDMA_READ_RESPONSE_FIRST],
  [Opcode.RDMA_READ_RESPONSE_LAST]: [Opcode.RDMA_READ_RESPONSE_LAST, Opcode.RDMA_READ_RESPONSE_ONLY],
  [Opcode.RDMA_READ_RESPONSE_ONLY]: [Opcode.RDMA_READ_RESPONSE_ONLY],
};

/** One stream's history: what it sent first at each PSN, and its READ REQUESTs' spans. */
export class StreamHistory {
  readonly #byPsn = new Map<number, Sent>();
  readonly #reads: ReadSent[] = [];
  readonly #o: StreamOptions;

  constructor(o: StreamOptions = {}) { this.#o = o; }

  /** How `pkt` relates to what the stream sent before; throws a message naming the field
   *  when a retransmission or re-request is not what it must be. */
  classify(pkt: RocePacket): Transmission {
    const first = this.#byPsn.get(pkt.bth.psn);
    if (first) {
      this.#checkResent(first, pkt);
      return { kind: 'retransmission', of: first.frame };
    }
    if (pkt.bth.opcode === Opcode.RDMA_READ_REQUEST) {
      const read = this.#reads.find(r => { const d = psnDiff(pkt.bth.psn, r.pkt.bth.psn); return d > 0 && d < r.span; });
      if (read) return this.#checkReRequest(read, pkt);
    }
    return { kind: 'first' };
  }

  /** Records a first transmission. A READ REQUEST gives the path MTU its responses use. */
  recordFirst(frame: number, pkt: RocePacket, readMtu?: number): void {
    this.#byPsn.set(pkt.bth.psn, { frame, pkt });
    if (pkt.bth.opcode === Opcode.RDMA_READ_REQUEST) {
      if (readMtu === undefined) throw new Error(`frame ${frame}: READ REQUEST recorded without its path MTU`);
      const span = Math.max(1, Math.ceil(pkt.reth!.dmaLen / readMtu));
      this.#reads.push({ frame, pkt, span, mtu: readMtu });
    }
  }

  #checkResent(first: Sent, now: RocePacket): void {
    const what = `retransmission of frame ${first.frame} (PSN ${hex6(now.bth.psn)})`;
    const isResponse = RESENT_RESPONSE_FORMS[first.pkt.bth.opcode] !== undefined;
    const ignore = new Set(['IPv4 id']);
    if (isResponse) {
      const forms = RESENT_RESPONSE_FORMS[first.pkt.bth.opcode]!;
      if (!forms.includes(now.bth.opcode)) {
        throw new Error(`${what}: BTH opcode 0x${now.bth.opcode.toString(16)}, first transmission 0x${first.pkt.bth.opcode.toString(16)} (a resent response may only start a series here: ${forms.map(f => `0x${f.toString(16)}`).join(' or ')})`);
      }
      if (now.aeth && now.aeth.syndrome !== 0x1f) throw new Error(`${what}: AETH syndrome 0x${now.aeth.syndrome.toString(16)}, expected ACK 0x1f`);
      for (const f of ['BTH opcode', 'AETH', 'AETH syndrome', 'AETH msn']) ignore.add(f);
      if (this.#o.responsePayload === 'length') ignore.add('payload');
    }
    const d = diffPackets(first.pkt, now, ignore);
    if (d) throw new Error(`${what} differs in ${d.field}: ${d.b}, first transmission ${d.a}`);
  }

  #checkReRequest(read: ReadSent, now: RocePacket): Transmission {
    const advance = psnDiff(now.bth.psn, read.pkt.bth.psn);
    const what = `partial re-request of the READ in frame ${read.frame} (PSN ${hex6(read.pkt.bth.psn)} + ${advance})`;
    const d = diffPackets(read.pkt, now, new Set(['IPv4 id', 'BTH psn', 'RETH va', 'RETH dmaLen']));
    if (d) throw new Error(`${what} differs in ${d.field}: ${d.b}, first request ${d.a}`);
    const done = advance * read.mtu;
    const va = BigInt.asUintN(64, read.pkt.reth!.va + BigInt(done));
    const len = read.pkt.reth!.dmaLen - done;
    if (now.reth!.va !== va) throw new Error(`${what}: RETH va 0x${now.reth!.va.toString(16)}, expected 0x${va.toString(16)} (first VA + ${advance} x MTU ${read.mtu})`);
    if (now.reth!.dmaLen !== len) throw new Error(`${what}: RETH dmaLen ${now.reth!.dmaLen}, expected ${len} (first length - ${advance} x MTU ${read.mtu})`);
    return { kind: 're-request', of: read.frame, advance };
  }
}
