// Wiring helpers for the NIC's top levels: connect instances by their Verilog port names
// (`m_dma_cmd_*` of one stage to `s_cmd_*` of the next) instead of by the keys of each stage's
// IO record, so a top reads like the pipeline picture in docs/nic.md and does not depend on
// how each generator chose to nest its ports. Directions come from the ports themselves: the
// side that is an input of its instance (or an output of the top) is driven by the other.

import { Sig, SignalValue, UInt, cat, type ModuleBuilder, type Shape, type StructShape, type UIntShape, type Value } from '../hdl/index.ts';
import { DslError } from '../hdl/index.ts';

/** Verilog port name (without the instance prefix) -> the parent-side handle. */
export type PortMap = Map<string, SignalValue>;

/** Flattens an instance's (or the top's own) IO record. `inst` is the instance name whose
 *  `<inst>_` prefix the parent-side wires carry; '' for the top's own ports. clk/rst are
 *  left out (instances connect them automatically). */
export function portsOf(io: unknown, inst = ''): PortMap {
  const out: PortMap = new Map();
  const walk = (node: unknown): void => {
    if (node instanceof SignalValue) {
      const n = node.name;
      const name = inst && n.startsWith(`${inst}_`) ? n.slice(inst.length + 1) : n;
      if (name !== 'clk' && name !== 'rst') out.set(name, node);
      return;
    }
    if (node && typeof node === 'object') for (const v of Object.values(node as Record<string, unknown>)) walk(v);
  };
  walk(io);
  return out;
}

export function port(p: PortMap, name: string): SignalValue {
  const s = p.get(name);
  if (!s) throw new DslError(`no port '${name}'`, `ports are: ${[...p.keys()].join(', ')}`);
  return s;
}

/** The assignable end of a port (an instance input, or an output of the top). */
export function sink(p: PortMap, name: string): Sig {
  const s = port(p, name);
  if (!(s instanceof Sig)) throw new DslError(`port '${name}' is driven by its module, it cannot be assigned here`, 'drive the other end of the connection');
  return s;
}

/** Field `name` of a struct-valued port (ports found by name carry no static shape). */
export function field(v: Value, name: string): Value {
  return (v as Value<StructShape<Record<string, Shape>>>).field(name);
}

export interface LinkOptions {
  /** Suffixes to leave out (e.g. id fields connected by hand). */
  readonly skip?: readonly string[];
}

/** Connects every `<bPrefix>_<x>` port of `b` with `<aPrefix>_<x>` of `a` (which must exist),
 *  in whichever direction the ports say. Returns the suffixes connected. */
export function link(a: PortMap, aPrefix: string, b: PortMap, bPrefix: string, o: LinkOptions = {}): string[] {
  const done: string[] = [];
  for (const [name, bs] of b) {
    if (!name.startsWith(`${bPrefix}_`)) continue;
    const x = name.slice(bPrefix.length + 1);
    if (o.skip?.includes(x)) continue;
    const as = a.get(`${aPrefix}_${x}`);
    if (!as) throw new DslError(`link ${aPrefix} <-> ${bPrefix}: '${aPrefix}_${x}' is missing`, `'${bPrefix}_${x}' has no partner`);
    const aIn = as instanceof Sig, bIn = bs instanceof Sig;
    if (aIn === bIn) throw new DslError(`link ${aPrefix}_${x} <-> ${bPrefix}_${x}: both ends ${aIn ? 'are inputs' : 'drive'}`, 'one end must drive the other');
    if (as.width !== bs.width) throw new DslError(`link ${aPrefix}_${x} (${as.width} bits) <-> ${bPrefix}_${x} (${bs.width} bits)`, 'connect fields of different widths by hand');
    if (aIn) (as as Sig).set(bs); else (bs as Sig).set(as);
    done.push(x);
  }
  if (done.length === 0) throw new DslError(`link ${aPrefix} <-> ${bPrefix}: nothing to connect`, 'check the prefixes');
  return done;
}

/** Bits of the fields `<prefix>_<f>` of `p` together (the width of a FIFO that carries them). */
export function fieldsWidth(p: PortMap, prefix: string, fields: readonly string[]): number {
  return fields.reduce((w, f) => w + port(p, `${prefix}_${f}`).width, 0);
}

/** Carries the fields `<from>_<f>` of `src` through a FIFO instance (its `s_data` / `m_data`)
 *  to `<to>_<f>` of `dst`, packed MSB first in `fields` order. Only the data: valid and ready
 *  are the caller's, since they are often gated (credits). Returns the FIFO's output fields. */
export function fieldsThroughFifo(fifo: PortMap, src: PortMap, from: string, dst: PortMap, to: string, fields: readonly string[]): Record<string, Value> {
  sink(fifo, 's_data').set(cat(...fields.map(f => port(src, `${from}_${f}`))));
  const d = port(fifo, 'm_data');
  const out: Record<string, Value> = {};
  let hi = d.width;
  for (const f of fields) {
    const w = port(src, `${from}_${f}`).width;
    out[f] = w === 1 ? d.bit(hi - 1) : d.bits(hi - 1, hi - w);
    sink(dst, `${to}_${f}`).set(out[f]!);
    hi -= w;
  }
  return out;
}

/** Drives every input of `p` whose name starts with `<prefix>_` with 0 (an unused half of
 *  an interface) and marks its outputs there as deliberately unread. */
export function tieOff(m: ModuleBuilder, p: PortMap, prefix: string, names: readonly string[], reason: string): void {
  for (const x of names) {
    const s = port(p, `${prefix}_${x}`);
    if (s instanceof Sig) s.set(0);
    else m.unused(s, reason);
  }
}

/** One +1 pulse per cycle out of several event pulses, none lost: events that arrive
 *  together wait in a small counter and drain one per cycle. Each event is registered first
 *  (the count is a cycle later): an event is the end of its stage's decision (nic_responder's
 *  `drop` ends a path that starts in nic_req_tx's WQE checks, docs/synth.md), and the adders
 *  here would run on from it. */
export function mergePulses(m: ModuleBuilder, name: string, events: readonly Value[], counterBits = 8): Value {
  const pending = m.reg(`${name}_pending_reg`, UInt(counterBits));
  const seen = events.map((e, i) => {
    const r = m.reg(`${name}_event${i}_reg`, UInt(1));
    r.set(e);
    return r;
  });
  const n = seen.map(e => e.zext(counterBits) as Value).reduce((x, y) => x.addw(y));
  const total = m.let(`${name}_total`, pending.addw(n));
  const fire = m.let(`${name}_pulse`, total.ne(0));
  pending.set(total.subw(fire.zext(counterBits)) as Value<UIntShape>);
  m.assert(pending.andr().lnot(), `${name}: event backlog overflow`);
  return fire;
}

/** "QP i to ERROR" events from several stages, merged into one event per cycle without
 *  losing any: a pending bit per QP (the state change is idempotent, so two events for the
 *  same QP may become one), lowest QP first. Returns { valid, qp }. */
export function mergeQpErrors(m: ModuleBuilder, numQp: number, qpBits: number, events: readonly { valid: Value; qp: Value }[]): { valid: Value; qp: Value } {
  const pending = m.reg('qp_err_pending_reg', UInt(numQp));
  const raised: Value[] = [];
  for (let i = 0; i < numQp; i++) {
    raised.push(events.map(e => e.valid.land(e.qp.eq(i))).reduce((x, y) => x.lor(y)));
  }
  const now = m.let('qp_err_all', pending.or(cat(...[...raised].reverse())));
  const valid = m.let('qp_err_valid', now.ne(0));
  const qp = m.wire('qp_err_qp', UInt(qpBits));
  const sel = m.wire('qp_err_sel', UInt(numQp));
  // Priority: the lowest pending QP; the others keep their bit for the next cycles.
  for (let i = numQp - 1; i >= 0; i--) {
    m.if(now.bit(i), () => { qp.set(i); sel.set(BigInt(1) << BigInt(i)); });
  }
  pending.set(now.and(sel.not()));
  return { valid, qp };
}

/** A level that is high for the cycle after a free-running counter moved: the counter may
 *  advance by at most one per cycle (checked in simulation). */
export function counterPulse(m: ModuleBuilder, name: string, counter: Value): Value {
  const prev = m.reg(`${name}_prev_reg`, UInt(counter.width));
  prev.set(counter);
  const moved = m.let(`${name}_moved`, counter.ne(prev));
  m.assert(counter.subw(prev).le(1), `${name}: counter advanced by more than one in a cycle`);
  return moved;
}

