// Watches one NIC's host-memory read port (nic_top m_axi) for nic_tlb's page-table reads and
// measures how long each waited: from its AR handshake on m_axi to its RLAST. The client is
// the read mux's client index in ARID/RID above the 4-bit client ID (gen/nic/nic-top-build.ts:
// nic_tlb is read client 1). Also records the other clients' read beats outstanding at the
// slave when each page-table AR passed, so a long wait can be told apart (queued behind
// payload, or answered late by the slave).

import { ClockPhases } from '../bfm/index.ts';
import type { ClockHandle, TestBench } from '../core/index.ts';

/** Client ID bits below the read mux's client index (nic-top-build.ts ID_W). */
const CLIENT_ID_BITS = 4;
/** nic_tlb's read-mux client (nic-top-build.ts RD_CLIENT_TLB). */
const TLB_CLIENT = 1;

interface Sig { readonly value: unknown }
const num = (s: Sig | undefined, name: string): number => {
  if (!s) throw new Error(`pt-read-watch: port ${name} missing`);
  return Number(s.value as number | bigint);
};

export interface PtReadStats {
  readonly reads: number;
  /** Longest AR -> RLAST of a page-table read, and the cycle its RLAST came. */
  readonly maxWait: number;
  readonly maxWaitAt: number;
  readonly meanWait: number;
  /** Most read beats of other clients outstanding at the slave when a page-table AR passed. */
  readonly maxBeatsAhead: number;
}

export class PtReadWatch {
  #open: { at: number; ahead: number }[] = [];
  #outstanding = 0;
  #reads = 0; #sum = 0; #maxWait = 0; #maxWaitAt = 0; #maxAhead = 0;

  /** `axi`: the DUT's m_axi bundle of one NIC (e.g. dut.a_m_axi); `clock`: its clock (default
   *  the testbench's; needed in a design with several). */
  constructor(tb: TestBench, axi: object, options: { readonly clock?: ClockHandle } = {}) {
    const p = axi as Record<string, Sig>;
    const v = (name: string): number => num(p[name], name);
    ClockPhases.of(tb, options.clock).onSample(() => {
      if (v('arvalid') && v('arready')) {
        if (v('arid') >> CLIENT_ID_BITS === TLB_CLIENT) this.#open.push({ at: tb.cycle, ahead: this.#outstanding });
        else this.#outstanding += v('arlen') + 1;
      }
      if (!(v('rvalid') && v('rready'))) return;
      if (v('rid') >> CLIENT_ID_BITS !== TLB_CLIENT) { this.#outstanding--; return; }
      if (!v('rlast')) return;
      const o = this.#open.shift();
      if (!o) throw new Error(`pt-read-watch: page-table RLAST at cycle ${tb.cycle} with no page-table read open`);
      const wait = tb.cycle - o.at;
      this.#reads++; this.#sum += wait;
      if (wait > this.#maxWait) { this.#maxWait = wait; this.#maxWaitAt = tb.cycle; }
      this.#maxAhead = Math.max(this.#maxAhead, o.ahead);
    });
  }

  get stats(): PtReadStats {
    return { reads: this.#reads, maxWait: this.#maxWait, maxWaitAt: this.#maxWaitAt, meanWait: this.#reads ? this.#sum / this.#reads : 0, maxBeatsAhead: this.#maxAhead };
  }
}
