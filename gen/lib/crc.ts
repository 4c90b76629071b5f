// Parallel CRC hardware, generated from the software model in crc-model.ts.
//
// One beat carries `bytes` bytes (byte k at data[8k+7:8k], as AXI-Stream). Every XOR in the
// hardware comes from matrices the model computes by feeding unit vectors through its own
// `update`, so the RTL and the test oracle cannot disagree on the algorithm.
//
// Datapath (per packet: a `start` beat, more beats, a `last` beat):
//   state_next = S · state_in  ⊕  D · (data & byte mask)          — one network, every beat
// S and D are the matrices of a whole `bytes`-byte word; each output bit is the XOR of the
// register and data bits its matrix row selects, written as `^(x & ROW)`.
//
// Partial last beat (tkeep contiguous from byte 0, n valid bytes): the invalid bytes are
// masked to zero and the word goes through the same full-width network. Feeding the
// register `bytes - n` extra zero bytes is a linear, invertible map (for any polynomial
// with an x^0 term), so the true register is U[bytes-n] · state, where U[p] undoes p zero
// bytes: a small width×width matrix per possible byte count, chosen by tkeep. This costs
// one data network plus `bytes` tiny register-only networks (as AND-XORs with coefficients
// read from constant tables by the registered pad count), instead of one data network
// per byte count; and the correction sits after the state register, outside the
// feedback loop, so it does not lengthen the critical path (important at 512 bits).
//
// Leading bytes to skip (e.g. the Ethernet header in front of the RoCEv2 ICRC coverage)
// use the same trick at the other end: with `skip` bytes zeroed on the start beat, the
// register starts from the constant U[skip] · initial, which the zero bytes advance back to
// `initial` exactly when the first covered byte arrives.
//
// Timing: `state` updates on each valid beat; in the cycle after a `last` beat, `crc_valid`
// is high for one cycle and `crc` (and `match`) hold the packet's CRC. A new packet may
// start right after `last`: `crc` is read from the registers before the next update lands.

import { Bool, cat, DslError, defineModule, lit, mux, repeat, UInt, type ModuleDef, type Input, type Output, type UIntShape, type Value, intIn } from '../hdl/index.ts';
import { applyMatrix, crcModel, reflectBits, type CrcParams, type CrcState, type Gf2Matrix } from './crc-model.ts';
import { keepCode } from './keep-code.ts';
import { positiveInt } from './util.ts';

export { CRC32, CRC32C, CRC16_XMODEM, CRC5_USB, crcModel, crc32 } from './crc-model.ts';
export type { CrcParams, CrcState, Gf2Matrix } from './crc-model.ts';

/** Everything the hardware is built from, as numbers (also used to check it in software). */
export interface CrcPlan {
  readonly params: CrcParams;
  readonly bytes: number;
  readonly skip: number;
  /** Register value on a start beat, before the beat's bytes. */
  readonly start: CrcState;
  /** Rows over the register and over the masked data word. */
  readonly state: Gf2Matrix;
  readonly data: Gf2Matrix;
  /** unshift[p] undoes p trailing zero bytes; unshift[0] is the identity. */
  readonly unshift: readonly Gf2Matrix[];
}

export function crcPlan(params: CrcParams, bytes: number, skip = 0): CrcPlan {
  const model = crcModel(params);
  if (!Number.isInteger(skip) || skip < 0 || skip >= bytes) throw new DslError(`CRC skip = ${skip} with ${bytes}-byte beats`, 'skip fewer bytes than one beat holds');
  const { state, data } = model.stepMatrix(bytes);
  const identity = Array.from({ length: params.width }, (_, i) => 1n << BigInt(i));
  const unshift = Array.from({ length: bytes }, (_, p) => (p === 0 ? identity : model.unshiftMatrix(p)));
  const start = skip === 0 ? params.initial : applyMatrix(model.unshiftMatrix(skip), params.initial);
  return { params, bytes, skip, start, state, data, unshift };
}

/** Byte-lane mask of a word: lanes with a set bit in `keep` are all ones. */
export function keepToMask(keep: bigint, bytes: number): bigint {
  let mask = 0n;
  for (let k = 0; k < bytes; k++) if ((keep >> BigInt(k)) & 1n) mask |= 0xffn << BigInt(8 * k);
  return mask;
}

/** Software mirror of one beat through the hardware datapath (what the RTL computes). */
export function crcPlanStep(plan: CrcPlan, state: CrcState, word: bigint, keep: bigint, start: boolean): CrcState {
  let mask = keepToMask(keep, plan.bytes);
  if (start) mask &= ~keepToMask((1n << BigInt(plan.skip)) - 1n, plan.bytes);
  const s = start ? plan.start : state;
  return applyMatrix(plan.state, s) ^ applyMatrix(plan.data, word & mask);
}

/** Software mirror of the output stage: correct for the last beat's `keep`, then finalize. */
export function crcPlanFinal(plan: CrcPlan, state: CrcState, lastKeep: bigint): bigint {
  const n = lastKeep.toString(2).replace(/0/g, '').length;
  return crcModel(plan.params).finalize(applyMatrix(plan.unshift[plan.bytes - n]!, state));
}

/** `rows · x` as one XOR per output bit, MSB first in the concatenation. */
function xorNetwork(rows: Gf2Matrix, x: Value): Value<UIntShape>[] {
  return rows.map(row => {
    if (row === 0n) return lit(0, 1) as Value<UIntShape>;
    if ((row & (row - 1n)) === 0n) return x.bit(row.toString(2).length - 1);
    return x.and(row).xorr();
  });
}

function fromBits(bits: Value[]): Value<UIntShape> {
  return cat(...[...bits].reverse());
}

/** Bits of a pad count 0..K-1. */
function padWidth(K: number): number {
  return Math.max(1, Math.ceil(Math.log2(K)));
}

/** A w-bit value whose bit j is `rows[j]`'s bit `pad`: one small constant table per bit. */
function byPad(pad: Value, rows: readonly bigint[]): Value<UIntShape> {
  const n = 1 << pad.width;
  const bitOf = (t: bigint): Value => (t === 0n ? lit(0, 1) : t === (1n << BigInt(n)) - 1n ? lit(1, 1) : lit(t, n).bit(pad));
  return cat(...[...rows].reverse().map(bitOf));
}

/** U[pad] · state, each output bit the XOR of its pad-selected coefficients and the register. */
function correctByPad(plan: CrcPlan, pad: Value, state: Value): Value<UIntShape> {
  const w = plan.params.width;
  const bits = Array.from({ length: w }, (_, j) => {
    const coef = byPad(pad, Array.from({ length: w }, (_, i) => tableOf(plan.bytes, p => (plan.unshift[p]![j]! >> BigInt(i)) & 1n)));
    return coef.and(state).xorr();
  });
  return fromBits(bits);
}

/** Bit table over pad values 0..bytes-1 (bit p = f(p)). */
function tableOf(bytes: number, f: (p: number) => bigint): bigint {
  let t = 0n;
  for (let p = 0; p < bytes; p++) t |= f(p) << BigInt(p);
  return t;
}

/** The register value that finalizes to the residue after `pad` zero bytes: Z^pad · r0. */
function residueAt(plan: CrcPlan, pad: number): bigint {
  const model = crcModel(plan.params);
  const { width, reflectOut, xorOut } = plan.params;
  let r0 = model.residue() ^ xorOut;
  if (reflectOut) r0 = reflectBits(r0, width);
  return pad === 0 ? r0 : applyMatrix(model.stepMatrix(pad).state, r0);
}

/** Per register bit j, the table over pad of bit j of residueAt(pad). */
function residueRows(plan: CrcPlan): bigint[] {
  const at = Array.from({ length: plan.bytes }, (_, p) => residueAt(plan, p));
  return Array.from({ length: plan.params.width }, (_, j) => tableOf(plan.bytes, p => (at[p]! >> BigInt(j)) & 1n));
}

export type CrcHwParams = {
  /** Bytes per beat (data width / 8). */
  bytes: number;
  /** Bytes at the start of each packet that are not covered (zeroed on the start beat). */
  skip: number;
};

export interface CrcIO {
  [key: string]: Input | Output;
  clk: Input; rst: Input;
  data: Input<UIntShape>; keep: Input<UIntShape>; valid: Input<UIntShape<1>>; start: Input<UIntShape<1>>; last: Input<UIntShape<1>>;
  state: Output<UIntShape>; crc: Output<UIntShape>; crc_valid: Output<UIntShape<1>>; match: Output<UIntShape<1>>;
}

const defs = new Map<string, { params: CrcParams; def: ModuleDef<CrcHwParams, CrcIO> }>();

/** The parallel CRC module of an algorithm, `<name>_parallel` (e.g. `crc32_parallel_bytes64`).
 *  `match` is high with crc_valid when the packet ended with its own correct CRC (residue
 *  check); for CRCs that are not whole bytes it is tied low. */
export function crcParallel(params: CrcParams): ModuleDef<CrcHwParams, CrcIO> {
  const hit = defs.get(params.name);
  if (hit) {
    if (hit.params !== params) throw new DslError(`two different CRC parameter objects are named '${params.name}'`, 'give each algorithm its own name');
    return hit.def;
  }
  const def = defineModule(`${params.name}_parallel`, { bytes: 8, skip: 0 } as CrcHwParams, (m, p): CrcIO => {
    positiveInt(p.bytes, 'bytes');
    const plan = crcPlan(params, p.bytes, p.skip);
    const w = params.width, K = p.bytes;
    const { clk, rst } = m.clockAndReset();
    const data = m.input('data', UInt(8 * K));
    const keep = m.input('keep', UInt(K));
    const valid = m.input('valid', Bool);
    const start = m.input('start', Bool);
    const last = m.input('last', Bool);
    const state = m.output('state', UInt(w));
    const crc = m.output('crc', UInt(w));
    const crcValid = m.output('crc_valid', Bool);
    const match = m.output('match', Bool);

    const stateReg = m.reg('state_reg', UInt(w), { reset: params.initial });
    // Zero bytes fed on the last beat (none to undo with one-byte beats).
    const padReg = K === 1 ? null : m.reg('last_pad_reg', UInt(padWidth(K)), { reset: null });
    const doneReg = m.reg('crc_valid_reg', Bool);

    // Byte lanes the CRC covers in this beat: tkeep, minus the skipped header on a start beat.
    let lanes: Value = keep;
    if (p.skip > 0) lanes = keep.and(mux(start, lit(((1n << BigInt(K)) - 1n) ^ ((1n << BigInt(p.skip)) - 1n), K), lit((1n << BigInt(K)) - 1n, K)));
    const laneBits: Value[] = [];
    for (let k = K - 1; k >= 0; k--) laneBits.push(repeat(lanes.bit(k), 8));
    const dataMasked = m.let('data_masked', data.and(cat(...laneBits)));
    const stateIn = m.let('state_in', mux(start, lit(plan.start, w), stateReg));
    const stateBits = xorNetwork(plan.state, stateIn);
    const dataBits = xorNetwork(plan.data, dataMasked);
    const stateNext = m.let('state_next', fromBits(stateBits.map((s, i) => s.xor(dataBits[i]!))));

    m.if(valid, () => {
      stateReg.set(stateNext);
      if (padReg) m.if(last, () => padReg.set(keepCode(keep, padWidth(K), n => K - n)));
    });
    doneReg.set(valid.land(last));
    m.assert(valid.lnot().lor(keep.bit(0).land(keep.and(keep.addw(1)).eq(0))), 'keep must be contiguous from byte 0');
    m.assert(valid.lnot().lor(last).lor(keep.andr()), 'only the last beat of a packet may be partial');

    // Output stage: undo the zero bytes of a partial last beat, then reflect and xor.
    // Timing (docs/synth.md): the last beat's pad (zero bytes fed) is registered as a binary
    // count, so every coefficient of U[pad] is a function of the few pad bits alone (a
    // constant table read by pad: one LUT), and each corrected bit is an AND-XOR of those
    // coefficients with the register, instead of a K-way select keyed by the whole tkeep.
    const corrected = m.let('state_final', padReg ? correctByPad(plan, padReg, stateReg) : stateReg);
    let out: Value = corrected;
    if (params.reflectOut) out = cat(...Array.from({ length: w }, (_, i) => corrected.bit(i)));
    if (params.xorOut !== 0n) out = out.xor(params.xorOut);
    const crcOut = m.let('crc_out', out);

    state.set(stateReg);
    crc.set(crcOut);
    crcValid.set(doneReg);
    // The residue check compares the uncorrected register with the constant the residue
    // becomes after `pad` zero bytes (U[pad] is invertible), so no correction lies before it.
    if (w % 8 === 0) match.set(doneReg.land(stateReg.eq(padReg ? byPad(padReg, residueRows(plan)) : lit(residueAt(plan, 0), w))));
    else match.set(0);
    return { clk, rst, data, keep, valid, start, last, state, crc, crc_valid: crcValid, match };
  }, { doc: `Parallel ${params.name.toUpperCase()} over byte-enabled beats, XOR matrices from the software model`, params: { rules: { bytes: intIn(1, 512), skip: intIn(0, 511) }, check: p => (p.skip < p.bytes ? null : { param: 'skip', allowed: `0..${p.bytes - 1} with bytes ${p.bytes}`, why: 'skip fewer bytes than one beat holds' }) } });
  defs.set(params.name, { params, def });
  return def;
}
