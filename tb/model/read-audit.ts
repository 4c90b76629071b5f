// Checks every READ RESPONSE a responder sends against the READ REQUESTs it received: each
// response series (FIRST..LAST or ONLY) must answer a request whose rkey a correct NIC grants
// (remote-grant.ts) at the series' first PSN, packet k carrying bytes k*MTU.. of the requested
// range and the series ending exactly at its length; where the MR's contents cannot change
// behind the check's back (`stable`), the bytes themselves are compared. So no READ RESPONSE
// can carry a byte from outside a remote-read MR, or from a request the NIC should have
// refused, whatever frames a fuzzer throws at it. Requests the NIC refused are simply never
// answered; that is not checked here.

import { ACCESS } from '../../gen/nic/regmap.ts';
import type { MemoryRegion } from './mr.ts';
import { Opcode } from './opcodes.ts';
import type { RocePacket } from './packet.ts';
import { psnAdd } from './psn.ts';
import { remoteGrant } from './remote-grant.ts';

export interface ReadAuditQp {
  readonly pd: number;
  /** Path MTU in bytes. */
  readonly mtu: number;
}

export interface ReadAuditOptions {
  /** The responder's QP by index (undefined: no such QP). */
  readonly qp: (index: number) => ReadAuditQp | undefined;
  /** The responder's MR table. */
  readonly mrs: () => readonly (MemoryRegion | undefined)[];
  /** The MR's bytes cannot change during the run (no remote write, no local writer). */
  readonly stable: (mr: MemoryRegion) => boolean;
  /** How many recent requests per QP stay candidates (default 256). */
  readonly remember?: number;
}

interface Granted { readonly psn: number; readonly va: bigint; readonly len: number; readonly mr: MemoryRegion | undefined; readonly frame: number }
interface Series { cands: Granted[]; next: number; index: number }

const hex6 = (n: number): string => `0x${n.toString(16).padStart(6, '0')}`;

export class ReadResponseAudit {
  readonly #o: ReadAuditOptions;
  readonly #requests = new Map<number, Granted[]>();
  readonly #series = new Map<number, Series>();
  /** Response packets checked, and payload bytes compared with the MR. */
  packets = 0;
  bytesCompared = 0;

  constructor(o: ReadAuditOptions) { this.#o = o; }

  /** A READ REQUEST delivered to the responder's QP `qp` (frame number for messages). */
  onRequest(qp: number, pkt: RocePacket, frame: number): void {
    const q = this.#o.qp(qp);
    if (!q || !pkt.reth) return;
    const { va, rkey, dmaLen } = pkt.reth;
    // A zero-length READ needs no key (verbs); anything else needs REMOTE_READ on the range.
    const mr = dmaLen === 0 ? undefined : remoteGrant(this.#o.mrs(), rkey, q.pd, va, dmaLen, ACCESS.REMOTE_READ);
    if (dmaLen !== 0 && !mr) return;
    let list = this.#requests.get(qp);
    if (!list) this.#requests.set(qp, list = []);
    list.push({ psn: pkt.bth.psn, va, len: dmaLen, mr, frame });
    if (list.length > (this.#o.remember ?? 256)) list.shift();
  }

  /** A READ RESPONSE the responder sent for its QP `qp`; throws what is wrong with it. */
  onResponse(qp: number, pkt: RocePacket): void {
    const q = this.#o.qp(qp);
    const at = `READ RESPONSE ${opName(pkt.bth.opcode)} PSN ${hex6(pkt.bth.psn)} for QP ${qp}`;
    if (!q) throw new Error(`${at}: the responder has no such QP`);
    this.packets++;
    const op = pkt.bth.opcode;
    const starts = op === Opcode.RDMA_READ_RESPONSE_FIRST || op === Opcode.RDMA_READ_RESPONSE_ONLY;
    let s = this.#series.get(qp);
    if (starts) {
      const cands = (this.#requests.get(qp) ?? []).filter(r => r.psn === pkt.bth.psn);
      if (cands.length === 0) throw new Error(`${at}: answers no READ REQUEST at this PSN whose rkey grants REMOTE_READ on its range`);
      this.#series.set(qp, s = { cands, next: pkt.bth.psn, index: 0 });
    } else if (!s || s.next !== pkt.bth.psn) {
      throw new Error(`${at}: continues no response series (expected ${s ? `PSN ${hex6(s.next)}` : 'a FIRST or ONLY'})`);
    }
    const last = op === Opcode.RDMA_READ_RESPONSE_LAST || op === Opcode.RDMA_READ_RESPONSE_ONLY;
    const fits = s.cands.filter(r => this.#fits(r, s!.index, q.mtu, pkt.payload, last));
    if (fits.length === 0) {
      const r = s.cands[0]!;
      throw new Error(`${at}: packet ${s.index} of the READ in frame ${r.frame} (va 0x${r.va.toString(16)}, ${r.len} bytes, MTU ${q.mtu}) `
        + `should carry ${Math.min(q.mtu, r.len - s.index * q.mtu)} bytes${last ? ' and end it' : ''}${r.mr && this.#o.stable(r.mr) ? ' equal to the MR\'s' : ''}, carries ${pkt.payload.length}`);
    }
    s.cands = fits;
    s.index++;
    s.next = psnAdd(pkt.bth.psn, 1);
    if (last) this.#series.delete(qp);
  }

  /** Packet `index` of request `r` can be `payload` (length, end, and bytes where stable). */
  #fits(r: Granted, index: number, mtu: number, payload: Uint8Array, last: boolean): boolean {
    const off = index * mtu;
    const want = Math.min(mtu, r.len - off);
    if (want < 0 || payload.length !== Math.max(0, want) || last !== (off + want >= r.len)) return false;
    if (!r.mr || !this.#o.stable(r.mr) || payload.length === 0) return true;
    const got = r.mr.read(Number(r.va - r.mr.va) + off, payload.length);
    for (let i = 0; i < got.length; i++) if (got[i] !== payload[i]) return false;
    this.bytesCompared += payload.length;
    return true;
  }
}

function opName(op: number): string {
  return ({ [Opcode.RDMA_READ_RESPONSE_FIRST]: 'FIRST', [Opcode.RDMA_READ_RESPONSE_MIDDLE]: 'MIDDLE', [Opcode.RDMA_READ_RESPONSE_LAST]: 'LAST', [Opcode.RDMA_READ_RESPONSE_ONLY]: 'ONLY' } as Record<number, string>)[op] ?? `0x${op.toString(16)}`;
}
