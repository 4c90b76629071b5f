// The protocol checker for any ready/valid channel, the building block of the AXI-Stream,
// AXI4 and AXI4-Lite checkers, and usable on its own on a NIC-internal stream:
//
//   watchChannel(tb, { valid: dut.dbg.valid, ready: dut.dbg.ready, payload: [dut.dbg.data] }, 'parser out');
//
// Rules (AMBA: once valid is high, the source holds it and the payload until the handshake):
//   <VALID>_STABLE    valid dropped while valid && !ready
//   <FIELD>_STABLE    a payload signal changed while valid && !ready
// Rule names use the signal's field name, e.g. TVALID_STABLE, TDATA_STABLE, AWADDR_STABLE.

import type { ShapeJson } from '../../gen/hdl/shape.ts';
import { fromBits, type PortValue } from '../../sim/values.ts';
import type { ClockHandle, TestBench } from '../core/index.ts';
import { ClockPhases } from './clock-phases.ts';
import { fieldName, high, highOf, sameValue, show, wordOf, wordsValue, type Readable } from './ports.ts';
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
  /**
   * Like onTransfer but without the values: the callback reads the ports it needs itself
   * (the bus models do, so a wide payload is not turned into bigints at every beat).
   */
  readonly onHandshake?: (cycle: number) => void;
  /** The channel's clock, in a design with several (ClockPhases.of). */
  readonly clock?: ClockHandle;
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
  const isValid = highOf(ports.valid), isReady = highOf(ports.ready);
  const readyWord = wordOf(ports.ready);
  const reset = options.reset, onTransfer = options.onTransfer, onHandshake = options.onHandshake;
  const held = fields.map(([, h]) => new HeldField(tb, h));
  let stalled = false;
  const stats = { name, transfers: 0, stalls: 0, stop: () => { /* replaced below */ } };

  // Idle and not stalled: nothing to check (the common case). With valid in a port word the
  // clock-phase hub tests that itself and calls only while valid is high or a stall is held.
  const validWord = wordOf(ports.valid);
  const setStalled = (v: boolean): void => { stalled = v; gate.hold = v; };
  const sample = (): void => {
    if (!stalled && (validWord !== null ? validWord[0] === 0 : !isValid())) return;
    const cycle = tb.cycle;
    if (reset && (high(reset) ? 1 : 0) === resetOn) { setStalled(false); return; }
    const valid = validWord !== null ? validWord[0] !== 0 : isValid();
    if (stalled) {
      if (!valid) {
        throw new ProtocolError(name, validRule, cycle,
          `${ports.valid.name} dropped before the handshake (${ports.valid.name} && !${ports.ready.name} in cycle ${cycle - 1})`);
      }
      for (let i = 0; i < held.length; i++) {
        const f = held[i]!;
        if (f.changed()) {
          throw new ProtocolError(name, `${fields[i]![0].toUpperCase()}_STABLE`, cycle,
            `${f.h.name} changed while ${ports.valid.name} && !${ports.ready.name}: was ${show(f.heldValue())}, now ${show(f.h.value)}`);
        }
      }
    }
    if (!valid) { setStalled(false); return; }
    if (readyWord !== null ? readyWord[0] !== 0 : isReady()) {
      if (stalled) setStalled(false);
      stats.transfers++;
      onHandshake?.(cycle);
      if (onTransfer) onTransfer(fields.map(([, h]) => h.value), cycle);
    } else {
      if (!stalled) for (let i = 0; i < held.length; i++) held[i]!.hold();
      setStalled(true);
      stats.stalls++;
    }
  };
  const phases = ClockPhases.of(tb, options.clock);
  const gate = phases.onSampleWhile(validWord, sample);
  // Several clocks: the DUT's outputs on this channel must change with this clock only.
  type Watched = { name: string; words?: Uint32Array; dir?: string };
  phases.checkDrivenBy(name, [ports.valid, ports.ready] as readonly Watched[], fields.map(([, h]) => h) as readonly Watched[], ports.valid as Watched);
  stats.stop = gate.stop;
  return stats;
}

/** A payload signal as it was when the stall began: its raw words when the handle has them
 *  (compared without building values), else its value. */
class HeldField {
  readonly h: Readable;
  readonly #words: Uint32Array | undefined;
  readonly #copy: Uint32Array;
  readonly #shape: ShapeJson | undefined;
  #value: PortValue = 0;

  constructor(tb: TestBench, h: Readable) {
    this.h = h;
    const slot = h.words ? tb.model.layout.byName.get(h.name) : undefined;
    this.#words = slot ? h.words : undefined;
    this.#shape = slot?.port.shape;
    this.#copy = new Uint32Array(this.#words?.length ?? 0);
  }

  hold(): void {
    if (this.#words) this.#copy.set(this.#words);
    else this.#value = this.h.value;
  }

  changed(): boolean {
    const w = this.#words;
    if (!w) return !sameValue(this.h.value, this.#value);
    for (let i = 0; i < w.length; i++) if (w[i] !== this.#copy[i]) return true;
    return false;
  }

  /** The held value as the handle would have read it (for the message). */
  heldValue(): PortValue {
    return this.#shape ? fromBits(this.#shape, wordsValue(this.#copy)) : this.#value;
  }
}
