// Runs nic_read_resp_rx on a stimulus from read-resp-rx-model.ts: contexts on s_ctx, the
// events on s_hdr/s_payload (READ responses and ACK/NAK headers; each waits until its READ's
// context was taken, as a response cannot beat its request) and s_rewind, a nic_dma_write
// stand-in (records commands and their payload, answers statuses in order after random
// delays, errors for poisoned SGEs), and random back-pressure. m_ack (the events for the
// ACK tracker) is always taken, as the tracker does. Compares against the model and names
// the first difference. With `lazyCtx`, a context is offered only when its first event is
// next (and not within 4 cycles of its QP's rewind): what nic_req_tx does after a rewind.
// Streams are tb/bfm models (stage-streams.ts for the struct streams), each with its checker.

import { emptyQpCtx } from './qp-ctx.ts';
import { LOCAL_QPN_BASE } from '../../../gen/nic/flow-types.ts';
import { nicReadRespRx } from '../../../gen/nic/read-resp-rx.ts';
import { QP_STATE } from '../../../gen/nic/regmap.ts';
import { AxiStreamSink, AxiStreamSource, ClockPhases } from '../../bfm/index.ts';
import { runTest, type TestBench } from '../../core/index.ts';
import type { Rng } from '../../core/rng.ts';
import { design } from '../../design.ts';
import { onPackets, StructSink, StructSource, type StructInPorts, type StructOutPorts } from './stage-streams.ts';
import { makeStim, model, POISON_BIT, type Done, type Ev, type ReadCtx, type StimOpts, type Want } from './read-resp-rx-model.ts';

const num = (v: unknown): number => Number(v);
const hex = (v: number | bigint): string => `0x${v.toString(16)}`;

export interface BenchOpts { dataWidth?: number; pIn: number; pOut: number; maxLat: number; /** QP -> QP_STATE other than RTS (all of the run). */ states?: Record<number, number>; lazyCtx?: boolean }
interface CmdV { va: bigint; len: number; key: number; pd: number; access: number }
/** A payload packet the DMA stand-in took, with the cycles of its first and last beat. */
export interface PayFrame { bytes: Uint8Array; beats: number; firstCycle: number; lastCycle: number }

/** Presents events in order: headers (responses, ACK/NAKs) on s_hdr, rewinds on s_rewind; each
 *  waits until its READ's context has been taken (`ctxTaken`), and with pIn < 1 for random idle
 *  cycles. `needCtx` offers the contexts up to an index (lazy contexts). */
class EventSource {
  #next = 0;
  readonly #hdr: StructSource<unknown>;
  readonly #rw: StructSource<unknown>;
  readonly rewoundAt = new Map<number, number>();
  #rwSeen = 0;
  constructor(tb: TestBench, hdr: StructInPorts<unknown>, rw: StructInPorts<unknown>, private readonly events: readonly Ev[], ctxTaken: () => number, pIn: number, needCtx?: (upTo: number) => void) {
    const rng = tb.rng.fork();
    // Registered before the two sources: an event queued here is offered in this same cycle.
    ClockPhases.of(tb).onDrive(() => {
      const e = events[this.#next];
      // A rewind counts from its handshake (the DUT starts dropping the QP's contexts then).
      if (this.#rw.sent.length > this.#rwSeen) { const x = this.#rw.sent[this.#rwSeen++]!; this.rewoundAt.set(Number((x.value as { qp: number }).qp), x.cycle); }
      if (!e || !this.#hdr.idle || !this.#rw.idle) return;
      needCtx?.(e.ctx);
      if (e.ctx >= ctxTaken() || !rng.bool(pIn)) return;
      this.#next++;
      const base = { ackReq: 0, hasReth: 0, rethVa: 0n, rethRkey: 0, rethLen: 0, hasAeth: 1, aethMsn: 0, srcMac: 0n, srcIp: 0, srcPort: 0 };
      if (e.kind === 'hdr') this.#hdr.push({ ...base, opcode: e.hdr.opcode, destQpn: e.hdr.destQpn, psn: e.hdr.psn, payloadLen: e.hdr.payloadLen, aethSyndrome: 0x1f });
      else if (e.kind === 'ack') this.#hdr.push({ ...base, opcode: 0x11, destQpn: LOCAL_QPN_BASE + e.qp, psn: e.psn, payloadLen: 0, aethSyndrome: e.syndrome });
      else this.#rw.push({ qp: e.qp, ringIdx: 0, sqPsn: 0 });
    });
    this.#hdr = new StructSource(tb, hdr, 's_hdr');
    this.#rw = new StructSource(tb, rw, 's_rewind');
  }
  /** Events not yet transferred. */
  get left(): number { return this.events.length - this.#next + (this.#hdr.idle && this.#rw.idle ? 0 : 1); }
  get nextNote(): string | undefined { return this.events[this.#next]?.note; }
  /** The cycles s_hdr headers were taken, in order. */
  get hdrCycles(): number[] { return this.#hdr.sent.map(x => x.cycle); }
}

/** nic_dma_write stand-in: a command's status comes 1..maxLat cycles after its last payload byte. */
class DmaStandIn {
  readonly cmds: (CmdV & { cycle: number })[] = [];
  readonly statusCycles: number[] = [];
  readonly pay: { readonly frames: PayFrame[]; readonly taken: () => number };
  constructor(tb: TestBench, cmd: StructOutPorts<CmdV>, payPorts: AxiStreamSinkPorts, st: StructInPorts<{ status: number }>, o: BenchOpts) {
    const rng = tb.rng.fork();
    new StructSink<CmdV>(tb, cmd, 'm_dma_cmd', {
      pause: 1 - o.pOut,
      onItem: (c, cycle) => { this.cmds.push({ va: BigInt(c.va), len: num(c.len), key: num(c.key), pd: num(c.pd), access: num(c.access), cycle }); },
    });
    const sink = new AxiStreamSink(tb, payPorts, { name: 'm_payload', pause: 1 - o.pOut });
    const frames: PayFrame[] = [];
    onPackets(tb, sink, p => { frames.push({ bytes: p.data, beats: p.beats, firstCycle: p.firstCycle, lastCycle: p.cycle }); });
    this.pay = { frames, taken: () => sink.stats.packets };
    let answered = 0;
    // Registered before the status source: a status due now is offered in this cycle.
    ClockPhases.of(tb).onDrive(() => {
      for (; answered < Math.min(this.cmds.length, sink.stats.packets); answered++) {
        const bad = (this.cmds[answered]!.va & POISON_BIT) !== 0n;
        status.push({ status: bad ? 5 : 0 }, tb.cycle + rng.int(1, o.maxLat));
      }
    });
    const status = new StructSource<{ status: number }>(tb, st, 's_dma_status');
    ClockPhases.of(tb).onSample(() => { if (status.sent.length > this.statusCycles.length) this.statusCycles.push(status.sent.at(-1)!.cycle); });
  }
}
type AxiStreamSinkPorts = ConstructorParameters<typeof AxiStreamSink>[1];

export interface BenchResult {
  want: Want; ctxs: ReadCtx[]; dma: DmaStandIn; dones: { value: Done; cycle: number }[]; seed: string;
  acks: { value: Record<string, number>; cycle: number }[];
  /** The cycle each s_hdr header (READ response or ACK/NAK) was taken. */
  hdrCycles: number[];
  /** Model pieces not written (later packets of READs whose DMA error was back in time). */
  skipped: number;
  /** A hash of the cycle of every output handshake (DMA commands, payload beats' first and
   *  last cycles, DMA statuses taken, m_ack events, m_done): equal digests on one seed mean
   *  the same timing, so two versions of the design can be compared cycle for cycle. */
  cycleDigest: string;
}

function cycleDigest(r: Omit<BenchResult, 'cycleDigest'>): string {
  const parts = [r.dma.cmds.map(c => c.cycle), r.dma.pay.frames.flatMap(f => [f.firstCycle, f.lastCycle]), r.dma.statusCycles, r.acks.map(a => a.cycle), r.dones.map(d => d.cycle)];
  let h = 0x811c9dc5;
  for (const xs of parts) for (const x of [...xs, -1]) h = Math.imul(h ^ (x & 0xffffffff), 0x01000193) >>> 0;
  return `${h.toString(16).padStart(8, '0')}/${parts.map(xs => xs.length).join('.')}`;
}

export async function runBench(stim: StimOpts | ((rng: Rng) => { ctxs: ReadCtx[]; events: Ev[] }), o: BenchOpts): Promise<BenchResult> {
  const W = o.dataWidth ?? 64, B = W / 8, numQp = 4;
  let res: BenchResult | undefined;
  await runTest(design(nicReadRespRx, { dataWidth: W, numQp, readsPerQp: 2 }), async (dut, tb) => {
    const rng = tb.rng.fork();
    const { ctxs, events } = typeof stim === 'function' ? stim(rng) : makeStim(rng, stim);
    const states = Array.from({ length: numQp }, (_, q) => o.states?.[q] ?? QP_STATE.RTS);
    const want = model(ctxs, events, numQp, new Set(states.flatMap((s, q) => (s === QP_STATE.ERROR || s === QP_STATE.RESET ? [q] : []))));
    const replay = `seed ${tb.seed} (replay: NICGEN_SEED=${tb.seed})`;
    console.log(`nic_read_resp_rx W=${W} ${replay}: ${ctxs.length} READs, ${events.length} events, ${want.writes.length} DMA pieces, ${want.dones.length} completions`);
    dut.qp_ctx.value = states.map(state => ({ ...emptyQpCtx(), state })) as never;
    dut.s_ctx.valid.value = 0; dut.s_hdr.valid.value = 0; dut.s_rewind.valid.value = 0; dut.s_payload.tvalid.value = 0; dut.s_dma_status.valid.value = 0;
    await tb.reset(2);

    const ctxSrc = new StructSource<unknown>(tb, dut.s_ctx as never, 's_ctx', { pause: 1 - o.pIn });
    const ctxWord = (c: ReadCtx): unknown => ({ ...c, sge: [0, 1, 2, 3].map(i => c.sge[i] ?? { addr: 0xdead_0000n + BigInt(i), len: 0x7777, lkey: 0xbad }) });
    let offered = 0;
    if (!o.lazyCtx) for (const c of ctxs) ctxSrc.push(ctxWord(c)), offered++;
    const needCtx = (upTo: number): void => {
      for (; offered <= upTo && offered < ctxs.length; offered++) {
        const c = ctxs[offered]!;
        // Not within 4 cycles of its QP's rewind (nic_req_tx re-reads the ring first).
        const after = (evSrc.rewoundAt.get(c.qp) ?? -100) + 4;
        ctxSrc.push(ctxWord(c), after);
      }
    };
    const evSrc: EventSource = new EventSource(tb, dut.s_hdr as never, dut.s_rewind as never, events, () => ctxSrc.sent.length, o.pIn, o.lazyCtx ? needCtx : undefined);
    const acks = new StructSink<Record<string, number>>(tb, dut.m_ack as never, 'm_ack');
    const pay = new AxiStreamSource(tb, dut.s_payload, { pause: 1 - o.pIn });
    for (const e of events) if (e.kind === 'hdr' && e.payload.length > 0) pay.send(e.payload);
    const dma = new DmaStandIn(tb, dut.m_dma_cmd as never, dut.m_payload, dut.s_dma_status as never, o);
    const dones = new StructSink<Done>(tb, dut.m_done as never, 'm_done', { pause: 1 - o.pOut });
    const limit = 20 * want.writes.reduce((a, w) => a + Math.ceil(w.len / B) + 8, 0) + 40 * events.length + 20_000;
    const finished = (): boolean => dones.items.length >= want.dones.length && evSrc.left === 0 && pay.idle && dma.pay.taken() >= dma.cmds.length;
    try {
      await tb.until(finished, { timeout: limit, what: 'nic_read_resp_rx: every event in, every completion out' });
    } catch (err) {
      throw new Error(`nic_read_resp_rx ${replay}: stuck at cycle ${tb.cycle}: ${evSrc.left} events left (next: ${evSrc.nextNote}), ${ctxSrc.pending} contexts left, ${dma.cmds.length}/${want.writes.length} DMA commands, ${dones.items.length}/${want.dones.length} completions (${String(err)})`);
    }
    await tb.clockCycles(200);
    res = { want, ctxs, dma, dones: dones.items, seed: replay, skipped: 0, acks: acks.items, hdrCycles: evSrc.hdrCycles, cycleDigest: '' };
    res.cycleDigest = cycleDigest(res);
    console.log(`nic_read_resp_rx W=${W} ${replay}: output cycles digest ${res.cycleDigest} (finished at cycle ${tb.cycle})`);
  });
  compare(res!);
  return res!;
}

/** Matches the commands and payloads against the model's pieces in order. An optional piece
 *  (a failed READ's later packet) may be missing, and once one of a READ is missing, every
 *  later piece of that READ must be: the receiver stops writing a READ after its DMA error.
 *  Returns, per model piece, the index of its command (-1 when skipped). */
function matchWrites(r: BenchResult): number[] {
  const { want, dma } = r;
  const at: number[] = [];
  const stopped = new Set<number>();
  let j = 0;
  const same = (g: CmdV | undefined, w: Want['writes'][number]): boolean => !!g && g.va === w.va && g.len === w.len && g.key === w.key && g.pd === w.pd && g.access === w.access;
  want.writes.forEach((w, i) => {
    const g = dma.cmds[j];
    const where = `DMA piece #${i} (READ #${w.read}, ${r.seed})`;
    if (w.optional && (stopped.has(w.read) || !same(g, w))) {
      if (stopped.has(w.read) && same(g, w)) throw new Error(`${where}: written at cycle ${g!.cycle} after an earlier piece of its failed READ was skipped`);
      stopped.add(w.read);
      at.push(-1);
      return;
    }
    if (!g) throw new Error(`${where}: got ${dma.cmds.length} commands, want more`);
    if (!same(g, w)) {
      throw new Error(`${where} at cycle ${g.cycle}: got va ${hex(g.va)} len ${g.len} key ${hex(g.key)} pd ${g.pd} access ${g.access}, want va ${hex(w.va)} len ${w.len} key ${hex(w.key)} pd ${w.pd} access ${w.access}`);
    }
    const f = dma.pay.frames[j];
    if (!f || f.bytes.length !== w.len) throw new Error(`${where}: payload frame has ${f?.bytes.length} bytes, want ${w.len}`);
    const k = f.bytes.findIndex((b, x) => b !== w.bytes[x]);
    if (k >= 0) throw new Error(`${where}: payload byte ${k} (beat ending cycle ${f.lastCycle}) is ${hex(f.bytes[k]!)}, want ${hex(w.bytes[k]!)}`);
    at.push(j++);
  });
  if (j !== dma.cmds.length) throw new Error(`${r.seed}: ${dma.cmds.length} DMA commands, the model's pieces account for ${j} (next: va ${hex(dma.cmds[j]!.va)} at cycle ${dma.cmds[j]!.cycle})`);
  if (dma.pay.frames.length !== j) throw new Error(`${r.seed}: ${dma.pay.frames.length} payload frames, want ${j}`);
  return at;
}

function compare(r: BenchResult): void {
  const { want, dma } = r;
  // The tracker's events, in order (rdExp only where rdMiss says it matters).
  for (let i = 0; i < Math.max(r.acks.length, want.acks.length); i++) {
    const g = r.acks[i], w = want.acks[i];
    if (!g || !w) throw new Error(`m_ack #${i} (${r.seed}): got ${r.acks.length} events, want ${want.acks.length}; ${g ? `extra at cycle ${g.cycle}` : `missing ${JSON.stringify(w)}`}`);
    const gv = { qp: num(g.value['qp']), psn: num(g.value['psn']), syndrome: num(g.value['syndrome']), rdMiss: num(g.value['rdMiss']), rdExp: num(g.value['rdMiss']) ? num(g.value['rdExp']) : 0 };
    if (JSON.stringify(gv) !== JSON.stringify(w)) throw new Error(`m_ack #${i} at cycle ${g.cycle} (${r.seed}): got ${JSON.stringify(gv)}, want ${JSON.stringify(w)}`);
  }
  const at = matchWrites(r);
  r.skipped = at.filter(x => x < 0).length;
  for (let i = 0; i < Math.max(r.dones.length, want.dones.length); i++) {
    const g = r.dones[i], w = want.dones[i];
    if (!g || !w) throw new Error(`m_done #${i} (${r.seed}): got ${r.dones.length} completions, want ${want.dones.length}`);
    const gv = { qp: num(g.value.qp), wrId: BigInt(g.value.wrId), lastPsn: num(g.value.lastPsn), status: num(g.value.status), syndrome: num(g.value.syndrome), ok: num(g.value.ok) };
    const bad = (Object.keys(w) as (keyof Done)[]).filter(k => BigInt(gv[k]) !== BigInt(w[k]));
    if (bad.length) throw new Error(`m_done #${i} at cycle ${g.cycle} (${r.seed}): ${bad.map(k => `${k} ${hex(gv[k])} want ${hex(w[k])}`).join(', ')}`);
    // A completion leaves only after the DmaStatus of every command issued before it.
    const lw = Math.max(-1, ...at.slice(0, want.lastWriteOf[i]! + 1));
    if (lw >= 0 && !(dma.statusCycles[lw]! < g.cycle)) throw new Error(`m_done #${i} at cycle ${g.cycle} (${r.seed}) left before the status of DMA command #${lw} (cycle ${dma.statusCycles[lw]})`);
  }
}
