// Runs nic_read_resp_rx on a stimulus from read-resp-rx-model.ts: contexts on s_ctx, the
// events on s_hdr/s_payload/s_ack (each waits until its READ's context was taken, as a
// response cannot beat its request), a nic_dma_write stand-in (records commands and their
// payload, answers statuses in order after random delays, errors for poisoned SGEs), and
// random back-pressure. Compares against the model and names the first difference.

import { QpCtx } from '../../../gen/nic/ctx.ts';
import { nicReadRespRx } from '../../../gen/nic/read-resp-rx.ts';
import { QP_STATE } from '../../../gen/nic/regmap.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import type { Rng } from '../../core/rng.ts';
import { design } from '../../design.ts';
import { AxisSink, AxisSource, StreamSink, StreamSource, type Agent } from './framing-support.ts';
import { makeStim, model, POISON_BIT, type Done, type Ev, type ReadCtx, type StimOpts, type Want } from './read-resp-rx-model.ts';

type Bits = number | bigint;
interface Port<T = Bits> { value: T }
const num = (v: unknown): number => Number(v);
const hex = (v: number | bigint): string => `0x${v.toString(16)}`;

export interface BenchOpts { dataWidth?: number; pIn: number; pOut: number; maxLat: number; /** QP -> QP_STATE other than RTS (all of the run). */ states?: Record<number, number> }
interface CmdV { va: bigint; len: number; key: number; pd: number; access: number }

/** Presents events in order; each waits until its READ's context has been taken. */
class EventSource implements Agent {
  private presenting: 'hdr' | 'ack' | null = null;
  constructor(private readonly hdr: { data: Port<unknown>; valid: Port; ready: Port }, private readonly ack: { data: Port<unknown>; valid: Port; ready: Port },
    readonly queue: Ev[], private readonly ctxTaken: () => number, private readonly rng: Rng, private readonly pIn: number) {}
  drive(): void {
    const e = this.queue[0];
    if (!this.presenting && e && e.ctx < this.ctxTaken() && this.rng.bool(this.pIn)) this.presenting = e.kind;
    this.hdr.valid.value = this.presenting === 'hdr' ? 1 : 0;
    this.ack.valid.value = this.presenting === 'ack' ? 1 : 0;
    if (e?.kind === 'hdr') this.hdr.data.value = { opcode: e.hdr.opcode, destQpn: e.hdr.destQpn, psn: e.hdr.psn, payloadLen: e.hdr.payloadLen, ackReq: 0, hasReth: 0, rethVa: 0n, rethRkey: 0, rethLen: 0, hasAeth: 1, aethSyndrome: 0x1f, aethMsn: 0, srcMac: 0n, srcIp: 0, srcPort: 0 };
    if (e?.kind === 'ack') this.ack.data.value = { qp: e.qp, psn: e.psn, syndrome: e.syndrome, msn: 0 };
  }
  commit(): void {
    const port = this.presenting === 'hdr' ? this.hdr : this.presenting === 'ack' ? this.ack : null;
    if (port && num(port.ready.value)) { this.queue.shift(); this.presenting = null; }
  }
}

/** nic_dma_write stand-in: a command's status comes 1..maxLat cycles after its last payload byte. */
class DmaStandIn implements Agent {
  readonly cmds: (CmdV & { cycle: number })[] = [];
  readonly statusCycles: number[] = [];
  private readonly queued: { status: number; at: number }[] = [];
  private presenting = false;
  private answered = 0;
  constructor(private readonly cmd: { data: Port<CmdV>; valid: Port; ready: Port }, readonly pay: AxisSink,
    private readonly st: { data: Port<unknown>; valid: Port; ready: Port }, private readonly rng: Rng, private readonly o: BenchOpts) {}
  drive(tb: TestBench): void {
    this.cmd.ready.value = this.rng.bool(this.o.pOut) ? 1 : 0;
    this.pay.drive();
    for (; this.answered < Math.min(this.cmds.length, this.pay.frames.length); this.answered++) {
      const bad = (this.cmds[this.answered]!.va & POISON_BIT) !== 0n;
      this.queued.push({ status: bad ? 5 : 0, at: tb.cycle + this.rng.int(1, this.o.maxLat) });
    }
    const h = this.queued[0];
    if (!this.presenting) this.presenting = h !== undefined && tb.cycle >= h.at;
    this.st.valid.value = this.presenting ? 1 : 0;
    if (h) this.st.data.value = { status: h.status };
  }
  commit(tb: TestBench): void {
    if (num(this.cmd.valid.value) && num(this.cmd.ready.value)) {
      const c = this.cmd.data.value;
      this.cmds.push({ va: BigInt(c.va), len: num(c.len), key: num(c.key), pd: num(c.pd), access: num(c.access), cycle: tb.cycle });
    }
    this.pay.commit(tb);
    if (this.presenting && num(this.st.ready.value)) { this.queued.shift(); this.presenting = false; this.statusCycles.push(tb.cycle); }
  }
}

export interface BenchResult { want: Want; ctxs: ReadCtx[]; dma: DmaStandIn; dones: { value: Done; cycle: number }[]; seed: string }

export async function runBench(stim: StimOpts | ((rng: Rng) => { ctxs: ReadCtx[]; events: Ev[] }), o: BenchOpts): Promise<BenchResult> {
  const W = o.dataWidth ?? 64, B = W / 8, numQp = 4;
  let res: BenchResult | undefined;
  await runTest(design(nicReadRespRx, { dataWidth: W, numQp, depth: 8 }), async (dut, tb) => {
    const rng = tb.rng.fork();
    const { ctxs, events } = typeof stim === 'function' ? stim(rng) : makeStim(rng, stim);
    const states = Array.from({ length: numQp }, (_, q) => o.states?.[q] ?? QP_STATE.RTS);
    const want = model(ctxs, events, numQp, new Set(states.flatMap((s, q) => (s === QP_STATE.ERROR || s === QP_STATE.RESET ? [q] : []))));
    const replay = `seed ${tb.seed} (replay: NICGEN_SEED=${tb.seed})`;
    console.log(`nic_read_resp_rx W=${W} ${replay}: ${ctxs.length} READs, ${events.length} events, ${want.writes.length} DMA pieces, ${want.dones.length} completions`);
    const zero = Object.fromEntries(QpCtx.fields.map(f => [f.name, f.shape.width > 32 ? 0n : 0]));
    dut.qp_ctx.value = states.map(state => ({ ...zero, state })) as never;
    dut.s_ctx.valid.value = 0; dut.s_hdr.valid.value = 0; dut.s_ack.valid.value = 0; dut.s_payload.tvalid.value = 0; dut.s_dma_status.valid.value = 0;
    await tb.reset(2);

    const ctxSrc = new StreamSource<unknown>(dut.s_ctx as never, tb.rng.fork(), o.pIn);
    for (const c of ctxs) ctxSrc.queue.push({ ...c, sge: [0, 1, 2, 3].map(i => c.sge[i] ?? { addr: 0xdead_0000n + BigInt(i), len: 0x7777, lkey: 0xbad }) });
    let taken = 0;
    const ctxCount: Agent = { drive() {}, commit() { if (num(dut.s_ctx.valid.value) && num(dut.s_ctx.ready.value)) taken++; } };
    const evSrc = new EventSource(dut.s_hdr as never, dut.s_ack as never, [...events], () => taken, tb.rng.fork(), o.pIn);
    const pay = new AxisSource(dut.s_payload, B, tb.rng.fork(), o.pIn);
    for (const e of events) if (e.kind === 'hdr' && e.payload.length > 0) pay.push({ bytes: e.payload, user: 0 });
    const dma = new DmaStandIn(dut.m_dma_cmd as never, new AxisSink(dut.m_payload, B, tb.rng.fork(), o.pOut, 'm_payload'), dut.s_dma_status as never, tb.rng.fork(), o);
    const dones = new StreamSink<Done>(dut.m_done as never, tb.rng.fork(), o.pOut);
    // ctxCount commits before ctxSrc clears its valid.
    const agents: Agent[] = [ctxCount, ctxSrc, evSrc, pay, dma, dones];
    const limit = 20 * want.writes.reduce((a, w) => a + Math.ceil(w.len / B) + 8, 0) + 40 * events.length + 20_000;
    const start = tb.cycle;
    while (dones.items.length < want.dones.length || evSrc.queue.length > 0 || !pay.idle || dma.pay.frames.length < want.writes.length) {
      if (tb.cycle - start > limit) {
        throw new Error(`nic_read_resp_rx ${replay}: stuck at cycle ${tb.cycle}: ${evSrc.queue.length} events left (next: ${evSrc.queue[0]?.note}), ${ctxSrc.queue.length} contexts left, ${dma.cmds.length}/${want.writes.length} DMA commands, ${dones.items.length}/${want.dones.length} completions`);
      }
      for (const a of agents) a.drive(tb);
      tb.settle();
      for (const a of agents) a.commit(tb);
      await tb.rising();
    }
    for (let i = 0; i < 200; i++) { for (const a of agents) a.drive(tb); tb.settle(); for (const a of agents) a.commit(tb); await tb.rising(); }
    res = { want, ctxs, dma, dones: dones.items, seed: replay };
  });
  compare(res!);
  return res!;
}

function compare(r: BenchResult): void {
  const { want, dma } = r;
  const n = Math.max(dma.cmds.length, want.writes.length);
  for (let i = 0; i < n; i++) {
    const g = dma.cmds[i], w = want.writes[i], f = dma.pay.frames[i];
    const where = `DMA piece #${i} (READ #${w?.read}, ${r.seed})`;
    if (!g || !w) throw new Error(`${where}: got ${dma.cmds.length} commands, want ${want.writes.length}`);
    if (g.va !== w.va || g.len !== w.len || g.key !== w.key || g.pd !== w.pd || g.access !== w.access) {
      throw new Error(`${where} at cycle ${g.cycle}: got va ${hex(g.va)} len ${g.len} key ${hex(g.key)} pd ${g.pd} access ${g.access}, want va ${hex(w.va)} len ${w.len} key ${hex(w.key)} pd ${w.pd} access ${w.access}`);
    }
    if (!f || f.bytes.length !== w.len) throw new Error(`${where}: payload frame has ${f?.bytes.length} bytes, want ${w.len}`);
    const k = f.bytes.findIndex((b, j) => b !== w.bytes[j]);
    if (k >= 0) throw new Error(`${where}: payload byte ${k} (beat ending cycle ${f.lastCycle}) is ${hex(f.bytes[k]!)}, want ${hex(w.bytes[k]!)}`);
  }
  if (dma.pay.frames.length !== want.writes.length) throw new Error(`${r.seed}: ${dma.pay.frames.length} payload frames, want ${want.writes.length}`);
  for (let i = 0; i < Math.max(r.dones.length, want.dones.length); i++) {
    const g = r.dones[i], w = want.dones[i];
    if (!g || !w) throw new Error(`m_done #${i} (${r.seed}): got ${r.dones.length} completions, want ${want.dones.length}`);
    const gv = { qp: num(g.value.qp), wrId: BigInt(g.value.wrId), lastPsn: num(g.value.lastPsn), status: num(g.value.status), syndrome: num(g.value.syndrome), ok: num(g.value.ok) };
    const bad = (Object.keys(w) as (keyof Done)[]).filter(k => BigInt(gv[k]) !== BigInt(w[k]));
    if (bad.length) throw new Error(`m_done #${i} at cycle ${g.cycle} (${r.seed}): ${bad.map(k => `${k} ${hex(gv[k])} want ${hex(w[k])}`).join(', ')}`);
    // A completion leaves only after the DmaStatus of its READ's last piece.
    const lw = want.lastWriteOf[i]!;
    if (lw >= 0 && !(dma.statusCycles[lw]! < g.cycle)) throw new Error(`m_done #${i} at cycle ${g.cycle} (${r.seed}) left before the status of DMA piece #${lw} (cycle ${dma.statusCycles[lw]})`);
  }
}
