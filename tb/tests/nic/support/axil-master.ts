// A small AXI4-Lite master for the nic_regs bench: one access at a time, AW and W in any
// order, with optional idle cycles and a slow bready/rready.

import type { TestBench } from '../../../core/index.ts';
import { cycle, send, type In, type Out } from './handshake.ts';

export interface AxilPorts {
  awaddr: In; awprot: In; awvalid: In; awready: Out;
  wdata: In; wstrb: In; wvalid: In; wready: Out;
  bresp: Out; bvalid: Out; bready: In;
  araddr: In; arprot: In; arvalid: In; arready: Out;
  rdata: Out; rresp: Out; rvalid: Out; rready: In;
}

export type WriteOrder = 'together' | 'aw-first' | 'w-first';

export class AxilMaster {
  constructor(private readonly tb: TestBench, private readonly p: AxilPorts) {
    for (const s of [p.awvalid, p.wvalid, p.bready, p.arvalid, p.rready, p.awprot, p.arprot]) s.value = 0;
  }

  async write(addr: number, data: number, opts: { strb?: number; order?: WriteOrder; gap?: number; respDelay?: number } = {}): Promise<number> {
    const { tb, p } = this;
    p.awaddr.value = addr;
    p.wdata.value = data >>> 0;
    p.wstrb.value = opts.strb ?? 0xf;
    const order = opts.order ?? 'together';
    const aw = (): Promise<number> => send(tb, p.awvalid, p.awready);
    const w = (): Promise<number> => send(tb, p.wvalid, p.wready);
    if (order === 'together') {
      const a = tb.fork(aw, 'axil_aw');
      const b = tb.fork(w, 'axil_w');
      await a.join(); await b.join();
    } else {
      await (order === 'aw-first' ? aw() : w());
      if (opts.gap) await tb.clockCycles(opts.gap);
      await (order === 'aw-first' ? w() : aw());
    }
    if (opts.respDelay) await tb.clockCycles(opts.respDelay);
    p.bready.value = 1;
    for (let n = 0; n < 1000; n++) {
      const r = await cycle(tb, () => (p.bvalid.value === 1 ? Number(p.bresp.value) : -1));
      if (r >= 0) { p.bready.value = 0; return r; }
    }
    throw new Error(`AXI4-Lite write 0x${addr.toString(16)}: no B response (cycle ${tb.cycle})`);
  }

  async read(addr: number, opts: { respDelay?: number } = {}): Promise<{ data: number; resp: number }> {
    const { tb, p } = this;
    p.araddr.value = addr;
    await send(tb, p.arvalid, p.arready);
    if (opts.respDelay) await tb.clockCycles(opts.respDelay);
    p.rready.value = 1;
    for (let n = 0; n < 1000; n++) {
      const r = await cycle(tb, () => (p.rvalid.value === 1 ? { data: Number(p.rdata.value) >>> 0, resp: Number(p.rresp.value) } : null));
      if (r) { p.rready.value = 0; return r; }
    }
    throw new Error(`AXI4-Lite read 0x${addr.toString(16)}: no R response (cycle ${tb.cycle})`);
  }
}
