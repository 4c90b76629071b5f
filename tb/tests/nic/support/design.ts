// Emit a DSL module once per parameter set and hand it to the simulator as typed sources.

import { emitTop } from '../../../../gen/emit/index.ts';
import type { IORecord, ModuleDef, Params } from '../../../../gen/hdl/index.ts';
import { typedDesign, type TypedDesign } from '../../../core/index.ts';

const cache = new Map<string, unknown>();

export function dslDesign<P extends Params, IO extends IORecord>(def: ModuleDef<P, IO>, params: Partial<P> = {}): TypedDesign<IO> {
  const key = `${def.name}:${JSON.stringify(params)}`;
  let d = cache.get(key) as TypedDesign<IO> | undefined;
  if (!d) {
    const e = emitTop(def, params);
    d = typedDesign<IO>({ manifest: e.manifest, files: e.files });
    cache.set(key, d);
  }
  return d;
}

/** `0x…` for messages. */
export const hex = (v: number | bigint): string => `0x${v.toString(16)}`;
