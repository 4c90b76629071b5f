// From parsed tool output to the report's figures: cell counts by class, and each proxy's
// worst path with its ends in designer names.

import type { NameMap, SignalRef } from './names.ts';
import type { LtpPath, NextpnrTiming, StaPath } from './parse.ts';
import type { PathReport, Resources } from './result.ts';

const LUTRAM = /^(RAM(16|32|64|128|256)X1[SD]|RAM32M16|RAM64M8|RAM32M|RAM64M|SRL16E|SRLC32E)$/;
const FF = /^(FD[RSCP]E|SB_DFF\w*|\$_S?DFF\w*|\$_DFFE?\w*|\$_SDFFC?E\w*)$/;

export function classify(cells: Readonly<Record<string, number>>): Resources {
  let luts = 0, ffs = 0, carry = 0, muxf = 0, ramb36 = 0, ramb18 = 0, ram40 = 0, lutram = 0, dsp = 0;
  for (const [type, n] of Object.entries(cells)) {
    if (/^LUT[1-6]$|^SB_LUT4$|^\$lut$/.test(type)) luts += n;
    else if (FF.test(type)) ffs += n;
    else if (/^CARRY[48]$|^SB_CARRY$/.test(type)) carry += n;
    else if (/^MUXF[789]$/.test(type)) muxf += n;
    else if (/^RAMB36E[12]$/.test(type)) ramb36 += n;
    else if (/^RAMB18E[12]$/.test(type)) ramb18 += n;
    else if (type === 'SB_RAM40_4K') ram40 += n;
    else if (LUTRAM.test(type)) lutram += n;
    else if (/^DSP48E[12]$|^SB_MAC16$/.test(type)) dsp += n;
  }
  return { luts, ffs, carry, muxf, ramb36, ramb18, ram40, lutram, dsp, cells };
}

/** Count LUT, MUXF and carry-chain cells among cell types in path order. */
function levelsOf(types: readonly string[]): { lut: number; muxf: number; carryChains: number; cells: number } {
  let lut = 0, muxf = 0, carryChains = 0, cells = 0;
  let inCarry = false;
  for (const t of types) {
    const isCarry = /^CARRY[48]$|^SB_CARRY$/.test(t);
    if (/^LUT[1-6]$|^SB_LUT4$|^\$lut$/.test(t)) { lut++; cells++; }
    else if (/^MUXF[789]$/.test(t)) { muxf++; cells++; }
    else if (isCarry) { if (!inCarry) carryChains++; cells++; }
    inCarry = isCarry;
  }
  return { lut, muxf, carryChains, cells };
}

/** Named signals of a net list, in order, each once, without the two ends. */
function throughOf(names: NameMap, nets: readonly string[], start: SignalRef | null, end: SignalRef | null): SignalRef[] {
  const seen = new Set<string>([base(start), base(end)]);
  const out: SignalRef[] = [];
  for (const n of nets) {
    const r = names.resolve(n);
    if (!r || seen.has(base(r))) continue;
    seen.add(base(r));
    out.push({ signal: r.signal.replace(/\[\d+\]$/, ''), loc: r.loc });
  }
  return out;
}

const base = (r: SignalRef | null): string => (r ? r.signal.replace(/\[\d+\]$/, '') : '');

/** Proxy (a): the worst `sta` path, from the launching flip-flop to the capturing one. */
export function staReport(sta: StaPath, names: NameMap): PathReport {
  // Steps are endpoint first; the launch is the first register arc (clock to Q) below it.
  const launch = sta.steps.findIndex((s, i) => i > 0 && /->Q/.test(s.arc));
  const logic = sta.steps.slice(1, launch < 0 ? sta.steps.length : launch);
  const { lut, muxf, carryChains, cells } = levelsOf(logic.map(s => s.type).reverse());
  const start = launch < 0 ? null : names.resolve(sta.steps[launch]!.cell) ?? names.resolve(sta.steps[launch - 1]?.net ?? '');
  const end = sta.steps[0] ? names.resolve(sta.steps[0].cell) ?? names.resolve(sta.steps[0].net) : null;
  const nets = [...logic.map(s => s.net).reverse(), sta.steps[0]?.net ?? ''];
  return { proxy: 'a', delayNs: sta.arrival / 1000, fmaxMhz: null, levels: cells, lut, muxf, carryChains, start, end, through: throughOf(names, nets, start, end) };
}

/** Proxies (b') and (b): `ltp`'s longest path in cells; its ends are the first and last named nets. */
export function ltpReport(proxy: 'b_prime' | 'b', ltp: LtpPath, names: NameMap): PathReport {
  const resolved = ltp.nets.map(n => names.resolve(n));
  const first = resolved.findIndex(r => r);
  const start = first < 0 ? null : resolved[first]!;
  // The end is the last named net after the start; null when the path ends in tool-made nets.
  const end = resolved.slice(first + 1).reverse().find(r => r) ?? null;
  // ltp names cells, not their types: the path's composition comes from proxy (a).
  return { proxy, delayNs: null, fmaxMhz: null, levels: ltp.length, lut: null, muxf: null, carryChains: null, start, end, through: throughOf(names, ltp.nets, start, end) };
}

/** Proxy (c): nextpnr's routed critical path on the iCE40. */
export function nextpnrReport(t: NextpnrTiming, names: NameMap): PathReport {
  const start = (t.source && names.resolve(t.source)) || null;
  const end = (t.sink && names.resolve(t.sink)) || null;
  return { proxy: 'c', delayNs: null, fmaxMhz: t.fmaxMhz, levels: null, lut: null, muxf: null, carryChains: null, start, end, through: throughOf(names, t.nets, start, end) };
}
