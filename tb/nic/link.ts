// The Ethernet link between two NICs in simulation: frames leave one NIC's m_axis_tx
// (AxiStreamSink) and enter the other's s_axis_rx (AxiStreamSource) `latency` cycles later,
// in both directions. Every frame can be written to a pcap as sent (timestamp = the dump time
// of the cycle its last beat left the sender, at the run's clock period) and, after the link's
// faults, as received (`pcapRx`, timestamp = the dump time of the cycle it was handed to the
// receiver), and handed to observers. Faults (link-faults.ts: loss, corruption, duplication,
// reordering, burst loss, targeted faults) and a filter may change what arrives; `inject` puts
// extra frames on a direction (the hostile-frame fuzzer).

import { AxiStreamSink, AxiStreamSource, type AxisInPorts, type AxisOutPorts, type Pause } from '../bfm/index.ts';
import { Rng, type ClockHandle, type TestBench } from '../core/index.ts';
import { cycleToNs, type PcapWriter } from '../model/pcap.ts';
import { LINK_DIRS, LinkFaults, type LinkDir, type LinkFaultSpec } from './link-faults.ts';

export type { LinkDir } from './link-faults.ts';

export interface LinkFrame {
  readonly dir: LinkDir;
  readonly data: Uint8Array;
  /** Cycle of the frame's last beat at the sender (delivery cycle in `deliver`). */
  readonly cycle: number;
  /** Put on the link by `inject`, not sent by a NIC. */
  readonly injected?: boolean;
}

export interface LinkOptions {
  /** The clock of the NICs' Ethernet ports (default: the testbench's; with nic_top's MAC on a
   *  clock of its own, dut.mac_clk). Latency, rates and stats count tb.cycle (ticks then). */
  readonly clock?: ClockHandle;
  /** Cycles from the sender's last beat to the frame being queued at the receiver. */
  readonly latency?: number;
  /** Every frame as its NIC sent it (before faults). */
  readonly pcap?: PcapWriter;
  /** Every frame as a NIC received it (after faults, injected frames included). */
  readonly pcapRx?: PcapWriter;
  /** For pcap timestamps, instead of the run's clock period (tb.model.clock, `--period`,
   *  NICGEN_PERIOD_NS; default 4 ns): a capture normally matches the wave dump's time. */
  readonly clockHz?: number;
  /** tready low at the senders' TX with this probability (a busy MAC). */
  readonly txPause?: Pause;
  /** Idle cycles between beats into the receivers' RX. */
  readonly rxPause?: Pause;
  /** Wire rate in bytes per cycle (default: unlimited, the bus rate). A frame of n bytes then
   *  occupies the wire for (n + 24) / rate cycles (FCS, preamble and gap included), so the
   *  receiver sees frames no faster than a real MAC of that speed would deliver them. */
  readonly bytesPerCycle?: number;
  /** Faults per direction, seeded from the test's RNG (link-faults.ts). */
  readonly faults?: LinkFaultSpec;
  /** Sees every frame as sent (before the faults and the filter). */
  readonly observe?: (f: LinkFrame) => void;
  /** Sees every frame when it is handed to the receiver (cycle = delivery cycle). */
  readonly deliver?: (f: LinkFrame) => void;
  /** After the faults: return null to drop the frame, or the bytes to deliver; several frames
   *  are delivered in order (a duplicate, or a frame held back earlier and released behind this
   *  one). */
  readonly filter?: (f: LinkFrame) => Uint8Array | readonly Uint8Array[] | null;
}

export interface LinkEnd {
  readonly tx: AxisOutPorts;
  readonly rx: AxisInPorts;
}

export interface LinkDirStats {
  /** Frames sent by the NIC. */
  frames: number;
  bytes: number;
  /** Dropped by the filter (the faults count their own, see `faults`). */
  dropped: number;
  /** Frames put on the link by `inject`. */
  injected: number;
  /** Frames handed to the receiver. */
  delivered: number;
}

/** Mixed into the test's seed for the fault generators. */
const FAULT_SEED_SALT = 0x1f4a7c15;

interface InFlight { readonly due: number; readonly data: Uint8Array; readonly injected: boolean }

export class EthernetLink {
  readonly frames: LinkFrame[] = [];
  readonly stats: Record<LinkDir, LinkDirStats> = {
    'a->b': { frames: 0, bytes: 0, dropped: 0, injected: 0, delivered: 0 },
    'b->a': { frames: 0, bytes: 0, dropped: 0, injected: 0, delivered: 0 },
  };
  /** Present when the options asked for faults. */
  readonly faults: LinkFaults | undefined;
  readonly #inject: Record<LinkDir, (data: Uint8Array) => void>;
  readonly #inFlight: Record<LinkDir, InFlight[]> = { 'a->b': [], 'b->a': [] };

  constructor(tb: TestBench, a: LinkEnd, b: LinkEnd, o: LinkOptions = {}) {
    const latency = o.latency ?? 0;
    const clockHz = o.clockHz;
    const stamp = (cycle: number): bigint => (clockHz === undefined ? tb.model.clock.nsFloor(cycle) : cycleToNs(cycle, clockHz));
    // Seeded from the test's seed, not drawn from tb.rng: the same seed plans the same traffic
    // with and without faults.
    this.faults = o.faults ? new LinkFaults(o.faults, new Rng((tb.seed ^ FAULT_SEED_SALT) >>> 0)) : undefined;
    const inject = {} as Record<LinkDir, (data: Uint8Array) => void>;
    const carry = (dir: LinkDir, from: LinkEnd, to: LinkEnd): void => {
      const sink = new AxiStreamSink(tb, from.tx, { name: `link ${dir} tx`, ...(o.clock ? { clock: o.clock } : {}), ...(o.txPause !== undefined ? { pause: o.txPause } : {}) });
      const source = new AxiStreamSource(tb, to.rx, { name: `link ${dir} rx`, ...(o.clock ? { clock: o.clock } : {}), ...(o.rxPause !== undefined ? { pause: o.rxPause } : {}) });
      const faults = this.faults?.dirs[dir];
      const stats = this.stats[dir];
      // Frames in flight, in delivery order, with the cycle at which each is due at the receiver.
      const inFlight = this.#inFlight[dir];
      let wireFree = 0;
      const queue = (data: Uint8Array, sent: number, injected: boolean): void => {
        const last = inFlight.length > 0 ? inFlight[inFlight.length - 1]!.due : 0;
        const due = Math.max(sent + latency, wireFree, last);
        if (o.bytesPerCycle) wireFree = due + Math.ceil((data.length + 24) / o.bytesPerCycle);
        inFlight.push({ due, data, injected });
      };
      inject[dir] = data => { stats.injected++; queue(data, tb.cycle, true); };
      tb.fork(async () => {
        for (;;) {
          await tb.until(() => sink.count > 0 || (inFlight.length > 0 && tb.cycle >= inFlight[0]!.due) || (faults !== undefined && tb.cycle >= faults.nextDeadline()),
            { timeout: 1_000_000_000, what: `link ${dir}` });
          if (faults) for (const data of faults.expire(tb.cycle)) queue(data, tb.cycle, false);
          while (inFlight.length > 0 && tb.cycle >= inFlight[0]!.due) {
            const f = inFlight.shift()!;
            stats.delivered++;
            o.pcapRx?.write(f.data, stamp(tb.cycle));
            o.deliver?.({ dir, data: f.data, cycle: tb.cycle, ...(f.injected ? { injected: true } : {}) });
            source.send(f.data);
          }
          while (sink.count > 0) {
            const p = await sink.recv();
            const f: LinkFrame = { dir, data: p.data, cycle: p.cycle };
            this.frames.push(f);
            stats.frames++;
            stats.bytes += p.data.length;
            o.pcap?.write(p.data, stamp(p.cycle));
            o.observe?.(f);
            const arriving = faults ? faults.onFrame(p.data, p.cycle) : [p.data];
            for (const data of arriving) {
              const out = o.filter ? o.filter({ dir, data, cycle: p.cycle }) : data;
              if (out === null) { stats.dropped++; continue; }
              for (const d of out instanceof Uint8Array ? [out] : out) queue(d, p.cycle, false);
            }
          }
        }
      }, `link ${dir}`);
    };
    carry('a->b', a, b);
    carry('b->a', b, a);
    this.#inject = inject;
  }

  /** Puts `data` on direction `dir` now, behind the frames already in flight (and paced like
   *  them): the receiver cannot tell it from a frame its peer sent. */
  inject(dir: LinkDir, data: Uint8Array): void {
    this.#inject[dir](data);
  }

  /** One line per direction with faults: `a->b: 812 frames sent, 9 dropped (2 in bursts),
   *  4 corrupted, 3 duplicated, 5 reordered`; empty without faults. */
  describeFaults(): string[] {
    if (!this.faults) return [];
    return LINK_DIRS.filter(d => this.faults!.dirs[d]).map(d => {
      const s = this.faults!.stats(d);
      const targeted = s.targeted.length ? `, targeted hits ${s.targeted.join('/')}` : '';
      return `${d}: ${s.frames} frames sent, ${s.dropped} dropped (${s.burstDropped} in bursts), ${s.corrupted} corrupted, ${s.duplicated} duplicated, ${s.reordered} reordered${targeted}`;
    });
  }

  /** Frames on the wire of `dir` that the receiver has not been handed yet. */
  inFlight(dir: LinkDir): number {
    return this.#inFlight[dir].length + (this.faults?.dirs[dir]?.holding ?? 0);
  }
}

export { LINK_DIRS };
