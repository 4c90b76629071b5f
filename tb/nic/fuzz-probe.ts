// The fuzzer's eyes on the link of a nic_pair whose B is under attack (hostile frames are
// injected on a->b). Hooked into the link before the pair is built (`linkHooks`), it sees
//  - every frame delivered to B (real and injected): which receive counter it must move
//    (tb/model/rx-fate.ts), the READ REQUESTs the READ audit needs, and for every WRITE
//    FIRST/ONLY the range its rkey legitimately opens (remote-grant.ts): host memory may
//    change only there (and where the real traffic and the rings write);
//  - every frame delivered to A, counted the same way;
//  - every frame B sends: its READ RESPONSEs go through the READ audit (tb/model/read-audit.ts),
//    its NAKs are counted by syndrome.
// A violation seen inside a link callback is kept and thrown by `check()` in the test's own
// flow, with the frame that caused it.

import { ACCESS } from '../../gen/nic/regmap.ts';
import { LOCAL_QPN_BASE } from '../../gen/nic/flow-types.ts';
import type { ByteRange } from '../model/host-memory.ts';
import type { MemoryRegion } from '../model/mr.ts';
import { describeRoce } from '../model/packet.ts';
import { Opcode, opcodeInfo } from '../model/opcodes.ts';
import { ReadResponseAudit } from '../model/read-audit.ts';
import { remoteGrant } from '../model/remote-grant.ts';
import { rxFate } from '../model/rx-fate.ts';
import type { Host } from './env.ts';
import type { LinkFrame, LinkOptions } from './link.ts';

/** What the frames delivered to one NIC must have done to its receive counters. */
export interface RxExpectation {
  delivered: number;
  /** RX_DROP_ICRC. */
  icrc: number;
  /** RX_DROP_OTHER at the parser. */
  malformed: number;
  /** RX_FRAMES. */
  parsed: number;
  /** Of the parsed: to a QPN the NIC does not have (so RX_DROP_OTHER at the responder too). */
  unknownQp: number;
}

const emptyRx = (): RxExpectation => ({ delivered: 0, icrc: 0, malformed: 0, parsed: 0, unknownQp: 0 });

export class FuzzProbe {
  readonly rx = { A: emptyRx(), B: emptyRx() };
  /** Ranges of B a delivered WRITE's rkey opened (host memory may change there). */
  readonly granted: ByteRange[] = [];
  /** NAKs B sent, by syndrome. */
  readonly naks = new Map<number, number>();
  readonly audit: ReadResponseAudit;
  #failure: Error | undefined;
  #hosts: { A: Host; B: Host } | undefined;
  readonly #numQp: number;

  constructor(numQp: number) {
    this.#numQp = numQp;
    this.audit = new ReadResponseAudit({
      qp: i => { const q = this.#hosts?.B.drv.qps[i]; return q ? { pd: q.opts.pd, mtu: 1 << q.opts.pmtuLog2 } : undefined; },
      mrs: () => this.#hosts?.B.drv.mrs ?? [],
      stable: mr => (mr.access & (ACCESS.REMOTE_WRITE | ACCESS.LOCAL_WRITE)) === 0,
    });
  }

  /** The hooks to give PairEnv.create (`link: { ...linkHooks() }`). */
  linkHooks(): Pick<LinkOptions, 'deliver' | 'observe'> {
    return { deliver: f => this.#guard(f, () => this.#delivered(f)), observe: f => this.#guard(f, () => this.#sent(f)) };
  }

  /** Once the pair exists. */
  attach(a: Host, b: Host): void { this.#hosts = { A: a, B: b }; }

  /** Throws the first violation seen in a link callback. */
  check(): void { if (this.#failure) throw this.#failure; }

  #guard(f: LinkFrame, fn: () => void): void {
    if (this.#failure) return;
    try { fn(); } catch (e) { this.#failure = new Error(`${(e as Error).message}\n  (frame ${f.dir} at cycle ${f.cycle}${f.injected ? ', injected' : ''})`); }
  }

  #qpIndex(qpn: number): number | undefined {
    const i = qpn - LOCAL_QPN_BASE;
    return i >= 0 && i < this.#numQp ? i : undefined;
  }

  #delivered(f: LinkFrame): void {
    const to = f.dir === 'a->b' ? 'B' : 'A';
    const x = this.rx[to];
    x.delivered++;
    const fate = rxFate(f.data);
    if (fate.kind === 'icrc') { x.icrc++; return; }
    if (fate.kind === 'malformed') { x.malformed++; return; }
    x.parsed++;
    const q = this.#qpIndex(fate.pkt.bth.destQp);
    if (q === undefined) { x.unknownQp++; return; }
    if (to !== 'B') return;
    const p = fate.pkt;
    if (p.bth.opcode === Opcode.RDMA_READ_REQUEST) this.audit.onRequest(q, p, x.delivered);
    const info = opcodeInfo(p.bth.opcode);
    if (info?.kind === 'write' && p.reth && p.reth.dmaLen > 0) {
      const qp = this.#hosts?.B.drv.qps[q];
      const mr = qp && remoteGrant(this.#hosts!.B.drv.mrs, p.reth.rkey, qp.opts.pd, p.reth.va, p.reth.dmaLen, ACCESS.REMOTE_WRITE);
      if (mr) this.granted.push(...rangesOf(mr, p.reth.va, p.reth.dmaLen));
    }
  }

  #sent(f: LinkFrame): void {
    if (f.dir !== 'b->a') return;
    const fate = rxFate(f.data);
    if (fate.kind !== 'parsed') throw new Error(`B sent a frame that does not decode: ${fate.kind === 'malformed' ? `${fate.reason} (${fate.detail})` : 'bad ICRC'}`);
    const p = fate.pkt;
    const info = opcodeInfo(p.bth.opcode);
    if (info?.kind === 'read-response') {
      // B's QP i answers to its peer A's QP i (QPN LOCAL_QPN_BASE + i).
      const q = this.#qpIndex(p.bth.destQp);
      try { this.audit.onResponse(q ?? -1, p); } catch (e) { throw new Error(`${(e as Error).message}: ${describeRoce(p)}`); }
    }
    if (p.bth.opcode === Opcode.ACKNOWLEDGE && p.aeth && p.aeth.syndrome !== 0x1f) this.naks.set(p.aeth.syndrome, (this.naks.get(p.aeth.syndrome) ?? 0) + 1);
  }
}

function rangesOf(mr: MemoryRegion, va: bigint, len: number): ByteRange[] {
  return mr.ranges(Number(va - mr.va), len);
}
