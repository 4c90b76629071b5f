// Round-robin arbiters.
//
// Both are combinational from `req` to `grant` (a requester is granted in the cycle it asks)
// and advance only when the parent says the grant was used (`accept`, typically
// grant_valid & downstream ready), so a grant is stable while the granted transfer waits.
//
// - `rrArbiter`: after requester i is accepted, the search for the next grant starts at
//   i + 1 and wraps; with every requester asking, grants go 0, 1, 2, ... N-1, 0, ...
// - `wrrArbiter`: the same rotation, but a requester keeps the grant for up to `weight[i]`
//   consecutive accepted grants while it keeps requesting (a weight of 0 counts as 1, so no
//   one can be starved by configuration). Weights are INPUTS, not parameters: the NIC's
//   scheduler takes per-QP weights from control registers, and a fixed design just ties
//   them to constants (which synthesis folds away).

import { Bool, cat, defineModule, lit, mux, UInt, Vec, type ModuleBuilder, type SignalValue, type UIntShape, type Value } from '../hdl/index.ts';
import { indexWidth, positiveInt } from './util.ts';

export type RrParams = {
  /** Number of requesters. */
  n: number;
};
export type WrrParams = {
  n: number;
  /** Bits of each weight input (weights 0..2^weightWidth - 1). */
  weightWidth: number;
};

/** The lowest requester above the last accepted one, else the lowest overall (one-hot). */
function rotatePick(m: ModuleBuilder, req: Value, last: Value): SignalValue<UIntShape> {
  // Bits strictly above the last grant: ~(last | (last - 1)); 0 after reset (last = 0).
  const above = m.let('above_last', last.or(last.subw(1)).not());
  const masked = m.let('req_above', req.and(above));
  const pool = m.let('req_pool', mux(masked.orr(), masked, req));
  // Isolate the lowest set bit: x & -x.
  return m.let('rr_grant', pool.and(pool.not().addw(1))) as SignalValue<UIntShape>;
}

/** One-hot to binary: index bit b is the OR of the grant bits whose index has bit b set. */
function oneHotIndex(grant: Value, n: number): Value {
  const w = indexWidth(n);
  const bits: Value[] = [];
  for (let b = w - 1; b >= 0; b--) {
    const sel: Value[] = [];
    for (let i = 0; i < n; i++) if ((i >> b) & 1) sel.push(grant.bit(i));
    bits.push(sel.length === 0 ? lit(0, 1) : sel.length === 1 ? sel[0]! : cat(...sel).orr());
  }
  return cat(...bits);
}

/**
 * The lowest set bit of `v` as a binary index, by a balanced tree (not a chain): each node
 * takes its lower half's index when that half has a bit set, else its upper half's, so the
 * depth grows with log2(width). `valid` says some bit is set (`index` means nothing when none is).
 * `index` is indexWidth(v.width) bits wide.
 */
export function lowestSetIndex(m: ModuleBuilder, name: string, v: Value): { valid: Value; index: Value } {
  const w = indexWidth(v.width);
  const padded = v.width === 2 ** w ? v : cat(lit(0, 2 ** w - v.width), v);
  const node = (lo: number, bits: number): { valid: Value; index: Value | null } => {
    if (bits === 0) return { valid: padded.bit(lo), index: null };
    const low = node(lo, bits - 1);
    const high = node(lo + 2 ** (bits - 1), bits - 1);
    const pickHigh = low.valid.lnot();
    const index = low.index === null ? pickHigh : cat(pickHigh, mux(pickHigh, high.index!, low.index));
    return { valid: low.valid.lor(high.valid), index };
  };
  const root = node(0, w);
  return { valid: m.let(`${name}_valid`, root.valid), index: m.let(`${name}_index`, root.index ?? lit(0, 1)) };
}

export const rrArbiter = defineModule('rr_arbiter', { n: 4 } as RrParams, (m, p) => {
  positiveInt(p.n, 'n');
  const { clk, rst } = m.clockAndReset();
  const req = m.input('req', UInt(p.n));
  const accept = m.input('accept', Bool);
  const grant = m.output('grant', UInt(p.n));
  const grantIndex = m.output('grant_index', UInt(indexWidth(p.n)));
  const grantValid = m.output('grant_valid', Bool);

  const last = m.reg('last_grant_reg', UInt(p.n));
  const pick = rotatePick(m, req, last);
  grant.set(pick);
  grantIndex.set(oneHotIndex(pick, p.n));
  grantValid.set(req.orr());
  m.if(accept, () => last.set(pick));
  m.assert(accept.lnot().lor(req.orr()), 'accept without any request');

  return { clk, rst, req, accept, grant, grant_index: grantIndex, grant_valid: grantValid };
}, { doc: 'Round-robin arbiter: one-hot grant, advances on accept' });

export const wrrArbiter = defineModule('wrr_arbiter', { n: 4, weightWidth: 4 } as WrrParams, (m, p) => {
  positiveInt(p.n, 'n');
  positiveInt(p.weightWidth, 'weightWidth');
  const iw = indexWidth(p.n);
  const { clk, rst } = m.clockAndReset();
  const req = m.input('req', UInt(p.n));
  const weight = m.input('weight', Vec(UInt(p.weightWidth), p.n));
  const accept = m.input('accept', Bool);
  const grant = m.output('grant', UInt(p.n));
  const grantIndex = m.output('grant_index', UInt(iw));
  const grantValid = m.output('grant_valid', Bool);

  const last = m.reg('last_grant_reg', UInt(p.n));
  // With one requester there is no index to remember (and a one-bit Vec has no range to select).
  const lastIndex = p.n > 1 ? m.reg('last_index_reg', UInt(iw)) : null;
  // Grants the current holder has had in a row (saturates at the weight, which ends the turn).
  const used = m.reg('used_reg', UInt(p.weightWidth));

  const rr = rotatePick(m, req, last);
  // Keep the grant while the holder still asks and has grants left in this turn.
  // After reset last = 0, so nobody holds.
  const stay = m.let('stay', req.and(last).orr().land(used.lt(lastIndex ? weight.at(lastIndex) : weight.at(0))));
  const pick = m.let('pick', mux(stay, last, rr));
  const pickIndex = m.let('pick_index', oneHotIndex(pick, p.n));
  grant.set(pick);
  grantIndex.set(pickIndex);
  grantValid.set(req.orr());

  m.if(accept, () => {
    last.set(pick);
    lastIndex?.set(pickIndex);
    m.if(stay, () => used.set(used.addw(1))).else(() => used.set(1));
  });
  m.assert(accept.lnot().lor(req.orr()), 'accept without any request');

  return { clk, rst, req, weight, accept, grant, grant_index: grantIndex, grant_valid: grantValid };
}, { doc: 'Weighted round-robin arbiter: up to weight[i] consecutive grants per turn' });
