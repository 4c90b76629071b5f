// The WaveDrom renderer (npm `wavedrom`, with its `onml` stringifier) and resvg for PNG,
// behind two small functions. Neither package has types; the shapes used are declared here.

import { createRequire } from 'node:module';

/** A WaveDrom lane: `wave` has one character per column, `data` labels its `=` / 2-9 bricks. */
export interface WaveLane {
  readonly name: string;
  readonly wave: string;
  readonly data?: readonly string[];
}

export interface WaveDromSource {
  readonly signal: readonly (WaveLane | Record<string, never>)[];
  readonly head?: { readonly text?: string; readonly tick?: string | number | readonly string[]; readonly tock?: string | number | readonly string[]; readonly every?: number };
  readonly foot?: { readonly text?: string };
  readonly config?: { readonly hscale?: number; readonly skin?: string };
}

/** ONML: [tag, attributes, ...children]. */
export type Onml = [string, Record<string, string | number>, ...(Onml | string)[]];

interface WaveDromModule {
  renderAny(index: number, source: WaveDromSource, skin: unknown): Onml;
  onml: { stringify(o: Onml): string };
}

interface ResvgModule {
  Resvg: new (svg: string, options: Record<string, unknown>) => { render(): { asPng(): Buffer } };
}

const require = createRequire(import.meta.url);

/** Renders a WaveDrom source to an ONML tree (to post-process) and then to SVG text. */
export function renderWaveDrom(source: WaveDromSource, edit?: (svg: Onml) => void): string {
  const wd = require('wavedrom') as WaveDromModule;
  const skin = require('wavedrom/skins/default.js') as unknown;
  const tree = wd.renderAny(0, source, skin);
  edit?.(tree);
  return wd.onml.stringify(tree);
}

/** SVG text → PNG bytes (system fonts; DejaVu Sans when the SVG's font is missing). */
export function svgToPng(svg: string): Buffer {
  const { Resvg } = require('@resvg/resvg-js') as ResvgModule;
  return new Resvg(svg, { background: 'white', font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
}

/** Finds the first element with this id in an ONML tree. */
export function findById(tree: Onml, id: string): Onml | undefined {
  if (tree[1]?.['id'] === id) return tree;
  for (const c of tree.slice(2)) {
    if (Array.isArray(c)) {
      const hit = findById(c as Onml, id);
      if (hit) return hit;
    }
  }
  return undefined;
}
