// Where each port lives in the word buffer shared between JS and the native model.
//
// The buffer holds 32-bit words: all inputs (except the clock, which the native side
// drives itself), then all outputs, each port taking ceil(width/32) words with the
// least significant word first. The C++ wrapper and the JS handles are both generated
// from this one table, so they cannot disagree.

import type { Manifest, ManifestPort } from '../gen/emit/manifest.ts';

export interface PortSlot {
  readonly port: ManifestPort;
  /** First word of the port in the buffer. */
  readonly offset: number;
  readonly words: number;
}

export interface Layout {
  /** The top's only clock, which the native step toggles once per cycle; undefined when the
   *  top has no clock or several. */
  readonly clock: ManifestPort | undefined;
  /** Every clock input, all driven by the native side. With several, the model runs in ticks
   *  of a timebase and each clock follows its own schedule (sim/clocks.ts). */
  readonly clocks: readonly ManifestPort[];
  readonly inputs: readonly PortSlot[];
  readonly outputs: readonly PortSlot[];
  readonly inputWords: number;
  readonly totalWords: number;
  /** By Verilog port name. */
  readonly byName: ReadonlyMap<string, PortSlot>;
}

export class LayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LayoutError';
  }
}

export function wordsOf(width: number): number {
  return Math.ceil(width / 32);
}

export function computeLayout(manifest: Manifest): Layout {
  const clocks = manifest.ports.filter(p => p.dir === 'input' && p.shape.kind === 'clock');
  const clock = clocks.length === 1 ? clocks[0] : undefined;
  const inputs: PortSlot[] = [];
  const outputs: PortSlot[] = [];
  const byName = new Map<string, PortSlot>();
  let offset = 0;
  for (const dir of ['input', 'output'] as const) {
    for (const port of manifest.ports) {
      if (port.dir !== dir || clocks.includes(port)) continue;
      if (byName.has(port.name)) throw new LayoutError(`${manifest.top}: port ${port.name} appears twice in the manifest`);
      const slot: PortSlot = { port, offset, words: wordsOf(port.width) };
      offset += slot.words;
      (dir === 'input' ? inputs : outputs).push(slot);
      byName.set(port.name, slot);
    }
  }
  const inputWords = inputs.reduce((n, s) => n + s.words, 0);
  return { clock, clocks, inputs, outputs, inputWords, totalWords: offset, byName };
}
