// The protocol checker for any ready/valid channel, the building block of the AXI-Stream,
// AXI4 and AXI4-Lite checkers, and usable on its own on a NIC-internal stream:
//
//   watchChannel(tb, { valid: dut.dbg.valid, ready: dut.dbg.ready, payload: [dut.dbg.data] }, 'parser out');
//
// Rules (AMBA: once valid is high, the source holds it and the payload until the handshake):
//   <VALID>_STABLE    valid dropped while valid && !ready
//   <FIELD>_STABLE    a payload signal changed while valid && !ready
// Rule names use the signal's field name, e.g. TVALID_STABLE, TDATA_STABLE, AWADDR_STABLE.

import type { PortValue } from '../../sim/values.ts';
import type { TestBench } from '../core/index.ts';
import { ClockPhases } from './clock-phases.ts';
import { fieldName, high, sameValue, show, type Readable } from './ports.ts';
import { ProtocolError } from './protocol-error.ts';

export interface ChannelPorts {
  readonly valid: Readable;
  readonly ready: Readable;
  /** Signals that must hold while stalled; a record's keys name the fields in messages. */
  readonly payload: readonly Readable[] | { readonly [field: string]: Readable | undefined };
}

export interface WatchOptions {
  /** Checks pause while this is high (low when `resetActiveLow`). */
  readonly reset?: Readable;
  readonly resetActiveLow?: boolean;
  /**
   * Called at every handshake with the payload values (in `payload` order) and the cycle,
   * in the sample phase. Throw a ProtocolError from here to add per-transfer rules.
   */
  readonly onTransfer?: (values: readonly PortValue[], cycle: number) => void;
}

/** Counts of a watched channel, for benchmarks and for tests that expect traffic. */
export interface ChannelWatch {
  readonly name: string;
  /** Handshakes seen. */
  readonly transfers: number;
  /** Cycles with valid && !ready. */
  readonly stalls: number;
  /** Stops watching (e.g. before a phase where the bus is deliberately abused). */
  stop(): void;
}

export function watchChannel(tb: TestBench, ports: ChannelPorts, name: string, options: WatchOptions = {}): ChannelWatch {
  const fields: [string, Readable][] = Array.isArray(ports.payload)
    ? (ports.payload as readonly Readable[]).map(h => [fieldName(h), h])
    : Object.entries(ports.payload as Record<string, Readable | undefined>).filter((e): e is [string, Readable] => e[1] !== undefined);
  const validRule = `${fieldName(ports.valid).toUpperCase()}_STABLE`;
  const resetOn = options.resetActiveLow ? 0 : 1;
  let stalled = false;
  let held: PortValue[] = [];
  const stats = { name, transfers: 0, stalls: 0, stop: () => { /* replaced below */ } };

  const sample = (): void => {
    const cycle = tb.cycle;
    if (options.reset && (high(options.reset) ? 1 : 0) === resetOn) { stalled = false; return; }
    const valid = high(ports.valid);
    if (stalled) {
      if (!valid) {
        throw new ProtocolError(name, validRule, cycle,
          `${ports.valid.name} dropped before the handshake (${ports.valid.name} && !${ports.ready.name} in cycle ${cycle - 1})`);
      }
      for (let i = 0; i < fields.length; i++) {
        const [field, h] = fields[i]!;
        const now = h.value;
        if (!sameValue(now, held[i]!)) {
          throw new ProtocolError(name, `${field.toUpperCase()}_STABLE`, cycle,
            `${h.name} changed while ${ports.valid.name} && !${ports.ready.name}: was ${show(held[i])}, now ${show(now)}`);
        }
      }
    }
    if (!valid) { stalled = false; return; }
    const values = fields.map(([, h]) => h.value);
    if (high(ports.ready)) {
      stalled = false;
      stats.transfers++;
      options.onTransfer?.(values, cycle);
    } else {
      stalled = true;
      held = values;
      stats.stalls++;
    }
  };
  stats.stop = ClockPhases.of(tb).onSample(sample);
  return stats;
}
