// Stand-ins around nic_responder for its tests (cycle-loop agents, see framing-support.ts):
// a TLB port answering from a TS MR map, a nic_dma_write that takes commands and payload and
// returns statuses in order, the nic_regs side (qp_ctx driven from a model, updates applied
// at the edge like the registers do), and monitors for the event outputs.

import type { TestBench } from '../../core/index.ts';
import type { Rng } from '../../core/rng.ts';
import type { Agent, AxisSink } from './framing-support.ts';
import { mrCheck, type Mr, type Upd } from './responder-model.ts';

type Bits = number | bigint;
interface In<T = Bits> { value: T }
interface Out<T = Bits> { readonly value: T }
const num = (v: Bits): number => Number(v);

export interface XlateReqV { key: number; va: bigint; len: number; pd: number; access: number }
export interface DmaCmdV { va: bigint; len: number; key: number; pd: number; access: number }

/** One TLB client port: accepts a request when ready, answers after 1..maxLat cycles. */
export class TlbAgent implements Agent {
  readonly requests: (XlateReqV & { status: number; cycle: number })[] = [];
  private readonly pending: { status: number; at: number }[] = [];
  private presenting = false;
  constructor(
    private readonly req: { data: Out<XlateReqV>; valid: Out; ready: In },
    private readonly resp: { data: In<{ status: number; pa: bigint }>; valid: In; ready: Out },
    private readonly mrs: readonly Mr[], private readonly rng: Rng, private readonly maxLat = 12,
  ) {}
  drive(tb: TestBench): void {
    this.req.ready.value = this.pending.length < 2 && this.rng.bool(0.7) ? 1 : 0;
    const head = this.pending[0];
    if (!this.presenting) this.presenting = head !== undefined && tb.cycle >= head.at;
    this.resp.valid.value = this.presenting ? 1 : 0;
    if (head) this.resp.data.value = { status: head.status, pa: 0n };
  }
  commit(tb: TestBench): void {
    if (num(this.req.valid.value) && num(this.req.ready.value)) {
      const r = this.req.data.value;
      const status = mrCheck(this.mrs, r.key, r.pd, r.va, r.len, r.access);
      this.requests.push({ ...r, status, cycle: tb.cycle });
      this.pending.push({ status, at: tb.cycle + this.rng.int(1, this.maxLat) });
    }
    if (this.presenting && num(this.resp.ready.value)) { this.pending.shift(); this.presenting = false; }
  }
}

/** nic_dma_write stand-in: in-order commands; a command's status comes `lat` cycles after
 *  its last payload byte (never before), from the MR map or a poisoned address. */
export class DmaAgent implements Agent {
  readonly cmds: (DmaCmdV & { cycle: number })[] = [];
  readonly done: { cmd: DmaCmdV; bytes: Uint8Array; status: number }[] = [];
  /** Cycle at which the responder took each status. */
  readonly statusCycles: number[] = [];
  private presenting = false;
  private readonly queued: { status: number; at: number }[] = [];
  constructor(
    private readonly cmd: { data: Out<DmaCmdV>; valid: Out; ready: In },
    private readonly pay: AxisSink,
    private readonly status: { data: In<{ status: number }>; valid: In; ready: Out },
    private readonly mrs: readonly Mr[], private readonly rng: Rng,
    private readonly opts: { readyProb: number; maxLat: number; poison?: (va: bigint) => boolean },
  ) {}
  drive(tb: TestBench): void {
    this.cmd.ready.value = this.rng.bool(this.opts.readyProb) ? 1 : 0;
    this.pay.drive();
    // A command is finished once its payload (packet) has arrived.
    while (this.done.length < Math.min(this.cmds.length, this.pay.frames.length)) {
      const i = this.done.length;
      const c = this.cmds[i]!, bytes = this.pay.frames[i]!.bytes;
      if (bytes.length !== c.len) throw new Error(`dma stand-in: command ${i} (va 0x${c.va.toString(16)}) has len ${c.len} but its payload packet has ${bytes.length} bytes (cycle ${tb.cycle})`);
      let st = mrCheck(this.mrs, c.key, c.pd, c.va, c.len, c.access);
      if (this.opts.poison?.(c.va)) st = 6;
      this.done.push({ cmd: c, bytes, status: st });
      this.queued.push({ status: st, at: tb.cycle + this.rng.int(1, this.opts.maxLat) });
    }
    const head = this.queued[0];
    if (!this.presenting) this.presenting = head !== undefined && tb.cycle >= head.at;
    this.status.valid.value = this.presenting ? 1 : 0;
    if (head) this.status.data.value = { status: head.status };
  }
  commit(tb: TestBench): void {
    if (num(this.cmd.valid.value) && num(this.cmd.ready.value)) this.cmds.push({ ...this.cmd.data.value, cycle: tb.cycle });
    this.pay.commit(tb);
    if (this.presenting && num(this.status.ready.value)) { this.queued.shift(); this.presenting = false; this.statusCycles.push(tb.cycle); }
  }
}

export interface CtxModel { state: number; expPsn: number; msn: number }

/** nic_regs' side: drives qp_ctx each cycle from `publish()`, applies exp_psn_upd, msn_upd
 *  and qp_error at the edge they are valid on, and counts drop pulses. */
export class RegsAgent implements Agent {
  readonly expUpd: (Upd & { cycle: number })[] = [];
  readonly msnUpd: (Upd & { cycle: number })[] = [];
  readonly qpErrors: { qp: number; cycle: number }[] = [];
  readonly drops: number[] = [];
  constructor(
    private readonly ports: {
      exp_psn_upd: Out<{ valid: number; qp: number; value: number }>; msn_upd: Out<{ valid: number; qp: number; value: number }>;
      qp_error: Out<{ valid: number; qp: number }>; drop: Out;
    },
    private readonly ctx: CtxModel[], private readonly publish: () => void,
  ) {}
  drive(): void { this.publish(); }
  commit(tb: TestBench): void {
    const e = this.ports.exp_psn_upd.value, m = this.ports.msn_upd.value, x = this.ports.qp_error.value;
    if (e.valid) { this.expUpd.push({ qp: e.qp, value: e.value, cycle: tb.cycle }); this.ctx[e.qp]!.expPsn = e.value; }
    if (m.valid) { this.msnUpd.push({ qp: m.qp, value: m.value, cycle: tb.cycle }); this.ctx[m.qp]!.msn = m.value; }
    if (x.valid) { this.qpErrors.push({ qp: x.qp, cycle: tb.cycle }); this.ctx[x.qp]!.state = 4; }
    if (num(this.ports.drop.value)) this.drops.push(tb.cycle);
  }
}

