// A DSL module as something runTest can simulate: emit it once per parameter set and tag
// the sources with the module's IO record, so `DutOf<IO>` types the handles.
//
// Emission is memoised per (module, params) because a registry of benches and several
// tests name the same design; the simulator caches the built model by content hash, but
// elaborating and checking a large module again is still wasted time.

import { emitTop } from '../gen/emit/index.ts';
import type { IORecord, ModuleDef, Params } from '../gen/hdl/index.ts';
import { typedDesign, type TypedDesign } from './core/index.ts';
import { cachedEmit } from './design-cache.ts';

export interface DesignOptions {
  /** The module is defined under gen/: keep its emission on disk between processes
   *  (tb/design-cache.ts), for large tops that regression runs emit again and again. */
  readonly diskCache?: boolean;
}

const emitted = new WeakMap<object, Map<string, TypedDesign<unknown>>>();

export function design<P extends Params, IO extends IORecord>(def: ModuleDef<P, IO>, params: Partial<P> = {}, options: DesignOptions = {}): TypedDesign<IO> {
  let byParams = emitted.get(def);
  if (!byParams) emitted.set(def, byParams = new Map());
  const key = JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  const hit = byParams.get(key);
  if (hit) return hit as TypedDesign<IO>;
  const emit = () => { const e = emitTop(def, params); return { manifest: e.manifest, files: e.files }; };
  const d = typedDesign<IO>(options.diskCache ? cachedEmit(def.name, key, emit) : emit());
  byParams.set(key, d);
  return d;
}
