// The Ethernet link between two NICs in simulation: frames leave one NIC's m_axis_tx
// (AxiStreamSink) and enter the other's s_axis_rx (AxiStreamSource) `latency` cycles later,
// in order, in both directions. Every frame can be written to a pcap (timestamp = the cycle
// its last beat left the sender) and handed to an observer; a filter may drop or change
// frames on the way (loss and corruption tests).

import { AxiStreamSink, AxiStreamSource, type AxisInPorts, type AxisOutPorts, type Pause } from '../bfm/index.ts';
import type { TestBench } from '../core/index.ts';
import { cycleToNs, type PcapWriter } from '../model/pcap.ts';

export type LinkDir = 'a->b' | 'b->a';

export interface LinkFrame {
  readonly dir: LinkDir;
  readonly data: Uint8Array;
  /** Cycle of the frame's last beat at the sender. */
  readonly cycle: number;
}

export interface LinkOptions {
  /** Cycles from the sender's last beat to the frame being queued at the receiver. */
  readonly latency?: number;
  readonly pcap?: PcapWriter;
  /** For pcap timestamps (default 250 MHz). */
  readonly clockHz?: number;
  /** tready low at the senders' TX with this probability (a busy MAC). */
  readonly txPause?: Pause;
  /** Idle cycles between beats into the receivers' RX. */
  readonly rxPause?: Pause;
  /** Wire rate in bytes per cycle (default: unlimited, the bus rate). A frame of n bytes then
   *  occupies the wire for (n + 24) / rate cycles (FCS, preamble and gap included), so the
   *  receiver sees frames no faster than a real MAC of that speed would deliver them. */
  readonly bytesPerCycle?: number;
  /** Sees every frame as sent (before the filter). */
  readonly observe?: (f: LinkFrame) => void;
  /** Sees every frame when it is handed to the receiver (cycle = delivery cycle). */
  readonly deliver?: (f: LinkFrame) => void;
  /** Return null to drop the frame, or the bytes to deliver; several frames are delivered in
   *  order (a duplicate, or a frame held back earlier and released behind this one). */
  readonly filter?: (f: LinkFrame) => Uint8Array | readonly Uint8Array[] | null;
}

export interface LinkEnd {
  readonly tx: AxisOutPorts;
  readonly rx: AxisInPorts;
}

export class EthernetLink {
  readonly frames: LinkFrame[] = [];
  readonly stats = { 'a->b': { frames: 0, bytes: 0, dropped: 0 }, 'b->a': { frames: 0, bytes: 0, dropped: 0 } };

  constructor(tb: TestBench, a: LinkEnd, b: LinkEnd, o: LinkOptions = {}) {
    const latency = o.latency ?? 0;
    const clockHz = o.clockHz ?? 250_000_000;
    const carry = (dir: LinkDir, from: LinkEnd, to: LinkEnd): void => {
      const sink = new AxiStreamSink(tb, from.tx, { name: `link ${dir} tx`, ...(o.txPause !== undefined ? { pause: o.txPause } : {}) });
      const source = new AxiStreamSource(tb, to.rx, { name: `link ${dir} rx`, ...(o.rxPause !== undefined ? { pause: o.rxPause } : {}) });
      // Frames in flight, in order, with the cycle at which each is due at the receiver.
      const inFlight: { due: number; data: Uint8Array }[] = [];
      let wireFree = 0;
      tb.fork(async () => {
        for (;;) {
          await tb.until(() => sink.count > 0 || (inFlight.length > 0 && tb.cycle >= inFlight[0]!.due), { timeout: 1_000_000_000, what: `link ${dir}` });
          while (inFlight.length > 0 && tb.cycle >= inFlight[0]!.due) {
            const data = inFlight.shift()!.data;
            o.deliver?.({ dir, data, cycle: tb.cycle });
            source.send(data);
          }
          while (sink.count > 0) {
            const p = await sink.recv();
            const f: LinkFrame = { dir, data: p.data, cycle: p.cycle };
            this.frames.push(f);
            this.stats[dir].frames++;
            this.stats[dir].bytes += p.data.length;
            o.pcap?.write(p.data, cycleToNs(p.cycle, clockHz));
            o.observe?.(f);
            const out = o.filter ? o.filter(f) : p.data;
            if (out === null) { this.stats[dir].dropped++; continue; }
            for (const data of out instanceof Uint8Array ? [out] : out) {
              const due = Math.max(p.cycle + latency, wireFree);
              if (o.bytesPerCycle) wireFree = due + Math.ceil((data.length + 24) / o.bytesPerCycle);
              inFlight.push({ due, data });
            }
          }
        }
      }, `link ${dir}`);
    };
    carry('a->b', a, b);
    carry('b->a', b, a);
  }
}
