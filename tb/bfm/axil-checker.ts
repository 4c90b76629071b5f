// A passive AXI4-Lite checker: the ready/valid rules on all five channels, plus the
// ordering rules a slave must keep (cheap to check, often broken by hand-written slaves):
//   BVALID_BEFORE_AW_W   BVALID while no write has had both its AW and W handshakes
//   RVALID_BEFORE_AR     RVALID while no read address is outstanding
// A response offered in the same cycle as its request's handshake is too early, so the
// response rules compare against the handshakes of earlier cycles only.

import type { ClockHandle, TestBench } from '../core/index.ts';
import { watchChannel, type ChannelWatch } from './channel-checker.ts';
import { ClockPhases } from './clock-phases.ts';
import { highOf, wordOf, type AxiLiteWatchPorts, type Readable } from './ports.ts';
import { ProtocolError } from './protocol-error.ts';

export interface AxiLiteCheckerOptions {
  readonly reset?: Readable;
  /** The bus's clock (default: the testbench's; needed in a design with several). */
  readonly clock?: ClockHandle;
}

export class AxiLiteChecker {
  readonly name: string;
  readonly channels: readonly ChannelWatch[];
  #aw = 0;
  #w = 0;
  #b = 0;
  #ar = 0;
  #r = 0;

  constructor(tb: TestBench, p: AxiLiteWatchPorts, name: string, options: AxiLiteCheckerOptions = {}) {
    this.name = name;
    const o = { ...(options.reset ? { reset: options.reset } : {}), ...(options.clock ? { clock: options.clock } : {}) };
    // Registered before the channel watchers: sees the counts of earlier cycles only.
    const bvalid = highOf(p.bvalid), rvalid = highOf(p.rvalid);
    // Both responses low (most cycles): neither rule can fire; tested in the port words.
    const bw = wordOf(p.bvalid), rw = wordOf(p.rvalid);
    ClockPhases.of(tb, options.clock).onSample(() => {
      if (bw !== null && rw !== null && bw[0] === 0 && rw[0] === 0) return;
      const cycle = tb.cycle;
      if (bvalid() && Math.min(this.#aw, this.#w) <= this.#b) {
        throw new ProtocolError(name, 'BVALID_BEFORE_AW_W', cycle,
          `${p.bvalid.name} high with ${this.#aw} AW, ${this.#w} W and ${this.#b} B handshakes so far (a response needs both AW and W first)`);
      }
      if (rvalid() && this.#ar <= this.#r) {
        throw new ProtocolError(name, 'RVALID_BEFORE_AR', cycle, `${p.rvalid.name} high with ${this.#ar} AR and ${this.#r} R handshakes so far`);
      }
    });
    this.channels = [
      watchChannel(tb, { valid: p.awvalid, ready: p.awready, payload: [p.awaddr, p.awprot] }, name, { ...o, onTransfer: () => { this.#aw++; } }),
      watchChannel(tb, { valid: p.wvalid, ready: p.wready, payload: [p.wdata, p.wstrb] }, name, { ...o, onTransfer: () => { this.#w++; } }),
      watchChannel(tb, { valid: p.bvalid, ready: p.bready, payload: [p.bresp] }, name, { ...o, onTransfer: () => { this.#b++; } }),
      watchChannel(tb, { valid: p.arvalid, ready: p.arready, payload: [p.araddr, p.arprot] }, name, { ...o, onTransfer: () => { this.#ar++; } }),
      watchChannel(tb, { valid: p.rvalid, ready: p.rready, payload: [p.rdata, p.rresp] }, name, { ...o, onTransfer: () => { this.#r++; } }),
    ];
  }
}
