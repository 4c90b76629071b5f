// The link-fault flags of `nicgen sim` (--drop, --corrupt, --dup, --reorder, --reorder-depth,
// --burst-loss, --fault-dir) turned into a LinkFaultSpec for tb/nic/link-faults.ts. Every
// value is checked here, so a typo is one line and exit 2 before any model is built.

import { LINK_DIRS, type FaultSpec, type LinkDir, type LinkFaultSpec } from '../tb/nic/link-faults.ts';
import { UsageError } from './usage-error.ts';

/** The flags as typed (strings, so the message can quote what was given). */
export interface FaultFlags {
  readonly drop?: string | undefined;
  readonly corrupt?: string | undefined;
  readonly dup?: string | undefined;
  readonly reorder?: string | undefined;
  readonly reorderDepth?: string | undefined;
  readonly burstLoss?: string | undefined;
  readonly faultDir?: string | undefined;
}

export const FAULT_FLAG_NAMES = ['drop', 'corrupt', 'dup', 'reorder', 'reorder-depth', 'burst-loss', 'fault-dir'] as const;

/** `0.01`, `1e-3` or `1%`, in [0, 1]. */
export function parseProbability(flag: string, text: string): number {
  const t = text.trim();
  const m = /^([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(%?)$/.exec(t);
  const v = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!(Number.isFinite(v) && v >= 0 && v <= 1)) throw new UsageError(`--${flag} must be a probability in [0, 1] (e.g. 0.01 or 1%), got '${text}'`);
  return v;
}

function parseDirs(text: string | undefined): readonly LinkDir[] {
  switch (text ?? 'both') {
    case 'both': return LINK_DIRS;
    case 'ab': case 'a->b': return ['a->b'];
    case 'ba': case 'b->a': return ['b->a'];
    default: throw new UsageError(`--fault-dir must be both, ab (A to B) or ba (B to A), got '${text}'`);
  }
}

function parseBurst(text: string): NonNullable<FaultSpec['burst']> {
  const parts = text.split(',');
  if (parts.length < 2 || parts.length > 4) throw new UsageError(`--burst-loss takes ENTER,LEAVE[,LOSS_BAD[,LOSS_GOOD]] (probabilities per frame), got '${text}'`);
  const [enter, leave, lossBad, lossGood] = parts.map((p, i) => parseProbability(`burst-loss (${['ENTER', 'LEAVE', 'LOSS_BAD', 'LOSS_GOOD'][i]})`, p));
  if (leave === 0) throw new UsageError(`--burst-loss LEAVE must be above 0 (a burst that never ends loses every later frame), got '${text}'`);
  return { enter: enter!, leave: leave!, ...(lossBad !== undefined ? { lossBad } : {}), ...(lossGood !== undefined ? { lossGood } : {}) };
}

/** True when any fault flag was given. */
export function anyFaultFlag(f: FaultFlags): boolean {
  return Object.values(f).some(v => v !== undefined);
}

/** The spec the flags describe (the same faults on each chosen direction), or undefined when
 *  none was given. */
export function faultSpecFromFlags(f: FaultFlags): LinkFaultSpec | undefined {
  if (!anyFaultFlag(f)) return undefined;
  const spec: FaultSpec = {
    ...(f.drop !== undefined ? { drop: parseProbability('drop', f.drop) } : {}),
    ...(f.corrupt !== undefined ? { corrupt: parseProbability('corrupt', f.corrupt) } : {}),
    ...(f.dup !== undefined ? { dup: parseProbability('dup', f.dup) } : {}),
    ...(f.reorder !== undefined ? { reorder: parseProbability('reorder', f.reorder) } : {}),
    ...(f.burstLoss !== undefined ? { burst: parseBurst(f.burstLoss) } : {}),
  };
  if (f.reorderDepth !== undefined) {
    const k = Number(f.reorderDepth);
    if (!(Number.isInteger(k) && k >= 1 && k <= 64)) throw new UsageError(`--reorder-depth must be a whole number 1..64, got '${f.reorderDepth}'`);
    if (f.reorder === undefined) throw new UsageError('--reorder-depth needs --reorder P');
    Object.assign(spec, { reorderDepth: k });
  }
  const out: Partial<Record<LinkDir, FaultSpec>> = {};
  for (const d of parseDirs(f.faultDir)) out[d] = spec;
  return out;
}
