// Names: every signal, memory, instance and cover point in a module needs its own legal
// Verilog name (a cover point's label shares the module's namespace: Verilator rejects a
// label equal to a signal name).

import type { Diagnostic, SourceLoc } from '../hdl/errors.ts';
import { formatLoc } from '../hdl/errors.ts';
import { coverPoints } from '../hdl/analysis.ts';
import type { ModuleIR } from '../hdl/ir.ts';

// IEEE 1800-2017 reserved words (a superset of Verilog-2005's): Verilator parses .v files
// with them reserved, so a signal named `packed` or `type` would not compile.
const keywords = new Set(`accept_on alias always always_comb always_ff always_latch and assert assign assume automatic before begin bind bins binsof bit break buf bufif0 bufif1 byte case casex casez cell chandle checker class clocking cmos config const constraint context continue cover covergroup coverpoint cross deassign default defparam design disable dist do edge else end endcase endchecker endclass endclocking endconfig endfunction endgenerate endgroup endinterface endmodule endpackage endprimitive endprogram endproperty endsequence endspecify endtable endtask enum event eventually expect export extends extern final first_match for force foreach forever fork forkjoin function generate genvar global highz0 highz1 if iff ifnone ignore_bins illegal_bins implements implies import incdir include initial inout input inside instance int integer interconnect interface intersect join join_any join_none large let liblist library local localparam logic longint macromodule matches medium modport module nand negedge nettype new nexttime nmos nor noshowcancelled not notif0 notif1 null or output package packed parameter pmos posedge primitive priority program property protected pull0 pull1 pulldown pullup pulsestyle_ondetect pulsestyle_onevent pure rand randc randcase randsequence rcmos real realtime ref reg reject_on release repeat restrict return rnmos rpmos rtran rtranif0 rtranif1 s_always s_eventually s_nexttime s_until s_until_with scalared sequence shortint shortreal showcancelled signed small soft solve specify specparam static string strong strong0 strong1 struct super supply0 supply1 sync_accept_on sync_reject_on table tagged task this throughout time timeprecision timeunit tran tranif0 tranif1 tri tri0 tri1 triand trior trireg type typedef union unique unique0 unsigned until until_with untyped use uwire var vectored virtual void wait wait_order wand weak weak0 weak1 while wildcard wire with within wor xnor xor`.split(/\s+/));

export function checkNames(m: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Map<string, SourceLoc>();
  const claim = (name: string, loc: SourceLoc, what: string): void => {
    if (keywords.has(name)) {
      out.push({ pass: 'names', message: `${what} '${name}' is a Verilog/SystemVerilog keyword`, hint: `rename it (e.g. '${name}_q')`, loc });
    }
    const first = seen.get(name);
    if (first) {
      out.push({ pass: 'names', message: `${what} '${name}' in module ${m.name} collides with a name first used at ${formatLoc(first)}`, hint: 'give each signal, memory, instance and cover point of a module its own name', loc });
    } else seen.set(name, loc);
  };
  for (const s of m.signals) claim(s.name, s.loc, s.kind === 'input' || s.kind === 'output' ? 'port' : s.kind);
  for (const mem of m.memories) {
    claim(mem.name, mem.loc, 'memory');
    mem.readPorts.forEach((p, i) => claim(mem.readPorts.length === 1 ? `${mem.name}_rdata` : `${mem.name}_rdata${i}`, p.loc, 'memory read port'));
  }
  for (const inst of m.instances) claim(inst.name, inst.loc, 'instance');
  for (const c of coverPoints(m)) claim(c.name, c.loc, 'cover point');
  return out;
}
