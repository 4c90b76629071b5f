// Credit gate: lets a valid/ready transfer through only while a counter of credits covers its
// cost, and counts credits back as the resource they stand for frees up.
//
// Used where a request must not pass until the answer (or the data) it will cause has a place
// to go, so that a shared channel never waits for one client: AXI reads into a FIFO that must
// hold the whole burst, AWs that may pass only once their burst is buffered, translation
// requests with room for their answers, WQE fetch bursts with room in the WQE queue.
//
// The gate only ever lowers valid and ready together, and credits only grow while a transfer
// waits (nothing but `returned` changes them then), so a valid the gate has passed on stays
// high until it is taken: the AXI rule that VALID, once raised, is held.

import { UInt, mux, type ModuleBuilder, type Value } from '../hdl/index.ts';

export interface CreditGateOptions {
  /** Prefix of the gate's names: `<name>_reg` (credits), `<name>_ok`, `<name>_taken`. */
  readonly name: string;
  /** Counter width: it must hold `initial` and the most credits that can be outstanding. */
  readonly width: number;
  /** Credits at reset (0 when credits are earned first, e.g. beats buffered). */
  readonly initial: number;
  /** Credits one transfer takes; 1 when omitted. */
  readonly cost?: Value;
  /** The transfer's VALID (upstream) and READY (downstream), before the gate. */
  readonly valid: Value;
  readonly ready: Value;
  /** One credit comes back in this cycle (a FIFO word read, a beat buffered...). */
  readonly returned: Value;
}

export interface CreditGate {
  /** VALID for the downstream and READY for the upstream: both low while credits are short. */
  readonly valid: Value;
  readonly ready: Value;
  /** The transfer happens in this cycle. */
  readonly taken: Value;
}

export function creditGate(m: ModuleBuilder, o: CreditGateOptions): CreditGate {
  const w = o.width;
  if (o.initial >= 2 ** w) throw new Error(`creditGate ${o.name}: ${o.initial} initial credits do not fit ${w} bits`);
  const credits = m.reg(`${o.name}_reg`, UInt(w), { reset: o.initial });
  const cost = o.cost ?? null;
  const ok = m.let(`${o.name}_ok`, cost ? credits.ge(cost) : credits.ne(0));
  const taken = m.let(`${o.name}_taken`, o.valid.land(ok).land(o.ready));
  const spent = cost ? mux(taken, cost, 0) : taken.zext(w);
  credits.set(credits.addw(o.returned.zext(w)).subw(spent));
  return { valid: o.valid.land(ok), ready: o.ready.land(ok), taken };
}
