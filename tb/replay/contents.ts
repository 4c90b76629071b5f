// Initial contents of a memory region in a replay scenario: a fill byte, a hex string, a
// binary file, or a pattern, checked against the region's length when the scenario is read
// (a file that is too long is an error, not silently cut).
//
//   { "fill": 0 }                    every byte 0 (the default when `init` is absent)
//   { "hex": "deadbeef 0011" }       these bytes first (spaces ignored), the rest `fill` (default 0)
//   { "file": "mr1.bin" }            the file's bytes first (path relative to the scenario), the rest `fill`
//   { "pattern": "counter" }         byte i = i mod 256
//   { "pattern": "random" }          seeded random bytes (`seed`, default 1): a wild write shows

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Rng } from '../core/rng.ts';
import type { JsonAt } from './json-reader.ts';

export type Contents =
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array; readonly fill: number; readonly from: string }
  | { readonly kind: 'pattern'; readonly pattern: 'counter' | 'random'; readonly seed: number };

function fillOf(j: JsonAt): number {
  return j.isMissing ? 0 : j.uint(8);
}

function hexBytes(j: JsonAt): Uint8Array {
  const text = j.string().replace(/\s+/g, '').replace(/^0x/i, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(text)) j.fail('expected hex digits, two per byte (spaces allowed)');
  return Uint8Array.from(text.match(/../g) ?? [], h => parseInt(h, 16));
}

function fileBytes(j: JsonAt, baseDir: string): Uint8Array {
  const file = path.resolve(baseDir, j.string());
  try {
    return new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    return j.fail(`cannot read ${file}: ${(e as Error).message}`);
  }
}

/** Reads `init` of an MR of `length` bytes. */
export function parseContents(j: JsonAt, length: number, baseDir: string): Contents {
  if (j.isMissing) return { kind: 'bytes', bytes: new Uint8Array(0), fill: 0, from: 'zero fill' };
  const f = j.object(['fill', 'hex', 'file', 'pattern', 'seed']);
  const given = ['hex', 'file', 'pattern'].filter(k => !f[k]!.isMissing);
  if (given.length > 1) f[given[1]!]!.fail(`give one of hex, file, pattern (${given.join(' and ')} given)`);
  if (!f['seed']!.isMissing && f['pattern']!.value !== 'random') f['seed']!.fail('a seed only goes with "pattern": "random"');
  if (!f['pattern']!.isMissing) {
    if (!f['fill']!.isMissing) f['fill']!.fail('a pattern covers the whole region; fill goes with hex or file');
    return { kind: 'pattern', pattern: f['pattern']!.oneOf(['counter', 'random'] as const), seed: f['seed']!.isMissing ? 1 : f['seed']!.uint(32) };
  }
  const fill = fillOf(f['fill']!);
  let bytes: Uint8Array = new Uint8Array(0), from = `fill 0x${fill.toString(16)}`;
  if (!f['hex']!.isMissing) { bytes = hexBytes(f['hex']!); from = 'hex'; }
  if (!f['file']!.isMissing) { bytes = fileBytes(f['file']!, baseDir); from = f['file']!.string(); }
  if (bytes.length > length) (f['hex']!.isMissing ? f['file']! : f['hex']!).fail(`${bytes.length} bytes, but the region is ${length} bytes long`);
  return { kind: 'bytes', bytes, fill, from };
}

/** The region's `length` initial bytes. */
export function materialize(c: Contents, length: number): Uint8Array {
  const out = new Uint8Array(length);
  if (c.kind === 'bytes') {
    out.fill(c.fill);
    out.set(c.bytes);
  } else if (c.pattern === 'counter') {
    for (let i = 0; i < length; i++) out[i] = i & 0xff;
  } else {
    const rng = new Rng(c.seed);
    for (let i = 0; i < length; i++) out[i] = rng.int(0, 255);
  }
  return out;
}
