// From the names Yosys and nextpnr print back to the designer's: a net or cell name such as
// `\u_dut.u_arb.grant_reg [2]`, `u_dut.count_reg[3]\FDRE` or
// `u_dut.rd_ptr_reg_SB_DFFESR_Q_D_SB_LUT4_O_3_LC` becomes the signal `u_arb.grant_reg[2]`
// of the measured module, with the TS line that created it (the IR keeps every signal's
// source location; instance names lead down the hierarchy as flattening joined them). The
// wrapper's own registers stand for the measured module's ports.

import { formatLoc } from '../gen/hdl/errors.ts';
import type { ModuleIR } from '../gen/hdl/ir.ts';
import { DUT_INSTANCE, isClockPort, WRAP_IN, WRAP_OUT, type WrapPort } from './wrapper.ts';

/** A designer signal: its path below the measured module (bit index if known) and TS line. */
export interface SignalRef {
  readonly signal: string;
  /** `file.ts:line:col` for nicgen modules; null for tool-made nets and foreign Verilog. */
  readonly loc: string | null;
}

export class NameMap {
  readonly #ir: ModuleIR | null;
  readonly #inputs: { port: WrapPort; lo: number }[] = [];
  readonly #outputs: { port: WrapPort; lo: number }[] = [];

  constructor(ir: ModuleIR | null, ports: readonly WrapPort[]) {
    this.#ir = ir;
    let i = 0;
    let o = 0;
    for (const p of ports) {
      if (p.dir === 'input' && !isClockPort(p.name)) { this.#inputs.push({ port: p, lo: i }); i += p.width; }
      if (p.dir === 'output') { this.#outputs.push({ port: p, lo: o }); o += p.width; }
    }
  }

  /** The designer signal a tool name stands for, or null for a name a tool made up. */
  resolve(raw: string): SignalRef | null {
    const parsed = splitToolName(raw);
    if (!parsed) return null;
    const { path, bit } = parsed;
    if (path === WRAP_IN || path === WRAP_OUT) return bit === null ? null : this.#port(path === WRAP_IN ? this.#inputs : this.#outputs, bit);
    if (!path.startsWith(`${DUT_INSTANCE}.`)) return null;
    const inner = path.slice(DUT_INSTANCE.length + 1);
    return { signal: bit === null ? inner : `${inner}[${bit}]`, loc: this.#locOf(inner.split('.')) };
  }

  #port(list: readonly { port: WrapPort; lo: number }[], bit: number): SignalRef | null {
    const hit = list.find(e => bit >= e.lo && bit < e.lo + e.port.width);
    if (!hit) return null;
    const name = hit.port.width === 1 ? hit.port.name : `${hit.port.name}[${bit - hit.lo}]`;
    return { signal: name, loc: this.#locOf([hit.port.name]) };
  }

  #locOf(parts: readonly string[]): string | null {
    let ir = this.#ir;
    for (const inst of parts.slice(0, -1)) {
      ir = ir?.instances.find(i => i.name === inst)?.module ?? null;
    }
    if (!ir) return null;
    const last = parts[parts.length - 1]!;
    const sig = ir.signals.find(s => s.name === last);
    if (sig) return formatLoc(sig.loc);
    const mem = ir.memories.find(m => last === m.name || last.startsWith(`${m.name}_rdata`));
    return mem ? formatLoc(mem.loc) : null;
  }
}

/** `\a.b [3]`, `a.b[3]\FDRE`, `a.b_SB_DFF_Q_LC` -> { path: 'a.b', bit: 3 }; null for `$...`. */
export function splitToolName(raw: string): { path: string; bit: number | null } | null {
  let s = raw.trim();
  if (s.startsWith('$')) return null;
  if (s.startsWith('\\')) s = s.slice(1);
  s = s.replace(/\.[A-Z][A-Z0-9_]*$/, '');          // nextpnr's cell pin (`.O`, `.CEN`, `.I3`)
  s = s.replace(/\\[A-Za-z0-9_]+$/, '');            // rename -wire's `\FDRE` suffix
  s = s.replace(/_SB_[A-Za-z0-9_$[\]]*$/, '');       // nextpnr/ice40 derived cell and net names
  s = s.replace(/\$.*$/, '');                        // `$SB_IO_IN`, `$glb_ce`, ...
  s = s.replace(/_(DFF)?LC$/, '');
  const m = /^(.*?)\s*\[(\d+)\]$/.exec(s);
  const path = m ? m[1]! : s;
  if (!/^[A-Za-z_][\w.]*$/.test(path)) return null;
  return { path, bit: m ? Number(m[2]) : null };
}
