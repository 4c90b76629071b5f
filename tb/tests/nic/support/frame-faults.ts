// Directed link faults for the retransmission tests: rules that drop, duplicate or hold back
// the n-th frame matching a predicate on its decoded RoCE headers, plugged into the link
// model's `filter` (tb/nic/link.ts). A held frame is delivered right behind the k-th frame of
// the same direction that comes after it (a reordering by k). Every rule counts its matches
// and what it did, so a test can require that the fault really happened.
//
// Also: a log of every frame as its NIC sent it (before the faults), with the requests'
// transmissions per PSN, and the check that a retransmitted request equals its first
// transmission (Ethernet/IP addressing, UDP ports, BTH, RETH, payload; not the IPv4
// identification, the IPv4 checksum or the ICRC, which cover that identification).

import type { LinkDir, LinkFrame } from '../../../nic/link.ts';
import { decodeRoce, type RocePacket } from '../../../model/packet.ts';
import { RC_OP, isReadResponse } from '../../../model/wire-expect.ts';

export type FaultAction = 'drop' | 'dup' | { readonly holdFor: number };

export interface FaultRule {
  readonly what: string;
  readonly dir: LinkDir;
  readonly match: (p: RocePacket) => boolean;
  /** Matches to act on, 1-based: one, a list, or every match. */
  readonly nth: number | readonly number[] | 'all';
  readonly action: FaultAction;
}

interface RuleState { readonly rule: FaultRule; matches: number; acted: number }

export class FaultPlan {
  readonly #rules: RuleState[];
  readonly #held: Record<LinkDir, { data: Uint8Array; after: number }[]> = { 'a->b': [], 'b->a': [] };

  constructor(rules: readonly FaultRule[]) {
    this.#rules = rules.map(rule => ({ rule, matches: 0, acted: 0 }));
  }

  /** How often each rule acted, by its `what`. */
  get acted(): Record<string, number> {
    return Object.fromEntries(this.#rules.map(r => [r.rule.what, r.acted]));
  }

  /** Throws unless every rule acted at least `min` times (a fault that never happened proves nothing). */
  expectActed(min = 1): void {
    for (const r of this.#rules) {
      if (r.acted < min) throw new Error(`fault "${r.rule.what}" acted ${r.acted} time(s) (${r.matches} matching frames), expected at least ${min}`);
    }
  }

  readonly filter = (f: LinkFrame): Uint8Array | readonly Uint8Array[] | null => {
    const d = decodeRoce(f.data, { checkIcrc: false });
    let out: Uint8Array[] = [f.data];
    if (d.ok) {
      for (const r of this.#rules) {
        if (r.rule.dir !== f.dir || !r.rule.match(d.pkt)) continue;
        r.matches++;
        const n = r.rule.nth;
        const hit = n === 'all' || (typeof n === 'number' ? n === r.matches : n.includes(r.matches));
        if (!hit) continue;
        r.acted++;
        const a = r.rule.action;
        if (a === 'drop') out = [];
        else if (a === 'dup') out = [f.data, f.data];
        else { this.#held[f.dir].push({ data: f.data, after: a.holdFor }); out = []; }
        break;
      }
    }
    // Frames held back by earlier rules go right behind the frame that completes their wait.
    const held = this.#held[f.dir];
    const released: Uint8Array[] = [];
    if (out.length > 0 || !d.ok) {
      for (const h of held) h.after--;
      while (held.length > 0 && held[0]!.after <= 0) released.push(held.shift()!.data);
    }
    const all = [...out, ...released];
    return all.length === 0 ? null : all;
  };
}

// ---- predicates on decoded packets ----------------------------------------------------------

export const toQp = (qpn: number) => (p: RocePacket): boolean => p.bth.destQp === qpn;
export const opIs = (...ops: number[]) => (p: RocePacket): boolean => ops.includes(p.bth.opcode);
export const both = (...ps: ((p: RocePacket) => boolean)[]) => (p: RocePacket): boolean => ps.every(f => f(p));
export const psnIs = (psn: number) => (p: RocePacket): boolean => p.bth.psn === psn;
export const isAck = (p: RocePacket): boolean => p.bth.opcode === RC_OP.ACK && p.aeth?.syndrome === 0x1f;
export const isSeqNak = (p: RocePacket): boolean => p.bth.opcode === RC_OP.ACK && p.aeth?.syndrome === 0x60;
export const isRequest = (p: RocePacket): boolean => p.bth.opcode <= RC_OP.READ_REQUEST;

// ---- transmissions --------------------------------------------------------------------------

export interface SentPacket { readonly dir: LinkDir; readonly cycle: number; readonly pkt: RocePacket; readonly frame: Uint8Array }

/** Bytes of a frame that a retransmission must repeat: all but the IPv4 identification
 *  (bytes 18-19), the IPv4 checksum (24-25) and the ICRC (last 4). */
function repeatable(frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(frame.length - 8);
  out.set(frame.subarray(0, 18), 0);
  out.set(frame.subarray(20, 24), 18);
  out.set(frame.subarray(26, frame.length - 4), 22);
  return out;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export class SentLog {
  readonly sent: SentPacket[] = [];

  readonly observe = (f: LinkFrame): void => {
    const d = decodeRoce(f.data);
    if (!d.ok) throw new Error(`a NIC sent a frame that does not decode (${d.reason}: ${d.detail}) at cycle ${f.cycle}`);
    this.sent.push({ dir: f.dir, cycle: f.cycle, pkt: d.pkt, frame: f.data });
  };

  /** Request packets (WRITE, READ REQUEST) sent `dir` to `qpn` with `psn`, in order. */
  requests(dir: LinkDir, qpn: number, psn: number): SentPacket[] {
    return this.sent.filter(s => s.dir === dir && s.pkt.bth.destQp === qpn && s.pkt.bth.psn === psn && isRequest(s.pkt));
  }

  count(dir: LinkDir, pred: (p: RocePacket) => boolean): number {
    return this.sent.filter(s => s.dir === dir && pred(s.pkt)).length;
  }

  /** Every request sent more than once repeats its first transmission byte for byte (outside the
   *  IPv4 identification, its checksum and the ICRC). Returns how many retransmissions it checked. */
  checkRetransmissions(): number {
    const first = new Map<string, SentPacket>();
    let n = 0;
    for (const s of this.sent) {
      if (!isRequest(s.pkt)) continue;
      const key = `${s.dir} qpn ${s.pkt.bth.destQp} psn ${s.pkt.bth.psn} op ${s.pkt.bth.opcode}`;
      const f = first.get(key);
      if (!f) { first.set(key, s); continue; }
      n++;
      if (!sameBytes(repeatable(f.frame), repeatable(s.frame))) {
        const a = repeatable(f.frame), b = repeatable(s.frame);
        const at = a.findIndex((x, i) => x !== b[i]);
        throw new Error(`retransmission of ${key} at cycle ${s.cycle} differs from its first transmission (cycle ${f.cycle}) at repeatable byte ${at} `
          + `(${a.length} vs ${b.length} bytes): 0x${(a[at] ?? 0).toString(16)} vs 0x${(b[at] ?? 0).toString(16)}`);
      }
    }
    return n;
  }

  /** READ responses sent `dir` to `qpn`. */
  responses(dir: LinkDir, qpn: number): SentPacket[] {
    return this.sent.filter(s => s.dir === dir && s.pkt.bth.destQp === qpn && isReadResponse(s.pkt.bth.opcode));
  }
}
