// GTKWave translate-filter files: one text file per set of names (an FSM's states, an enum's
// members), mapping the value GTKWave prints for the signal (hex, as the savefile shows it)
// to the name. Written once per distinct mapping into a folder beside the savefile.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** GTKWave keeps at most this many filter files per session (FILE_FILTER_MAX). */
const MAX_FILTERS = 127;

/** How GTKWave prints a value in hex: upper case, zero-padded to the signal's width. */
export function gtkwaveHex(value: number | bigint, width: number): string {
  return BigInt(value).toString(16).toUpperCase().padStart(Math.ceil(width / 4), '0');
}

export class FilterFiles {
  readonly dir: string;
  readonly #byContent = new Map<string, string>();
  readonly #names = new Set<string>();

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The filter for `names` (value by name) on a `width`-bit signal, or undefined past GTKWave's limit. */
  file(base: string, names: Readonly<Record<string, number>>, width: number): string | undefined {
    const lines = Object.entries(names).sort((a, b) => a[1] - b[1]).map(([n, v]) => `${gtkwaveHex(v, width)} ${n}`);
    const text = `# ${base}: value (hex, as GTKWave prints it) and name. Written by nicgen.\n${lines.join('\n')}\n`;
    const hit = this.#byContent.get(text);
    if (hit) return hit;
    if (this.#byContent.size >= MAX_FILTERS) return undefined;
    let name = base.replace(/[^A-Za-z0-9_.-]/g, '_');
    for (let i = 2; this.#names.has(name); i++) name = `${base}_${i}`;
    this.#names.add(name);
    fs.mkdirSync(this.dir, { recursive: true });
    const file = path.join(this.dir, `${name}.txt`);
    fs.writeFileSync(file, text);
    this.#byContent.set(text, file);
    return file;
  }
}
