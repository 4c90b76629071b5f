// Final contents of every MR of a replay, one raw binary file per MR (`mr-<slot>.bin`, byte 0
// = the byte at the MR's VA), read through the MR's own page map: what the NIC wrote where
// the page table sent it.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MemoryRegion } from '../model/mr.ts';
import { materialize } from './contents.ts';
import type { MrConfig } from './scenario.ts';

export interface MrDump {
  readonly index: number;
  readonly key: number;
  readonly file: string;
  readonly bytes: number;
  /** Bytes that differ from the initial contents. */
  readonly changed: number;
}

export function mrFileName(index: number): string {
  return `mr-${index}.bin`;
}

export function dumpMrs(dir: string, configs: readonly MrConfig[], mrs: ReadonlyMap<number, MemoryRegion>): MrDump[] {
  fs.mkdirSync(dir, { recursive: true });
  return configs.map(c => {
    const data = mrs.get(c.index)!.read(0, c.length);
    const init = materialize(c.init, c.length);
    let changed = 0;
    for (let i = 0; i < data.length; i++) if (data[i] !== init[i]) changed++;
    const file = path.join(dir, mrFileName(c.index));
    fs.writeFileSync(file, data);
    return { index: c.index, key: c.key, file, bytes: data.length, changed };
  });
}
