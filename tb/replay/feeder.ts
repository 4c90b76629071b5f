// Feeds captured frames to nic_top's RX port one at a time and sees what each one did.
//
// Why one at a time: the NIC only counts drops (RX_DROP_ICRC, RX_DROP_OTHER) and accepted
// headers (RX_FRAMES); it does not say which frame a count belongs to. With a single frame in
// flight, the counter deltas, the frames it transmits and the QP registers that moved all
// belong to that frame. "Done" is: every bus of the NIC (RX, TX, the AXI4 channels) idle for
// `settle` cycles in a row, the AXI RAM idle, and the frame counted by one of the counters.

import { AxiStreamSink, AxiStreamSource } from '../bfm/index.ts';
import { high } from '../bfm/ports.ts';
import type { TestBench } from '../core/index.ts';
import { globalReg, qpReg } from '../model/nic-regs.ts';
import type { LoadedNic, TopDut } from './loader.ts';

export interface Counters {
  readonly dropIcrc: number;
  readonly dropOther: number;
  readonly rxFrames: number;
  readonly txFrames: number;
}

/** A frame the NIC transmitted, with the cycle of its last beat. */
export interface TxFrame {
  readonly data: Uint8Array;
  readonly cycle: number;
}

export interface QpSnapshot {
  readonly state: number;
  readonly expPsn: number;
}

export interface FeedResult {
  /** Counter changes caused by the frame. */
  readonly delta: Counters;
  /** Frames the NIC sent while handling it. */
  readonly replies: readonly TxFrame[];
  /** Cycle the first beat was offered and the cycle the NIC was quiet again. */
  readonly start: number;
  readonly end: number;
  /** False when no counter moved within the time budget (the frame vanished). */
  readonly accounted: boolean;
}

export interface FeederOptions {
  /** Idle cycles that mean "the NIC is done with this frame" (default 64). */
  readonly settle?: number;
  /** Cycles a frame may take at most before it is given up on (default 200 000). */
  readonly timeout?: number;
}

const sub32 = (a: number, b: number): number => (a - b) >>> 0;

export class FrameFeeder {
  readonly #tb: TestBench;
  readonly #dut: TopDut;
  readonly #nic: LoadedNic;
  readonly #source: AxiStreamSource;
  readonly #sink: AxiStreamSink;
  readonly #settle: number;
  readonly #timeout: number;
  #counters: Counters = { dropIcrc: 0, dropOther: 0, rxFrames: 0, txFrames: 0 };

  private constructor(tb: TestBench, dut: TopDut, nic: LoadedNic, o: FeederOptions) {
    this.#tb = tb; this.#dut = dut; this.#nic = nic;
    this.#settle = o.settle ?? 64;
    this.#timeout = o.timeout ?? 200_000;
    this.#source = new AxiStreamSource(tb, dut.s_axis_rx, { name: 's_axis_rx' });
    this.#sink = new AxiStreamSink(tb, dut.m_axis_tx, { name: 'm_axis_tx' });
  }

  /** Attaches to the DUT's streams and reads the counters' starting values. */
  static async create(tb: TestBench, dut: TopDut, nic: LoadedNic, o: FeederOptions = {}): Promise<FrameFeeder> {
    const f = new FrameFeeder(tb, dut, nic, o);
    f.#counters = await f.#readCounters();
    return f;
  }

  async qpSnapshot(index: number): Promise<QpSnapshot> {
    const regs = this.#nic.drv.regs;
    return { state: await regs.read(qpReg(index, 'STATE')), expPsn: await regs.read(qpReg(index, 'EXP_PSN')) };
  }

  /** Offers one frame, or several back to back (a burst: each frame's first beat follows the
   *  previous frame's last beat), and waits until the NIC is done with all of them. */
  async feed(frames: Uint8Array | readonly Uint8Array[]): Promise<FeedResult> {
    const list = frames instanceof Uint8Array ? [frames] : frames;
    const before = this.#counters;
    const start = this.#tb.cycle;
    const deadline = start + this.#timeout * list.length;
    for (const f of list) this.#source.send(f, { tuser: 0 });
    let now = before;
    let accounted = false;
    // Quiet can come early (a frame waiting in the ICRC check's buffer moves no bus), so a
    // quiet NIC whose counters did not move yet is given more time, up to the deadline. A
    // frame counts at least once; one the responder drops counts twice (RX_FRAMES and
    // RX_DROP_OTHER), so for a burst this is a lower bound that quiet completes.
    while (!accounted && this.#tb.cycle < deadline) {
      await this.#quiet(deadline);
      now = await this.#readCounters();
      accounted = sub32(now.dropIcrc, before.dropIcrc) + sub32(now.dropOther, before.dropOther) + sub32(now.rxFrames, before.rxFrames) >= list.length;
    }
    this.#counters = now;
    const replies: TxFrame[] = [];
    while (this.#sink.count > 0) {
      const p = await this.#sink.recv();
      replies.push({ data: p.data, cycle: p.cycle });
    }
    const delta = {
      dropIcrc: sub32(now.dropIcrc, before.dropIcrc), dropOther: sub32(now.dropOther, before.dropOther),
      rxFrames: sub32(now.rxFrames, before.rxFrames), txFrames: sub32(now.txFrames, before.txFrames),
    };
    return { delta, replies, start, end: this.#tb.cycle, accounted };
  }

  /** Until nothing moved for `settle` cycles (or the deadline). */
  async #quiet(deadline: number): Promise<void> {
    const d = this.#dut, tb = this.#tb;
    const busy = (): boolean => !this.#source.idle || !this.#nic.ram.idle
      || high(d.s_axis_rx.tvalid) || high(d.m_axis_tx.tvalid)
      || high(d.m_axi.arvalid) || high(d.m_axi.rvalid) || high(d.m_axi.awvalid) || high(d.m_axi.wvalid) || high(d.m_axi.bvalid);
    let last = tb.cycle;
    await tb.until(() => {
      if (busy()) last = tb.cycle;
      return tb.cycle - last >= this.#settle || tb.cycle >= deadline;
    }, { timeout: Math.max(1, deadline - tb.cycle + 1), what: 'the NIC to go quiet' });
  }

  async #readCounters(): Promise<Counters> {
    const r = (n: 'RX_DROP_ICRC' | 'RX_DROP_OTHER' | 'RX_FRAMES' | 'TX_FRAMES'): Promise<number> => this.#nic.drv.regs.read(globalReg(n));
    return { dropIcrc: await r('RX_DROP_ICRC'), dropOther: await r('RX_DROP_OTHER'), rxFrames: await r('RX_FRAMES'), txFrames: await r('TX_FRAMES') };
  }
}
