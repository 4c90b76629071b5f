// Typed register addresses for the driver model and tests, and a reference model of
// nic_regs' software-visible behaviour. Everything comes from gen/nic/regmap.ts.

import { AXIL_SPACE, GLOBAL_REGS, MR_BASE, MR_REGS, MR_STRIDE, QP_BASE, QP_REGS, QP_STATE, QP_STRIDE, type RegField } from '../../gen/nic/regmap.ts';

export type GlobalRegName = typeof GLOBAL_REGS[number]['name'];
export type QpRegName = typeof QP_REGS[number]['name'];
export type MrRegName = typeof MR_REGS[number]['name'];

const find = (regs: readonly RegField[], name: string): RegField => {
  const r = regs.find(x => x.name === name);
  if (!r) throw new Error(`no register ${name}`);
  return r;
};

export function globalReg(name: GlobalRegName): number { return find(GLOBAL_REGS, name).offset; }
export function qpReg(qp: number, name: QpRegName): number { return QP_BASE + qp * QP_STRIDE + find(QP_REGS, name).offset; }
export function mrReg(mr: number, name: MrRegName): number { return MR_BASE + mr * MR_STRIDE + find(MR_REGS, name).offset; }

/** Word address bits of the map: addr[1:0] are ignored, as nic_regs ignores them. */
const WORD_MASK = AXIL_SPACE - 4;

export interface DecodedReg {
  readonly reg: RegField;
  readonly block: 'global' | 'qp' | 'mr';
  readonly index: number;
}

/** What a (word) address maps to with numQp QPs and numMr MRs, or undefined if unmapped. */
export function decodeReg(addr: number, numQp: number, numMr: number): DecodedReg | undefined {
  const a = addr & WORD_MASK;
  const inBlock = (base: number, stride: number, count: number, regs: readonly RegField[], block: DecodedReg['block']): DecodedReg | undefined => {
    if (a < base || a >= base + stride * count) return undefined;
    const index = Math.floor((a - base) / stride);
    const reg = regs.find(r => r.offset === (a - base) % stride);
    return reg ? { reg, block, index } : undefined;
  };
  const g = GLOBAL_REGS.find(r => r.offset === a);
  if (g) return { reg: g, block: 'global', index: 0 };
  return inBlock(QP_BASE, QP_STRIDE, numQp, QP_REGS, 'qp') ?? inBlock(MR_BASE, MR_STRIDE, numMr, MR_REGS, 'mr');
}

/** Every mapped word address. */
export function allRegs(numQp: number, numMr: number): { addr: number; d: DecodedReg }[] {
  const out: { addr: number; d: DecodedReg }[] = [];
  for (const r of GLOBAL_REGS) out.push({ addr: r.offset, d: { reg: r, block: 'global', index: 0 } });
  for (let i = 0; i < numQp; i++) for (const r of QP_REGS) out.push({ addr: qpReg(i, r.name as QpRegName), d: { reg: r, block: 'qp', index: i } });
  for (let j = 0; j < numMr; j++) for (const r of MR_REGS) out.push({ addr: mrReg(j, r.name as MrRegName), d: { reg: r, block: 'mr', index: j } });
  return out;
}

const mask = (w: number): number => (w >= 32 ? 0xffffffff : (1 << w) - 1) >>> 0;
const strbMask = (strb: number): number => [0, 1, 2, 3].reduce((m, b) => (strb >> b) & 1 ? (m | (0xff << (8 * b))) >>> 0 : m, 0);

export const AXIL_RESP = { OKAY: 0, SLVERR: 2, DECERR: 3 } as const;

/** Software-visible state of nic_regs, one 32-bit value per mapped word. */
export class RegsModel {
  readonly values = new Map<number, number>();
  constructor(readonly numQp: number, readonly numMr: number) {
    for (const { addr, d } of allRegs(numQp, numMr)) this.values.set(addr, d.reg.reset >>> 0);
  }

  read(addr: number): { data: number; resp: number } {
    const d = decodeReg(addr, this.numQp, this.numMr);
    if (!d) return { data: 0, resp: AXIL_RESP.DECERR };
    if (d.reg.access === 'wo') return { data: 0, resp: AXIL_RESP.SLVERR };
    return { data: this.values.get(addr & WORD_MASK)!, resp: AXIL_RESP.OKAY };
  }

  /** Applies a software write; returns the response and the doorbell / MR change it causes. */
  write(addr: number, data: number, strb = 0xf): { resp: number; doorbell?: { qp: number; pi: number }; mrChanged?: number } {
    const a = addr & WORD_MASK;
    const d = decodeReg(a, this.numQp, this.numMr);
    if (!d) return { resp: AXIL_RESP.DECERR };
    const old = this.values.get(a)!;
    const m = strbMask(strb);
    const merged = (((old & ~m) | (data & m)) & mask(d.reg.width)) >>> 0;
    if (d.reg.access === 'ro') return { resp: AXIL_RESP.OKAY };
    if (d.reg.access === 'w1c') { this.values.set(a, (old & ~(data & m)) >>> 0); return { resp: AXIL_RESP.OKAY }; }
    this.values.set(a, merged);
    const out: { resp: number; doorbell?: { qp: number; pi: number }; mrChanged?: number } = { resp: AXIL_RESP.OKAY };
    if (d.block === 'qp' && d.reg.name === 'SQ_PI') out.doorbell = { qp: d.index, pi: merged };
    if (d.block === 'qp' && d.reg.name === 'STATE' && merged === QP_STATE.RESET) {
      for (const n of ['SQ_PI', 'SQ_CI', 'CQ_PI', 'CQ_CI', 'MSN'] as const) this.values.set(qpReg(d.index, n), 0);
    }
    if (d.block === 'mr') out.mrChanged = d.index;
    return out;
  }

  /** A datapath update of a QP field. */
  hwSet(qp: number, name: QpRegName, value: number): void {
    this.values.set(qpReg(qp, name), (value & mask(find(QP_REGS, name).width)) >>> 0);
  }
}
