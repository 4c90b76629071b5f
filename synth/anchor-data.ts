// The recorded anchor figures (synth/anchors.json, written by scripts/anchors.ts): data
// about public designs measured with our flows, never their code.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModuleResult } from './result.ts';

export const ANCHORS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'anchors.json');

export interface AnchorRecord {
  readonly name: string;
  readonly repo: string;
  readonly commit: string;
  readonly module: string;
  readonly params: Readonly<Record<string, number>>;
  readonly peer: string | null;
  readonly xcup: ModuleResult;
  readonly ice40: ModuleResult;
}

export interface AnchorsFile {
  /** synth/flows.ts FLOW_VERSION the figures were measured with. */
  readonly flowVersion: number;
  readonly tools: Readonly<Record<string, string>>;
  /** Date of the measurement (YYYY-MM-DD). */
  readonly measured: string;
  readonly anchors: readonly AnchorRecord[];
}

export function loadAnchors(): AnchorsFile {
  return JSON.parse(fs.readFileSync(ANCHORS_FILE, 'utf8')) as AnchorsFile;
}
