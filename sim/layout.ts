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
  /** The clock the native step drives, if the top has one. */
  readonly clock: ManifestPort | undefined;
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
  if (clocks.length > 1) {
    throw new LayoutError(`${manifest.top}: ${clocks.length} clock inputs (${clocks.map(c => c.name).join(', ')}); `
      + 'the simulator drives one clock per model');
  }
  const clock = clocks[0];
  const inputs: PortSlot[] = [];
  const outputs: PortSlot[] = [];
  const byName = new Map<string, PortSlot>();
  let offset = 0;
  for (const dir of ['input', 'output'] as const) {
    for (const port of manifest.ports) {
      if (port.dir !== dir || port === clock) continue;
      if (byName.has(port.name)) throw new LayoutError(`${manifest.top}: port ${port.name} appears twice in the manifest`);
      const slot: PortSlot = { port, offset, words: wordsOf(port.width) };
      offset += slot.words;
      (dir === 'input' ? inputs : outputs).push(slot);
      byName.set(port.name, slot);
    }
  }
  const inputWords = inputs.reduce((n, s) => n + s.words, 0);
  return { clock, inputs, outputs, inputWords, totalWords: offset, byName };
}
