// One ModuleIR → one Verilog-2005 module, laid out the way verilog-axis lays out its
// modules: ports, declarations, then combinational logic (`assign` / `always @*` with
// defaults first), clocked logic (`always @(posedge clk)` with the synchronous reset at the
// end), memories, instances, simulation-only assertions and the cover points Verilator's
// coverage counts (inside `ifdef VERILATOR`: Yosys and Icarus never see them, and a build
// without --coverage ignores them). Each statement group carries a
// `// file.ts:line` comment pointing at the generator code that made it.

import { coverPoints, domainHasReset, readBits, stmtTargets, type ReadBits } from '../hdl/analysis.ts';
import { formatLoc } from '../hdl/errors.ts';
import type { AssertStmt, AssignStmt, CoverStmt, Domain, Expr, Memory, ModuleIR, Signal, Stmt } from '../hdl/ir.ts';
import { constExpr, walkStmts } from '../hdl/ir.ts';
import type { EnumShape, Shape } from '../hdl/shape.ts';
import type { SourceLoc } from '../hdl/errors.ts';
import { enumLabel } from '../hdl/value.ts';
import { ExprPrinter, printConst, rangeDecl, stripParens, type TempSink } from './expr.ts';
import { projectStmts, groupByTargets } from './stmts.ts';

export interface EmittedModule {
  readonly name: string;
  /** Module text without the header comment, used to merge identical modules. */
  readonly body: string;
  readonly header: string;
  /** Line (1-based, within body) of each assertion's `$stop`. */
  readonly asserts: { line: number; stmt: AssertStmt }[];
  /** Line (1-based, within body) of each cover point's `cover` statement. */
  readonly covers: { line: number; stmt: CoverStmt }[];
}

const IND = '    ';

class Lines {
  readonly out: string[] = [];
  push(depth: number, text: string): void { this.out.push(text === '' ? '' : IND.repeat(depth) + text); }
  blank(): void { if (this.out.length && this.out[this.out.length - 1] !== '') this.out.push(''); }
}

/** A declared intermediate and the bits of it its readers use. */
type Temp = { readonly name: string; readonly e: Expr; readonly text: string; readonly used: boolean[]; readonly lines?: readonly string[] };

/** The used bits as ranges, most significant first: `[20:16], [3:0]`. */
function usedRanges(used: readonly boolean[]): string {
  const out: string[] = [];
  for (let hi = used.length - 1; hi >= 0; hi--) {
    if (!used[hi]) continue;
    let lo = hi;
    while (lo > 0 && used[lo - 1]) lo--;
    out.push(`[${hi}:${lo}]`);
    hi = lo;
  }
  return out.join(', ');
}

/** `wire [..] name = text;`, marked for lint when only some of its bits are read. */
function tempLines(t: Temp): readonly string[] {
  if (t.lines) return t.lines;
  const { e, name } = t;
  const decl = `wire ${e.signed ? 'signed ' : ''}${rangeDecl(e.width)}${e.width > 1 ? ' ' : ''}${name} = ${t.text};`;
  if (t.used.every(b => b)) return [decl];
  return [
    `// intermediate of ${formatLoc(e.loc)}: only bits ${usedRanges(t.used)} are used`,
    '/* verilator lint_off UNUSEDSIGNAL */', decl, '/* verilator lint_on UNUSEDSIGNAL */',
  ];
}

export class ModuleEmitter implements TempSink {
  readonly #ir: ModuleIR;
  readonly #moduleNames: (ir: ModuleIR) => string;
  readonly #read: ReadBits;
  readonly #printer = new ExprPrinter(this);
  /** Intermediates, in declaration order; one per distinct (sign, width, text): a value read
   *  twice (two fields of one dynamic record read, the same constant) is declared once. */
  readonly #temps: Temp[] = [];
  readonly #tempByText = new Map<string, Temp>();
  readonly #labels = new Map<string, string>();
  readonly #usedNames = new Set<string>();
  readonly #asserts: { index: number; stmt: AssertStmt }[] = [];
  readonly #covers: { index: number; stmt: CoverStmt }[] = [];
  #tempCount = 0;
  /** Signals driven from an always block (declared `reg`). */
  readonly #alwaysDriven = new Set<Signal>();

  constructor(ir: ModuleIR, moduleNames: (ir: ModuleIR) => string) {
    this.#ir = ir;
    this.#moduleNames = moduleNames;
    this.#read = readBits(ir);
    for (const s of ir.signals) this.#usedNames.add(s.name);
    for (const m of ir.memories) this.#usedNames.add(m.name);
    for (const i of ir.instances) this.#usedNames.add(i.name);
    for (const c of coverPoints(ir)) this.#usedNames.add(c.name);
  }

  emit(): EmittedModule {
    const ir = this.#ir;
    const logic = new Lines();
    this.#emitComb(logic);
    this.#emitSync(logic);
    this.#emitMemories(logic);
    this.#emitInstances(logic);
    this.#emitAsserts(logic);
    this.#emitCovers(logic);

    const name = this.#moduleNames(ir);
    const top = new Lines();
    top.push(0, `module ${name} (`);
    this.#emitPorts(top);
    top.push(0, ');');
    top.blank();
    this.#emitLabels(top);
    this.#emitDecls(top);
    top.out.push(...this.#temps.flatMap(tempLines));
    top.blank();
    const offset = top.out.length;
    const body = [...top.out, ...logic.out];
    while (body[body.length - 1] === '') body.pop();
    body.push('', 'endmodule', '', '`resetall', '');
    const headerLines = this.#header();
    return {
      name,
      header: headerLines.join('\n') + '\n',
      body: body.join('\n'),
      asserts: this.#asserts.map(a => ({ line: offset + a.index + 1, stmt: a.stmt })),
      covers: this.#covers.map(c => ({ line: offset + c.index + 1, stmt: c.stmt })),
    };
  }

  // ---- TempSink ------------------------------------------------------------------------------
  /** A name no signal, memory, instance or earlier intermediate of this module uses. */
  #freshName(base: string): string {
    let name = base;
    while (this.#usedNames.has(name)) name = `${base}_${this.#tempCount++}`;
    this.#usedNames.add(name);
    return name;
  }

  temp(hint: string, e: Expr, text: string, usedBits: [number, number] | null): string {
    const key = `${e.signed ? 's' : 'u'}${e.width} ${text}`;
    const [hi, lo] = usedBits ?? [e.width - 1, 0];
    const known = this.#tempByText.get(key);
    const used = known?.used ?? new Array<boolean>(e.width).fill(false);
    for (let b = lo; b <= hi; b++) used[b] = true;
    if (known) return known.name;
    let name: string;
    do { name = `${hint}_${this.#tempCount++}`; } while (this.#usedNames.has(name));
    this.#usedNames.add(name);
    const t: Temp = { name, e, text, used };
    this.#temps.push(t);
    this.#tempByText.set(key, t);
    return name;
  }
  rows(base: string, rowWidth: number, count: number, size: number, e: Expr): string {
    const key = `rows ${rowWidth} ${base}`;
    const known = this.#tempByText.get(key);
    if (known) return known.name;
    const name = this.#freshName(`${base.replace(/\W/g, '_')}_rows`);
    const i = this.#freshName(`${name}_i`);
    const row = rangeDecl(rowWidth);
    const lines = [
      `// ${base} as ${count} rows of ${rowWidth} bits, read by index (${formatLoc(e.loc)}; a mux per bit, where Yosys makes \`[i * ${rowWidth} +: ${rowWidth}]\` a shifter)`,
      `wire ${row} ${name} [0:${size - 1}];`,
      `genvar ${i};`,
      `generate for (${i} = 0; ${i} < ${count}; ${i} = ${i} + 1) begin : g_${name}`,
      `    assign ${name}[${i}] = ${base}[${i} * ${rowWidth} +: ${rowWidth}];`,
      'end endgenerate',
    ];
    if (size > count) {
      lines.push(`// rows ${count}..${size - 1}: the index reaches them, they read 0`);
      lines.push(`generate for (${i} = ${count}; ${i} < ${size}; ${i} = ${i} + 1) begin : g_${name}_pad`);
      lines.push(`    assign ${name}[${i}] = ${rowWidth}'d0;`);
      lines.push('end endgenerate');
    }
    const t: Temp = { name, e, text: key, used: [], lines };
    this.#temps.push(t);
    this.#tempByText.set(key, t);
    return name;
  }
  nameOf(e: Expr & { kind: 'ref' | 'memread' }): string {
    return e.kind === 'ref' ? e.signal.name : memReadName(e.mem, e.port);
  }
  /** A signal's constant (reset value, default) as text: enum members by their localparam. */
  #constFor(s: Signal, value: bigint): string {
    if (s.shape.kind === 'enum') {
      const member = Object.entries(s.shape.members).find(([, v]) => BigInt(v) === value);
      if (member) return this.#printer.print(enumConst(s.shape, member[0], value, s.loc));
    }
    return printConst(value, s.shape.width, s.shape.kind === 'sint');
  }

  useLabel(label: string, e: Expr & { kind: 'const' }): void {
    this.#labels.set(label, `localparam ${rangeDecl(e.width)}${e.width > 1 ? ' ' : ''}${label} = ${e.width}'d${e.value};`);
  }

  // ---- sections ------------------------------------------------------------------------------
  #header(): string[] {
    const ir = this.#ir;
    const lines = [`// Generated by nicgen from ${formatLoc(ir.loc).replace(/:\d+:\d+$/, '')} (${ir.defName}). Do not edit.`];
    if (ir.doc) lines.push(`// ${ir.doc}`);
    const params = Object.entries(ir.params);
    if (params.length) lines.push(`// Parameters: ${params.map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(', ')}`);
    lines.push('', '`resetall', '`timescale 1ns / 1ps', '`default_nettype none', '');
    return lines;
  }

  #emitPorts(out: Lines): void {
    const ports = this.#ir.ports;
    const typeCol = (p: { signal: Signal }) => `${p.signal.shape.kind === 'sint' ? 'signed ' : ''}${rangeDecl(p.signal.shape.width)}`;
    const colWidth = Math.max(0, ...ports.map(p => typeCol(p).length));
    const rows = ports.map(p => {
      const s = p.signal;
      const dir = s.kind === 'input' ? 'input ' : 'output';
      const kind = s.kind === 'output' && this.#alwaysDrivenOrReg(s) ? 'reg ' : 'wire';
      return { s, text: `${dir} ${kind} ${typeCol(p).padEnd(colWidth)} ${s.name}`.replace(/ +/g, m => (m.length > 1 && colWidth === 0 ? ' ' : m)) };
    });
    // Struct-typed ports carry their field layout beside them, aligned.
    const textWidth = Math.max(0, ...rows.map(r => r.text.length + 1));
    rows.forEach((r, i) => {
      const waiver = this.#waiver(r.s);
      if (r.s.crossing) out.push(1, `// clock-domain crossing: ${oneLine(r.s.crossing)}`);
      if (waiver) for (const w of waiver.before) out.push(1, w);
      const line = `${r.text}${i === rows.length - 1 ? '' : ','}`;
      const layout = structLayout(r.s.shape);
      out.push(1, layout ? `${line.padEnd(textWidth)} // ${layout}` : line);
      if (waiver) out.push(1, waiver.after);
    });
  }

  /** The localparams of the enum members used, in declaration order: enums as their signals
   *  are declared (an FSM's state register first where it is), members as the enum lists them
   *  (`STATE_IDLE`, `STATE_FETCH`, `STATE_DONE`), so the Verilog reads like the TS. */
  #emitLabels(out: Lines): void {
    if (!this.#labels.size) return;
    const order: string[] = [];
    const shapes = new Set<EnumShape>();
    for (const f of this.#ir.fsms) if (f.signal.shape.kind === 'enum') shapes.add(f.signal.shape);
    for (const sig of this.#ir.signals) if (sig.shape.kind === 'enum') shapes.add(sig.shape);
    for (const shape of shapes) {
      for (const member of Object.keys(shape.members)) {
        const label = enumLabel(shape, member);
        if (this.#labels.has(label) && !order.includes(label)) order.push(label);
      }
    }
    // Members of enums no signal here has (compared against a number, say): after the rest.
    for (const l of [...this.#labels.keys()].sort()) if (!order.includes(l)) order.push(l);
    for (const l of order) out.push(0, this.#labels.get(l)!);
    out.blank();
  }

  #emitDecls(out: Lines): void {
    for (const s of this.#ir.signals) {
      if (s.kind === 'input' || s.kind === 'output') continue;
      const kind = this.#alwaysDrivenOrReg(s) ? 'reg ' : 'wire';
      const waiver = this.#waiver(s);
      if (s.crossing) out.push(0, `// clock-domain crossing: ${oneLine(s.crossing)}`);
      if (waiver) for (const w of waiver.before) out.push(0, w);
      out.push(0, `${attributeText(s.attributes)}${kind} ${s.shape.kind === 'sint' ? 'signed ' : ''}${rangeDecl(s.shape.width)}${s.shape.width > 1 ? ' ' : ''}${s.name};`);
      if (waiver) out.push(0, waiver.after);
    }
    for (const mem of this.#ir.memories) {
      if (mem.crossing) out.push(0, `// clock-domain crossing: ${oneLine(mem.crossing)}`);
      out.push(0, `reg  ${rangeDecl(mem.shape.width)}${mem.shape.width > 1 ? ' ' : ''}${mem.name} [0:${mem.depth - 1}];`);
      mem.readPorts.forEach((p, i) => out.push(0, `${p.async ? 'wire' : 'reg '} ${rangeDecl(mem.shape.width)}${mem.shape.width > 1 ? ' ' : ''}${memReadName(mem, i)};`));
    }
  }

  /** A reasoned lint waiver for bits that are deliberately (or structurally) not read. */
  #waiver(s: Signal): { before: string[]; after: string } | null {
    if (s.kind === 'output') return null;
    const full = (1n << BigInt(s.shape.width)) - 1n;
    const read = this.#read.get(s);
    if (read === full) return null;
    let why: string | null = s.unusedReason;
    if (!why && s.instPort && this.#ir.instances.some(i => i === s.instPort!.inst) && s.instPort.inst.module.ports.some(p => p.signal.name === s.instPort!.port && p.signal.kind === 'output')) {
      why = `output ${s.instPort.port} of ${s.instPort.inst.name} is not (fully) used here`;
    }
    if (!why) return null; // the unused pass has already reported it
    return { before: [`// not read: ${why}`, '/* verilator lint_off UNUSEDSIGNAL */'], after: '/* verilator lint_on UNUSEDSIGNAL */' };
  }

  #alwaysDrivenOrReg(s: Signal): boolean {
    return s.kind === 'reg' || this.#alwaysDriven.has(s);
  }

  // ---- combinational logic ------------------------------------------------------------------
  #emitComb(out: Lines): void {
    const comb = projectStmts(this.#ir.body, s => s.kind === 'assign' && s.target.kind !== 'reg');
    for (const group of groupByTargets(comb)) {
      const only = group.length === 1 ? group[0]! : null;
      if (only && only.kind === 'assign' && only.lo === 0 && only.width === only.target.shape.width) {
        out.push(0, `// ${formatLoc(only.loc)}`);
        out.push(0, `assign ${only.target.name} = ${stripParens(this.#value(only))};`);
        out.blank();
        continue;
      }
      const targets = uniqueSignals(group);
      for (const t of targets) this.#alwaysDriven.add(t);
      out.push(0, `// ${formatLoc(group[0]!.loc)}`);
      out.push(0, 'always @* begin');
      for (const t of targets) out.push(1, `${t.name} = ${this.#constFor(t, t.init)};`);
      this.#stmts(out, 1, group, '=');
      out.push(0, 'end');
      out.blank();
    }
  }

  // ---- clocked logic ---------------------------------------------------------------------------
  #emitSync(out: Lines): void {
    for (const d of this.#ir.domains.values()) {
      const stmts = projectStmts(this.#ir.body, s =>
        (s.kind === 'assign' && s.target.kind === 'reg' && s.target.domain === d)
        || (s.kind === 'memwrite' && s.mem.writePorts[s.port]!.domain === d));
      const groups = groupByTargets(stmts);
      // Registers with a reset but no assignment still need their reset line.
      const resetOnly = this.#ir.signals.filter(s => s.kind === 'reg' && s.domain === d && !groups.some(g => uniqueSignals(g).includes(s)));
      if (resetOnly.length) groups.push([]);
      for (const group of groups) {
        const regs = group.length ? uniqueSignals(group) : resetOnly;
        this.#syncBlock(out, d, group, regs);
      }
    }
  }

  #syncBlock(out: Lines, d: Domain, group: Stmt[], regs: Signal[]): void {
    const clock = d.clock?.name ?? 'clk';
    const withReset = regs.filter(r => r.reset !== null);
    const loc = group[0]?.loc ?? regs[0]!.loc;
    out.push(0, `// ${formatLoc(loc)}`);
    if (d.resetKind === 'async' && withReset.length) {
      // FPGA IP style: `always @(posedge aclk or negedge aresetn)` holding only registers that
      // have a reset; the others (and memory writes, which no reset can clear) go into a plain
      // clocked block, so none of them is gated by the reset.
      const reset = d.reset?.name ?? 'rst';
      const edge = d.resetActive === 'low' ? 'negedge' : 'posedge';
      const hasReset = new Set(withReset);
      const resetBody = projectStmts(this.#withEnables(group), s => s.kind === 'assign' && hasReset.has(s.target));
      const rest = projectStmts(this.#withEnables(group), s => !(s.kind === 'assign' && hasReset.has(s.target)));
      out.push(0, `always @(posedge ${clock} or ${edge} ${reset}) begin`);
      out.push(1, `if (${this.#inReset(d)}) begin`);
      for (const r of withReset) out.push(2, `${r.name} <= ${this.#constFor(r, r.reset!)};`);
      out.push(1, 'end else begin');
      this.#stmts(out, 2, resetBody, '<=');
      out.push(1, 'end');
      out.push(0, 'end');
      if (rest.length) {
        out.blank();
        out.push(0, `// ${formatLoc(rest[0]!.loc)}: registers without reset`);
        out.push(0, `always @(posedge ${clock}) begin`);
        this.#stmts(out, 1, rest, '<=');
        out.push(0, 'end');
      }
    } else {
      out.push(0, `always @(posedge ${clock}) begin`);
      this.#stmts(out, 1, this.#withEnables(group), '<=');
      if (withReset.length && d.resetKind === 'sync') {
        out.push(1, `if (${this.#inReset(d)}) begin`);
        for (const r of withReset) out.push(2, `${r.name} <= ${this.#constFor(r, r.reset!)};`);
        out.push(1, 'end');
      }
      out.push(0, 'end');
    }
    out.blank();
  }

  /** The condition "in reset": `rst`, or `!aresetn` for an active-low reset. */
  #inReset(d: Domain): string {
    const name = d.reset?.name ?? 'rst';
    return d.resetActive === 'low' ? `!${name}` : name;
  }

  /** Assignments to registers with an enable are guarded by it. */
  #withEnables(stmts: Stmt[]): Stmt[] {
    const wrap = (s: Stmt): Stmt => {
      if (s.kind === 'assign' && s.target.enable) {
        return { kind: 'if', branches: [{ cond: s.target.enable, body: [s], loc: s.loc }], loc: s.loc };
      }
      if (s.kind === 'if') return { ...s, branches: s.branches.map(b => ({ ...b, body: b.body.map(wrap) })) };
      if (s.kind === 'switch') return { ...s, cases: s.cases.map(c => ({ ...c, body: c.body.map(wrap) })) };
      return s;
    };
    return stmts.map(wrap);
  }

  // ---- memories --------------------------------------------------------------------------------
  #emitMemories(out: Lines): void {
    for (const mem of this.#ir.memories) {
      if (mem.init) {
        out.push(0, `// ${formatLoc(mem.loc)}: initial contents`);
        const i = this.#freshName(`${mem.name}_init_i`);
        out.push(0, `integer ${i};`);
        out.push(0, 'initial begin');
        out.push(1, `for (${i} = 0; ${i} < ${mem.depth}; ${i} = ${i} + 1) ${mem.name}[${i}] = ${printConst(0n, mem.shape.width, false)};`);
        mem.init.forEach((v, i) => { if (v !== 0n) out.push(1, `${mem.name}[${i}] = ${printConst(v, mem.shape.width, false)};`); });
        out.push(0, 'end');
        out.blank();
      }
      mem.readPorts.forEach((p, i) => {
        if (p.async) {
          out.push(0, `// ${formatLoc(p.loc)}: asynchronous read port`);
          out.push(0, `assign ${memReadName(mem, i)} = ${mem.name}[${this.#addr(mem, p.addr)}];`);
          out.blank();
          return;
        }
        out.push(0, `// ${formatLoc(p.loc)}: registered read port`);
        out.push(0, `always @(posedge ${p.domain.clock?.name ?? 'clk'}) begin`);
        const read = `${memReadName(mem, i)} <= ${mem.name}[${this.#addr(mem, p.addr)}];`;
        if (p.enable) {
          out.push(1, `if (${this.#printer.printTop(p.enable)}) begin`);
          out.push(2, read);
          out.push(1, 'end');
        } else out.push(1, read);
        out.push(0, 'end');
        out.blank();
      });
    }
  }

  #addr(mem: Memory, addr: Expr): string {
    const need = Math.max(1, Math.ceil(Math.log2(mem.depth)));
    const text = this.#printer.print(addr);
    return addr.width === need ? text : `{${printConst(0n, need - addr.width, false)}, ${text}}`;
  }

  // ---- instances -------------------------------------------------------------------------------
  #emitInstances(out: Lines): void {
    for (const inst of this.#ir.instances) {
      out.push(0, `// ${formatLoc(inst.loc)}`);
      out.push(0, `${this.#moduleNames(inst.module)} ${inst.name} (`);
      const ports = inst.module.ports;
      ports.forEach((p, i) => {
        const sig = inst.connections.get(p.signal.name)!;
        out.push(1, `.${p.signal.name}(${sig.name})${i === ports.length - 1 ? '' : ','}`);
      });
      out.push(0, ');');
      out.blank();
    }
  }

  // ---- assertions and cover points -----------------------------------------------------------
  #emitAsserts(out: Lines): void {
    this.#emitChecks(out, 'assert', '`ifndef SYNTHESIS', clock => `// assertions (simulation only), checked at each ${clock} edge outside reset`);
  }

  #emitCovers(out: Lines): void {
    this.#emitChecks(out, 'cover', '`ifdef VERILATOR', clock => `// cover points (Verilator coverage only), counted at each ${clock} edge outside reset`);
  }

  /** One guarded `always` block per clock domain holding its `kind` statements, outside reset. */
  #emitChecks(out: Lines, kind: 'assert' | 'cover', guard: string, title: (clock: string) => string): void {
    for (const d of this.#ir.domains.values()) {
      const stmts = projectStmts(this.#ir.body, s => s.kind === kind && s.domain === d);
      if (!stmts.length) continue;
      const clock = d.clock?.name ?? 'clk';
      out.push(0, guard);
      out.push(0, title(clock));
      out.push(0, `always @(posedge ${clock}) begin`);
      const hasReset = d.reset && domainHasReset(this.#ir, d.name);
      if (hasReset) out.push(1, `if (${d.resetActive === 'low' ? d.reset!.name : `!${d.reset!.name}`}) begin`);
      this.#stmts(out, hasReset ? 2 : 1, stmts, '<=');
      if (hasReset) out.push(1, 'end');
      out.push(0, 'end');
      out.push(0, '`endif');
      out.blank();
    }
  }

  // ---- statements ------------------------------------------------------------------------------
  #stmts(out: Lines, depth: number, stmts: readonly Stmt[], op: '=' | '<='): void {
    for (const s of stmts) this.#stmt(out, depth, s, op);
  }

  #stmt(out: Lines, depth: number, s: Stmt, op: '=' | '<='): void {
    switch (s.kind) {
      case 'assign': {
        const t = s.target;
        const target = s.lo === 0 && s.width === t.shape.width ? t.name : s.width === 1 ? `${t.name}[${s.lo}]` : `${t.name}[${s.lo + s.width - 1}:${s.lo}]`;
        out.push(depth, `${target} ${op} ${stripParens(this.#value(s))};`);
        return;
      }
      case 'if':
        s.branches.forEach((b, i) => {
          const head = b.cond === null ? 'end else begin' : `${i === 0 ? 'if' : 'end else if'} (${this.#printer.printTop(b.cond)}) begin`;
          out.push(depth, head);
          this.#stmts(out, depth + 1, b.body, op);
        });
        out.push(depth, 'end');
        return;
      case 'switch': {
        out.push(depth, `case (${this.#printer.printTop(s.subject)})`);
        for (const c of s.cases) {
          const label = c.values === null ? 'default' : c.values.map(v => this.#printer.print(v)).join(', ');
          out.push(depth + 1, `${label}: begin`);
          this.#stmts(out, depth + 2, c.body, op);
          out.push(depth + 1, 'end');
        }
        if (!s.cases.some(c => c.values === null)) out.push(depth + 1, 'default: begin end');
        out.push(depth, 'endcase');
        return;
      }
      case 'memwrite': {
        const mem = s.mem;
        const addr = this.#addr(mem, s.addr);
        const data = this.#printer.print(s.data);
        const lane = mem.writePorts[s.port]!.laneWidth;
        if (!s.mask || lane === null) { out.push(depth, `${mem.name}[${addr}] <= ${data};`); return; }
        const lanes = mem.shape.width / lane;
        const maskText = this.#printer.print(s.mask);
        const maskName = /^[A-Za-z_]\w*$/.test(maskText) ? maskText : this.temp('mask', s.mask, maskText, null);
        const dataName = /^[A-Za-z_]\w*$/.test(data) ? data : this.temp('wdata', s.data, data, null);
        for (let i = 0; i < lanes; i++) {
          out.push(depth, `if (${maskName}${lanes > 1 ? `[${i}]` : ''}) ${mem.name}[${addr}][${(i + 1) * lane - 1}:${i * lane}] <= ${dataName}[${(i + 1) * lane - 1}:${i * lane}];`);
        }
        return;
      }
      case 'cover': {
        out.push(depth, `// ${formatLoc(s.loc)}`);
        this.#covers.push({ index: out.out.length, stmt: s });
        out.push(depth, `${s.name}: cover (${this.#printer.printTop(s.cond)});`);
        return;
      }
      case 'assert': {
        out.push(depth, `if (!(${this.#printer.printTop(s.cond)})) begin`);
        // The values of the signals the condition names go with the message (the testbench
        // shows them: sim/model.ts); a few, and none wider than 64 bits, so it stays a line.
        const named = signalsIn(s.cond).filter(x => x.shape.width <= 64).slice(0, 8);
        const values = named.length ? ` [${named.map(x => `${x.name}=%0h`).join(' ')}]` : '';
        out.push(depth + 1, `$display("%m: assertion failed at ${formatLoc(s.loc)}: ${escapeString(s.message)}${values}"${named.map(x => `, ${x.name}`).join('')});`);
        this.#asserts.push({ index: -1, stmt: s });
        out.push(depth + 1, '$stop;');
        // Record the `$stop` line index within the logic section; fixed up in emit().
        this.#asserts[this.#asserts.length - 1]!.index = out.out.length - 1;
        out.push(depth, 'end');
        return;
      }
    }
  }

  /** The assigned value, extended to the target bits when narrower. */
  #value(s: AssignStmt): string {
    const v = s.value;
    if (v.width >= s.width) return this.#printer.print(v);
    const ext: Expr = { kind: 'ext', arg: v, width: s.width, signed: v.signed, loc: v.loc };
    return this.#printer.print(ext);
  }
}

function enumConst(shape: EnumShape, member: string, value: bigint, loc: SourceLoc): Expr {
  return constExpr(value, shape.width, false, loc, enumLabel(shape, member));
}

export function memReadName(mem: Memory, port: number): string {
  return mem.readPorts.length === 1 ? `${mem.name}_rdata` : `${mem.name}_rdata${port}`;
}

function uniqueSignals(stmts: readonly Stmt[]): Signal[] {
  const out: Signal[] = [];
  // Targets are signals or memories; only signals have a `kind`.
  for (const s of stmts) for (const t of stmtTargets(s)) if ('kind' in t && !out.includes(t)) out.push(t);
  return out;
}

/**
 * A struct's fields with their bits, in declaration order (the first at the least significant
 * bits): `struct hdr: op [3:0], len [15:4], tag [35:16]`; a Vec of structs gives the element's
 * layout. Null for other shapes.
 */
export function structLayout(shape: Shape): string | null {
  if (shape.kind === 'vec' && shape.element.kind === 'struct') {
    return `${shape.count} x ${structLayout(shape.element)} (element i at [i*${shape.element.width} +: ${shape.element.width}])`;
  }
  if (shape.kind !== 'struct') return null;
  const fields = shape.fields.map(f => {
    const bits = f.shape.width === 1 ? `[${f.offset}]` : `[${f.offset + f.shape.width - 1}:${f.offset}]`;
    const kind = f.shape.kind === 'struct' ? ` (struct ${f.shape.name})` : f.shape.kind === 'enum' ? ` (enum ${f.shape.name})`
      : f.shape.kind === 'vec' ? ` (${f.shape.count} x ${f.shape.element.width} bits)` : f.shape.kind === 'sint' ? ' (signed)' : '';
    return `${f.name} ${bits}${kind}`;
  });
  return `struct ${shape.name}: ${fields.join(', ')}`;
}

/** `(* ASYNC_REG = "TRUE" *) ` before a declaration, or nothing. */
function attributeText(attrs: Readonly<Record<string, string>> | null): string {
  if (!attrs) return '';
  const list = Object.entries(attrs).map(([k, v]) => `${k} = "${v}"`);
  return list.length ? `(* ${list.join(', ')} *) ` : '';
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ');
}

/** The signals an expression reads, each once, in the order they appear. */
function signalsIn(e: Expr, out: Signal[] = []): Signal[] {
  switch (e.kind) {
    case 'ref': if (!out.includes(e.signal)) out.push(e.signal); break;
    case 'slice': case 'unary': case 'repl': case 'ext': signalsIn(e.arg, out); break;
    case 'part': signalsIn(e.arg, out); signalsIn(e.index, out); break;
    case 'binary': signalsIn(e.a, out); signalsIn(e.b, out); break;
    case 'mux': signalsIn(e.sel, out); signalsIn(e.onTrue, out); signalsIn(e.onFalse, out); break;
    case 'concat': for (const p of e.parts) signalsIn(p, out); break;
    default: break;
  }
  return out;
}

function escapeString(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\n/g, ' ');
}

export { walkStmts };
