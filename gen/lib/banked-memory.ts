// A per-row word kept in memories instead of flip-flops (issue 15, "Scale"): one memory ("bank")
// per writer, so several writers may write different rows in one cycle with one write port
// each, plus per row the bank that holds its newest word (a few flip-flops) and, optionally, a
// "reads as 0" flag (memories have no reset: `rst` and clearRows() set it, a write clears it).
// Read asynchronously (LUTRAM on a Xilinx part): read(row) is the word as a register of it
// would read, in the same cycle. nic_wqe_fetch's ci_fetch_mem / ci_rewind_mem / ci_live_reg /
// ci_zero_reg are the same structure written out by hand.
//
// Usage: build it where the readers need it, then write(bank, ...) once per bank and
// clearRows(mask) at most once, anywhere later in the module (the flags read forward-declared
// wires, so the order of the calls does not matter). A clear wins over a write of the same
// cycle (a register's "RESET clears the record" mux); two banks writing one row in one cycle is
// an error (which word would be newest?), asserted here unless the module does (assertOneWriter).

import { Bool, UInt, Vec, cat, lit, mux, type ModuleBuilder, type Shape, type Value } from '../hdl/index.ts';
import { indexWidth } from './util.ts';

export type BankedMemoryOptions = {
  /** Names of the banks (one per writer), used in the memories' names: `${name}_${bank}_mem`. */
  banks: readonly string[];
  /** Rows that carry flags (the memories have 2^ceil(log2 rows) words). */
  rows: number;
  /** A per-row "reads as 0" flag, set by `rst` and clearRows(), cleared by a write of the row. */
  zeroFlag: boolean;
  /** Assert that no two banks write one row in a cycle (default true; false where the module
   *  asserts the same thing in its own terms, so that its message is the one a test sees). */
  assertOneWriter?: boolean;
};

export interface BankedMemory<S extends Shape = Shape> {
  /** The row's newest word (0 while its zero flag is set), asynchronously. */
  read(row: Value): Value<S>;
  /** Bank `bank` writes `data` at `row` on the edge when `enable` (call once per bank). */
  write(bank: string, enable: Value, row: Value, data: Value): void;
  /** Rows whose bit is set read 0 from the next edge until they are written (call at most once). */
  clearRows(mask: Value): void;
}

export function bankedMemory<S extends Shape>(m: ModuleBuilder, name: string, shape: S, opts: BankedMemoryOptions): BankedMemory<S> {
  const aw = indexWidth(opts.rows);
  const nb = opts.banks.length;
  if (nb < 1) throw new Error(`bankedMemory ${name}: at least one bank`);
  const bw = indexWidth(nb);
  const mems = opts.banks.map(b => m.memory(`${name}_${b}_mem`, shape, 2 ** aw));
  // The writes, forward-declared so that the flags below can be built before the writers are.
  // (Only the flags read them: one bank without a zero flag needs none.)
  const flags = nb > 1 || opts.zeroFlag;
  const we = flags ? opts.banks.map(b => m.wire(`${name}_${b}_we`, Bool, { default: 0 })) : [];
  const wrow = flags ? opts.banks.map(b => m.wire(`${name}_${b}_row`, UInt(aw), { default: 0 })) : [];
  const written = new Set<string>();
  const rowWritten = (i: number): Value[] => we.map((e, k) => e.land(wrow[k]!.eq(i)));

  // Newest bank per row (only with more than one bank).
  const newest = nb > 1 ? m.reg(`${name}_newest_reg`, Vec(UInt(bw), opts.rows)) : null;
  if (newest) {
    for (let i = 0; i < opts.rows; i++) {
      const hits = rowWritten(i);
      let v: Value = newest.at(i);
      for (let k = nb - 1; k >= 0; k--) v = mux(hits[k]!, lit(k, bw), v);
      newest.setBits((i + 1) * bw - 1, i * bw, v);
      if (opts.assertOneWriter ?? true) {
        let n: Value = lit(0, indexWidth(nb + 1));
        for (const h of hits) n = n.addw(h.zext(n.width));
        m.assert(n.le(1), `${name}: two banks wrote row ${i} in one cycle (which word is newest?)`);
      }
    }
  }
  // "Reads as 0" per row: set by rst and clearRows, cleared by a write (a clear wins).
  const clearMask = opts.zeroFlag ? m.wire(`${name}_clear_rows`, UInt(opts.rows), { default: 0 }) : null;
  const zero = opts.zeroFlag ? m.reg(`${name}_zero_reg`, UInt(opts.rows), { reset: (1n << BigInt(opts.rows)) - 1n }) : null;
  if (zero && clearMask) {
    const bits: Value[] = [];
    for (let i = 0; i < opts.rows; i++) bits.push(clearMask.bit(i).lor(zero.bit(i).land(rowWritten(i).reduce((a, b) => a.lor(b)).lnot())));
    zero.set(cat(...bits.reverse()));
  }
  let cleared = false;

  return {
    read: row => {
      const r = row.width > aw ? row.trunc(aw) : row.width < aw ? row.zext(aw) : row;
      let v: Value = mems[nb - 1]!.readAsync(r);
      if (newest) for (let k = nb - 2; k >= 0; k--) v = mux(newest.at(r).eq(k), mems[k]!.readAsync(r), v);
      return (zero ? mux(zero.bit(r), lit(0, shape.width), v) : v).as(shape);
    },
    write: (bank, enable, row, data) => {
      const k = opts.banks.indexOf(bank);
      if (k < 0) throw new Error(`bankedMemory ${name}: no bank '${bank}' (banks: ${opts.banks.join(', ')})`);
      if (written.has(bank)) throw new Error(`bankedMemory ${name}: bank '${bank}' written twice (one write port per bank)`);
      written.add(bank);
      if (flags) { we[k]!.set(enable); wrow[k]!.set(row); }
      m.if(enable, () => mems[k]!.write(row, data));
    },
    clearRows: mask => {
      if (!clearMask) throw new Error(`bankedMemory ${name}: clearRows without zeroFlag`);
      if (cleared) throw new Error(`bankedMemory ${name}: clearRows called twice`);
      cleared = true;
      clearMask.set(mask);
    },
  };
}
