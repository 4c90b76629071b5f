// Stand-ins around nic_responder for its tests, on tb/bfm (stage-streams.ts, AxiStreamSink):
// a TLB port answering from a TS MR map (dma-standins.ts' XlateStandIn with room for two
// answers), a nic_dma_write that takes commands and payload and returns statuses in order,
// the nic_regs side (qp_ctx driven from a model, updates applied at the edge like the
// registers do), and the READ responder's rd_room. Every stream they touch has tb/bfm's
// protocol checker on it.

import { AxiStreamSink, ClockPhases, type AxisOutPorts, type AxisPacket, type Readable } from '../../bfm/index.ts';
import type { TestBench } from '../../core/index.ts';
import { mrCheck, type Mr, type Upd } from './responder-model.ts';
import { XlateStandIn } from './dma-standins.ts';
import { onPackets, StructSink, StructSource, type StructInPorts, type StructOutPorts } from './stage-streams.ts';

export interface XlateReqV { key: number; va: bigint; len: number; pd: number; access: number }
export interface DmaCmdV { va: bigint; len: number; key: number; pd: number; access: number }
export interface ReadReqV { qp: number; psn: number; va: bigint; rkey: number; len: number; pd: number; pmtu: number; msn: number }

/** A queue's worth of responses on the way back: the TLB answers at most two ahead. */
const TLB_DEPTH = 2;

/** One TLB client port: takes a request when it has room (ready 70 % of cycles), answers
 *  after 1..maxLat cycles, in order, with the MR checks' status. */
export class TlbStandIn extends XlateStandIn<XlateReqV, { status: number; pa: bigint }> {
  constructor(tb: TestBench, req: StructOutPorts<XlateReqV>, resp: StructInPorts<{ status: number; pa: bigint }>, mrs: readonly Mr[], maxLat = 12) {
    super(tb, req, resp, r => ({ status: mrCheck(mrs, r.key, r.pd, r.va, r.len, r.access), pa: 0n }),
      { minLatency: 0, maxLatency: maxLat - 1, readyP: 0.7, validP: 1, maxPending: TLB_DEPTH });
  }
}

export interface DmaOpts { readonly pause: number; readonly maxLat: number; readonly poison?: (va: bigint) => boolean }

/** nic_dma_write stand-in: in-order commands; a command's status comes 1..maxLat cycles after
 *  its payload packet has arrived (never before), from the MR map or a poisoned address. */
export class DmaStandIn {
  readonly done: { cmd: DmaCmdV; bytes: Uint8Array; status: number }[] = [];
  /** Every payload packet received, in order. */
  readonly packets: AxisPacket[] = [];
  readonly #cmds: StructSink<DmaCmdV>;
  readonly #statuses: StructSource<{ status: number }>;
  readonly #payload: AxiStreamSink;

  constructor(tb: TestBench, ports: { cmd: StructOutPorts<DmaCmdV>; payload: AxisOutPorts; status: StructInPorts<{ status: number }> }, mrs: readonly Mr[], o: DmaOpts) {
    const rng = tb.rng.fork();
    this.#cmds = new StructSink(tb, ports.cmd, 'm_dma_cmd', { pause: o.pause });
    this.#payload = new AxiStreamSink(tb, ports.payload, { pause: o.pause });
    this.#statuses = new StructSource(tb, ports.status, 's_dma_status');
    onPackets(tb, this.#payload, p => this.packets.push(p));
    // Matches commands with packets as both arrive (a command may come before or after its bytes).
    ClockPhases.of(tb).onDrive(() => {
      while (this.done.length < Math.min(this.#cmds.items.length, this.packets.length)) {
        const i = this.done.length;
        const c = this.#cmds.items[i]!.value, bytes = this.packets[i]!.data;
        if (bytes.length !== c.len) throw new Error(`dma stand-in: command ${i} (va 0x${c.va.toString(16)}, taken in cycle ${this.#cmds.items[i]!.cycle}) has len ${c.len} but its payload packet has ${bytes.length} bytes (cycle ${tb.cycle})`);
        let status = mrCheck(mrs, c.key, c.pd, c.va, c.len, c.access);
        if (o.poison?.(c.va)) status = 6;
        this.done.push({ cmd: c, bytes, status });
        this.#statuses.push({ status }, tb.cycle + rng.int(1, o.maxLat));
      }
    });
  }

  /** Commands taken, with their cycles. */
  get cmds(): readonly (DmaCmdV & { cycle: number })[] {
    return this.#cmds.items.map(x => ({ ...x.value, cycle: x.cycle }));
  }

  /** Cycle in which the responder took each status. */
  get statusCycles(): readonly number[] {
    return this.#statuses.sent.map(x => x.cycle);
  }

  /** Handshakes on the command, payload and status streams so far. */
  get transfers(): number {
    return this.#cmds.watch.transfers + (this.#payload.watch?.transfers ?? 0) + this.#statuses.watch.transfers;
  }
}

export interface CtxModel { state: number; expPsn: number; msn: number }

type UpdPort = Readable<{ valid: number; qp: number; value: number }>;

/** nic_regs' side: drives qp_ctx every cycle from `publish()`, applies exp_psn_upd, msn_upd
 *  and qp_error at the edge they are valid on, and counts drop pulses. */
export class RegsStandIn {
  readonly expUpd: (Upd & { cycle: number })[] = [];
  readonly msnUpd: (Upd & { cycle: number })[] = [];
  readonly qpErrors: { qp: number; cycle: number }[] = [];
  readonly drops: number[] = [];
  constructor(tb: TestBench, ports: { exp_psn_upd: UpdPort; msn_upd: UpdPort; qp_error: Readable<{ valid: number; qp: number }>; drop: Readable }, ctx: CtxModel[], publish: () => void) {
    const phases = ClockPhases.of(tb);
    phases.onSample(() => {
      const e = ports.exp_psn_upd.value, m = ports.msn_upd.value, x = ports.qp_error.value;
      if (e.valid) { this.expUpd.push({ qp: e.qp, value: e.value, cycle: tb.cycle }); ctx[e.qp]!.expPsn = e.value; }
      if (m.valid) { this.msnUpd.push({ qp: m.qp, value: m.value, cycle: tb.cycle }); ctx[m.qp]!.msn = m.value; }
      if (x.valid) { this.qpErrors.push({ qp: x.qp, cycle: tb.cycle }); ctx[x.qp]!.state = 4; }
      if (Number(ports.drop.value) !== 0) this.drops.push(tb.cycle);
    });
    phases.onDrive(publish);
  }

  get events(): number {
    return this.expUpd.length + this.msnUpd.length + this.qpErrors.length + this.drops.length;
  }
}

/** Drives rd_room: each QP's constant (`fixed`), or per QP `slots` READ slots, each freed
 *  `freeLat` cycles after its ReadReq was taken, that must never be over-subscribed (the
 *  READ responder asserts the same). With `busy`, rd_busy bit q is high while QP q has a
 *  ReadReq taken less than `freeLat` cycles ago (its READ responses are not all out), with
 *  or without `slots`: without them rd_room stays the constant the model assumes. Build it
 *  after the m_read_req sink: it then sees each take in the cycle it happens, as the READ
 *  responder's slot counters do. */
export class RoomStandIn {
  /** ReadReqs per QP taken and not yet freed. */
  readonly #used: number[];
  readonly #frees: { qp: number; at: number }[] = [];
  #seen = 0;
  constructor(tb: TestBench, rdRoom: { value: number }, reads: StructSink<ReadReqV>, o: { fixed: readonly boolean[]; slots?: number; freeLat?: number; busy?: { value: number }; dupRoom?: { value: number } }) {
    const slots = o.slots;
    this.#used = o.fixed.map(() => 0);
    const phases = ClockPhases.of(tb);
    phases.onSample(() => {
      if (slots === undefined && !o.busy) return;
      for (; this.#seen < reads.items.length; this.#seen++) {
        const r = reads.items[this.#seen]!;
        if (slots !== undefined && this.#used[r.value.qp]! >= slots) throw new Error(`rd_room: QP ${r.value.qp} got a ReadReq (psn 0x${r.value.psn.toString(16)}) in cycle ${r.cycle} with no free READ slot`);
        this.#used[r.value.qp]!++;
        this.#frees.push({ qp: r.value.qp, at: tb.cycle + (o.freeLat ?? 20) });
      }
    });
    phases.onDrive(() => {
      while (this.#frees[0] && this.#frees[0].at <= tb.cycle) this.#used[this.#frees.shift()!.qp]!--;
      rdRoom.value = o.fixed.reduce((a, f, q) => ((slots === undefined ? f : this.#used[q]! < slots) ? a | (1 << q) : a), 0);
      // rd_dup_room mirrors rd_room here: a duplicate is answered when the model's QP has room
      // (the READ responder's own duplicate slot is checked in read-responder.test.ts).
      if (o.dupRoom) o.dupRoom.value = rdRoom.value;
      // rd_busy: a READ in flight (its response commands are not all handed on).
      if (o.busy) o.busy.value = this.#used.reduce((a, u, q) => (u > 0 ? a | (1 << q) : a), 0);
    });
  }

  /** No slot waits to be freed. */
  get idle(): boolean {
    return this.#frees.length === 0;
  }

  /** Slots freed so far (a held ACK may leave after each). */
  get events(): number {
    return this.#seen - this.#frees.length;
  }
}
